"""The objects one running app shares, built by the app factory and reached from requests."""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import Request
from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from app.events import EventLog
from app.jobs import GradingJobs
from app.queue import SubmissionQueue, WorkerPool
from app.settings import Settings
from app.submissions import Submissions
from grader.exercise import Exercise


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


def services(request: Request) -> Services:
    """FastAPI dependency: the services of the app serving this request."""
    found = request.app.state.services
    assert isinstance(found, Services)
    return found
