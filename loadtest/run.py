"""``python -m loadtest.run``: a load run and a fault run against real processes on loopback.

    python -m loadtest.run                         # 1,000 submissions at concurrency 50, then the fault run
    python -m loadtest.run --submissions 60 --concurrency 10 --no-fault
    python -m loadtest.run --signed-in-share 0                 # every learner anonymous, as before accounts

Exit status 0 only when every run lost nothing, duplicated nothing and left nothing unfinished.
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from loadtest import workload
from loadtest.accounts import look_back, plan
from loadtest.audit import Audit, audit, table
from loadtest.learners import Observed, Outcome, probe_pages, read_back, run_learners
from loadtest.stack import Stack, has_worker_command


@dataclass(frozen=True)
class RunConfig:
    submissions: int = 1000
    concurrency: int = 50
    workers: int = 2
    worker_concurrency: int = 2
    time_limit: int = 3  # seconds per grading run: bounds what each infinite loop costs
    deadline: float = 900.0  # seconds for the whole run, after which it stops and reports
    fault: bool = False
    seed: int = 7
    signed_in_share: float = 0.5  # learners who sign up first (the rest stay anonymous cookies)
    second_device_share: float = 0.5  # of those, learners who also sign in a second client mid-run


@dataclass
class RunReport:
    title: str
    audit: Audit
    faults: list[str]

    def render(self) -> str:
        return table(self.title, self.audit, self.faults)


def run(config: RunConfig, workdir: Path | None = None) -> RunReport:
    """Start the stack, drive the learners (and the faults), audit, tear everything down."""
    with tempfile.TemporaryDirectory(prefix="mlkata-load-") as scratch:
        root = workdir or Path(scratch)
        exercises = workload.exercise_copy(root / "exercises", config.time_limit)
        scale_out = has_worker_command()
        stack = Stack(
            root, exercises, workers=config.workers, concurrency=config.worker_concurrency, scale_out=scale_out
        )
        try:
            return asyncio.run(_drive(stack, config))
        except BaseException:
            _print_logs(stack)
            raise
        finally:
            stack.close()


async def _drive(stack: Stack, config: RunConfig) -> RunReport:
    # A process outside the sandbox for kill_others to aim at: it must outlive the run (and not the run's end).
    canary = subprocess.Popen(["sleep", str(int(config.deadline) + 60)])
    try:
        return await _drive_beside(stack, config, canary)
    finally:
        canary.kill()
        canary.wait()


async def _drive_beside(stack: Stack, config: RunConfig, canary: subprocess.Popen[bytes]) -> RunReport:
    solutions = workload.mix(config.submissions, canary.pid, seed=config.seed)
    observed = Observed(outcomes=[])
    stop = asyncio.Event()
    faults: list[str] = []
    started = time.monotonic()
    deadline = started + config.deadline
    prober = asyncio.create_task(probe_pages(stack.url, observed, stop))
    injector = asyncio.create_task(_inject_faults(stack, observed, faults)) if config.fault else None
    learners = plan(config.concurrency, config.signed_in_share, config.second_device_share, config.seed)
    observed, learners = await run_learners(stack.url, solutions, config.concurrency, deadline, observed, learners)
    finished = max((o.done_at for o in observed.outcomes if o.done_at is not None), default=time.monotonic())
    stop.set()
    await prober
    if injector is not None:
        injector.cancel()
    views: dict[str, dict[str, Any]] = {}

    def keep(outcome: Outcome, view: dict[str, Any]) -> None:
        assert outcome.submission_id is not None
        views[outcome.submission_id] = view

    await read_back(learners, observed.outcomes, keep)
    await look_back(learners, observed.outcomes, deadline=time.monotonic() + 120)
    for learner in learners:
        for client in learner.devices:
            await client.aclose()
    breaches = [] if canary.poll() is None else [f"the host process kill_others aimed at died ({canary.returncode})"]
    topology = (
        f"serve + {config.workers} × worker (concurrency {config.worker_concurrency}), PostgreSQL, private Redis"
        if stack.scale_out
        else f"serve alone, embedded queue, {config.workers * config.worker_concurrency} grading threads, PostgreSQL"
    )
    title = (
        f"{'FAULT RUN' if config.fault else 'LOAD RUN'}: {config.submissions} submissions, {config.concurrency} "
        f"learners at once ({sum(learner.signed_in for learner in learners)} signed in); {topology}; "
        f"exercise time limit {config.time_limit} s"
    )
    result = audit(observed, views, stack.database.libpq_url, started, finished)
    result.breaches += breaches
    return RunReport(title, result, faults)


async def _inject_faults(stack: Stack, observed: Observed, faults: list[str]) -> None:
    """At fixed shares of verdicts: kill -9 a worker mid-grading, restart the web process, restart Redis."""
    total = len(observed.outcomes)

    async def at(share: float, what: str, action: Callable[[], Awaitable[str]]) -> None:
        while observed.done_count() < share * total:
            await asyncio.sleep(0.1)
        faults.append(f"at {observed.done_count()}/{total} verdicts: {what}: {await action()}")

    async def kill_worker() -> str:
        if not stack.workers:
            return "skipped (no separate workers)"
        victim = stack.workers[0]
        grading = _running(stack)
        await asyncio.to_thread(victim.kill)
        await asyncio.sleep(1.0)
        await asyncio.to_thread(victim.start)
        return f"{victim.name} killed with SIGKILL while {grading} submissions were running, started again"

    async def restart_web() -> str:
        began = time.monotonic()
        await asyncio.to_thread(stack.restart_web)
        return f"SIGTERM and start again, back in {time.monotonic() - began:.1f} s"

    async def restart_redis() -> str:
        if stack.redis is None:
            return "skipped (embedded queue)"
        await asyncio.to_thread(stack.restart_redis)
        return "SIGKILL and start again, empty (the stream and its pending entries are gone)"

    await at(0.2, "kill -9 a worker", kill_worker)
    await at(0.45, "restart the web server", restart_web)
    await at(0.7, "restart the private Redis", restart_redis)


def _running(stack: Stack) -> int:
    import psycopg

    with psycopg.connect(stack.database.libpq_url, autocommit=True) as conn:
        row = conn.execute("SELECT count(*) FROM submissions WHERE status = 'running'").fetchone()
    return int(row[0]) if row else 0


def _print_logs(stack: Stack) -> None:
    for path in sorted(stack.workdir.glob("*.log")):
        tail = path.read_text(encoding="utf-8", errors="replace").splitlines()[-20:]
        print(f"--- {path.name} (last lines)", *tail, sep="\n", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--submissions", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=50, help="learners submitting at once")
    parser.add_argument("--workers", type=int, default=2, help="mlkata worker processes")
    parser.add_argument("--worker-concurrency", type=int, default=2, help="gradings at once per worker")
    parser.add_argument("--time-limit", type=int, default=3, help="the exercise's time limit for the run, seconds")
    parser.add_argument("--fault-submissions", type=int, default=300)
    parser.add_argument("--no-fault", action="store_true", help="skip the fault run")
    parser.add_argument("--signed-in-share", type=float, default=0.5, help="learners who sign up first, 0 to 1")
    parser.add_argument(
        "--second-device-share", type=float, default=0.5, help="of the signed-in, those who sign in a second client"
    )
    parser.add_argument("--fault-only", action="store_true", help="only the fault run")
    args = parser.parse_args(argv)
    configs = []
    if not args.fault_only:
        configs.append(
            RunConfig(
                args.submissions, args.concurrency, args.workers, args.worker_concurrency, args.time_limit,
                signed_in_share=args.signed_in_share, second_device_share=args.second_device_share,
            )
        )  # fmt: skip
    if not args.no_fault:
        configs.append(
            RunConfig(
                args.fault_submissions, min(args.concurrency, 30), args.workers, args.worker_concurrency,
                args.time_limit, fault=True, signed_in_share=args.signed_in_share,
                second_device_share=args.second_device_share,
            )
        )  # fmt: skip
    reports = []
    for config in configs:
        report = run(config)
        print(report.render(), flush=True)
        reports.append(report)
    return 0 if all(report.audit.ok for report in reports) else 1


if __name__ == "__main__":
    sys.exit(main())
