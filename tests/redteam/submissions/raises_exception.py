# Malformed: raises an exception inside every call (ValueError on line 4).
def attend_step(x_t, cache, p):
    message = "shapes do not match"
    raise ValueError(message)


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bytes_per_value):
    raise ValueError("no idea")
