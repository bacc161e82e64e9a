# Result-size bomb: a one-kilobyte solution whose new cache has as many keys as a reply may carry, so that a message listing them would be megabytes (in the result, the database, every event).
import numpy as np

KEYS = __KEYS__


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bytes_per_value):
    return 2 * n_layers * n_kv_heads * head_dim * n_tokens * bytes_per_value


def attend_step(x_t, cache, p):
    return np.zeros(p["Wq"].shape[1]), {f"key{i}": 0 for i in range(KEYS)}
