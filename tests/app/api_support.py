"""Helpers for the API tests: a real server in a thread, an event-stream reader, sample solutions."""

from __future__ import annotations

import json
import shutil
import socket
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import uvicorn

from app.cli import uvicorn_options
from app.main import create_app
from app.settings import Settings
from grader.exercise import mutant_source

REPO = Path(__file__).resolve().parents[2]
KV = REPO / "exercises" / "kv-cache-decoding"
SLUG = "kv-cache-decoding"


class RunningServer:
    """uvicorn serving one app object in a thread."""

    def __init__(self, settings: Settings, **app_options: Any) -> None:
        self.settings = settings
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.app = create_app(settings, **app_options)
        # The edge `mlkata serve` has: its protocol, timeouts, limits and proxy headers.
        config = uvicorn.Config(self.app, log_level="warning", lifespan="on", **uvicorn_options(settings))
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [sock]}, daemon=True)
        self._sock = sock
        self.thread.start()
        deadline = time.monotonic() + 120
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the server did not start")
            time.sleep(0.02)

    def client(self) -> httpx.Client:
        """A new learner: a client with its own cookie jar."""
        return httpx.Client(base_url=self.url, timeout=30)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)
        self._sock.close()


def copy_exercise(root: Path, time_seconds: int = 2) -> Path:
    """A copy of the KV-cache exercise under ``root`` with a shorter time limit, so timeouts are quick."""
    shutil.copytree(KV, root / SLUG)
    toml = root / SLUG / "exercise.toml"
    text = toml.read_text(encoding="utf-8")
    assert "time_seconds = 10" in text
    toml.write_text(text.replace("time_seconds = 10", f"time_seconds = {time_seconds}"), encoding="utf-8")
    return root


def read_events(client: httpx.Client, url: str, last_event_id: str | None = None) -> list[dict[str, Any]]:
    """Read a whole event stream: [{"id", "event", "data"}], with data parsed as JSON."""
    headers = {"Last-Event-ID": last_event_id} if last_event_id is not None else {}
    events: list[dict[str, Any]] = []
    with client.stream("GET", url, headers=headers, timeout=60) as response:
        assert response.status_code == 200, response.read()
        assert response.headers["content-type"].startswith("text/event-stream")
        current: dict[str, Any] = {}
        for line in response.iter_lines():
            if line == "":
                if "event" in current:
                    events.append(current)
                current = {}
            elif line.startswith(":"):
                continue
            else:
                field, _, value = line.partition(":")
                value = value.removeprefix(" ")
                current[field] = json.loads(value) if field == "data" else value
    return events


def submit(client: httpx.Client, code: str, slug: str = SLUG) -> httpx.Response:
    return client.post(f"/api/exercises/{slug}/submissions", json={"code": code})


def assert_error(response: httpx.Response, status: int) -> str:
    assert response.status_code == status
    assert response.headers["content-type"] == "application/json"
    body = response.json()
    # The canonical error body, pinned: exactly these keys.
    assert body == {"error": {"status": status, "message": body["error"]["message"]}}
    message = body["error"]["message"]
    assert isinstance(message, str) and len(message) > 10
    return message


def reference_code() -> str:
    return (KV / "reference.py").read_text(encoding="utf-8")


def mutant_code(name: str) -> str:
    return mutant_source(KV, name)
