"""Simulated learners: each submits solutions one after another and follows each to its verdict.

A learner is one ``httpx.AsyncClient`` (its own cookie, so its own identity). It posts a solution,
then reads the submission's server-sent events until ``done``, reconnecting with
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

from loadtest.workload import FORK_BOMBS, SLUG, Solution

PAGES = ("/", f"/exercises/{SLUG}")
_RETRY_PAUSE = 0.2


@dataclass
class Outcome:
    """What one learner saw of one submission."""

    index: int
    solution: Solution
    learner: int
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

    def done_count(self) -> int:
        return sum(1 for outcome in self.outcomes if outcome.done_at is not None)


def _client(base_url: str) -> httpx.AsyncClient:
    return httpx.AsyncClient(base_url=base_url, timeout=httpx.Timeout(10.0, read=40.0))


async def run_learners(
    base_url: str, solutions: list[Solution], concurrency: int, deadline: float, observed: Observed | None = None
) -> tuple[Observed, list[httpx.AsyncClient]]:
    """Submit every solution with ``concurrency`` learners; return what they saw and their clients.

    The clients stay open so the audit can read each submission back as its owner.
    """
    outcomes = [Outcome(index, solution, learner=index % concurrency) for index, solution in enumerate(solutions)]
    observed = observed or Observed(outcomes)
    observed.outcomes = outcomes
    clients = [_client(base_url) for _ in range(concurrency)]
    work: asyncio.Queue[Outcome] = asyncio.Queue()
    for outcome in outcomes:
        work.put_nowait(outcome)

    async def learner(number: int) -> None:
        client = clients[number]
        await client.get("/")  # the cookie that makes this client a learner
        while not work.empty():
            outcome = work.get_nowait()
            outcome.learner = number
            try:
                await _submit_and_follow(client, outcome, observed, deadline)
            except Exception as exc:  # noqa: BLE001  (recorded; the audit reports it)
                outcome.error = f"{type(exc).__name__}: {exc}"

    await asyncio.gather(*(learner(number) for number in range(concurrency)))
    return observed, clients


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
    clients: list[httpx.AsyncClient], outcomes: list[Outcome], on_each: Callable[[Outcome, dict[str, Any]], None]
) -> None:
    """GET every accepted submission as its owner, a few at a time, and hand each view to ``on_each``."""
    limit = asyncio.Semaphore(16)

    async def one(outcome: Outcome) -> None:
        async with limit:
            response = await clients[outcome.learner].get(f"/api/submissions/{outcome.submission_id}")
            on_each(outcome, response.json() if response.status_code == 200 else {"http_status": response.status_code})

    await asyncio.gather(*(one(outcome) for outcome in outcomes if outcome.submission_id is not None))
