"""One address cannot fill the queue: shares per learner and per address, and turns by learner (the embedded queue).

Clients send from their own loopback addresses (127.0.0.2, 127.0.0.3, ...), as different machines would.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Iterator

import httpx
import pytest
from api_support import SLUG, RunningServer, assert_error, read_events, reference_code
from sqlalchemy import select

from app.models import Submission
from app.settings import Settings

URL = f"/api/exercises/{SLUG}/submissions"


Learners = Callable[[RunningServer, str], httpx.Client]


@pytest.fixture
def learner_at() -> Iterator[Learners]:
    """A new learner (with a cookie of their own) connecting from an address; closed after the test."""
    made: list[httpx.Client] = []

    def make(server: RunningServer, address: str) -> httpx.Client:
        learner = httpx.Client(base_url=server.url, timeout=60, transport=httpx.HTTPTransport(local_address=address))
        made.append(learner)
        learner.get("/")  # the cookie
        return learner

    yield make
    for learner in made:
        learner.close()


def flood(clients: list[httpx.Client], each: int, code: str) -> list[httpx.Response]:
    """``each`` submissions from every client, all at once (two connections per client)."""
    answers: list[httpx.Response] = []
    lock = threading.Lock()
    start = threading.Barrier(2 * len(clients))

    def send(learner: httpx.Client, count: int) -> None:
        start.wait()
        for _ in range(count):
            answer = learner.post(URL, json={"code": code})
            with lock:
                answers.append(answer)

    threads = [
        threading.Thread(target=send, args=(learner, half))
        for learner in clients
        for half in (each // 2, each - each // 2)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return answers


def sleeping_reference(seconds: float) -> str:
    """The reference solution, sleeping ``seconds`` in its first call: a correct run that takes a while."""
    return (
        f"{reference_code()}\n\nimport time as _time\n_real = attend_step\n_slept = []\n\n\n"
        "def attend_step(*args):\n    if not _slept:\n        _slept.append(1)\n"
        f"        _time.sleep({seconds})\n    return _real(*args)\n"
    )


def test_one_address_with_many_cookies_holds_a_quarter_of_the_queue_and_others_still_get_in(
    make_settings: Callable[..., Settings], start_server: Callable[[Settings], RunningServer], learner_at: Learners
) -> None:
    server = start_server(make_settings(workers=0))  # nothing is graded: the queue only fills
    attackers = [learner_at(server, "127.0.0.2") for _ in range(5)]
    answers = flood(attackers, 8, "x = 1")

    statuses = Counter(answer.status_code for answer in answers)
    assert statuses == {202: 16, 429: 24}  # 16 = a quarter of the 64 the queue holds; no 503 for anyone
    refusals = [assert_error(answer, 429) for answer in answers if answer.status_code == 429]
    assert all(1 <= int(a.headers["retry-after"]) <= 10 for a in answers if a.status_code == 429)
    assert any("You already have 4 runs waiting" in message for message in refusals)
    assert any("Your network address already has 16 runs waiting" in message for message in refusals)
    with server.app.state.services.sessions() as session:
        per_learner = Counter(session.scalars(select(Submission.learner_id)))
    assert len(per_learner) == 5 and max(per_learner.values()) <= 4

    honest = learner_at(server, "127.0.0.3")
    accepted = honest.post(URL, json={"code": "x = 2"})
    assert accepted.status_code == 202
    # Behind the first run of each of the five cookies, ahead of the other eleven.
    assert honest.get(accepted.json()["result_url"]).json()["position"] == 6
    for _ in range(3):
        assert honest.post(URL, json={"code": "x = 3"}).status_code == 202
    # A Try it counts as one of the learner's runs.
    tried = honest.post(f"/api/exercises/{SLUG}/tries", json={"code": "x = 4", "inputs": "1\n"})
    assert "You already have 4 runs waiting" in assert_error(tried, 429)


def _started(server: RunningServer) -> int:
    """How many runs have started so far."""
    with server.app.state.services.sessions() as session:
        return len(session.scalars(select(Submission.id).where(Submission.started_at.is_not(None))).all())


def test_another_learners_first_run_is_graded_before_the_flooders_backlog(
    make_settings: Callable[..., Settings], start_server: Callable[[Settings], RunningServer], learner_at: Learners
) -> None:
    server = start_server(make_settings(workers=1))
    attackers = [learner_at(server, "127.0.0.2") for _ in range(3)]
    answers = flood(attackers, 10, sleeping_reference(2.0))  # the attack: three cookies, one address
    started_by_then = _started(server)
    statuses = Counter(answer.status_code for answer in answers)
    # Four waiting per cookie; each run that started meanwhile made room for at most one more. How many
    # started depends on how fast this machine answered the flood, so it is counted, not assumed.
    assert set(statuses) == {202, 429} and 12 <= statuses[202] <= 12 + started_by_then, (statuses, started_by_then)

    honest = learner_at(server, "127.0.0.3")
    accepted = honest.post(URL, json={"code": reference_code()})
    assert accepted.status_code == 202
    started_on_arrival = _started(server)  # at least those that had started when it came, maybe one more
    events = read_events(honest, accepted.json()["events_url"])
    assert events[-1]["data"]["status"] == "pass"
    honest_id = accepted.json()["id"]
    with server.app.state.services.sessions() as session:
        started = session.get(Submission, honest_id).started_at
        backlog = session.scalars(select(Submission.started_at).where(Submission.id != honest_id)).all()
    before = sum(1 for moment in backlog if moment is not None and moment < started)
    waiting = len(backlog) - started_on_arrival
    # Of the attacker's runs waiting when it came, at most one per cookie went first; the rest waited.
    assert before - started_on_arrival <= 3 and waiting >= 8, (before, started_on_arrival, len(backlog))
    assert len(backlog) - before >= waiting - 3
