"""The ``mlkata`` command: grading commands from ``grader.authoring.cli`` plus the server commands.

Each sub-command defined elsewhere is imported only when it runs (``mlkata grade`` loads the grader,
not the web app; ``mlkata --help`` loads neither): :data:`ELSEWHERE` says where it lives and what
``mlkata --help`` says of it.
"""

from __future__ import annotations

import functools
import importlib
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer.core import TyperCommand, TyperGroup

if TYPE_CHECKING:
    import asyncio

    from app.settings import Settings

#: Sub-commands defined in other modules: name → (module, attribute, its line in ``mlkata --help``). The
#: attribute is a Typer app holding the command (or the command group itself, when it has the same name),
#: or the command's function. tests/app/test_app_cli.py keeps each line the first paragraph of its help.
ELSEWHERE: dict[str, tuple[str, str, str]] = {
    "grade": (
        "grader.authoring.cli", "app",
        "Grade a solution. Exit 0 when every check passes, 1 when it fails, 2 on a usage or infrastructure problem.",
    ),
    "check": (
        "grader.authoring.cli", "app",
        "Verify exercises: they load, the statement's math typesets, the reference passes, the try example runs on "
        "it, the starter and every mutant fail (and, with --mutation, the checks kill enough mutants derived from "
        "the reference).",
    ),
    "new": (
        "grader.authoring.cli", "app",
        "Create a new exercise folder: a working example that `mlkata check` accepts, to replace file by file.",
    ),
    "doctor": (
        "grader.authoring.cli", "app",
        "Show which sandbox protections are active on this host. Exit 1 if a required one is missing.",
    ),
    "regrade": (
        "app.courses.regrade_cli", "regrade_command",
        "Grade runs of SLUG again through the queue, keep each old verdict beside the new one, print what changed.",
    ),
}  # fmt: skip
#: Listed after the server commands (serve, worker) in ``mlkata --help``.
ELSEWHERE_LAST: dict[str, tuple[str, str, str]] = {
    "user": (
        "app.accounts.cli", "app", "Accounts: create them, reset passwords, set roles, make API tokens."
    ),
}  # fmt: skip


def load_command(name: str) -> TyperCommand | TyperGroup:
    """The sub-command ``name`` of :data:`ELSEWHERE` or :data:`ELSEWHERE_LAST`, its module imported."""
    module, attribute, _ = {**ELSEWHERE, **ELSEWHERE_LAST}[name]
    found = getattr(importlib.import_module(module), attribute)
    holder = typer.Typer(add_completion=False)  # as the mlkata group: no completion options
    if not isinstance(found, typer.Typer):
        holder.command(name)(found)
    elif found.info.name == name:
        holder.add_typer(found)
    else:
        holder.registered_commands += [c for c in found.registered_commands if c.name == name]
    command = typer.main.get_group(holder).commands[name]
    if not isinstance(command, TyperCommand | TyperGroup):
        raise TypeError(f"{module}.{attribute} gives no Typer command {name!r}")
    return command


class _Deferred(TyperCommand):
    """A sub-command listed by ``mlkata --help`` and imported when it runs (or its own help is asked for)."""

    def __init__(self, name: str, listed: str) -> None:
        super().__init__(name, short_help=listed, help=listed, add_help_option=False)

    def make_context(self, info_name: str | None, args: list[str], parent: Any = None, **extra: Any) -> Any:
        assert self.name is not None
        return load_command(self.name).make_context(info_name, args, parent=parent, **extra)


