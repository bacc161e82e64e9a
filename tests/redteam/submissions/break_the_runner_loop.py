# Broken runner: replaces the runner's call function from inside the sandbox with one that raises, so the runner's own loop fails; the run must end as the solution's exit, not as anything the grader did.
import sys

import numpy as np


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bytes_per_value):
    return 2 * n_layers * n_kv_heads * head_dim * n_tokens * bytes_per_value


def attend_step(x_t, cache, p):
    return np.zeros(2), cache


def _broken(*args):
    raise RuntimeError("the runner was rewritten")


for _name in ("__main__", "runner.main"):
    if hasattr(sys.modules.get(_name), "_call"):
        sys.modules[_name]._call = _broken
