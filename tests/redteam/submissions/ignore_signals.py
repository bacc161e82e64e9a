# Resource: ignores SIGTERM, SIGXCPU, SIGINT and SIGHUP, then spins forever.
import signal

for name in ("SIGTERM", "SIGXCPU", "SIGINT", "SIGHUP", "SIGXFSZ", "SIGALRM", "SIGUSR1"):
    signal.signal(getattr(signal, name), signal.SIG_IGN)


def attend_step(x_t, cache, p):
    while True:
        try:
            while True:
                pass
        except BaseException:
            pass


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bytes_per_value):
    return attend_step(None, None, None)
