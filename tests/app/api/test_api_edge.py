"""The HTTP edge: connections that never finish their headers, too many connections, oversized headers.

These talk to a real server over raw sockets: ``mlkata serve`` in a subprocess where the command's own
wiring matters, else the same uvicorn configuration in a thread (``api_support.RunningServer``).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from api_support import RunningServer

from app.settings import Settings


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def mlkata_serve(tmp_path: Path, exercises_dir: Path, **settings: str) -> Iterator[str]:
    """``mlkata serve`` on a free port with these MLKATA_* settings; yields its base URL once it answers."""
    port = free_port()
    environment = {key: value for key, value in os.environ.items() if not key.startswith("MLKATA_")}
    environment.update(MLKATA_DATA_DIR=str(tmp_path / "data"), MLKATA_EXERCISES_DIR=str(exercises_dir))
    environment.update(MLKATA_WORKERS="0", MLKATA_LOG_FORMAT="text")
    environment.update({f"MLKATA_{name.upper()}": value for name, value in settings.items()})
    mlkata = str(Path(sys.executable).with_name("mlkata"))
    command = [mlkata, "serve", "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"]
    server = subprocess.Popen(command, env=environment, cwd=tmp_path, stdout=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120  # the CLI starting on a loaded machine
        while True:
            try:
                httpx.get(url + "/healthz", timeout=5)
                break
            except httpx.TransportError:
                assert server.poll() is None and time.monotonic() < deadline, "mlkata serve did not start"
                time.sleep(0.1)
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)


def connect(port: int) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port))


def seconds_until_closed(sock: socket.socket, wait: float) -> float:
    """How long the server took to close ``sock`` (reading and dropping anything it sends first)."""
    started = time.monotonic()
    sock.settimeout(wait)
    try:
        while sock.recv(4096):
            pass
    except TimeoutError:
        pytest.fail(f"the server kept the connection open for {wait} s")
    return time.monotonic() - started


def test_a_half_sent_request_line_is_closed_within_the_header_timeout_while_others_are_served(
    tmp_path: Path, exercises_dir: Path
) -> None:
    # Keep-alive far longer than the header timeout: only the header timeout can close these in time.
    with mlkata_serve(tmp_path, exercises_dir, header_timeout_seconds="1", keep_alive_seconds="30") as url:
        port = int(url.rsplit(":", 1)[1])
        with (
            socket.create_connection(("127.0.0.1", port)) as slow,
            socket.create_connection(("127.0.0.1", port)) as mute,
        ):
            slow.sendall(b"GET /api/exerc")
            started = time.monotonic()
            assert httpx.get(url + "/api/exercises", timeout=5).status_code == 200  # others are served meanwhile
            seconds_until_closed(slow, wait=20)
            # Its 1 s, and however late a loaded machine lets the server's timer fire: never the 30 s keep-alive.
            assert 0.8 <= time.monotonic() - started < 10
            assert seconds_until_closed(mute, wait=20) < 10  # a connection that sends nothing at all, too


@pytest.fixture
def make_server(
    tmp_path: Path, exercises_dir: Path, start_server: Callable[[Settings], RunningServer]
) -> Callable[..., RunningServer]:
    """A server on SQLite: these tests are about connections, not the database."""

    def make(**overrides: Any) -> RunningServer:
        values: dict[str, Any] = {"data_dir": tmp_path / "data", "exercises_dir": exercises_dir, "workers": 0}
        return start_server(Settings(_env_file=None, **{**values, **overrides}))  # type: ignore[call-arg]

    return make


def read_response(sock: socket.socket) -> bytes:
    """The head of one response, its body read past by Content-Length (enough for /healthz)."""
    data = b""
    while b"\r\n\r\n" not in data:
        data += sock.recv(4096)
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(
        int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")
    )
    while len(body) < length:
        body += sock.recv(4096)
    return head


def test_a_half_sent_request_after_a_keep_alive_response_is_closed_within_the_header_timeout(
    make_server: Callable[..., RunningServer],
) -> None:
    server = make_server(header_timeout_seconds=1, keep_alive_seconds=30)
    with connect(server.port) as sock:
        sock.settimeout(10)
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        assert read_response(sock).startswith(b"HTTP/1.1 200")
        sock.sendall(b"GET /heal")  # the first byte cancels uvicorn's keep-alive timer
        assert seconds_until_closed(sock, wait=20) < 10  # 1 s, late on a loaded machine; not the 30 s keep-alive


def test_a_slow_client_that_finishes_its_headers_in_time_is_served(make_server: Callable[..., RunningServer]) -> None:
    server = make_server(header_timeout_seconds=6)  # well past the 0.9 s its headers take, even on a loaded machine
    with connect(server.port) as sock:
        sock.settimeout(10)
        for piece in (b"GET /healthz HTTP/1.1\r\n", b"Host: x\r\n", b"Connection: close\r\n", b"\r\n"):
            sock.sendall(piece)
            time.sleep(0.3)
        assert read_response(sock).startswith(b"HTTP/1.1 200")


def test_connections_past_max_connections_are_refused_with_503(make_server: Callable[..., RunningServer]) -> None:
    server = make_server(max_connections=3, header_timeout_seconds=30)
    idle = [connect(server.port) for _ in range(3)]
    try:
        assert httpx.get(server.url + "/healthz", timeout=5).status_code == 503
    finally:
        for sock in idle:
            sock.close()
    deadline = time.monotonic() + 30
    while httpx.get(server.url + "/healthz", timeout=5).status_code != 200:
        assert time.monotonic() < deadline, "the server still refuses after the idle connections closed"
        time.sleep(0.05)


def test_headers_larger_than_max_header_kb_are_refused_with_400(make_server: Callable[..., RunningServer]) -> None:
    server = make_server(max_header_kb=4)
    assert httpx.get(server.url + "/healthz", headers={"x-big": "a" * 2000}, timeout=5).status_code == 200
    with connect(server.port) as sock:
        sock.settimeout(10)
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 8000)
        assert sock.recv(4096).startswith(b"HTTP/1.1 400")
