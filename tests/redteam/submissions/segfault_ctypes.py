# Crash: dereferences a NULL pointer through ctypes inside every call.
import ctypes


def attend_step(x_t, cache, p):
    return ctypes.string_at(0)


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bytes_per_value):
    return ctypes.string_at(0)
