"""The built front end (``static/dist``): served precompressed, cached for good where the URL is versioned.

``static/build.mjs`` writes each text file also as ``.br`` and ``.gz`` and a ``manifest.json``
with the build's version (a hash of every file) and the chunks each entry imports. A request that
accepts brotli or gzip gets those bytes as they are, with ``Vary: Accept-Encoding``; nothing is
compressed per request. A URL is versioned when its file name carries esbuild's content hash
(chunks, fonts) or its ``?v=`` is the current build's version: those are ``immutable`` for a year.
Anything else (an old ``?v=``, no version) must be revalidated, so a rebuild is seen at once.
"""

from __future__ import annotations

import json
import mimetypes
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs

from starlette.datastructures import Headers
from starlette.responses import FileResponse, Response
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
#: esbuild's ``[name]-[hash]``: eight characters of base32 before the extension.
_HASHED_NAME = re.compile(r"-[A-Z0-9]{8}\.[a-z0-9]+$")
#: Preferred first: brotli is about a fifth smaller than gzip on these bundles.
_ENCODINGS = (("br", ".br"), ("gzip", ".gz"))
_TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8", ".svg": "image/svg+xml"}


@dataclass(frozen=True)
class Manifest:
    """What the build says of itself: its version, and the chunks each entry imports."""

    version: str = "0"
    preload: dict[str, list[str]] = field(default_factory=dict)

    @classmethod
    def read(cls, dist: Path) -> Manifest:
        try:
            data = json.loads((dist / "manifest.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return cls()  # not built: pages still render, without their scripts
        return cls(version=str(data.get("version", "0")), preload=dict(data.get("preload", {})))

    def url(self, name: str) -> str:
        return f"/static/{name}?v={self.version}"

    def preloads(self, entry: str) -> list[str]:
        """URLs of the chunks ``entry`` imports (their names are hashed: no ``?v=`` needed)."""
        return [f"/static/{name}" for name in self.preload.get(entry, [])]


def accepted_encodings(header: str) -> set[str]:
    """The content codings an Accept-Encoding header accepts (``q=0`` refuses one)."""
    accepted = set()
    for part in header.split(","):
        name, _, params = part.strip().partition(";")
        q = params.strip().removeprefix("q=") if params.strip().startswith("q=") else "1"
        try:
            weight = float(q)
        except ValueError:
            weight = 1.0
        if name and weight > 0:
            accepted.add(name.strip().lower())
    return accepted


class StaticAssets(StaticFiles):
    """StaticFiles that sends a precompressed twin when the client takes it, with caching headers."""

    def __init__(self, *, directory: Path, version: str) -> None:
        super().__init__(directory=directory)
        self.version = version

    def file_response(
        self, full_path: str | os.PathLike[str], stat_result: os.stat_result, scope: Scope, status_code: int = 200
    ) -> Response:
        headers = Headers(scope=scope)
        path = Path(full_path)
        cache = IMMUTABLE if self._versioned(path, scope) else REVALIDATE
        accepted = accepted_encodings(headers.get("accept-encoding", ""))
        for coding, suffix in _ENCODINGS:
            twin = path.with_name(path.name + suffix)
            if coding in accepted and twin.is_file():
                response: Response = FileResponse(
                    twin,
                    stat_result=os.stat(twin),
                    status_code=status_code,
                    media_type=_TYPES.get(path.suffix) or self._media_type(path),
                    headers={"content-encoding": coding, "vary": "Accept-Encoding", "cache-control": cache},
                )
                break
        else:
            response = FileResponse(path, status_code=status_code, stat_result=stat_result)
            response.headers["cache-control"] = cache
            if any(path.with_name(path.name + suffix).is_file() for _, suffix in _ENCODINGS):
                response.headers["vary"] = "Accept-Encoding"
        if self.is_not_modified(response.headers, headers):
            return Response(status_code=304, headers={k: v for k, v in response.headers.items() if k in _KEPT_ON_304})
        return response

    def _versioned(self, path: Path, scope: Scope) -> bool:
        if _HASHED_NAME.search(path.name):
            return True
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        return query.get("v") == [self.version] and self.version != "0"

    @staticmethod
    def _media_type(path: Path) -> str:
        return mimetypes.guess_type(path.name)[0] or "application/octet-stream"


_KEPT_ON_304 = {"cache-control", "content-location", "date", "etag", "expires", "vary", "last-modified"}