class _Commands(TyperGroup):
    """The ``mlkata`` group: its own commands, and those of :data:`ELSEWHERE` deferred."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        own = dict(self.commands)
        self.commands.clear()
        for name, (_, _, listed) in ELSEWHERE.items():
            self.add_command(_Deferred(name, listed))
        for name, command in own.items():
            self.add_command(command, name)
        for name, (_, _, listed) in ELSEWHERE_LAST.items():
            self.add_command(_Deferred(name, listed))


app = typer.Typer(
    name="mlkata",
    help="Programming exercises with sandboxed automatic grading.",
    add_completion=False,
    no_args_is_help=True,
    cls=_Commands,
)


@app.command("serve")
def serve_command(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
    log_level: Annotated[str, typer.Option(help="uvicorn log level.")] = "info",
    reload: Annotated[
        bool,
        typer.Option(
            "--reload",
            help="Watch the exercises folder and reload an exercise when one of its files changes (for authors; "
            "the code of mlkata itself is not reloaded).",
        ),
    ] = False,
) -> None:
    """Serve the web app (pages, API and, without Redis, graders). Settings: MLKATA_* variables (docs/settings.md)."""
    import uvicorn  # the grading commands do not need the server's imports

    from app.main import create_app
    from app.monitoring import configure_logging, sandbox_refusal
    from app.settings import Settings

    settings = Settings()
    configure_logging(settings.log_format)
    refusal = sandbox_refusal(jailed=settings.jailed, graders=settings.resolved_workers())
    if refusal:
        typer.echo(f"error: {refusal}", err=True)
        raise typer.Exit(2)
    uvicorn.run(
        create_app(settings, reload_exercises=reload), host=host, port=port, log_level=log_level, log_config=None,
        **uvicorn_options(settings),
    )  # fmt: skip


def uvicorn_options(settings: Settings) -> dict[str, Any]:
    """What the server is told about its edge: timeouts, limits, and which proxies' headers to believe."""
    proxies = settings.forwarded_allow_ips.strip()
    return {
        "http": header_timeout_protocol(settings.header_timeout_seconds),
        "timeout_keep_alive": settings.keep_alive_seconds,
        "limit_concurrency": settings.max_connections,
        "h11_max_incomplete_event_size": settings.max_header_kb * 1024,
        # Off unless proxies are named: uvicorn's default believes X-Forwarded-For from 127.0.0.1.
        "proxy_headers": bool(proxies),
        "forwarded_allow_ips": proxies or None,
    }


@functools.cache
def header_timeout_protocol(seconds: float) -> type[asyncio.Protocol]:
    """uvicorn's h11 protocol, closing a connection whose request line and headers take over ``seconds``.

    uvicorn has no such timeout: its keep-alive timer is armed only after a response and cancelled by
    the next byte, so a client that sends half a request line keeps its connection, and a place under
    ``limit_concurrency``, for ever. Here a deadline runs whenever the connection waits for a request
    (from its opening, and again from the end of each response) until that request's headers are in.
    """
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class HeaderTimeoutProtocol(H11Protocol):
        _header_deadline: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]  # as H11Protocol's
            super().connection_made(transport)
            self._watch_headers()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            self._watch_headers()

        def on_response_complete(self) -> None:
            super().on_response_complete()  # may start the next request cycle, or parse a pipelined request
            self._watch_headers()

        def connection_lost(self, exc: Exception | None) -> None:
            self._stop_watching()
            super().connection_lost(exc)

        def _watch_headers(self) -> None:
            # IDLE: h11 has not yet parsed a whole request line and headers of the next request.
            waiting = self.conn.their_state is h11.IDLE and not self.transport.is_closing()
            if not waiting:
                self._stop_watching()
            elif self._header_deadline is None:
                self._header_deadline = self.loop.call_later(seconds, self._headers_too_slow)

        def _stop_watching(self) -> None:
            if self._header_deadline is not None:
                self._header_deadline.cancel()
                self._header_deadline = None

        def _headers_too_slow(self) -> None:
            self._header_deadline = None
            if self.conn.their_state is h11.IDLE:
                self.transport.close()

    return HeaderTimeoutProtocol


@app.command("worker")
def worker_command(
    concurrency: Annotated[
        int | None, typer.Option(min=1, help="Gradings run at once (threads). Default: the CPU count.")
    ] = None,
    metrics_port: Annotated[
        int | None, typer.Option(help="Serve /metrics and /healthz of this worker on this port.")
    ] = None,
    metrics_host: Annotated[str, typer.Option(help="Address for --metrics-port.")] = "127.0.0.1",
    grace: Annotated[
        float, typer.Option(help="Seconds SIGTERM waits for runs in progress before giving them back.")
    ] = 30.0,
) -> None:
    """Grade submissions from Redis (MLKATA_REDIS_URL) into the database (MLKATA_DATABASE_URL)."""
    import os

    from app.settings import Settings
    from app.worker import WorkerConfigError, run_worker

    try:
        run_worker(
            Settings(), concurrency=concurrency or os.cpu_count() or 1, metrics_host=metrics_host,
            metrics_port=metrics_port, grace_seconds=grace,
        )  # fmt: skip
    except WorkerConfigError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None


def main() -> None:
    app()
