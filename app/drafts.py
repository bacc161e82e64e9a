"""Drafts: what a learner last typed into an exercise's editor and its Try it box, kept on the server.

Drafts are keyed by the learner, never by the browser: a signed-in learner's follow the account to any
browser; an anonymous learner's belong to the browser's learner cookie and move into the account at
sign-in (:func:`move_drafts`, from ``app.accounts.users.move_learner``), after which that browser starts
afresh once signed out. Nothing of them is kept in the browser.

Saving is last-writer-wins: every save is stored, and a save made on a page that had not seen the latest
revision (another tab or device saved in between) is answered with the text it replaced, so the page can
say so. A page names the learner it was opened for (:func:`owner_key`); a save for another learner — this
browser signed in or out in another tab since — is refused rather than written into that learner's drafts.
"""

from __future__ import annotations

import enum
import hashlib
import math
from dataclasses import dataclass
from datetime import datetime, timedelta

from fastapi import Request
from sqlalchemy import delete, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from app.learners import ensure_learner
from app.models import Draft, Submission, SubmissionKind, SubmissionStatus, as_utc, utcnow

#: Seconds over which new drafts are counted per client address.
NEW_DRAFTS_WINDOW = 3600.0
#: Saves that lost a race with another save of the same draft are tried again this many times in all.
_ATTEMPTS = 20


class DraftField(enum.StrEnum):
    """What a draft holds: the exercise's solution.py, or the learner's Try it inputs."""

    CODE = "code"
    INPUTS = "inputs"


class Source(enum.StrEnum):
    """Where the text an editor opens with comes from."""

    DRAFT = "draft"  # the learner's draft
    SOLVED = "solved"  # no draft: the code of the learner's last passing run
    LAST_RUN = "last run"  # no draft and no pass: the code of their last run
    GIVEN = "given"  # none of those: the starter code, or the Try it example


@dataclass(frozen=True)
class DraftText:
    text: str
    revision: int
    saved_at: datetime


@dataclass(frozen=True)
class Opening:
    """What an editor opens with: ``revision`` 0 when the learner has no draft of it yet."""

    text: str
    source: Source
    revision: int = 0
    saved_at: datetime | None = None


@dataclass(frozen=True)
class Saved:
    """A stored save: its revision, and what it replaced if that was saved after the page last looked."""

    revision: int
    saved_at: datetime
    replaced: DraftText | None


