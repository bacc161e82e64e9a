"""The built front end: precompressed bytes when accepted, immutable caching only for versioned URLs."""

from __future__ import annotations

import asyncio
import gzip
import re
from pathlib import Path

import httpx
import pytest
from starlette.applications import Starlette
from starlette.routing import Mount

from app.web.assets import IMMUTABLE, REVALIDATE, Manifest, StaticAssets, accepted_encodings


@pytest.fixture
def dist(tmp_path: Path) -> Path:
    (tmp_path / "chunks").mkdir()
    text = "console.log('hello');\n" * 200
    for name in ("exercise.js", "chunks/chunk-ABCDEFGH.js"):
        (tmp_path / name).write_text(text)
        (tmp_path / f"{name}.gz").write_bytes(gzip.compress(text.encode()))
        (tmp_path / f"{name}.br").write_bytes(b"brotli bytes")  # only its presence and choice matter here
    (tmp_path / "manifest.json").write_text(
        '{"version": "v123", "preload": {"exercise.js": ["chunks/chunk-ABCDEFGH.js"]}}'
    )
    return tmp_path


class Client:
    """Requests to a Starlette app with only the static mount, in process."""

    def __init__(self, dist: Path) -> None:
        manifest = Manifest.read(dist)
        self.app = Starlette(routes=[Mount("/static", StaticAssets(directory=dist, version=manifest.version))])

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *_: object) -> None:
        pass

    def get(self, url: str, headers: dict[str, str] | None = None) -> httpx.Response:
        async def fetch() -> httpx.Response:
            transport = httpx.ASGITransport(app=self.app)
            async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
                return await c.get(url, headers=headers or {})

        return asyncio.run(fetch())


def client(dist: Path) -> Client:
    return Client(dist)


def test_brotli_is_preferred_then_gzip_then_the_plain_file(dist: Path) -> None:
    with client(dist) as c:
        br = c.get("/static/exercise.js?v=v123", headers={"Accept-Encoding": "gzip, br"})
        assert (br.headers["content-encoding"], br.content) == ("br", b"brotli bytes")
        assert br.headers["vary"] == "Accept-Encoding"
        assert br.headers["content-type"].startswith("text/javascript")
        gz = c.get("/static/exercise.js?v=v123", headers={"Accept-Encoding": "gzip"})
        assert gz.headers["content-encoding"] == "gzip" and gz.text.startswith("console.log")
        plain = c.get("/static/exercise.js?v=v123", headers={"Accept-Encoding": "identity"})
        assert "content-encoding" not in plain.headers and plain.headers["vary"] == "Accept-Encoding"


def test_versioned_urls_are_immutable_and_others_revalidate(dist: Path) -> None:
    with client(dist) as c:
        assert c.get("/static/exercise.js?v=v123").headers["cache-control"] == IMMUTABLE
        assert c.get("/static/chunks/chunk-ABCDEFGH.js").headers["cache-control"] == IMMUTABLE
        # An old version's URL must not be cached for good with today's bytes.
        assert c.get("/static/exercise.js?v=old").headers["cache-control"] == REVALIDATE
        assert c.get("/static/exercise.js").headers["cache-control"] == REVALIDATE


def test_a_conditional_request_gets_304(dist: Path) -> None:
    with client(dist) as c:
        first = c.get("/static/exercise.js?v=v123", headers={"Accept-Encoding": "br"})
        again = c.get(
            "/static/exercise.js?v=v123", headers={"Accept-Encoding": "br", "If-None-Match": first.headers["etag"]}
        )
        assert again.status_code == 304 and again.headers["cache-control"] == IMMUTABLE


def test_q_zero_refuses_an_encoding() -> None:
    assert accepted_encodings("br;q=0, gzip;q=0.5") == {"gzip"}
    assert accepted_encodings("") == set()


def test_the_manifest_names_the_entry_s_chunks_and_pages_use_them(dist: Path) -> None:
    manifest = Manifest.read(dist)
    assert manifest.url("exercise.js") == "/static/exercise.js?v=v123"
    assert manifest.preloads("exercise.js") == ["/static/chunks/chunk-ABCDEFGH.js"]
    assert Manifest.read(dist / "missing").version == "0"


def test_the_real_build_is_split_and_precompressed() -> None:
    built = Path(__file__).resolve().parents[3] / "static" / "dist"
    if not (built / "manifest.json").is_file():
        pytest.fail("the front end is not built: run `make frontend`")
    manifest = Manifest.read(built)
    assert re.fullmatch(r"[0-9a-f]{12}", manifest.version)
    for name in ["exercise.js", "app.css", *manifest.preload["exercise.js"]]:
        assert (built / f"{name}.br").is_file() and (built / f"{name}.gz").is_file(), name
    # KaTeX, vim keys and the diff view are chunks of their own, not in what every page loads.
    first = "".join((built / name).read_text() for name in ["exercise.js", *manifest.preload["exercise.js"]])
    assert "katex" not in first.lower() or "import(" in first
    assert "vimGlobalState" not in first
