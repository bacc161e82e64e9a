# Stack overflow: lifts the recursion limit, then recurses through a C function (map) until the C stack overflows.
import sys

sys.setrecursionlimit(10**8)


def _dive():
    return list(map(lambda _: _dive(), [0]))


def attend_step(x_t, cache, p):
    return _dive()


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bytes_per_value):
    return _dive()
