"""An exercise's version: a hash of the contents of its folder, so every verdict says what it was graded against.

Every file counts (statement, checks, reference, mutants, limits in ``exercise.toml``), by its path
in the folder and its bytes; modification times do not, so a copy or a checkout of the same files has
the same version. Caches (``__pycache__``, compiled files) and hidden files are left out.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

#: Hex digits kept: 48 bits tell apart every edit an exercise will ever see, and stay readable in a table.
VERSION_LENGTH = 12


def folder_version(folder: Path) -> str:
    """The version of the exercise in ``folder``."""
    digest = hashlib.sha256()
    for path in sorted(_files(folder)):
        relative = path.relative_to(folder).as_posix().encode("utf-8")
        data = path.read_bytes()
        digest.update(b"%d:%s:%d:" % (len(relative), relative, len(data)))
        digest.update(data)
    return digest.hexdigest()[:VERSION_LENGTH]


def _files(folder: Path) -> list[Path]:
    found = []
    for directory, subfolders, names in os.walk(folder):
        subfolders[:] = [name for name in subfolders if name != "__pycache__" and not name.startswith(".")]
        found += [Path(directory) / name for name in names if not name.startswith(".") and not name.endswith(".pyc")]
    return found
