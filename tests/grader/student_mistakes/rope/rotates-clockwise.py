"""Mistake: puts the minus sign on the other sine, turning each pair clockwise instead of counter-clockwise.
Expect: the rotation has the wrong sign (clockwise, by −θ); y_2i = x_2i cos θ − x_2i+1 sin θ.
"""

import numpy as np


def rope(x, positions, base):
    T, d = x.shape
    out = np.zeros((T, d))
    for t in range(T):
        for i in range(d // 2):
            theta = positions[t] * base ** (-2 * i / d)
            a, b = x[t, 2 * i], x[t, 2 * i + 1]
            out[t, 2 * i] = a * np.cos(theta) + b * np.sin(theta)
            out[t, 2 * i + 1] = -a * np.sin(theta) + b * np.cos(theta)
    return out
