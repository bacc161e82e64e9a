"""A learner's row, made by the first request that stores anything of theirs, on SQLite and on PostgreSQL."""

from __future__ import annotations

import threading

from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from app.learners import ensure_learner
from app.models import Learner


def test_two_requests_making_a_new_learner_at_once_both_succeed(sessions: sessionmaker[Session]) -> None:
    """A run and the draft saved as it starts: the second finds the first's row, not a duplicate to fail on."""
    first_made_it = threading.Event()
    second_looked = threading.Event()
    failures: list[BaseException] = []

    def first() -> None:
        with sessions.begin() as session:
            ensure_learner(session, "new")
            first_made_it.set()
            second_looked.wait(10)  # still not committed when the second one looks
            threading.Event().wait(0.3)  # and while it waits to insert

    def second() -> None:
        first_made_it.wait(10)
        try:
            with sessions.begin() as session:
                assert session.get(Learner, "new") is None  # the first one's row is not committed yet
                second_looked.set()
                ensure_learner(session, "new")
        except BaseException as exc:  # reported below, from the test's own thread
            failures.append(exc)

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert failures == []
    with sessions() as session:
        assert session.scalar(select(func.count()).select_from(Learner).where(Learner.id == "new")) == 1
    with sessions.begin() as session:
        ensure_learner(session, "new")  # and again later: nothing to do
