# Kernel surface: a correct solution that also types into a terminal, makes namespaces, or calls clone3 and socket (__CASE__).
import ctypes
import os
import socket

import numpy as np

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
SYS_IOCTL, SYS_CLONE, SYS_CLONE3 = 16, 56, 435
TIOCSTI, CLONE_NEWUSER, SIGCHLD = 0x5412, 0x10000000, 17
DONE = []


def attack():
    case = "__CASE__"
    if case == "tiocsti":
        print("ioctl", libc.syscall(SYS_IOCTL, 1, TIOCSTI, b"x"), ctypes.get_errno())
    elif case == "tiocsti_high_bits":  # the kernel reads the request as 32 bits
        print("ioctl", libc.syscall(SYS_IOCTL, 1, ctypes.c_ulong(0xFFFFFFFF00000000 | TIOCSTI), b"x"))
    elif case == "clone_newuser":
        child = libc.syscall(SYS_CLONE, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0)
        if child == 0:
            os._exit(0)
        print("clone", child, ctypes.get_errno())
    elif case == "clone3":
        print(f"clone3 {libc.syscall(SYS_CLONE3, 0, 0)} errno {ctypes.get_errno()}")
    else:
        try:
            socket.socket()
        except OSError as exc:
            print(f"socket: {type(exc).__name__} errno {exc.errno}")
    return True


def _attend(x_t, cache, p):
    q, k, v = x_t @ p["Wq"], x_t @ p["Wk"], x_t @ p["Wv"]
    keys = np.vstack([cache["k"], k[None]])
    values = np.vstack([cache["v"], v[None]])
    scores = keys @ q / np.sqrt(q.shape[0])
    weights = np.exp(scores - scores.max())
    weights /= weights.sum()
    return weights @ values, {"k": keys, "v": values}


def attend_step(x_t, cache, p):
    if not DONE:
        DONE.append(attack())
    return _attend(x_t, cache, p)


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bytes_per_value):
    return 2 * n_layers * n_kv_heads * head_dim * n_tokens * bytes_per_value
