"""The C library calls the jail needs and Python does not offer (prctl, mount, unshare, capset), through ctypes.

Every call is checked: a step of the sandbox that fails raises :class:`SetupError`, and the run
does not start.
"""

from __future__ import annotations

import ctypes
import os

PR_SET_PDEATHSIG, PR_SET_DUMPABLE = 1, 4

LIBC = ctypes.CDLL(None, use_errno=True)


class SetupError(RuntimeError):
    """A step of building the run's sandbox failed; the run must not start."""


def check(result: int, what: str) -> None:
    """Raise :class:`SetupError` naming ``what`` and errno unless a C call returned 0."""
    if result != 0:
        errno = ctypes.get_errno()
        raise SetupError(f"{what}: {os.strerror(errno)} (errno {errno})")


def prctl(option: int, arg: int, what: str) -> None:
    check(LIBC.prctl(option, ctypes.c_ulong(arg), 0, 0, 0), what)


def mount(source: str, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    result = LIBC.mount(
        source.encode(), target.encode(), fstype.encode() if fstype else None, flags, data.encode() if data else None
    )
    check(result, f"mount {fstype or 'flags'} on {target}")


def unshare(flags: int) -> None:
    check(LIBC.unshare(flags), "unshare")
