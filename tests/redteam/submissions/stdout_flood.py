# Resource: floods stdout without end.
import sys

LINE = "spam " * 200 + "\n"


def attend_step(x_t, cache, p):
    while True:
        sys.stdout.write(LINE)


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bytes_per_value):
    return attend_step(None, None, None)
