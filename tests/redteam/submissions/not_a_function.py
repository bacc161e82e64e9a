# Malformed: attend_step is a number, not a function.
attend_step = 42


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bytes_per_value):
    return 0
