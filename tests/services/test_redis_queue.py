"""The Redis queue, the sweeper and the Redis event feed, against PostgreSQL and the shared Redis (own key prefix)."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
import redis
from sqlalchemy import update

from app.events import EventLog, Notifier, StoredEvent
from app.jobs import GradingJobs
from app.learners import ensure_learner
from app.metrics import Metrics
from app.models import Submission, utcnow
from app.redis_events import RedisEventFeed
from app.redis_queue import GROUP, RedisQueue
from app.sweeper import Sweeper
from grader.exercise import Exercise

pytestmark = pytest.mark.services


@pytest.fixture
def client(redis_url: str) -> redis.Redis:
    return redis.Redis.from_url(redis_url)


@pytest.fixture
def make_queue(client: redis.Redis, migrated: Any, redis_prefix: str) -> Callable[..., RedisQueue]:
    def make(lease_seconds: float = 30.0, consumer: str | None = None) -> RedisQueue:
        return RedisQueue(
            client, migrated, prefix=redis_prefix, max_size=10, lease_seconds=lease_seconds, consumer=consumer
        )

    return make


@pytest.fixture
def new_submission(migrated: Any) -> Callable[[], str]:
    def make() -> str:
        submission_id, learner = str(uuid.uuid4()), str(uuid.uuid4())
        with migrated.begin() as session:
            ensure_learner(session, learner)
            session.add(Submission(id=submission_id, learner_id=learner, exercise="adder", code="def add(a, b): ..."))
        return submission_id

    return make


def pending(client: redis.Redis, queue: RedisQueue) -> int:
    return int(client.xpending(queue.stream, GROUP)["pending"])


def test_a_job_is_acknowledged_only_once_its_result_is_recorded(
    make_queue: Callable[..., RedisQueue], new_submission: Callable[[], str], client: redis.Redis, migrated: Any,
    adder: Exercise,
) -> None:  # fmt: skip
    queue = make_queue()
    submission_id = new_submission()
    assert queue.enqueue(submission_id) == 1
    assert queue.take(timeout=1) == submission_id
    assert pending(client, queue) == 1  # taken, not yet acknowledged
    jobs = GradingJobs(migrated, EventLog(migrated, Notifier()), {"adder": adder}, jailed=False)
    jobs.run(submission_id)
    queue.ack(submission_id)
    assert pending(client, queue) == 0 and client.xlen(queue.stream) == 0
    with migrated() as session:
        assert session.get(Submission, submission_id).status == "fail"  # "..." returns None


def test_a_job_whose_worker_died_is_reclaimed_by_another_after_the_lease(
    make_queue: Callable[..., RedisQueue], new_submission: Callable[[], str]
) -> None:
    dead, alive = make_queue(lease_seconds=0.5, consumer="dead"), make_queue(lease_seconds=0.5, consumer="alive")
    submission_id = new_submission()
    dead.enqueue(submission_id)
    assert dead.take(timeout=1) == submission_id  # and then it dies without acknowledging
    assert alive.take(timeout=0.2) is None
    time.sleep(0.6)
    assert alive.take(timeout=1) == submission_id


def test_positions_come_from_the_database(
    make_queue: Callable[..., RedisQueue], new_submission: Callable[[], str], migrated: Any
) -> None:
    queue = make_queue()
    ids = [new_submission() for _ in range(3)]
    assert [queue.enqueue(i) for i in ids] == [1, 2, 3]
    with migrated.begin() as session:
        session.execute(update(Submission).where(Submission.id == ids[0]).values(status="running"))
    assert [queue.position(i) for i in ids] == [None, 1, 2]
    assert queue.waiting() == ids[1:] and queue.depth() == 2


def test_the_sweeper_requeues_lost_entries_and_expired_claims(
    make_queue: Callable[..., RedisQueue], new_submission: Callable[[], str], migrated: Any, adder: Exercise
) -> None:
    queue = make_queue(lease_seconds=30)
    events = EventLog(migrated, Notifier())
    jobs = GradingJobs(migrated, events, {"adder": adder}, jailed=False, lease_seconds=30)
    metrics = Metrics()
    sweeper = Sweeper(queue, events, jobs, metrics, lease_seconds=30)
    lost, abandoned = new_submission(), new_submission()
    assert jobs.claim(abandoned) is not None
    past = utcnow() - timedelta(seconds=1)
    with migrated.begin() as session:  # lost: recorded, but Redis forgot its entry; abandoned: its worker died
        session.execute(update(Submission).where(Submission.id == lost).values(queue_ref="1-0", lease_until=past))
        session.execute(update(Submission).where(Submission.id == abandoned).values(lease_until=past))

    sweeper.sweep()
    assert {queue.take(timeout=1), queue.take(timeout=1)} == {lost, abandoned}
    with migrated() as session:
        assert session.get(Submission, abandoned).status == "queued"
    assert [e.type for e in events.since(abandoned)] == ["started", "queued"]
    assert sweeper.sweep() == 0  # the entries exist now: nothing more to do
    rendered = metrics.render().decode()
    assert 'mlkata_requeued_total{why="lease_expired"} 1.0' in rendered
    assert 'mlkata_requeued_total{why="entry_lost"} 2.0' in rendered


def test_the_queue_survives_redis_forgetting_the_stream_and_its_group(
    make_queue: Callable[..., RedisQueue], new_submission: Callable[[], str], client: redis.Redis
) -> None:
    queue = make_queue()
    first = new_submission()
    queue.enqueue(first)
    assert queue.take(timeout=1) == first
    client.delete(queue.stream)  # what a restart of a Redis without persistence looks like
    second = new_submission()
    assert queue.take(timeout=0.2) is None  # the group is gone: made again on the next take
    queue.enqueue(second)
    assert queue.take(timeout=1) == second


def collect(feed: RedisEventFeed, submission_id: str, after: int = 0) -> list[StoredEvent]:
    async def run() -> list[StoredEvent]:
        try:
            return [event async for event in feed.follow(submission_id, after)]
        finally:
            await feed.aclose()

    return asyncio.run(asyncio.wait_for(run(), timeout=20))


def test_events_replay_from_redis_and_gaps_are_filled_from_the_database(
    new_submission: Callable[[], str], migrated: Any, redis_url: str, redis_prefix: str, client: redis.Redis
) -> None:
    events = EventLog(migrated, Notifier())
    feed = RedisEventFeed(redis_url, prefix=redis_prefix, ttl_seconds=60, read_database=events.since)
    events.feed = feed
    submission_id = new_submission()
    for index in range(4):
        events.record(submission_id, "output", {"text": str(index)})
    events.record(submission_id, "done", {"status": "pass"})
    key = feed.key(submission_id)
    assert client.xlen(key) == 5 and 0 < client.ttl(key) <= 60
    everything = collect(feed, submission_id)
    assert [e.seq for e in everything] == [1, 2, 3, 4, 5] and everything[-1].type == "done"
    assert collect(feed, submission_id, after=3) == everything[3:]

    client.xdel(key, "2-0")  # a publish that never arrived
    assert collect(feed, submission_id) == everything
    client.delete(key)  # expired, or Redis restarted
    assert collect(feed, submission_id, after=1) == everything[1:]


def test_dead_consumers_with_nothing_pending_are_forgotten(
    make_queue: Callable[..., RedisQueue], new_submission: Callable[[], str], client: redis.Redis
) -> None:
    gone, busy, sweeping = make_queue(consumer="gone"), make_queue(consumer="busy"), make_queue(consumer="me")
    gone.enqueue(first := new_submission())
    assert gone.take(timeout=1) == first
    gone.ack(first)  # a member that finished its work and died
    busy.enqueue(new_submission())
    assert busy.take(timeout=1) is not None  # holds a pending entry: kept until it is reclaimed
    time.sleep(0.05)
    assert sweeping.forget_idle_consumers(idle_seconds=0.01) == 1
    assert {m["name"] for m in client.xinfo_consumers(sweeping.stream, GROUP)} == {b"busy"}
