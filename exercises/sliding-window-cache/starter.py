import numpy as np  # noqa: F401  (you will need it)


def window_attend_step(x_t, cache, p, window):
    """One decoding step of sliding-window attention with a ring-buffer cache.

    x_t: the new token's embedding, shape (D,).
    cache: {"k": keys, "v": values, "n": tokens seen so far}; "k" and "v" have shape (window, d).
    p: {"Wq": ..., "Wk": ..., "Wv": ...}, each of shape (D, d).
    window: how many of the most recent tokens (the new one included) the query attends to.
    Returns (out, new_cache), with out of shape (d,) and new_cache["n"] == cache["n"] + 1.
    """
    raise NotImplementedError("write k and v to slot n % window, then attend over the tokens in the window")
