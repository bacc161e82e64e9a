"""The grading queue on Redis Streams, for workers in other processes and on other machines.

Each submission id is one entry of the stream ``<prefix>:jobs``, read by the consumer group
``graders``. An entry is acknowledged (and deleted) only once its result is recorded in the database,
or once the database says the submission is not this worker's to grade. The entry of a worker that
died stays pending; after ``lease_seconds`` idle, another worker takes it over with ``XAUTOCLAIM``.

The database row stays the source of truth: Redis here may keep nothing on disk, so the sweeper
(``app.sweeper``) checks that each waiting submission's entry (``queue_ref``) still exists and adds
it again when it does not. Queue positions come from the database (queued submissions created
earlier), not from the stream, so they are right on every web node and survive a Redis restart.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import uuid
from datetime import timedelta

import redis
from redis.exceptions import RedisError, ResponseError
from sqlalchemy import func, select, update
from sqlalchemy.orm import Session, sessionmaker

from app.models import Submission, SubmissionStatus, utcnow
from app.queue import QueueFull

log = logging.getLogger(__name__)

GROUP = "graders"
#: Far more than ``max_queue`` ever lets wait; only a cap against a runaway producer.
STREAM_MAX_LENGTH = 100_000


def consumer_name() -> str:
    """Unique per process: host, pid and a random part (pids repeat across containers)."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"


