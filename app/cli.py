"""The ``mlkata`` command: grading commands from ``grader.cli`` plus the server commands."""

from __future__ import annotations

import typer

from grader.cli import app as grader_commands

app = typer.Typer(
    name="mlkata",
    help="Programming exercises with sandboxed automatic grading.",
    add_completion=False,
    no_args_is_help=True,
)
app.registered_commands += grader_commands.registered_commands


def main() -> None:
    app()
