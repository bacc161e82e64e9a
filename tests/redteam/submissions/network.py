# Network: a correct solution that also connects to loopback services and to an outside address.
import socket

REPORT = []
TARGETS = [("127.0.0.1", 6379), ("127.0.0.1", 5432), ("127.0.0.1", 8000), ("127.0.0.1", __PORT__), ("192.0.2.1", 80)]
for host, port in TARGETS:
    try:
        with socket.create_connection((host, port), timeout=0.5):
            REPORT.append(f"CONNECTED {host}:{port}")
    except OSError as exc:
        REPORT.append(f"no connection to {host}:{port}: {type(exc).__name__} errno {exc.errno}")
try:
    interfaces = [name for _, name in socket.if_nameindex()]
except OSError as exc:
    interfaces = [f"error {exc}"]
REPORT.append(f"interfaces: {interfaces}")
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