class RedisQueue:
    """A :class:`~app.queue.SubmissionQueue` on a Redis stream with a consumer group."""

    def __init__(
        self,
        client: redis.Redis,
        sessions: sessionmaker[Session],
        *,
        prefix: str,
        max_size: int,
        lease_seconds: float,
        consumer: str | None = None,
    ) -> None:
        self.client, self.sessions = client, sessions
        self.stream = f"{prefix}:jobs"
        self.max_size, self.lease_seconds = max_size, lease_seconds
        self.consumer = consumer or consumer_name()
        self._taken: dict[str, set[str]] = {}  # submission id → entry ids this process took for it
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self._group_ready = False

    # -- producing --------------------------------------------------------------------------------------------

    def enqueue(self, submission_id: str, *, force: bool = False) -> int:
        """Add an entry and note it on the row; position from the database.

        Raises :class:`redis.exceptions.RedisError` when Redis is away: the caller has recorded the
        submission already, and the sweeper adds it once Redis is back.
        """
        if not force and self.depth() >= self.max_size:
            raise QueueFull(f"{self.max_size} submissions are waiting")
        entry = self.client.xadd(
            self.stream, {"id": submission_id}, maxlen=STREAM_MAX_LENGTH, approximate=True
        ).decode()
        self.note_entry(submission_id, entry)
        return self.position(submission_id) or 0

    def note_entry(self, submission_id: str, entry: str | None) -> None:
        """Remember which entry carries a waiting submission, and when to check it is still there."""
        with self.sessions.begin() as session:
            session.execute(
                update(Submission)
                .where(Submission.id == submission_id, Submission.status == SubmissionStatus.QUEUED.value)
                .values(queue_ref=entry, lease_until=utcnow() + timedelta(seconds=self.lease_seconds))
            )

    def holds(self, entry: str | None) -> bool:
        """Whether the stream still has this entry (waiting, or taken and not yet acknowledged)."""
        return bool(entry) and bool(self.client.xrange(self.stream, min=entry, max=entry, count=1))

    # -- consuming --------------------------------------------------------------------------------------------

    def take(self, timeout: float) -> str | None:
        """An entry whose worker died (idle past the lease) first, else a new one, else None after ``timeout``."""
        if self._closed.is_set():
            return None
        try:
            self._ensure_group()
            taken = self._reclaim() or self._read_new(timeout)
        except ResponseError as exc:
            if "NOGROUP" not in str(exc):
                raise
            self._group_ready = False  # Redis restarted empty: make the group again next time
            return None
        except RedisError as exc:
            log.warning("the queue is unreachable: %s", exc)
            self._closed.wait(min(timeout, 1.0))
            return None
        if taken is None:
            return None
        entry, submission_id = taken
        with self._lock:
            self._taken.setdefault(submission_id, set()).add(entry)
        return submission_id

    def ack(self, submission_id: str) -> None:
        with self._lock:
            entries = self._taken.pop(submission_id, set())
        if not entries:
            return
        try:
            pipe = self.client.pipeline(transaction=False)
            pipe.xack(self.stream, GROUP, *entries)
            pipe.xdel(self.stream, *entries)  # positions come from the database: no need to keep history
            pipe.execute()
        except RedisError as exc:
            # The result is in the database: an entry left pending is reclaimed and dropped, not graded twice.
            log.warning("could not acknowledge %s: %s", submission_id, exc, extra={"submission_id": submission_id})

    def _ensure_group(self) -> None:
        if self._group_ready:
            return
        try:
            # From "0", so entries added before the group existed (after a Redis restart) are read too.
            self.client.xgroup_create(self.stream, GROUP, id="0", mkstream=True)
        except ResponseError as exc:
            if "BUSYGROUP" not in str(exc):
                raise
        self._group_ready = True

    def _reclaim(self) -> tuple[str, str] | None:
        reply = self.client.xautoclaim(
            self.stream, GROUP, self.consumer, min_idle_time=int(self.lease_seconds * 1000), start_id="0-0", count=1
        )
        claimed = reply[1]
        for entry, fields in claimed:
            if fields:  # a deleted entry comes back without fields
                log.info("reclaimed a job whose worker stopped", extra={"submission_id": fields[b"id"].decode()})
                return entry.decode(), fields[b"id"].decode()
        return None

    def _read_new(self, timeout: float) -> tuple[str, str] | None:
        reply = self.client.xreadgroup(
            GROUP, self.consumer, {self.stream: ">"}, count=1, block=max(1, int(timeout * 1000))
        )
        for _stream, entries in reply or []:
            for entry, fields in entries:
                return entry.decode(), fields[b"id"].decode()
        return None

    def forget_idle_consumers(self, idle_seconds: float) -> int:
        """Remove group members with nothing pending and idle this long (workers that died or were replaced).

        A live worker reads every second or so, so it is never this idle; if it were, reading again
        would simply add it back.
        """
        removed = 0
        for member in self.client.xinfo_consumers(self.stream, GROUP):
            name = member["name"]
            if member["pending"] == 0 and member["idle"] > idle_seconds * 1000 and name != self.consumer:
                removed += int(self.client.xgroup_delconsumer(self.stream, GROUP, name) == 0)
        return removed

    # -- positions (from the database) ------------------------------------------------------------------------

    def waiting(self) -> list[str]:
        with self.sessions() as session:
            return list(
                session.scalars(
                    select(Submission.id)
                    .where(Submission.status == SubmissionStatus.QUEUED.value)
                    .order_by(Submission.created_at, Submission.id)
                )
            )

    def depth(self) -> int:
        with self.sessions() as session:
            count = session.scalar(
                select(func.count(Submission.id)).where(Submission.status == SubmissionStatus.QUEUED.value)
            )
        return int(count or 0)

    def position(self, submission_id: str) -> int | None:
        with self.sessions() as session:
            row = session.execute(
                select(Submission.created_at, Submission.status).where(Submission.id == submission_id)
            ).one_or_none()
            if row is None or row.status != SubmissionStatus.QUEUED.value:
                return None
            ahead = session.scalar(
                select(func.count(Submission.id)).where(
                    Submission.status == SubmissionStatus.QUEUED.value,
                    (Submission.created_at < row.created_at)
                    | ((Submission.created_at == row.created_at) & (Submission.id < submission_id)),
                )
            )
        return int(ahead or 0) + 1

    def ping(self) -> None:
        self.client.ping()

    def close(self) -> None:
        self._closed.set()


def redis_client(url: str) -> redis.Redis:
    """A client that fails fast when Redis is away, instead of hanging a request or a worker."""
    return redis.Redis.from_url(url, socket_timeout=10, socket_connect_timeout=2, health_check_interval=30)
