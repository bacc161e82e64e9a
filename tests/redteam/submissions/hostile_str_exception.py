# Malformed: raises an exception whose __str__ raises, and whose type name is enormous.
class Boom(Exception):
    def __str__(self):
        raise SystemExit(0)


Huge = type("E" * 100_000, (Exception,), {})


def attend_step(x_t, cache, p):
    raise Boom()


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bytes_per_value):
    raise Huge("x" * 1_000_000)
