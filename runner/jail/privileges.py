"""The runner's last step before it serves: lose every capability for good, set ``no_new_privs``, install seccomp.

The capabilities are those the run's own user namespace granted; the seccomp filter is the one the
grader compiled (``grader/sandbox/seccomp.py``), the same bubblewrap installs on the cold path.
"""

from __future__ import annotations

import base64
import ctypes
import os
from typing import Any, ClassVar

from runner.jail.libc import LIBC, SetupError, check, prctl

PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, PR_CAP_AMBIENT = 24, 38, 22, 47
PR_CAP_AMBIENT_CLEAR_ALL, SECCOMP_MODE_FILTER = 4, 2
_LINUX_CAPABILITY_VERSION_3 = 0x20080522


class _SockFprog(ctypes.Structure):
    _fields_: ClassVar[list[tuple[str, Any]]] = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def drop(seccomp_filter: str | None) -> None:
    """Lose every capability this run's user namespace granted, for good, then install seccomp (base64 BPF)."""
    cap = 0
    while LIBC.prctl(PR_CAPBSET_DROP, ctypes.c_ulong(cap), 0, 0, 0) == 0:
        cap += 1
    if ctypes.get_errno() != 22 or cap < 38:  # EINVAL past the last capability is the normal end
        raise SetupError(f"PR_CAPBSET_DROP stopped at {cap}: {os.strerror(ctypes.get_errno())}")
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, "clear ambient capabilities")
    header = (ctypes.c_uint32 * 2)(_LINUX_CAPABILITY_VERSION_3, 0)
    data = (ctypes.c_uint32 * 6)()  # effective, permitted, inheritable: twice, all zero
    check(LIBC.capset(header, data), "capset")
    prctl(PR_SET_NO_NEW_PRIVS, 1, "PR_SET_NO_NEW_PRIVS")
    if seccomp_filter:
        program = base64.b64decode(seccomp_filter)
        buffer = ctypes.create_string_buffer(program, len(program))
        fprog = _SockFprog(len(program) // 8, ctypes.cast(buffer, ctypes.c_void_p))
        check(LIBC.prctl(PR_SET_SECCOMP, ctypes.c_ulong(SECCOMP_MODE_FILTER), ctypes.byref(fprog), 0, 0), "seccomp")
