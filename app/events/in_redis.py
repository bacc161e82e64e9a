"""Events through Redis: one stream per submission, ``<prefix>:events:<id>``, so any web node can follow any run.

An event's stream entry id is ``<seq>-0``: publishing is idempotent (Redis refuses an id not above
the last one) and a follower can resume at ``Last-Event-ID`` directly. The database stays the
source of truth: when the stream lacks what a follower needs — expired, Redis restarted, or a
publish failed — it reads the missing events from the database instead.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any, cast

import redis
import redis.asyncio as aioredis
from redis.exceptions import RedisError

from app.events.log import StoredEvent
from grader.results import EventType

log = logging.getLogger(__name__)


class RedisEventFeed:
    """An :class:`~app.events.log.EventFeed` on Redis streams, with the database behind it."""

    def __init__(
        self,
        url: str,
        *,
        prefix: str,
        ttl_seconds: int,
        read_database: Callable[[str, int], list[StoredEvent]],
        block_seconds: float = 2.0,
    ) -> None:
        self.url, self.prefix, self.ttl_seconds = url, prefix, ttl_seconds
        self.read_database, self.block_seconds = read_database, block_seconds
        self._sync = redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=2)
        self._async: aioredis.Redis | None = None

    def key(self, submission_id: str) -> str:
        return f"{self.prefix}:events:{submission_id}"

    def publish(self, submission_id: str, events: list[StoredEvent]) -> None:
        key = self.key(submission_id)
        try:
            pipe = self._sync.pipeline(transaction=False)
            for event in events:
                pipe.xadd(key, {"type": event.type, "data": json.dumps(event.data)}, id=f"{event.seq}-0")
            # Refreshed by every event: a finished run's stream lasts ttl_seconds after its ``done``.
            pipe.expire(key, self.ttl_seconds)
            for outcome in pipe.execute(raise_on_error=False):
                if isinstance(outcome, Exception) and "equal or smaller" not in str(outcome):
                    log.warning("publishing an event failed: %s", outcome, extra={"submission_id": submission_id})
        except RedisError as exc:  # followers read the database instead
            log.warning("publishing events failed: %s", exc, extra={"submission_id": submission_id})

    def _client(self) -> aioredis.Redis:
        # Made lazily: it belongs to the event loop of the first request that follows.
        if self._async is None:
            self._async = aioredis.Redis.from_url(self.url, socket_timeout=self.block_seconds + 5)
        return self._async

    async def follow(self, submission_id: str, after: int) -> AsyncIterator[StoredEvent]:
        key = self.key(submission_id)
        block: int | None = None  # the first read does not wait: a finished run's stream may be gone
        while True:
            events = await self._read(key, after, block)
            block = int(self.block_seconds * 1000)
            if not events or events[0].seq != after + 1:
                # Nothing new for a while, Redis away, or a gap in the stream: the database knows everything.
                events = await asyncio.to_thread(self.read_database, submission_id, after)
            for event in events:
                if event.seq != after + 1:
                    break  # a gap inside what Redis returned: the database fills it next time round
                yield event
                after = event.seq
                if event.type == EventType.DONE:
                    return

    async def _read(self, key: str, after: int, block: int | None) -> list[StoredEvent] | None:
        """Events after ``after`` in the stream (waiting up to ``block`` ms for some); None when Redis is away."""
        try:
            reply = await self._client().xread({key: f"{after}-0"}, count=500, block=block)
        except (RedisError, OSError) as exc:
            log.warning("following events from Redis failed: %s", exc)
            await asyncio.sleep(self.block_seconds)
            return None
        events: list[StoredEvent] = []
        # RESP2, as the client speaks: [[stream, [(entry id, {field: value})]]] (redis-py types each protocol's).
        for _stream, entries in cast("list[list[Any]] | None", reply) or []:
            for entry, fields in entries:
                seq = int(entry.decode().split("-", 1)[0])
                type_ = EventType(fields[b"type"].decode())
                events.append(StoredEvent(seq=seq, type=type_, data=json.loads(fields[b"data"])))
        return events

    async def aclose(self) -> None:
        if self._async is not None:
            await self._async.aclose()
            self._async = None

    def close(self) -> None:
        self._sync.close()
