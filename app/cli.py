"""The ``mlkata`` command: grading commands from ``grader.cli`` plus the server commands."""

from __future__ import annotations

from typing import Annotated

import typer

from grader.cli import app as grader_commands

app = typer.Typer(
    name="mlkata",
    help="Programming exercises with sandboxed automatic grading.",
    add_completion=False,
    no_args_is_help=True,
)
app.registered_commands += grader_commands.registered_commands


@app.command("serve")
def serve_command(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
    log_level: Annotated[str, typer.Option(help="uvicorn log level.")] = "info",
) -> None:
    """Serve the web app (pages, API and, without Redis, graders). Settings: MLKATA_* variables (docs/settings.md)."""
    import uvicorn  # the grading commands do not need the server's imports

    from app.logs import configure_logging
    from app.main import create_app
    from app.settings import Settings

    settings = Settings()
    configure_logging(settings.log_format)
    uvicorn.run(create_app(settings), host=host, port=port, log_level=log_level, proxy_headers=False, log_config=None)


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
