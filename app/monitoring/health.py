"""``/healthz`` and ``/metrics``, for the web app and (on ``--metrics-port``) for each worker process.

``/healthz`` answers 200 when every component works and 503 otherwise, with each component's status:
the database (a query), the queue (Redis answers a PING; the embedded queue always works) and the
sandbox (bubblewrap is installed, and whether the warm pool started its first zygote).
:func:`sandbox_refusal` is why ``mlkata serve`` will not start when it should grade and cannot.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Protocol

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from redis.exceptions import RedisError
from sqlalchemy import Engine, text
from sqlalchemy.exc import SQLAlchemyError

from app.monitoring.metrics import CONTENT_TYPE, Metrics
from grader.sandbox import SandboxUnavailable, examine, require_sandbox, warm_up

log = logging.getLogger(__name__)

Component = dict[str, Any]


class SandboxStatus:
    """Whether this process can grade: bubblewrap present, and the warm pool's first zygote started."""

    def __init__(self, *, jailed: bool, graders: int) -> None:
        self.jailed, self.graders = jailed, graders
        self._warm: str = "not started"
        self._lock = threading.Lock()

    def prewarm(self) -> None:
        """Start one zygote now (in the background), so the first submission does not wait for it."""
        if not self.jailed or self.graders == 0:
            return
        if os.geteuid() != 0:  # no uid slots: every run starts cold, in a user namespace
            with self._lock:
                self._warm = "not used (not root: runs start cold in a user namespace)"
            return

        def start() -> None:
            try:
                warm_up()
                outcome = "started"
            except Exception as exc:
                log.exception("the warm sandbox pool did not start")
                outcome = f"failed: {exc}"
            with self._lock:
                self._warm = outcome

        with self._lock:
            self._warm = "starting"
        threading.Thread(target=start, name="mlkata-prewarm", daemon=True).start()

    def check(self) -> Component:
        if self.graders == 0:
            return {"status": "ok", "graders": 0, "detail": "this process does not grade"}
        if not self.jailed:
            return {"status": "ok", "graders": self.graders, "jailed": False}
        try:
            bwrap = require_sandbox()
        except SandboxUnavailable as exc:
            return {"status": "fail", "graders": self.graders, "error": str(exc)}
        with self._lock:
            warm = self._warm
        status = "fail" if warm.startswith("failed") else "ok"
        return {"status": status, "graders": self.graders, "bwrap": bwrap, "warm_pool": warm}


#: The container settings a process that grades needs (docs/deployment.md says why each one).
SINGLE_CONTAINER_RUN = (
    "docker run -p 8000:8000 --user root --cap-drop ALL "
    "--cap-add SYS_ADMIN --cap-add NET_ADMIN --cap-add SETUID --cap-add SETGID --cap-add SETPCAP "
    "--cap-add KILL --cap-add SYS_NICE --security-opt apparmor=unconfined "
    "--security-opt systempaths=unconfined --security-opt no-new-privileges "
    "-v mlkata-data:/var/lib/mlkata mlkata"
)


def in_container() -> bool:
    return any(os.path.exists(marker) for marker in ("/.dockerenv", "/run/.containerenv"))


def sandbox_refusal(*, jailed: bool, graders: int) -> str | None:
    """Why a process that should grade ``graders`` submissions at once cannot, or ``None`` when it can.

    One real sandboxed run (``mlkata doctor``'s probe) decides: started without the permissions the
    sandbox needs (a container as its unprivileged user, no capabilities), every grade would end in an
    internal error while the pages still served.
    """
    if not jailed or graders == 0:
        return None
    found = {protection.name: protection for protection in examine()}
    essential = [found.get(name) for name in ("bubblewrap installed", "sandbox starts")]
    failed = [protection for protection in essential if protection is None or not protection.active]
    if not failed:
        return None
    reason = "; ".join(f"{p.name}: {p.detail}" if p is not None else "the sandbox was not tried" for p in failed)
    where = (
        "In a container, run the image as root with the sandbox's permissions, e.g.\n"
        f"  {SINGLE_CONTAINER_RUN}\n"
        "(docs/deployment.md says why each is needed)."
        if in_container()
        else "`mlkata doctor` shows what is missing."
    )
    return (
        f"this process would grade submissions (no MLKATA_REDIS_URL, {graders} grader(s)), but the sandbox does "
        f"not work here ({reason}).\n{where}\n"
        "To serve pages without grading set MLKATA_WORKERS=0; to grade in `mlkata worker` processes set "
        "MLKATA_REDIS_URL."
    )


def check_database(engine: Engine) -> Component:
    try:
        with engine.connect() as connection:
            connection.execute(text("SELECT 1"))
    except (SQLAlchemyError, OSError) as exc:
        return {"status": "fail", "backend": engine.dialect.name, "error": type(exc).__name__}
    return {"status": "ok", "backend": engine.dialect.name}


class Queue(Protocol):
    """What health reads of the grading queue (:class:`app.queue.SubmissionQueue`)."""

    shared: bool

    def ping(self) -> None: ...

    def depth(self) -> int: ...


def check_queue(queue: Queue) -> Component:
    """Whether the queue answers, and how many runs wait in it."""
    backend = "redis" if queue.shared else "embedded"
    try:
        queue.ping()
        waiting = queue.depth()
    except (RedisError, SQLAlchemyError, OSError) as exc:
        return {"status": "fail", "backend": backend, "error": f"{type(exc).__name__}: {exc}"}
    return {"status": "ok", "backend": backend, "depth": waiting}


def health_report(components: dict[str, Component]) -> tuple[int, dict[str, Any]]:
    healthy = all(c["status"] == "ok" for c in components.values())
    status = HTTPStatus.OK if healthy else HTTPStatus.SERVICE_UNAVAILABLE
    return status, {"status": "ok" if healthy else "fail", "components": components}


def router(report: Callable[[], tuple[int, dict[str, Any]]], metrics: Metrics) -> APIRouter:
    endpoints = APIRouter(include_in_schema=False)

    @endpoints.get("/healthz")
    def healthz(_: Request) -> JSONResponse:
        status, body = report()
        return JSONResponse(body, status_code=status, headers={"Cache-Control": "no-store"})

    @endpoints.get("/metrics")
    def metrics_endpoint() -> Response:
        return Response(metrics.render(), media_type=CONTENT_TYPE)

    return endpoints


def serve_endpoints(
    host: str, port: int, report: Callable[[], tuple[int, dict[str, Any]]], metrics: Metrics
) -> ThreadingHTTPServer:
    """``/metrics`` and ``/healthz`` of a worker process, on a small HTTP server in a thread."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path == "/metrics":
                self._send(HTTPStatus.OK, metrics.render(), CONTENT_TYPE)
            elif self.path == "/healthz":
                status, body = report()
                self._send(status, json.dumps(body).encode(), "application/json")
            else:
                self._send(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain")

        def _send(self, status: int, body: bytes, content_type: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass  # scrapes every few seconds would drown the log

    server = ThreadingHTTPServer((host, port), Handler)
    threading.Thread(target=server.serve_forever, name="mlkata-metrics", daemon=True).start()
    return server
