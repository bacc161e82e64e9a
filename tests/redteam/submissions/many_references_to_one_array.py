# Trusted-side CPU bomb: a small reply holding 15,000 references to one array, which a public check shows to the student (repr() of it costs the grader tens of seconds).
import numpy as np


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bytes_per_value):
    return 2 * n_layers * n_kv_heads * head_dim * n_tokens * bytes_per_value


def attend_step(x_t, cache, p):
    d = p["Wq"].shape[1]
    return [np.arange(3.0)] * 15_000, {"k": np.zeros((1, d)), "v": np.zeros((1, d))}
