# Forking: a correct solution that forks at import and in kv_cache_bytes; parent and child both carry on. It forks
# once in kv_cache_bytes: forking at every call of a batch of n calls makes 2**n processes (the children carry
# on with the batch), which the process limit stops or not depending on how fast the earlier ones end.
import os

import numpy as np

os.fork()



def attend_step(x_t, cache, p):
    q, k, v = x_t @ p["Wq"], x_t @ p["Wk"], x_t @ p["Wv"]
    keys = np.vstack([cache["k"], k[None]])
    values = np.vstack([cache["v"], v[None]])
    scores = keys @ q / np.sqrt(q.shape[0])
    weights = np.exp(scores - scores.max())
    weights /= weights.sum()
    return weights @ values, {"k": keys, "v": values}


_forked = []


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bytes_per_value):
    if not _forked:
        _forked.append(os.fork())
    return 2 * n_layers * n_kv_heads * head_dim * n_tokens * bytes_per_value
