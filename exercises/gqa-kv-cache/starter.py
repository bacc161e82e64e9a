import numpy as np  # noqa: F401  (you will need it)


def gqa_attend_step(x_t, cache, p, n_heads, n_kv_heads):
    """One decoding step of grouped-query attention with a key/value cache.

    x_t: the new token's embedding, shape (D,).
    cache: {"k": keys, "v": values}, each of shape (n_kv_heads, t, d).
    p: {"Wq": (D, n_heads * d), "Wk": (D, n_kv_heads * d), "Wv": (D, n_kv_heads * d)}.
    Returns (out, new_cache): out of shape (n_heads * d,), new_cache with t + 1 tokens per KV head.
    """
    raise NotImplementedError("split q, k and v into heads, append k and v, then let each query head attend")
