"""Reading and writing cgroup files: one write per value, flat-keyed counters, word lists."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


def write(path: Path, value: object) -> None:
    # One write() per value: the kernel takes each write to a cgroup file as one command.
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.write(fd, str(value).encode())
    finally:
        os.close(fd)


def read_words(path: Path) -> list[str]:
    try:
        return path.read_text().split()
    except OSError:
        return []


def flat_keyed(path: Path) -> dict[str, int]:
    """A ``key value`` file (``memory.events``, ``memory.oom_control``) as a dict of counts."""
    counts: dict[str, int] = {}
    with contextlib.suppress(OSError):
        for line in path.read_text().splitlines():
            key, _, value = line.partition(" ")
            with contextlib.suppress(ValueError):
                counts[key] = int(value)
    return counts
