"""Room in the queue: shares per learner and per address, the whole bound, and a regrade's runs counted for nobody."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from sqlalchemy.orm import Session, sessionmaker

from app.db import make_engine, make_sessionmaker, upgrade
from app.learners import ensure_learner
from app.models import Submission
from app.queue import QueueFull
from app.queue.admission import QueueShares, TooManyWaiting

Sessions = sessionmaker[Session]


def test_shares_are_fractions_of_the_queue_and_never_less_than_one_run() -> None:
    assert QueueShares.of(64, learner_share=0.0625, address_share=0.25) == QueueShares(4, 16, 64)
    assert QueueShares.of(10, learner_share=0.0625, address_share=0.25) == QueueShares(1, 2, 10)
    assert QueueShares.of(3, learner_share=1, address_share=1) == QueueShares(3, 3, 3)


@pytest.fixture
def sessions(database_url: str | None, tmp_path: Path) -> Iterator[Sessions]:
    engine = make_engine(database_url or f"sqlite:///{tmp_path / 'admission.db'}")
    upgrade(engine)
    yield make_sessionmaker(engine)
    engine.dispose()


@pytest.fixture
def waiting(sessions: Sessions) -> Callable[..., None]:
    def add(learner: str, address: str | None, *, regrade: bool = False) -> None:
        with sessions.begin() as session:
            ensure_learner(session, learner)
            session.flush()
            original = None
            if regrade:
                original = str(uuid.uuid4())
                session.add(Submission(id=original, learner_id=learner, exercise="adder", code="", status="pass"))
                session.flush()
            batch = "batch" if regrade else None
            session.add(Submission(id=str(uuid.uuid4()), learner_id=learner, exercise="adder", code="",
                                   client_key=address, regrade_of=original, regrade_batch=batch))  # fmt: skip

    return add


def test_each_bound_refuses_with_its_reason_and_a_regrades_runs_take_no_room(
    sessions: Sessions, waiting: Callable[..., None]
) -> None:
    shares = QueueShares(per_learner=2, per_address=3, total=4)
    ann, bob, cat = (str(uuid.uuid4()) for _ in range(3))
    for _ in range(10):
        waiting(ann, None, regrade=True)  # the operator's regrade of Ann's runs
    waiting(ann, "home")
    waiting(ann, "home")
    with sessions() as session:
        with pytest.raises(TooManyWaiting, match="You already have 2 runs waiting"):
            shares.check(session, ann, "home")
        shares.check(session, bob, "home")  # Bob, at Ann's address, has room
    waiting(bob, "home")
    with sessions() as session, pytest.raises(TooManyWaiting, match="address already has 3 runs waiting"):
        shares.check(session, cat, "home")
    waiting(cat, "school")
    with sessions() as session, pytest.raises(QueueFull):
        shares.check(session, str(uuid.uuid4()), "cafe")
