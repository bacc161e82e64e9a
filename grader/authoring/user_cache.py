"""The authoring tools' cache, under ``$MLKATA_CACHE_DIR`` (default ``$XDG_CACHE_HOME/mlkata``, else
``~/.cache/mlkata``): small JSON documents that only save time, so one missing, unreadable or
unwritable is as good as none. Nothing here ever decides a verdict.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

#: Folders never hashed as content: what Python and tools write beside the files.
NOT_CONTENT = frozenset({"__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache"})


def cache_dir() -> Path:
    """Where the cache lives; read at each call, so a test (or a user) can point it elsewhere."""
    chosen = os.environ.get("MLKATA_CACHE_DIR")
    if chosen:
        return Path(chosen)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "mlkata"


def _path(kind: str, key: str) -> Path:
    return cache_dir() / kind / f"{key}.json"


def load(kind: str, key: str) -> Any | None:
    """The document stored under ``kind``/``key``, or None."""
    try:
        return json.loads(_path(kind, key).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def store(kind: str, key: str, document: Any) -> None:
    """Store ``document`` under ``kind``/``key``, atomically: a reader sees the old one or the new one, whole."""
    path = _path(kind, key)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=path.parent, suffix=".tmp", delete=False) as f:
            json.dump(document, f)
        os.replace(f.name, path)
    except OSError as exc:  # a cache that cannot be written only makes the next run slower
        log.warning("cannot write the cache %s: %s", path, exc)


def files_hash(roots: Iterable[Path], *extra: str) -> str:
    """A SHA-256 over every file under ``roots`` (its path relative to its root, and its bytes) and ``extra``."""
    digest = hashlib.sha256()
    for root in roots:
        files = sorted(
            p for p in root.rglob("*") if p.is_file() and not NOT_CONTENT.intersection(p.relative_to(root).parts)
        )
        for path in files:
            digest.update(str(path.relative_to(root)).encode() + b"\0")
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    for text in extra:
        digest.update(text.encode() + b"\0")
    return digest.hexdigest()
