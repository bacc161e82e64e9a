# Escape: a correct solution that also tries to ptrace its parent and pid 1, and to read their memory.
import ctypes
import os

PTRACE_ATTACH = 16
libc = ctypes.CDLL(None, use_errno=True)
REPORT = []
for pid in (os.getppid(), 1):
    result = libc.ptrace(PTRACE_ATTACH, pid, None, None)
    REPORT.append(f"ptrace(ATTACH, {pid}) = {result} errno {ctypes.get_errno()}")
    try:
        with open(f"/proc/{pid}/mem", "rb") as f:
            f.read(16)
        REPORT.append(f"READ /proc/{pid}/mem")
    except OSError as exc:
        REPORT.append(f"/proc/{pid}/mem: {type(exc).__name__} errno {exc.errno}")
print("\n".join(REPORT))
import numpy as np


def attend_step(x_t, cache, p):
    q, k, v = x_t @ p["Wq"], x_t @ p["Wk"], x_t @ p["Wv"]
    keys = np.vstack([cache["k"], k[None]])
    values = np.vstack([cache["v"], v[None]])
    scores = keys @ q / np.sqrt(q.shape[0])
    weights = np.exp(scores - scores.max())
    weights /= weights.sum()
    return weights @ values, {"k": keys, "v": values}


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bytes_per_value):
    return 2 * n_layers * n_kv_heads * head_dim * n_tokens * bytes_per_value
