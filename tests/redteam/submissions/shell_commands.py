# Privileges: a correct solution that also runs shell commands looking for secrets, privileges and other users.
import os
import subprocess

COMMANDS = [
    "id",
    "sudo -n id",
    "su -c id root </dev/null",
    "cat /etc/shadow",
    "env",
    "ls -la / /root /work __REPO__",
    "cat /proc/1/environ",
    "grep -h Cap /proc/self/status",
]
for command in COMMANDS:
    try:
        done = subprocess.run(["sh", "-c", command], capture_output=True, text=True, timeout=1)
        print(f"$ {command}\n[exit {done.returncode}]\n{done.stdout}{done.stderr}")
    except Exception as exc:
        print(f"$ {command}\n[failed: {type(exc).__name__}: {exc}]")
print("os.system(id) ->", os.system("id -u >/dev/null"))
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
