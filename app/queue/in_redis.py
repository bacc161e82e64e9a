"""The grading queue on Redis Streams, for workers in other processes and on other machines.

Queueing a submission adds an entry to the stream ``<prefix>:jobs``, read by the consumer group
``graders``: a bell that wakes one worker at once. Which run that worker then grades is not the
entry's but the first in fair order (:mod:`app.queue.fairness`, round-robin by learner) that no other
worker has taken: it takes it with the key ``<prefix>:taken:<id>`` (``SET NX``, expiring after
``lease_seconds``), then claims it in the database as any worker does. The entry is acknowledged
(and deleted) once that run's result is recorded; the entry of a worker that died stays pending,
and after ``lease_seconds`` idle another worker takes it over with ``XAUTOCLAIM``.

The database row stays the source of truth: Redis here may keep nothing on disk, so a worker with
no bell still looks in the database every ``poll_seconds``, and a run whose bell Redis lost is
graded all the same. Queue positions come from the database too, so they are right on every web node
and survive a Redis restart.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import uuid
from typing import Any, cast

import redis
from redis.exceptions import RedisError, ResponseError
from sqlalchemy.orm import Session, sessionmaker

from app.queue.fairness import WaitingRun, WaitingRuns

log = logging.getLogger(__name__)

GROUP = "graders"
#: Far more than ``max_queue`` ever lets wait; only a cap against a runaway producer.
STREAM_MAX_LENGTH = 100_000
#: Times a worker reads the order again when another took the run it chose at the same moment.
_TAKE_ATTEMPTS = 5


def consumer_name() -> str:
    """Unique per process: host, pid and a random part (pids repeat across containers)."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"


class RedisQueue:
    """A :class:`~app.queue.protocol.SubmissionQueue` on a Redis stream with a consumer group."""

    shared = True

    def __init__(
        self,
        client: redis.Redis,
        sessions: sessionmaker[Session],
        *,
        prefix: str,
        lease_seconds: float,
        poll_seconds: float = 5.0,
        consumer: str | None = None,
    ) -> None:
        self.client, self.sessions = client, sessions
        self.runs = WaitingRuns(sessions)
        self.prefix, self.stream = prefix, f"{prefix}:jobs"
        self.lease_seconds, self.poll_seconds = lease_seconds, poll_seconds
        self.consumer = consumer or consumer_name()
        self._taken: dict[str, set[str]] = {}  # submission id → entry ids this process took for it
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self._group_ready = False
        self._next_poll = 0.0

    # -- producing --------------------------------------------------------------------------------------------

    def enqueue(self, submission_id: str) -> None:
        """Ring: add an entry for a waiting run, which any worker may take now (even if it was taken before).

        Raises :class:`redis.exceptions.RedisError` when Redis is away: the caller has recorded the
        submission already, and workers find it in the database.
        """
        pipe = self.client.pipeline(transaction=False)
        pipe.delete(self._taken_key(submission_id))  # given back by a stopping worker: free to take at once
        pipe.xadd(self.stream, {"id": submission_id}, maxlen=STREAM_MAX_LENGTH, approximate=True)
        pipe.execute()

    def scope(self) -> set[str] | None:
        return None

    # -- consuming --------------------------------------------------------------------------------------------

    def take(self, timeout: float) -> str | None:
        """The waiting run whose turn it is, after a bell (or a dead worker's entry), or a look in the database.

        Without a bell within ``timeout``, the database is read only every ``poll_seconds``.
        """
        if self._closed.is_set():
            return None
        try:
            self._ensure_group()
            bell = self._reclaim() or self._read_new(timeout)
        except ResponseError as exc:
            if "NOGROUP" not in str(exc):
                raise
            self._group_ready = False  # Redis restarted empty: make the group again next time
            bell = None
        except RedisError as exc:
            log.warning("the queue is unreachable: %s", exc)
            self._closed.wait(min(timeout, 1.0))
            return None
        now = time.monotonic()
        if bell is None and now < self._next_poll:
            return None
        self._next_poll = now + self.poll_seconds
        try:
            chosen = self._take_next()
        except RedisError as exc:  # the bell stays pending: another worker reclaims it after the lease
            log.warning("could not take a run: %s", exc)
            return None
        entries = {bell[0]} if bell is not None else set()
        if chosen is None:
            self._acknowledge(entries)  # a bell for a run another worker took, or that was stopped
            return None
        with self._lock:
            self._taken.setdefault(chosen, set()).update(entries)
        return chosen

    def _take_next(self) -> str | None:
        """The first waiting run in fair order that no other worker has taken, now taken by this one."""
        lease_ms = max(1, int(self.lease_seconds * 1000))
        for _ in range(_TAKE_ATTEMPTS):
            order = self.in_order()
            if not order:
                return None
            if self.client.set(self._taken_key(order[0].id), self.consumer, nx=True, px=lease_ms):
                return order[0].id
            # Another worker took it meanwhile: read the order again, which now counts that turn.
        return None  # contended: the run left is found at the next bell or look

    def in_order(self) -> list[WaitingRun]:
        """The waiting runs in fair order, counting those taken by workers that have not started them yet."""
        order = self.runs.in_order()
        if not order:
            return []
        keys = self.client.mget([self._taken_key(run.id) for run in order])
        taken = [run.id for run, key in zip(order, keys, strict=True) if key is not None]
        return self.runs.in_order(taken=taken) if taken else order

    def _taken_key(self, submission_id: str) -> str:
        return f"{self.prefix}:taken:{submission_id}"

    def ack(self, submission_id: str) -> None:
        with self._lock:
            entries = self._taken.pop(submission_id, set())
        self._acknowledge(entries)

    def _acknowledge(self, entries: set[str]) -> None:
        if not entries:
            return
        try:
            pipe = self.client.pipeline(transaction=False)
            pipe.xack(self.stream, GROUP, *entries)
            pipe.xdel(self.stream, *entries)  # positions come from the database: no need to keep history
            pipe.execute()
        except RedisError as exc:
            # The result is in the database: an entry left pending is reclaimed later, and grades nothing twice.
            log.warning("could not acknowledge %s: %s", sorted(entries), exc)

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
        # RESP2, as the client speaks: [[stream, [(entry id, {field: value})]]] (redis-py types each protocol's).
        for _stream, entries in cast("list[list[Any]] | None", reply) or []:
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
        return [run.id for run in self.runs.in_order()]

    def depth(self) -> int:
        return self.runs.depth()

    def position(self, submission_id: str) -> int | None:
        return self.runs.position(submission_id)

    def ping(self) -> None:
        self.client.ping()

    def close(self) -> None:
        self._closed.set()


def redis_client(url: str) -> redis.Redis:
    """A client that fails fast when Redis is away, instead of hanging a request or a worker."""
    return redis.Redis.from_url(url, socket_timeout=10, socket_connect_timeout=2, health_check_interval=30)
