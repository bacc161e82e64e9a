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
    """Serve the web app (pages, API and graders). Settings come from MLKATA_* environment variables."""
    import uvicorn  # the grading commands do not need the server's imports

    from app.main import create_app
    from app.settings import Settings

    uvicorn.run(create_app(Settings()), host=host, port=port, log_level=log_level, proxy_headers=False)


def main() -> None:
    app()
