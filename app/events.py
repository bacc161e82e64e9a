"""The story of each grading run, as numbered events stored in the database.

Workers record events; event streams read them back from the database, so a client that reconnects
with ``Last-Event-ID`` — or connects after the run, or after a restart — gets exactly what it missed.
A :class:`Notifier` wakes waiting streams at once; streams also poll, so events recorded by another
process (a separate worker) arrive too.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import Any, Literal

from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from app.models import SubmissionEvent

EventType = Literal["queued", "started", "check", "output", "done"]


@dataclass(frozen=True)
class StoredEvent:
    seq: int
    type: str
    data: dict[str, Any]


class Notifier:
    """Wakes the event streams of a submission (async, any loop) when a thread records an event."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiters: dict[str, set[tuple[asyncio.AbstractEventLoop, asyncio.Event]]] = {}

    def notify(self, submission_id: str) -> None:
        with self._lock:
            waiters = list(self._waiters.get(submission_id, ()))
        for loop, wake in waiters:
            with suppress(RuntimeError):  # that stream's loop has closed
                loop.call_soon_threadsafe(wake.set)

    @contextmanager
    def subscribe(self, submission_id: str) -> Iterator[asyncio.Event]:
        entry = (asyncio.get_running_loop(), asyncio.Event())
        with self._lock:
            self._waiters.setdefault(submission_id, set()).add(entry)
        try:
            yield entry[1]
        finally:
            with self._lock:
                waiters = self._waiters.get(submission_id)
                if waiters is not None:
                    waiters.discard(entry)
                    if not waiters:
                        del self._waiters[submission_id]


class EventLog:
    """Records and reads the events of submissions."""

    def __init__(self, sessions: sessionmaker[Session], notifier: Notifier) -> None:
        self._sessions = sessions
        self._notifier = notifier
        # Numbering reads the last seq then inserts: one writer at a time in this process keeps it gapless.
        self._write_lock = threading.Lock()

    @contextmanager
    def writing(self) -> Iterator[Session]:
        """A transaction in which :meth:`add` may be called; streams are woken after it commits."""
        touched: set[str] = set()
        with self._write_lock, self._sessions.begin() as session:
            session.info["touched"] = touched
            yield session
        for submission_id in touched:
            self._notifier.notify(submission_id)

    def add(self, session: Session, submission_id: str, type_: EventType, data: dict[str, Any]) -> int:
        """Append an event inside a :meth:`writing` transaction; return its number."""
        last = session.scalar(
            select(func.max(SubmissionEvent.seq)).where(SubmissionEvent.submission_id == submission_id)
        )
        seq = (last or 0) + 1
        session.add(SubmissionEvent(submission_id=submission_id, seq=seq, type=type_, data=data))
        session.info["touched"].add(submission_id)
        return seq

    def record(self, submission_id: str, type_: EventType, data: dict[str, Any]) -> int:
        with self.writing() as session:
            return self.add(session, submission_id, type_, data)

    def since(self, submission_id: str, after: int = 0) -> list[StoredEvent]:
        with self._sessions() as session:
            rows = session.scalars(
                select(SubmissionEvent)
                .where(SubmissionEvent.submission_id == submission_id, SubmissionEvent.seq > after)
                .order_by(SubmissionEvent.seq)
            )
            return [StoredEvent(seq=row.seq, type=row.type, data=row.data) for row in rows]

    def done_seq(self, submission_id: str) -> int | None:
        """The number of the submission's ``done`` event, once it has one."""
        with self._sessions() as session:
            return session.scalar(
                select(SubmissionEvent.seq).where(
                    SubmissionEvent.submission_id == submission_id, SubmissionEvent.type == "done"
                )
            )

    async def follow(self, submission_id: str, after: int = 0, poll_seconds: float = 1.0) -> AsyncIterator[StoredEvent]:
        """Every event after ``after``, as it is recorded, until the ``done`` event."""
        with self._notifier.subscribe(submission_id) as wake:
            while True:
                wake.clear()  # before reading, so an event recorded during the read is not missed
                events = await asyncio.to_thread(self.since, submission_id, after)
                for event in events:
                    yield event
                    after = event.seq
                    if event.type == "done":
                        return
                with suppress(TimeoutError):
                    await asyncio.wait_for(wake.wait(), timeout=poll_seconds)
