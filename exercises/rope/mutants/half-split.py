import numpy as np


def rope(x, positions, base):
    # The "rotate half" layout of GPT-NeoX and Hugging Face's Llama: pairs (x[i], x[i + d/2]).
    d = x.shape[1]
    half = d // 2
    freqs = base ** (-np.arange(0, d, 2) / d)
    angles = np.outer(positions, freqs)
    cos, sin = np.cos(angles), np.sin(angles)
    first, second = x[:, :half], x[:, half:]
    return np.hstack([first * cos - second * sin, first * sin + second * cos])
