# Escape: a correct solution that also tries to write to the checkout, the exercise, /etc, the runner and the database.
import os

REPORT = []
for path in (
    "__REPO__/__CANARY__",
    "__REPO__/grader/__CANARY__.py",
    "__EXERCISE__/__CANARY__",
    "__EXERCISE__/checks.py",
    "/etc/__CANARY__",
    "/etc/passwd",
    "/opt/mlkata/lib/runner/__CANARY__",
    "/opt/mlkata/lib/runner/wire/__init__.py",
    "/usr/__CANARY__",
    "/var/lib/postgresql/__CANARY__",
    "/root/__CANARY__",
    "/proc/sys/kernel/__CANARY__",
    "/proc/sys/kernel/core_pattern",
):
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "a") as f:
            f.write("pwned\n")
        REPORT.append(f"WROTE {path}")
    except OSError as exc:
        REPORT.append(f"denied {path}: {type(exc).__name__} errno {exc.errno}")
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
