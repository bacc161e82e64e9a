# Resource: an infinite loop inside a call.
def attend_step(x_t, cache, p):
    while True:
        pass


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bytes_per_value):
    while True:
        pass
