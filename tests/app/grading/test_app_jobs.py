"""Claims, verdicts and event numbers stay right when jobs run twice or writers race (SQLite and PostgreSQL)."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from app.db import make_engine, make_sessionmaker, upgrade
from app.events.log import EventLog, Notifier
from app.grading.jobs import GradingJobs, internal_error
from app.learners import ensure_learner
from app.models import Submission, SubmissionEvent, utcnow
from grader.exercise import Exercise
from grader.results.records import GradeResult, Reason, Status

Sessions = sessionmaker[Session]


@pytest.fixture
def url(database_url: str | None, tmp_path: Path) -> str:
    return database_url or f"sqlite:///{tmp_path / 'jobs.db'}"


@pytest.fixture
def sessions(url: str) -> Iterator[Sessions]:
    engine = make_engine(url)
    upgrade(engine)
    yield make_sessionmaker(engine)
    engine.dispose()


@pytest.fixture
def new_submission(sessions: Sessions) -> Callable[[str], str]:
    def make(code: str = "def add(a, b):\n    return a + b\n") -> str:
        submission_id = str(uuid.uuid4())
        learner = str(uuid.uuid4())
        with sessions.begin() as session:
            ensure_learner(session, learner)
            session.add(Submission(id=submission_id, learner_id=learner, exercise="adder", code=code))
        return submission_id

    return make


def jobs_for(sessions: Sessions, adder: Exercise, **options: object) -> GradingJobs:
    return GradingJobs(sessions, EventLog(sessions, Notifier()), {"adder": adder}, jailed=False, **options)  # type: ignore[arg-type]


def events_of(sessions: Sessions, submission_id: str) -> list[tuple[int, str]]:
    with sessions() as session:
        rows = session.execute(
            select(SubmissionEvent.seq, SubmissionEvent.type)
            .where(SubmissionEvent.submission_id == submission_id)
            .order_by(SubmissionEvent.seq)
        )
        return [(seq, type_) for seq, type_ in rows]


def verdict(status: Status, reason: Reason) -> GradeResult:
    return GradeResult(status=status, reason=reason, message="", exercise="adder")


def test_a_job_run_twice_records_one_verdict_and_nothing_after_done(
    sessions: Sessions, new_submission: Callable[[], str], adder: Exercise
) -> None:
    submission_id = new_submission()
    jobs = jobs_for(sessions, adder)
    jobs.run(submission_id)
    jobs.run(submission_id)  # a duplicate queue entry: not claimable any more
    assert not jobs.finish(submission_id, verdict(Status.FAIL, Reason.WRONG_ANSWER))
    with sessions() as session:
        submission = session.get(Submission, submission_id)
        assert submission is not None and submission.status == "pass" and submission.attempts == 1
    events = events_of(sessions, submission_id)
    assert [t for _, t in events].count("done") == 1 and events[-1][1] == "done"
    assert [s for s, _ in events] == list(range(1, len(events) + 1))


def test_a_worker_whose_claim_was_taken_over_records_nothing(
    sessions: Sessions, new_submission: Callable[[], str], adder: Exercise
) -> None:
    submission_id = new_submission()
    first, second = jobs_for(sessions, adder, lease_seconds=30), jobs_for(sessions, adder, lease_seconds=30)
    claim = first.claim(submission_id)
    assert claim is not None and claim.attempt == 1
    assert second.claim(submission_id) is None  # the lease is live
    with sessions.begin() as session:  # the first worker stops renewing: its lease runs out
        session.execute(
            update(Submission).where(Submission.id == submission_id).values(lease_until=utcnow() - timedelta(seconds=1))
        )
    taken = second.claim(submission_id)
    assert taken is not None and taken.attempt == 2
    assert first.events.record(submission_id, "output", {"text": "late"}, status="running", attempt=1) is None
    assert not first.finish(submission_id, verdict(Status.FAIL, Reason.WRONG_ANSWER), attempt=1)
    assert second.finish(submission_id, verdict(Status.PASS, Reason.PASSED), attempt=2)
    assert [t for _, t in events_of(sessions, submission_id)] == ["started", "started", "done"]


def test_a_submission_is_not_claimed_beyond_max_attempts(
    sessions: Sessions, new_submission: Callable[[], str], adder: Exercise
) -> None:
    submission_id = new_submission()
    jobs = jobs_for(sessions, adder, max_attempts=1, lease_seconds=30)
    assert jobs.claim(submission_id) is not None
    with sessions.begin() as session:
        session.execute(
            update(Submission).where(Submission.id == submission_id).values(lease_until=utcnow() - timedelta(seconds=1))
        )
    assert jobs.claim(submission_id) is None
    assert jobs.finish(submission_id, internal_error("adder", "gave up"), attempt=1)


def test_event_numbers_stay_unique_and_gapless_with_writers_in_several_processes(
    url: str, sessions: Sessions, new_submission: Callable[[], str]
) -> None:
    submission_id = new_submission()
    writers, each = 4, 15
    start = threading.Barrier(writers)
    failures: list[BaseException] = []

    def write() -> None:
        engine = make_engine(url)  # an engine (and lock) of its own, like another process
        log = EventLog(make_sessionmaker(engine), Notifier())
        try:
            start.wait()
            for index in range(each):
                log.record(submission_id, "output", {"text": str(index)})
        except BaseException as exc:
            failures.append(exc)
        finally:
            engine.dispose()

    threads = [threading.Thread(target=write) for _ in range(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not failures
    assert [seq for seq, _ in events_of(sessions, submission_id)] == list(range(1, writers * each + 1))


def test_a_stopping_worker_gives_back_its_claims_and_its_run_records_nothing_more(
    sessions: Sessions, new_submission: Callable[[str], str], adder: Exercise
) -> None:
    slow = "import time\n\n\ndef add(a, b):\n    time.sleep(1.0)\n    return a + b\n"
    submission_id = new_submission(slow)
    jobs = jobs_for(sessions, adder)
    run = threading.Thread(target=jobs.run, args=(submission_id,))
    run.start()
    wait_until = time.monotonic() + 60
    while submission_id not in jobs.running() and time.monotonic() < wait_until:
        time.sleep(0.01)
    assert jobs.release_claims() == [submission_id]
    run.join(timeout=30)
    with sessions() as session:
        submission = session.get(Submission, submission_id)
        assert submission is not None and submission.status == "queued" and submission.result is None
    assert [t for _, t in events_of(sessions, submission_id)] == ["started", "queued"]
    again = jobs.claim(submission_id)  # and the next worker takes it from the start
    assert again is not None and again.attempt == 2
