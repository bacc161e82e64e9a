"""Unprivileged uids for sandboxed runs, one per run at a time.

Process limits (RLIMIT_NPROC) count per uid, so giving each concurrent run a uid of its own
keeps one run's fork bomb from stopping another run from starting. A slot is held with an
advisory file lock, which also works across worker processes on one host and is released by the
kernel if the holder dies.
"""

from __future__ import annotations

import fcntl
import os
from dataclasses import dataclass
from pathlib import Path

FIRST_UID = 61000
SLOT_COUNT = 256
LOCK_DIR = Path(os.environ.get("MLKATA_UID_LOCK_DIR", "/run/mlkata-uids"))


@dataclass
class UidSlot:
    uid: int
    _fd: int

    def release(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def acquire_uid_slot() -> UidSlot:
    """Take the first free uid; raise ``RuntimeError`` when every slot is in use."""
    LOCK_DIR.mkdir(mode=0o700, parents=True, exist_ok=True)
    for index in range(SLOT_COUNT):
        uid = FIRST_UID + index
        fd = os.open(LOCK_DIR / f"{uid}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        return UidSlot(uid, fd)
    raise RuntimeError(f"all {SLOT_COUNT} sandbox uids are in use")
