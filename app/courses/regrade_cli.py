"""``mlkata regrade``: grade an exercise's runs again after it changed, and print what changed."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from app.courses.regrade import Change, Report, Which


def regrade_command(
    slug: Annotated[str, typer.Argument(help="The exercise whose runs to grade again.")],
    course: Annotated[str | None, typer.Option(help="Only the runs of this course's students (its id).")] = None,
    every: Annotated[
        bool, typer.Option("--all", help="Every finished run of the exercise (a stopped run is never regraded).")
    ] = False,
    latest: Annotated[bool, typer.Option("--latest", help="Each learner's latest finished run, not stopped.")] = False,
    workers: Annotated[
        int | None,
        typer.Option(
            min=0,
            help="Gradings this process runs at once. Default: the CPU count with the embedded "
            "queue; 0 with Redis (the `mlkata worker` processes grade).",
        ),
    ] = None,
    timeout: Annotated[float, typer.Option(min=1, help="Seconds to wait for every new verdict.")] = 3600.0,
) -> None:
    """Grade runs of SLUG again through the queue, keep each old verdict beside the new one, print what changed.

    Exits 0 when every run was regraded, 1 when some were not finished in time, 2 for bad input.
    """
    if every == latest:
        typer.echo("error: say which runs to regrade: --all (every finished run) or --latest (each learner's "
                   "latest)", err=True)  # fmt: skip
        raise typer.Exit(2)
    # The server's imports, only when regrading (the other commands start without them).
    from app.courses.regrade import RegradeError, regrade
    from app.db import upgrade
    from app.main import build_services
    from app.settings import Settings

    which: Which = "all" if every else "latest"
    settings = Settings()
    graders = workers if workers is not None else (0 if settings.redis_url else os.cpu_count() or 1)
    if graders == 0 and not settings.redis_url:
        typer.echo("error: with the embedded queue this process grades: --workers must be at least 1", err=True)
        raise typer.Exit(2)
    services = build_services(settings, graders=graders, role="regrade")
    upgrade(services.engine)
    services.start()
    try:
        report = regrade(services, slug, which, course_id=course, timeout=timeout, progress=_progress)
    except RegradeError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    finally:
        services.stop()
    typer.echo(render(report))
    raise typer.Exit(1 if report.unfinished else 0)


def _progress(done: int, total: int) -> None:
    if sys.stderr.isatty():
        typer.echo(f"\rregraded {done} of {total}", err=True, nl=done == total)


def render(report: Report) -> str:
    """What changed, run by run, then the totals."""
    lines = [f"{report.slug}: {len(report.changes)} runs regraded against version {report.version}"]
    changed = [c for c in report.changes if c.changed]
    for change in changed:
        lines.append(_line(change))
    moves: dict[str, int] = {}
    for change in changed:
        assert change.after is not None
        same = change.before.status == change.after.status
        key = f"{change.before.status} → {change.after.status}" if not same else f"{change.after.status}, other points"
        moves[key] = moves.get(key, 0) + 1
    unchanged = len(report.changes) - len(changed) - len(report.unfinished)
    summary = ", ".join(f"{n} {move}" for move, n in sorted(moves.items()))
    lines.append(f"{len(changed)} changed{f' ({summary})' if summary else ''}, {unchanged} unchanged")
    for who in report.solved_now:
        lines.append(f"solved now: {who}")
    for who in report.unsolved_now:
        lines.append(f"no longer solved: {who}")
    if report.unfinished:
        lines.append(f"{len(report.unfinished)} not regraded in time (is a worker running?): "
                     + ", ".join(c.submission_id[:8] for c in report.unfinished))  # fmt: skip
    if report.stale:
        lines.append(f"warning: {len(report.stale)} were graded by a worker that has another version loaded: "
                     "restart the workers and regrade again")  # fmt: skip
    return "\n".join(lines)


def _line(change: Change) -> str:
    assert change.after is not None
    checks = ""
    newly = sorted(set(change.after.failing) - set(change.before.failing))
    fixed = sorted(set(change.before.failing) - set(change.after.failing))
    if newly:
        checks += f"; now failing: {', '.join(newly)}"
    if fixed:
        checks += f"; now passing: {', '.join(fixed)}"
    before, after = change.before.describe(), change.after.describe()
    return f"  {change.who}  run {change.submission_id[:8]}: {before} → {after}{checks}"
