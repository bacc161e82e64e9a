# Resource: time.sleep(3600) inside a call (no CPU used, so only the wall clock can stop it).
import time


def attend_step(x_t, cache, p):
    time.sleep(3600)


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bytes_per_value):
    time.sleep(3600)
