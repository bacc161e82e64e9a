"""One address cannot fill the queue on Redis either: `mlkata serve` and two `mlkata worker`s with the default limits.

The flood of issue 18: three cookies from one address send slow runs all at once. Each cookie gets its
share, the address a quarter of the queue; another learner, from another address, is let in at once and
graded before the flood's backlog; every run is graded once.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable

import httpx
import pytest
from cluster import SLUG, Cluster, reference, sleeping, stream_events, wait_for

pytestmark = [pytest.mark.services, pytest.mark.timeout(180)]

#: The limits the other cluster tests lift, back to what a site runs with.
DEFAULTS: dict[str, str | None] = {
    name: None
    for name in (
        "MLKATA_RATE_LIMIT",
        "MLKATA_RATE_LIMIT_PER_ADDRESS",
        "MLKATA_MAX_QUEUE",
        "MLKATA_QUEUE_SHARE_PER_LEARNER",
        "MLKATA_QUEUE_SHARE_PER_ADDRESS",
    )
}
URL = f"/api/exercises/{SLUG}/submissions"


def learner_at(cluster: Cluster, address: str) -> httpx.Client:
    learner = httpx.Client(base_url=cluster.url, timeout=60, transport=httpx.HTTPTransport(local_address=address))
    learner.get("/")  # the cookie
    return learner


def flood(clients: list[httpx.Client], each: int, code: str) -> list[httpx.Response]:
    answers: list[httpx.Response] = []
    lock = threading.Lock()
    start = threading.Barrier(len(clients))

    def send(learner: httpx.Client) -> None:
        start.wait()
        for _ in range(each):
            answer = learner.post(URL, json={"code": code})
            with lock:
                answers.append(answer)

    threads = [threading.Thread(target=send, args=(learner,)) for learner in clients]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return answers


def test_a_flood_from_one_address_holds_its_share_and_waits_its_turns(
    start_cluster: Callable[..., Cluster],
) -> None:
    cluster = start_cluster(time_seconds=6, env=DEFAULTS)
    attackers = [learner_at(cluster, "127.0.0.2") for _ in range(3)]
    honest = learner_at(cluster, "127.0.0.3")
    try:
        answers = flood(attackers, 10, sleeping(1.0))
        (started,) = cluster.rows("SELECT COUNT(*) FROM submissions WHERE started_at IS NOT NULL")[0]
        statuses = Counter(answer.status_code for answer in answers)
        # Four waiting per cookie, and each run that started meanwhile made room for one more (how many did
        # depends on how busy the machine is); the rest refused with a reason.
        assert set(statuses) == {202, 429} and 12 <= statuses[202] <= 12 + started, (statuses, started)
        refusals = [answer.json()["error"]["message"] for answer in answers if answer.status_code == 429]
        assert any("You already have 4 runs waiting" in message for message in refusals)

        accepted = honest.post(URL, json={"code": reference()})
        assert accepted.status_code == 202, accepted.text
        (started_then,) = cluster.rows("SELECT COUNT(*) FROM submissions WHERE started_at IS NOT NULL")[0]
        events = list(stream_events(honest, accepted.json()["events_url"]))
        assert events[-1]["event"] == "done" and events[-1]["data"]["status"] == "pass"
    finally:
        for learner in [*attackers, honest]:
            learner.close()

    honest_id = accepted.json()["id"]
    (started,) = cluster.rows("SELECT started_at FROM submissions WHERE id = :id", id=honest_id)[0]
    others = [moment for (moment,) in cluster.rows("SELECT started_at FROM submissions WHERE id != :id", id=honest_id)]
    before = sum(1 for moment in others if moment is not None and moment < started)
    # Ahead of it: the runs started by the time it came (two at a time; more on a busy machine, whose flood took
    # longer) and at most one run per cookie in line; the rest of the backlog after it.
    assert before <= started_then + 3 and len(others) - before >= 7, (before, started_then, len(others))

    def all_graded() -> bool:
        return all(status == "pass" for (status,) in cluster.rows("SELECT status FROM submissions"))

    wait_for(all_graded, 240, "the flood's runs to be graded", interval=0.25)
    done = cluster.rows("SELECT submission_id, COUNT(*) FROM submission_events WHERE type = 'done' GROUP BY 1")
    assert len(done) == statuses[202] + 1 and {count for _, count in done} == {1}  # each graded once
