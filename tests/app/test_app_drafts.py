"""Drafts in the database: last writer wins and hears what it replaced, what an editor opens with, the move at
sign-in and the allowance of new drafts per address, on SQLite and on PostgreSQL."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from threading import Barrier
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from app.accounts.users import move_learner
from app.drafts import DraftField, Drafts, Source, TooManyDrafts, owner_key
from app.models import Draft, Learner, Submission, utcnow

CODE, INPUTS = DraftField.CODE, DraftField.INPUTS
SLUG = "kv-cache-decoding"


def run(sessions: sessionmaker[Session], learner: str, code: str, status: str, minutes_ago: int) -> None:
    with sessions.begin() as session:
        if session.get(Learner, learner) is None:
            session.add(Learner(id=learner))
            session.flush()
        session.add(Submission(id=f"{learner}-{minutes_ago}", learner_id=learner, exercise=SLUG, code=code,
                               status=status, created_at=utcnow() - timedelta(minutes=minutes_ago)))  # fmt: skip


def test_every_save_counts_and_one_made_on_an_older_revision_hears_what_it_replaced(
    sessions: sessionmaker[Session],
) -> None:
    drafts = Drafts(sessions, new_per_address=100)
    first = drafts.save("laptop", SLUG, CODE, "x = 1", base=0, client_key="a")
    assert (first.revision, first.replaced) == (1, None)
    assert drafts.save("laptop", SLUG, CODE, "x = 2", base=1, client_key="a").replaced is None
    # A page still on revision 1 (another device saved revision 2 since) is stored all the same.
    late = drafts.save("laptop", SLUG, CODE, "x = 3", base=1, client_key="a")
    assert late.revision == 3
    assert late.replaced is not None and (late.replaced.text, late.replaced.revision) == ("x = 2", 2)
    # The same text again on the latest revision writes nothing.
    assert drafts.save("laptop", SLUG, CODE, "x = 3", base=3, client_key="a").revision == 3
    found = drafts.read("laptop", SLUG)
    assert (found[CODE].text, found[CODE].revision) == ("x = 3", 3) and INPUTS not in found
    assert drafts.read("someone else", SLUG) == {}


def test_saves_at_the_same_moment_are_each_stored_once_and_all_but_the_first_hear_of_another(
    sessions: sessionmaker[Session],
) -> None:
    drafts = Drafts(sessions, new_per_address=100)
    count = 6
    barrier = Barrier(count)

    def save(n: int) -> Any:
        barrier.wait()
        return drafts.save("lab", SLUG, CODE, f"x = {n}", base=0, client_key="a")

    with ThreadPoolExecutor(count) as pool:
        saved = list(pool.map(save, range(count)))
    assert sorted(s.revision for s in saved) == list(range(1, count + 1))  # no save was lost
    assert sum(s.replaced is None for s in saved) == 1
    assert drafts.read("lab", SLUG)[CODE].revision == count


def test_an_editor_opens_with_the_draft_else_the_passing_code_else_the_last_run_else_the_starter(
    sessions: sessionmaker[Session],
) -> None:
    drafts = Drafts(sessions, new_per_address=100)

    def opening(field: DraftField) -> tuple[str, Source, int]:
        found = drafts.openings("ada", SLUG, starter="STARTER", example="EXAMPLE")[field]
        return found.text, found.source, found.revision

    assert opening(CODE) == ("STARTER", Source.GIVEN, 0)
    assert opening(INPUTS) == ("EXAMPLE", Source.GIVEN, 0)
    run(sessions, "ada", "wrong", "fail", minutes_ago=30)
    assert opening(CODE) == ("wrong", Source.LAST_RUN, 0)
    run(sessions, "ada", "right", "pass", minutes_ago=20)
    run(sessions, "ada", "broken again", "fail", minutes_ago=10)
    assert opening(CODE) == ("right", Source.SOLVED, 0)  # solved: the passing code, not a later failed try
    drafts.save("ada", SLUG, CODE, "my draft", base=0, client_key=None)
    drafts.save("ada", SLUG, INPUTS, "f(1)", base=0, client_key=None)
    assert opening(CODE) == ("my draft", Source.DRAFT, 1)
    assert opening(INPUTS) == ("f(1)", Source.DRAFT, 1)


def test_signing_in_moves_the_anonymous_drafts_keeping_the_later_of_two(sessions: sessionmaker[Session]) -> None:
    drafts = Drafts(sessions, new_per_address=100)
    drafts.save("account", SLUG, CODE, "typed at home", base=0, client_key="home")
    drafts.save("account", SLUG, INPUTS, "f(2)", base=0, client_key="home")
    for n in range(3):
        drafts.save("account", SLUG, INPUTS, f"f({n + 3})", base=n + 1, client_key="home")  # revision 4
    drafts.save("browser", SLUG, CODE, "typed in the lab", base=0, client_key="lab")  # later than home's
    drafts.save("browser", SLUG, INPUTS, "f(9)", base=0, client_key="lab")
    drafts.save("browser", "other-exercise", CODE, "only here", base=0, client_key="lab")
    with sessions.begin() as session:  # the account's inputs were saved after the browser's
        session.get(Draft, ("account", SLUG, "inputs")).saved_at = utcnow() + timedelta(minutes=1)  # type: ignore[union-attr]
        move_learner(session, "browser", "account")
    mine = drafts.read("account", SLUG)
    assert mine[CODE].text == "typed in the lab"
    assert mine[CODE].revision == 2  # past both: a page of the account on revision 1 hears of the move
    assert (mine[INPUTS].text, mine[INPUTS].revision) == ("f(5)", 4)
    assert drafts.read("account", "other-exercise")[CODE].text == "only here"
    assert drafts.read("browser", SLUG) == {} and drafts.read("browser", "other-exercise") == {}
    with sessions() as session:
        assert session.scalars(select(Draft).where(Draft.learner_id == "browser")).all() == []


def test_an_address_starts_only_so_many_drafts_an_hour_whatever_its_learners(sessions: sessionmaker[Session]) -> None:
    drafts = Drafts(sessions, new_per_address=2)
    drafts.save("one", SLUG, CODE, "a", base=0, client_key="crowd")
    drafts.save("two", SLUG, CODE, "b", base=0, client_key="crowd")
    with pytest.raises(TooManyDrafts) as refused:
        drafts.save("three", SLUG, CODE, "c", base=0, client_key="crowd")
    assert 3500 < refused.value.retry_after <= 3600
    assert drafts.read("three", SLUG) == {}
    # Saving a draft again is not a new one; another address has its own allowance.
    assert drafts.save("one", SLUG, CODE, "a, again", base=1, client_key="crowd").revision == 2
    assert drafts.save("three", SLUG, CODE, "c", base=0, client_key="elsewhere").revision == 1


def test_the_owner_key_names_a_learner_without_showing_the_id() -> None:
    learner = "6f1c2a3e-0000-4000-8000-000000000000"
    assert owner_key(learner) == owner_key(learner) != owner_key("another")
    assert learner not in owner_key(learner) and len(owner_key(learner)) == 24
