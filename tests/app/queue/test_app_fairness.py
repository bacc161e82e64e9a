"""The fair order: round-robin by learner, from the database (SQLite and PostgreSQL)."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy.orm import Session, sessionmaker

from app.db import make_engine, make_sessionmaker, upgrade
from app.events.log import EventLog, Notifier
from app.grading.jobs import GradingJobs
from app.learners import ensure_learner
from app.models import Submission
from app.queue.fairness import WaitingRun, WaitingRuns, round_robin
from grader.exercise import Exercise

Sessions = sessionmaker[Session]
T0 = datetime(2025, 1, 1, tzinfo=UTC)


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def runs(*specs: tuple[str, str, float]) -> list[WaitingRun]:
    return [WaitingRun(run_id, lane, at(when)) for run_id, lane, when in specs]


def ids(order: list[WaitingRun]) -> list[str]:
    return [run.id for run in order]


def test_a_backlog_does_not_delay_another_learners_first_run() -> None:
    backlog = [(f"a{n}", "ann", n * 0.01) for n in range(10)]
    order = round_robin(runs(*backlog, ("b1", "bob", 1.0), ("c1", "cat", 2.0)), {})
    assert ids(order)[:4] == ["a0", "b1", "c1", "a1"]
    assert ids(order)[4:] == [f"a{n}" for n in range(2, 10)]


def test_a_learner_just_served_goes_behind_everyone_already_waiting() -> None:
    waiting = runs(("a2", "ann", 0.0), ("b1", "bob", 1.0), ("c1", "cat", 3.0))
    # Ann's first run started at 2 s: she queued before Bob, but Bob has waited since 1 s for his turn.
    assert ids(round_robin(waiting, {"ann": at(2.0)})) == ["b1", "a2", "c1"]
    # A turn before the lane's oldest waiting run arrived does not matter: that run waits since it came.
    assert ids(round_robin(waiting, {"ann": at(-5.0), "cat": at(-1.0)})) == ["a2", "b1", "c1"]


def test_a_regrade_is_one_lane_whatever_learners_its_runs_are_of() -> None:
    copies = [(f"r{n}", "regrade:batch", n * 0.001) for n in range(50)]
    order = round_robin(runs(*copies, ("b1", "bob", 1.0), ("b2", "bob", 1.1), ("c1", "cat", 2.0)), {})
    assert ids(order)[:6] == ["r0", "b1", "c1", "r1", "b2", "r2"]


# -- from the database ---------------------------------------------------------------------------------------


@pytest.fixture
def sessions(database_url: str | None, tmp_path: Path) -> Iterator[Sessions]:
    engine = make_engine(database_url or f"sqlite:///{tmp_path / 'fair.db'}")
    upgrade(engine)
    yield make_sessionmaker(engine)
    engine.dispose()


@pytest.fixture
def send(sessions: Sessions) -> Callable[..., str]:
    def make(learner: str, *, regrade_batch: str | None = None) -> str:
        submission_id = str(uuid.uuid4())
        with sessions.begin() as session:
            ensure_learner(session, learner)
            session.flush()
            regrade_of = None
            if regrade_batch is not None:  # a copy of an earlier run of this learner
                regrade_of = str(uuid.uuid4())
                session.add(Submission(id=regrade_of, learner_id=learner, exercise="adder", code="", status="pass"))
                session.flush()
            session.add(Submission(id=submission_id, learner_id=learner, exercise="adder", code="def add(a, b): ...",
                                   regrade_of=regrade_of, regrade_batch=regrade_batch))  # fmt: skip
        return submission_id

    return make


def test_workers_take_turns_by_learner_and_positions_follow(
    sessions: Sessions, send: Callable[..., str], adder: Exercise
) -> None:
    ann, bob, cat = (str(uuid.uuid4()) for _ in range(3))
    a = [send(ann) for _ in range(4)]
    copies = [send(str(uuid.uuid4()), regrade_batch="batch-1") for _ in range(3)]
    b = send(bob)
    waiting = WaitingRuns(sessions)
    jobs = GradingJobs(sessions, EventLog(sessions, Notifier()), {"adder": adder}, jailed=False)

    taken = []
    for turn in range(3):
        head = waiting.in_order()[0].id
        assert jobs.claim(head) is not None  # started, as a worker would
        taken.append(head)
        if turn == 1:
            c = send(cat)  # behind Bob, who waits for his first turn, and Ann and the regrade, back in line before her
            assert waiting.position(c) == 4
    assert taken == [a[0], copies[0], b]
    assert [run.id for run in waiting.in_order()] == [a[1], copies[1], c, a[2], copies[2], a[3]]
    assert waiting.position(a[3]) == 6 and waiting.position(b) is None and waiting.depth() == 6
    assert [run.id for run in waiting.in_order(within={a[3], c})] == [a[3], c]  # Ann back in line before Cat came
