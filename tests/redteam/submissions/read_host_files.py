# Secrets: a correct solution that also reads the checks, reference, repository, secrets, /proc and the environment.
import glob
import os

REPORT = []


def _try(label, action):
    try:
        value = action()
    except Exception as exc:
        REPORT.append(f"{label}: denied ({type(exc).__name__})")
        return
    REPORT.append(f"{label}: GOT {str(value)[:3000]}")


def _read(path):
    with open(path, "rb") as f:
        return f.read(100000).decode("utf-8", "replace")


for path in (
    "__EXERCISE__/checks.py",
    "__EXERCISE__/reference.py",
    "__REPO__/exercises/kv-cache-decoding/checks.py",
    "__REPO__/exercises/kv-cache-decoding/reference.py",
    "__REPO__/grader/grading/engine.py",
    "__REPO__/.env",
    "__SECRET_FILE__",
    "/etc/shadow",
    "/etc/passwd",
    "/root/.bash_history",
    "/proc/1/environ",
    "/proc/self/environ",
    "/var/lib/postgresql",
):
    _try(f"read {path}", lambda path=path: _read(path))
_try("list __REPO__", lambda: os.listdir("__REPO__"))
_try("list /", lambda: os.listdir("/"))
_try("list /opt/mlkata", lambda: os.listdir("/opt/mlkata"))


def _search():
    hits = []
    for top in os.listdir("/"):
        if top in ("usr", "proc", "sys", "dev") or os.path.islink("/" + top):
            continue
        for folder, _, files in os.walk("/" + top):
            hits += [os.path.join(folder, f) for f in files if f in ("checks.py", "reference.py", "exercise.toml")]
    return hits or 1 / 0


_try("search for checks.py, reference.py, exercise.toml", _search)
for cmdline in glob.glob("/proc/*/cmdline"):
    _try(f"read {cmdline}", lambda cmdline=cmdline: _read(cmdline).replace("\0", " "))
_try("environment", lambda: dict(os.environ))
_try("MLKATA_SECRET_KEY", lambda: os.environ["MLKATA_SECRET_KEY"])
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
