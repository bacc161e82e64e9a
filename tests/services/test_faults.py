"""Faults with real processes: a worker killed mid-grade, the web server and Redis restarted, a burst.

Each test starts `mlkata serve` and two `mlkata worker`s against a fresh PostgreSQL database and a
private redis-server (so it can be killed without touching any shared Redis).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from cluster import Cluster, hostile, mutant, reference, sleeping, stream_events, submit, wait_for

from app.learners import COOKIE_NAME

pytestmark = [pytest.mark.services, pytest.mark.timeout(300)]  # a burst waits up to 240 s on a loaded machine

FINAL = {"pass", "fail", "error"}


def assert_one_story(cluster: Cluster, submission_id: str) -> list[tuple[int, str]]:
    """Events numbered 1..n without gaps, exactly one ``done``, and it is the last one."""
    events = cluster.events(submission_id)
    assert [seq for seq, _ in events] == list(range(1, len(events) + 1)), events
    assert [t for _, t in events].count("done") == 1 and events[-1][1] == "done", events
    return events


def test_a_worker_killed_mid_grade_has_its_job_rerun_by_the_other_and_recorded_once(
    start_cluster: Callable[..., Cluster],
) -> None:
    cluster = start_cluster(time_seconds=6)
    with cluster.client() as learner:
        accepted = submit(learner, sleeping(1.5))
        sid = accepted["id"]
        # Mid-grade: claimed, started, and asleep inside the first call.
        row = wait_for(lambda: (r := cluster.submission(sid)).status == "running" and r, 60, "a worker to start it")
        victim = next(w for w in cluster.workers if row.worker_id.split(":")[-2] == str(w.pid))
        time.sleep(0.3)
        victim.kill()

        final = wait_for(lambda: (r := cluster.submission(sid)).status in FINAL and r, 120, "the job to be re-run")
        assert final.status == "pass" and final.attempts == 2
        survivor = next(w for w in cluster.workers if w is not victim)
        assert final.worker_id.split(":")[-2] == str(survivor.pid)
        events = assert_one_story(cluster, sid)
        assert [t for _, t in events].count("started") == 2
        assert len(cluster.rows("SELECT 1 FROM progress")) == 1

        # The stream tells the whole story; nothing comes after done, even a little later.
        streamed = list(stream_events(learner, accepted["events_url"]))
        assert streamed[-1]["event"] == "done" and streamed[-1]["data"]["status"] == "pass"
        time.sleep(1.0)
        assert assert_one_story(cluster, sid) == events

        # SIGTERM, by contrast, lets the run in progress finish before the worker exits.
        second = submit(learner, sleeping(1.5))["id"]
        wait_for(lambda: cluster.submission(second).status == "running", 60, "the survivor to start it")
        assert survivor.process is not None
        survivor.process.terminate()
        assert survivor.process.wait(timeout=60) == 0
        finished = cluster.submission(second)
        assert finished.status == "pass" and finished.attempts == 1
        assert_one_story(cluster, second)


def test_restarting_the_web_server_and_redis_mid_run_loses_nothing(start_cluster: Callable[..., Cluster]) -> None:
    cluster = start_cluster(time_seconds=8)
    with cluster.client() as learner:
        slow = submit(learner, sleeping(1.5, in_kv_cache_bytes=True))
        cookie = learner.cookies[COOKIE_NAME]
        seen: list[dict[str, Any]] = []
        for event in stream_events(learner, slow["events_url"]):
            seen.append(event)
            if event["event"] == "check":
                break  # the run is under way, and asleep again soon in kv_cache_bytes
        waiting = [submit(learner, reference())["id"] for _ in range(4)]

    # Everything in Redis goes (the queue and the event streams), and the web server with it.
    cluster.web.kill()
    cluster.redis.kill()
    cluster.redis.start()
    cluster.start_web()

    with cluster.client(cookies={COOKIE_NAME: cookie}) as same:
        rest = list(stream_events(same, slow["events_url"], last_event_id=seen[-1]["id"]))
        assert rest[-1]["event"] == "done" and rest[-1]["data"]["status"] == "pass"
        story = seen + rest
        assert [int(e["id"]) for e in story] == list(range(1, len(story) + 1))
        assert [e["event"] for e in story].count("done") == 1

        for sid in waiting:
            wait_for(lambda sid=sid: cluster.submission(sid).status in FINAL, 120, "the waiting submissions")
            assert cluster.submission(sid).status == "pass"
            assert_one_story(cluster, sid)
            assert same.get(f"/api/submissions/{sid}").json()["status"] == "pass"
    assert_one_story(cluster, slow["id"])


BURST = (
    [("pass", reference())] * 18
    + [("fail", mutant(name)) for name in ("no-scaling", "prepend", "row-output", "no-append", "mutates-input")] * 2
    + [
        ("fail", hostile("infinite_loop_in_call")),
        ("fail", hostile("numpy_memory_bomb")),
        ("fail", hostile("fork_bomb")),
        ("fail", hostile("stdout_flood")),
        ("error", hostile("syntax_error")),
        ("error", hostile("missing_function")),
        ("any", hostile("os_exit_zero_in_call")),
        ("any", hostile("kill_others")),
        ("any", hostile("read_host_files")),
        ("any", hostile("segfault_ctypes")),
        ("any", hostile("exit_zero_at_import")),
        ("any", hostile("network")),
    ]
)


def test_a_burst_of_honest_wrong_and_hostile_submissions_all_finish_once(
    start_cluster: Callable[..., Cluster],
) -> None:
    cluster = start_cluster(time_seconds=2, concurrency=2, lease_seconds=20.0)  # renewed in time on a loaded machine
    assert len(BURST) == 40
    with cluster.client() as learner:
        ids = [(expected, submit(learner, code)["id"]) for expected, code in BURST]
        positions = [learner.get(f"/api/submissions/{sid}").json()["position"] for _, sid in ids]
        assert any(p is not None and p > 1 for p in positions)  # a queue formed, and each knows its place

    def all_final() -> bool:
        return all(status in FINAL for (status,) in cluster.rows("SELECT status FROM submissions"))

    wait_for(all_final, 240, "every submission to finish", interval=0.25)
    for expected, sid in ids:
        row = cluster.submission(sid)
        assert row.status in FINAL
        if expected != "any":
            assert row.status == expected, (sid, row.result["reason"], row.result["message"])
        assert assert_one_story(cluster, sid)
    results = cluster.rows("SELECT COUNT(*) FROM submission_events WHERE type = 'done'")
    assert results[0][0] == 40
