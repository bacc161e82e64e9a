# Stack overflow: unbounded Python recursion inside a call.
def attend_step(x_t, cache, p):
    return attend_step(x_t, cache, p)


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bytes_per_value):
    return kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bytes_per_value)
