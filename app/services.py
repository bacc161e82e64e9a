"""The objects one running app shares, built by the app factory and reached from requests."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fastapi import Request
from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from app.events import EventLog
from app.grading import GradingJobs, Maintenance, StopRequests, Submissions, WorkerPool
from app.monitoring import Metrics, SandboxStatus, check_database, check_queue, health_report
from app.queue import SubmissionQueue
from app.settings import Settings
from grader.exercise import Exercise
from grader.grading import prepare_in_background


@dataclass
class Services:
    settings: Settings
    engine: Engine
    sessions: sessionmaker[Session]
    exercises: dict[str, Exercise]
    events: EventLog
    queue: SubmissionQueue
    submissions: Submissions
    jobs: GradingJobs
    workers: WorkerPool
    metrics: Metrics
    sandbox: SandboxStatus
    maintenance: Maintenance | None = None
    stops: StopRequests | None = None

    def queue_depth(self) -> int:
        return self.queue.depth()

    def health(self) -> tuple[int, dict[str, Any]]:
        """``/healthz``: (HTTP status, body)."""
        return health_report(
            {
                "database": check_database(self.engine),
                "queue": check_queue(self.queue),
                "sandbox": self.sandbox.check(),
            }
        )

    def start(self) -> None:
        """Start grading (if this process grades) and the lease renewal and sweeper (with Redis)."""
        self.sandbox.prewarm()
        if self.sandbox.graders > 0:
            prepare_in_background(list(self.exercises.values()))
        self.workers.start()
        if self.maintenance is not None:
            self.maintenance.start()
        if self.stops is not None:
            self.stops.start()

    def stop(self, timeout: float = 15.0) -> bool:
        """Stop taking work and wait for the runs in progress; return whether they all finished."""
        finished = self.workers.stop(timeout)
        if self.maintenance is not None:
            self.maintenance.stop()
        if self.stops is not None:
            self.stops.close()
        if self.events.feed is not None:
            self.events.feed.close()
        self.engine.dispose()
        return finished


def services(request: Request) -> Services:
    """FastAPI dependency: the services of the app serving this request."""
    found = request.app.state.services
    assert isinstance(found, Services)
    return found
