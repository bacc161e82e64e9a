import numpy as np  # noqa: F401  (you will need it)


def attend_step(x_t, cache, p):
    """One decoding step of one attention head with a key/value cache.

    x_t: the new token's embedding, shape (D,).
    cache: {"k": keys, "v": values}, each of shape (t, d).
    p: {"Wq": ..., "Wk": ..., "Wv": ...}, each of shape (D, d).
    Returns (out, new_cache), with out of shape (d,).
    """
    raise NotImplementedError("compute q, k and v, append k and v to the cache, then attend")


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bytes_per_value):
    """Bytes a KV cache takes for one sequence."""
    raise NotImplementedError
