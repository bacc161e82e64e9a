"""Simulated learners: each submits solutions one after another and follows each to its verdict.

A learner is one ``httpx.AsyncClient`` (its own cookie, so its own identity), or, signed in, one
or two (a second device signed in part-way through, after which it submits from both in turn). It
posts a solution, then reads the submission's server-sent events until ``done``, reconnecting with
``Last-Event-ID`` when the web process goes away. A page prober meanwhile times page loads,
noting whether a fork bomb was being graded at that moment.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from loadtest.accounts import AccountFailure, Learner, known_final, look, sign_in, sign_up
from loadtest.workload import FORK_BOMBS, SLUG, Solution

PAGES = ("/", f"/exercises/{SLUG}")
_RETRY_PAUSE = 0.2
#: A learner with a second device signs it in once this many of its own runs have been sent.
SECOND_DEVICE_AFTER = 2


@dataclass
class Outcome:
    """What one learner saw of one submission."""

    index: int
    solution: Solution
    learner: int
    device: int = 0  # which of the learner's clients sent it
    submitted_at: float = 0.0  # monotonic, before the first POST
    submission_id: str | None = None
    accepted_at: float | None = None
    done_at: float | None = None
    status: str | None = None  # from the done event
    event_types: list[str] = field(default_factory=list)
    post_retries: int = 0
    ambiguous_posts: int = 0  # POSTs whose reply was lost: the server may have stored them
    reconnects: int = 0
    error: str | None = None

    @property
    def latency(self) -> float | None:
        return None if self.done_at is None else self.done_at - self.submitted_at


@dataclass
class PageSample:
    path: str
    seconds: float
    status: int
    during_fork_bomb: bool


@dataclass
class Observed:
    """Shared state: the outcomes, the page samples and the fork bombs being graded right now."""

    outcomes: list[Outcome]
    pages: list[PageSample] = field(default_factory=list)
    page_failures: int = 0
    grading_bombs: set[str] = field(default_factory=set)
    learners: list[Learner] = field(default_factory=list)

    def done_count(self) -> int:
        return sum(1 for outcome in self.outcomes if outcome.done_at is not None)


def _client(base_url: str) -> httpx.AsyncClient:
    return httpx.AsyncClient(base_url=base_url, timeout=httpx.Timeout(10.0, read=40.0))


async def run_learners(
    base_url: str,
    solutions: list[Solution],
    concurrency: int,
    deadline: float,
    observed: Observed | None = None,
    learners: list[Learner] | None = None,
) -> tuple[Observed, list[Learner]]:
    """Submit every solution with ``concurrency`` learners; return what they saw and the learners.

    ``learners`` says which of them sign up first and which sign in a second device (default: all
    anonymous). Their clients stay open so the audit can read each submission back as its owner.
    """
    outcomes = [Outcome(index, solution, learner=index % concurrency) for index, solution in enumerate(solutions)]
    observed = observed or Observed(outcomes)
    observed.outcomes = outcomes
    learners = learners if learners is not None else [Learner(number) for number in range(concurrency)]
    assert [learner.number for learner in learners] == list(range(concurrency))
    observed.learners = learners
    for learner in learners:
        learner.devices = [_client(base_url)]
    work: asyncio.Queue[Outcome] = asyncio.Queue()
    for outcome in outcomes:
        work.put_nowait(outcome)

    async def one(learner: Learner) -> None:
        client = learner.devices[0]
        await client.get("/")  # the cookie that makes this client a learner
        if learner.signed_in:
            try:
                await sign_up(client, learner, deadline)
            except AccountFailure as exc:  # recorded; it goes on as an anonymous learner
                learner.error = f"sign-up: {exc}"
        sent = 0
        while not work.empty():
            if _wants_second_device(learner) and sent >= SECOND_DEVICE_AFTER:
                await _sign_in_second_device(base_url, learner, observed, deadline)
                continue  # others took work meanwhile: the queue may be empty now
            outcome = work.get_nowait()
            outcome.learner, outcome.device = learner.number, sent % len(learner.devices)
            sent += 1
            try:
                await _submit_and_follow(learner.devices[outcome.device], outcome, observed, deadline)
            except Exception as exc:  # noqa: BLE001  (recorded; the audit reports it)
                outcome.error = f"{type(exc).__name__}: {exc}"
        if _wants_second_device(learner):  # the work ran out first: its second device is still checked
            await _sign_in_second_device(base_url, learner, observed, deadline)

    await asyncio.gather(*(one(learner) for learner in learners))
    return observed, learners


def _wants_second_device(learner: Learner) -> bool:
    return learner.second_device and learner.error is None and len(learner.devices) == 1


async def _sign_in_second_device(base_url: str, learner: Learner, observed: Observed, deadline: float) -> None:
    """Sign in a new client as the learner and note what it is shown at once of the runs already final."""
    final = known_final(observed.outcomes, learner.number)
    device = _client(base_url)
    try:
        await sign_in(device, learner, deadline, second_device=True)
    except AccountFailure as exc:
        learner.error = f"second device sign-in: {exc}"
        await device.aclose()
        return
    learner.devices.append(device)
    seen = await look(device, 1, "at sign-in", deadline=deadline)
    seen.known_final = final
    learner.seen.append(seen)


async def _submit_and_follow(client: httpx.AsyncClient, outcome: Outcome, observed: Observed, deadline: float) -> None:
    outcome.submitted_at = time.monotonic()
    url = f"/api/exercises/{SLUG}/submissions"
    while outcome.submission_id is None:
        if time.monotonic() > deadline:
            outcome.error = "not accepted before the deadline"
            return
        try:
            response = await client.post(url, json={"code": outcome.solution.code})
        except httpx.TransportError:
            # Sent or not? The server may have stored it: the audit counts rows nobody was told of.
            outcome.ambiguous_posts += 1
            await asyncio.sleep(_RETRY_PAUSE)
            continue
        if response.status_code in (429, 503):
            outcome.post_retries += 1
            await asyncio.sleep(min(float(response.headers.get("retry-after", "1")), 1.0))
            continue
        if response.status_code != 202:
            outcome.error = f"POST answered {response.status_code}: {response.text[:200]}"
            return
        body = response.json()
        outcome.submission_id = body["id"]
        outcome.accepted_at = time.monotonic()
        events_url = body["events_url"]
    await _follow(client, events_url, outcome, observed, deadline)


async def _follow(
    client: httpx.AsyncClient, events_url: str, outcome: Outcome, observed: Observed, deadline: float
) -> None:
    """Read the event stream until ``done``, resuming after the last event seen when it breaks."""
    last_id: str | None = None
    while time.monotonic() < deadline:
        headers = {"Last-Event-ID": last_id} if last_id is not None else {}
        try:
            async with client.stream("GET", events_url, headers=headers) as response:
                if response.status_code != 200:
                    # 204 would mean "you have everything", which cannot be before done was seen.
                    raise httpx.HTTPStatusError(
                        f"events answered {response.status_code}", request=response.request, response=response
                    )
                event: dict[str, str] = {}
                async for line in response.aiter_lines():
                    if line:
                        if not line.startswith(":"):
                            name, _, value = line.partition(":")
                            event[name] = value.removeprefix(" ")
                        continue
                    if "event" not in event:
                        event = {}
                        continue
                    last_id = event.get("id", last_id)
                    if _on_event(event, outcome, observed):
                        return
                    event = {}
        except (httpx.TransportError, httpx.HTTPStatusError):
            pass
        outcome.reconnects += 1
        await asyncio.sleep(_RETRY_PAUSE)
    outcome.error = "no done event before the deadline"


def _on_event(event: dict[str, str], outcome: Outcome, observed: Observed) -> bool:
    """Note one event; True once it is ``done``."""
    kind = event["event"]
    outcome.event_types.append(kind)
    assert outcome.submission_id is not None
    if kind == "started" and outcome.solution.name in FORK_BOMBS:
        observed.grading_bombs.add(outcome.submission_id)
    if kind != "done":
        return False
    observed.grading_bombs.discard(outcome.submission_id)
    outcome.done_at = time.monotonic()
    data: dict[str, Any] = json.loads(event.get("data", "{}"))
    outcome.status = data.get("status")
    return True


async def probe_pages(base_url: str, observed: Observed, stop: asyncio.Event, pause: float = 0.05) -> None:
    """Load the pages one after another until ``stop``, timing each load."""
    async with _client(base_url) as client:
        while not stop.is_set():
            for path in PAGES:
                bomb = bool(observed.grading_bombs)
                started = time.perf_counter()
                try:
                    response = await client.get(path)
                except httpx.TransportError:
                    observed.page_failures += 1
                    await asyncio.sleep(_RETRY_PAUSE)
                    continue
                seconds = time.perf_counter() - started
                observed.pages.append(
                    PageSample(path, seconds, response.status_code, bomb and bool(observed.grading_bombs))
                )
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), timeout=pause)


async def read_back(
    learners: list[Learner], outcomes: list[Outcome], on_each: Callable[[Outcome, dict[str, Any]], None]
) -> None:
    """GET every accepted submission as its owner, from the client that sent it, and hand each view to ``on_each``."""
    limit = asyncio.Semaphore(16)

    async def one(outcome: Outcome) -> None:
        async with limit:
            client = learners[outcome.learner].devices[outcome.device]
            response = await client.get(f"/api/submissions/{outcome.submission_id}")
            on_each(outcome, response.json() if response.status_code == 200 else {"http_status": response.status_code})

    await asyncio.gather(*(one(outcome) for outcome in outcomes if outcome.submission_id is not None))
