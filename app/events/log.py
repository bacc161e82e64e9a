"""The story of each grading run, as numbered events stored in the database.

Workers record events; event streams read them back from the database, so a client that reconnects
with ``Last-Event-ID`` — or connects after the run, or after a restart — gets exactly what it missed.
A :class:`Notifier` wakes waiting streams at once; streams also poll, so events recorded by another
process (a separate worker) arrive too. With Redis, an :class:`EventFeed` also publishes each event
to a per-submission stream that any web process can follow (``app.events.in_redis``).

Numbering: each event takes the next number from the submission row's ``last_event_seq`` with one
atomic ``UPDATE … RETURNING``, which also holds the row lock until commit, so numbers stay unique
and gapless however many processes record events. The same statement carries the guard that makes
stale writers harmless: a worker whose claim was taken over (another attempt) records nothing.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager, nullcontext, suppress
from dataclasses import dataclass
from typing import Any, Protocol

from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from app.models import Submission, SubmissionEvent
from grader.results import OUTPUT_CHARS, EventType, cap_text

log = logging.getLogger(__name__)

#: The largest event kept. The grader already caps every part of a result (grader/results/caps.py), so this
#: only guards the database and every stream that replays it against an event nothing else bounded.
MAX_EVENT_BYTES = 2 << 20


@dataclass(frozen=True)
class StoredEvent:
    seq: int
    type: EventType
    data: dict[str, Any]


def bounded_event(type_: EventType, data: dict[str, Any]) -> dict[str, Any]:
    """``data``, or a short stand-in saying it was too large to keep (with its size)."""
    size = len(json.dumps(data, default=str))
    if size <= MAX_EVENT_BYTES:
        return data
    log.error("a %s event of %d bytes was too large to keep", type_, size)
    if type_ == EventType.OUTPUT:
        return {"text": cap_text(str(data.get("text", "")), OUTPUT_CHARS)}
    return {"too_large": True, "bytes": size}


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


class EventFeed(Protocol):
    """Somewhere besides the database that events are published to and followed from."""

    def publish(self, submission_id: str, events: list[StoredEvent]) -> None:
        """Called after the events' transaction committed; must not raise."""
        ...

    def follow(self, submission_id: str, after: int) -> AsyncIterator[StoredEvent]:
        """Every event after ``after`` until ``done``; falls back to the database itself."""
        ...

    def close(self) -> None: ...

    async def aclose(self) -> None:
        """Close what :meth:`follow` opened on the server's event loop."""
        ...


class EventLog:
    """Records and reads the events of submissions."""

    def __init__(
        self,
        sessions: sessionmaker[Session],
        notifier: Notifier,
        *,
        feed: EventFeed | None = None,
        poll_seconds: float = 1.0,
    ) -> None:
        self._sessions = sessions
        self._notifier = notifier
        self.feed = feed
        self.poll_seconds = poll_seconds
        # SQLite: one writer at a time in this process, so a read-then-write transaction never meets
        # SQLITE_BUSY halfway. PostgreSQL's row locks need no help.
        sqlite = sessions.kw["bind"].dialect.name == "sqlite"
        self._write_lock: threading.Lock | nullcontext[None] = threading.Lock() if sqlite else nullcontext()

    async def aclose(self) -> None:
        """Close the feed's connections made on the server's event loop, if there is a feed."""
        if self.feed is not None:
            await self.feed.aclose()

    @contextmanager
    def writing(self) -> Iterator[Session]:
        """A transaction in which :meth:`add` may be called; streams are woken after it commits."""
        recorded: dict[str, list[StoredEvent]] = {}
        with self._write_lock, self._sessions.begin() as session:
            session.info["recorded"] = recorded
            yield session
        for submission_id, events in recorded.items():
            self._notifier.notify(submission_id)
            if self.feed is not None:
                self.feed.publish(submission_id, events)

    def add(
        self,
        session: Session,
        submission_id: str,
        type_: EventType,
        data: dict[str, Any],
        *,
        status: str | None = None,
        attempt: int | None = None,
    ) -> int | None:
        """Append an event inside a :meth:`writing` transaction; return its number.

        With ``status`` and/or ``attempt``, the event is only recorded while the submission is in that
        state and claim; otherwise nothing is recorded and None is returned.
        """
        numbering = (
            update(Submission)
            .where(Submission.id == submission_id)
            .values(last_event_seq=Submission.last_event_seq + 1)
            .returning(Submission.last_event_seq)
            .execution_options(synchronize_session=False)
        )
        if status is not None:
            numbering = numbering.where(Submission.status == status)
        if attempt is not None:
            numbering = numbering.where(Submission.attempts == attempt)
        type_ = EventType(type_)  # a name given as a string must be one of them too
        seq = session.execute(numbering).scalar_one_or_none()
        if seq is None:
            return None
        data = bounded_event(type_, data)
        session.add(SubmissionEvent(submission_id=submission_id, seq=seq, type=type_.value, data=data))
        session.info["recorded"].setdefault(submission_id, []).append(StoredEvent(seq=seq, type=type_, data=data))
        return seq

    def record(
        self,
        submission_id: str,
        type_: EventType,
        data: dict[str, Any],
        *,
        status: str | None = None,
        attempt: int | None = None,
    ) -> int | None:
        with self.writing() as session:
            return self.add(session, submission_id, type_, data, status=status, attempt=attempt)

    def since(self, submission_id: str, after: int = 0) -> list[StoredEvent]:
        with self._sessions() as session:
            rows = session.scalars(
                select(SubmissionEvent)
                .where(SubmissionEvent.submission_id == submission_id, SubmissionEvent.seq > after)
                .order_by(SubmissionEvent.seq)
            )
            return [StoredEvent(seq=row.seq, type=EventType(row.type), data=row.data) for row in rows]

    def done_seq(self, submission_id: str) -> int | None:
        """The number of the submission's ``done`` event, once it has one."""
        with self._sessions() as session:
            return session.scalar(
                select(SubmissionEvent.seq).where(
                    SubmissionEvent.submission_id == submission_id, SubmissionEvent.type == EventType.DONE.value
                )
            )

    def follow(self, submission_id: str, after: int = 0) -> AsyncIterator[StoredEvent]:
        """Every event after ``after``, as it is recorded, until the ``done`` event."""
        if self.feed is not None:
            return self.feed.follow(submission_id, after)
        return self.follow_database(submission_id, after)

    async def follow_database(self, submission_id: str, after: int = 0) -> AsyncIterator[StoredEvent]:
        """:meth:`follow` from the database alone: woken in this process, polling for other processes."""
        with self._notifier.subscribe(submission_id) as wake:
            while True:
                wake.clear()  # before reading, so an event recorded during the read is not missed
                events = await asyncio.to_thread(self.since, submission_id, after)
                for event in events:
                    yield event
                    after = event.seq
                    if event.type == EventType.DONE:
                        return
                with suppress(TimeoutError):
                    await asyncio.wait_for(wake.wait(), timeout=self.poll_seconds)
