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

from app.events.in_redis import RedisEventFeed
from app.events.log import EventLog, Notifier, StoredEvent
from app.grading.jobs import GradingJobs
from app.grading.sweeper import Sweeper
from app.learners import ensure_learner
from app.models import Submission, utcnow
from app.monitoring.metrics import Metrics
from app.queue.in_redis import GROUP, RedisQueue
from grader.exercise import Exercise

pytestmark = pytest.mark.services


@pytest.fixture
def client(redis_url: str) -> redis.Redis:
    return redis.Redis.from_url(redis_url)


@pytest.fixture
def make_queue(client: redis.Redis, migrated: Any, redis_prefix: str) -> Callable[..., RedisQueue]:
    def make(lease_seconds: float = 30.0, consumer: str | None = None, poll_seconds: float = 5.0) -> RedisQueue:
        return RedisQueue(
            client, migrated, prefix=redis_prefix, lease_seconds=lease_seconds,
            poll_seconds=poll_seconds, consumer=consumer,
        )  # fmt: skip

    return make


@pytest.fixture
def new_submission(migrated: Any) -> Callable[..., str]:
    def make(learner: str | None = None) -> str:
        submission_id, learner = str(uuid.uuid4()), learner or str(uuid.uuid4())
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
    queue.enqueue(submission_id)
    assert queue.position(submission_id) == 1
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
    # A lease long enough that a loaded machine cannot let it run out between the two first takes.
    dead, alive = make_queue(lease_seconds=3, consumer="dead"), make_queue(lease_seconds=3, consumer="alive")
    submission_id = new_submission()
    dead.enqueue(submission_id)
    taken_at = time.monotonic()
    assert dead.take(timeout=1) == submission_id  # and then it dies without acknowledging, or starting it
    assert alive.take(timeout=0.2) is None  # taken: not handed out twice
    reclaimed = None
    while reclaimed is None and time.monotonic() < taken_at + 60:
        reclaimed = alive.take(timeout=0.5)
    assert reclaimed == submission_id
    assert time.monotonic() - taken_at >= 3  # once its lease had run out, not before


def test_positions_come_from_the_database(
    make_queue: Callable[..., RedisQueue], new_submission: Callable[[], str], migrated: Any
) -> None:
    queue = make_queue()
    ids = [new_submission() for _ in range(3)]
    for submission_id in ids:
        queue.enqueue(submission_id)
    assert [queue.position(i) for i in ids] == [1, 2, 3]
    with migrated.begin() as session:
        session.execute(update(Submission).where(Submission.id == ids[0]).values(status="running"))
    assert [queue.position(i) for i in ids] == [None, 1, 2]
    assert queue.waiting() == ids[1:] and queue.depth() == 2


def test_the_sweeper_puts_back_expired_claims_and_a_run_without_a_bell_is_found_in_the_database(
    make_queue: Callable[..., RedisQueue], new_submission: Callable[[], str], migrated: Any, adder: Exercise,
    client: redis.Redis,
) -> None:  # fmt: skip
    queue = make_queue(lease_seconds=30, poll_seconds=0.5)
    events = EventLog(migrated, Notifier())
    jobs = GradingJobs(migrated, events, {"adder": adder}, jailed=False, lease_seconds=30)
    metrics = Metrics()
    sweeper = Sweeper(queue, events, jobs, metrics, lease_seconds=30)
    lost, abandoned = new_submission(), new_submission()
    assert jobs.claim(abandoned) is not None
    with migrated.begin() as session:  # lost: recorded, but Redis never heard of it; abandoned: its worker died
        session.execute(
            update(Submission).where(Submission.id == abandoned).values(lease_until=utcnow() - timedelta(seconds=1))
        )

    assert sweeper.sweep() == 1
    with migrated() as session:
        assert session.get(Submission, abandoned).status == "queued"
    assert [e.type for e in events.since(abandoned)] == ["started", "queued"]
    assert client.xlen(queue.stream) == 1  # a bell for the one put back; none for the lost one
    assert {queue.take(timeout=1), queue.take(timeout=1)} == {lost, abandoned}  # the second from the database
    assert sweeper.sweep() == 0
    assert 'mlkata_requeued_total{why="lease_expired"} 1.0' in metrics.render().decode()


def test_several_workers_take_turns_by_learner(
    make_queue: Callable[..., RedisQueue], new_submission: Callable[..., str], migrated: Any, adder: Exercise
) -> None:
    first, second = make_queue(consumer="first"), make_queue(consumer="second")
    jobs = GradingJobs(migrated, EventLog(migrated, Notifier()), {"adder": adder}, jailed=False)
    ann, bob, cat = (str(uuid.uuid4()) for _ in range(3))
    a = [new_submission(ann) for _ in range(4)]
    b = new_submission(bob)
    for submission_id in [*a, b]:
        first.enqueue(submission_id)
    # Taken at the same moment, neither started yet: Ann's backlog does not get two turns in a row.
    taken = [first.take(timeout=1), second.take(timeout=1)]
    assert taken == [a[0], b]
    for submission_id in taken:
        assert jobs.claim(submission_id) is not None
    c = new_submission(cat)
    first.enqueue(c)
    assert first.waiting() == [a[1], c, a[2], a[3]]  # Ann back in line (one run) before Cat came; then Cat
    assert [second.take(timeout=1), first.take(timeout=1)] == [a[1], c]
    assert first.take(timeout=1) == a[2] and second.take(timeout=0.2) == a[3]


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