class TooManyDrafts(Exception):
    """The client address started its share of new drafts this hour; ``retry_after`` seconds until one more."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(f"too many new drafts, retry after {retry_after} s")
        self.retry_after = retry_after


def owner_key(learner: str) -> str:
    """What a page calls the learner it was opened for: a digest, so no learner id is written into pages."""
    return hashlib.sha256(f"mlkata.draft-owner:{learner}".encode()).hexdigest()[:24]


class Drafts:
    """The drafts in the database."""

    def __init__(self, sessions: sessionmaker[Session], *, new_per_address: int) -> None:
        self.sessions, self.new_per_address = sessions, new_per_address

    def read(self, learner: str, slug: str) -> dict[DraftField, DraftText]:
        with self.sessions() as session:
            rows = session.scalars(select(Draft).where(Draft.learner_id == learner, Draft.exercise == slug)).all()
        return {DraftField(row.field): _text(row) for row in rows}

    def openings(self, learner: str, slug: str, *, starter: str, example: str) -> dict[DraftField, Opening]:
        """What the editor and the Try it box open with: the drafts; else, for the code, the last passing run's
        (an exercise solved opens solved), else the last run's, else the starter; else the example."""
        drafts = self.read(learner, slug)
        found = {field: Opening(d.text, Source.DRAFT, d.revision, d.saved_at) for field, d in drafts.items()}
        if DraftField.CODE not in found:
            found[DraftField.CODE] = self._last_code(learner, slug) or Opening(starter, Source.GIVEN)
        found.setdefault(DraftField.INPUTS, Opening(example, Source.GIVEN))
        return found

    def _last_code(self, learner: str, slug: str) -> Opening | None:
        runs = (
            select(Submission.code)
            .where(
                Submission.learner_id == learner,
                Submission.exercise == slug,
                Submission.kind == SubmissionKind.GRADE.value,
                Submission.regrade_of.is_(None),
            )
            .order_by(Submission.created_at.desc())
            .limit(1)
        )
        with self.sessions() as session:
            passed = session.scalars(runs.where(Submission.status == SubmissionStatus.PASS.value)).first()
            if passed is not None:
                return Opening(passed, Source.SOLVED)
            last = session.scalars(runs).first()
        return None if last is None else Opening(last, Source.LAST_RUN)

    def save(
        self, learner: str, slug: str, field: DraftField, text: str, *, base: int, client_key: str | None
    ) -> Saved:
        """Store ``text`` as the draft, whatever was saved since revision ``base`` (0: the page saw none).

        Raises :class:`TooManyDrafts` when a new draft is over the client address's allowance.
        """
        for _ in range(_ATTEMPTS):
            try:
                with self.sessions.begin() as session:
                    saved = self._save_once(session, learner, slug, field, text, base, client_key)
            except IntegrityError:  # another request made this draft, or this learner, first
                continue
            if saved is not None:
                return saved
        raise RuntimeError(f"draft {slug}/{field} kept changing while it was saved")

    def _save_once(
        self, session: Session, learner: str, slug: str, field: DraftField, text: str, base: int,
        client_key: str | None,
    ) -> Saved | None:  # fmt: skip
        """One try: None when another save changed the draft between reading and writing it."""
        now = utcnow()
        # Locked where the database can (PostgreSQL): saves of one draft at the same moment then take turns
        # instead of each retrying until it wins a race.
        row = session.get(Draft, (learner, slug, field.value), with_for_update=True)
        if row is None:
            self._check_allowance(session, client_key, now)
            ensure_learner(session, learner)
            session.add(Draft(learner_id=learner, exercise=slug, field=field.value, text=text, revision=1,
                              saved_at=now, created_at=now, client_key=client_key))  # fmt: skip
            session.flush()
            return Saved(1, now, None)
        seen = _text(row)
        replaced = None if seen.revision == base else seen
        if replaced is None and seen.text == text:
            return Saved(seen.revision, seen.saved_at, None)  # nothing new: no write
        # Only if nobody saved since it was read: else read again and decide again.
        this = (Draft.learner_id == learner, Draft.exercise == slug, Draft.field == field.value)
        changed = session.execute(
            update(Draft)
            .where(*this, Draft.revision == seen.revision)
            .values(text=text, revision=seen.revision + 1, saved_at=now)
        ).rowcount  # type: ignore[attr-defined]  # an UPDATE gives a CursorResult
        return Saved(seen.revision + 1, now, replaced) if changed == 1 else None

    def _check_allowance(self, session: Session, client_key: str | None, now: datetime) -> None:
        """Raise :class:`TooManyDrafts` when the address started ``new_per_address`` drafts within the window.

        Whatever its cookies: a client that drops its cookie (a new learner each time) is still limited, so
        what anonymous visitors can store is bounded. Updates are not counted: they replace a draft.
        """
        if client_key is None:
            return
        window = timedelta(seconds=NEW_DRAFTS_WINDOW)
        oldest_counted = session.scalars(
            select(Draft.created_at)
            .where(Draft.client_key == client_key, Draft.created_at > now - window)
            .order_by(Draft.created_at.desc())
            .offset(self.new_per_address - 1)
            .limit(1)
        ).first()
        if oldest_counted is not None:
            raise TooManyDrafts(max(1, math.ceil((as_utc(oldest_counted) + window - now).total_seconds())))


def move_drafts(session: Session, source: str, target: str) -> None:
    """Give ``source``'s drafts to ``target``: where both have one of the same thing, the later saved stays.

    A draft that replaces one gets a revision past both, so a page of ``target`` that had the old one open
    hears that another device saved.
    """
    theirs = {(d.exercise, d.field): d for d in session.scalars(select(Draft).where(Draft.learner_id == target))}
    for draft in session.scalars(select(Draft).where(Draft.learner_id == source)).all():
        kept = theirs.get((draft.exercise, draft.field))
        if kept is None:
            session.add(Draft(learner_id=target, exercise=draft.exercise, field=draft.field, text=draft.text,
                              revision=draft.revision, saved_at=draft.saved_at, created_at=draft.created_at,
                              client_key=draft.client_key))  # fmt: skip
        elif as_utc(draft.saved_at) > as_utc(kept.saved_at):
            kept.text, kept.saved_at = draft.text, draft.saved_at
            kept.revision = max(kept.revision, draft.revision) + 1
    session.flush()
    session.execute(delete(Draft).where(Draft.learner_id == source))


def _text(row: Draft) -> DraftText:
    return DraftText(row.text, row.revision, as_utc(row.saved_at))


def drafts(request: Request) -> Drafts:
    """FastAPI dependency: the drafts of the app serving this request."""
    found = request.app.state.drafts
    assert isinstance(found, Drafts)
    return found
