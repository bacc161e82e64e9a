# Resource: a correct solution that also fills /tmp, /dev/shm and the working directory until the writes fail.
import os

REPORT = []
for place in ("/tmp", "/dev/shm", os.getcwd()):
    written = 0
    try:
        for i in range(1000):
            with open(os.path.join(place, f"__CANARY__-fill-{i}"), "wb") as f:
                for _ in range(64):
                    f.write(b"x" * (1 << 20))
                    written += 1 << 20
    except OSError as exc:
        REPORT.append(f"filled {place}: {written} bytes, then {type(exc).__name__} errno {exc.errno}")
    else:
        REPORT.append(f"filled {place}: {written} bytes, NO LIMIT")
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
