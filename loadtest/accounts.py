"""Signed-in learners: signing up and in as a browser does, and what each of their devices is shown afterwards.

A signed-in learner signs up on its first client (``GET /signup`` for the form's CSRF token, then
``POST /signup``); some sign in a second client (a second device) part-way through their runs and
then submit from both. Each device reads back its learner's ✓ on the roadmap API, its run history
and each of its runs, and tries to read runs of other learners, which must not be found.
"""

from __future__ import annotations

import asyncio
import random
import re
import secrets
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import httpx

from loadtest.workload import SLUG

if TYPE_CHECKING:
    from loadtest.learners import Outcome

SESSION_COOKIE = "mlkata_session"
_TOKEN = re.compile(r'name="csrf_token" value="([^"]+)"')
_RETRY_PAUSE = 0.2
#: The history API's largest page; a learner with more runs is compared on its newest ones.
HISTORY_LIMIT = 200


class AccountFailure(Exception):
    """Signing up or in did not end signed in."""


@dataclass
class Seen:
    """What one device of a learner was shown of the learner's own work (and of others')."""

    device: int
    moment: str  # "at sign-in" (the second device, mid-run) or "after the run"
    solved: bool | None = None  # the ✓ of the exercise in GET /api/exercises
    history: list[str] | None = None  # ids listed by GET /api/exercises/{slug}/submissions
    known_final: dict[str, str] = field(default_factory=dict)  # at sign-in: id -> verdict the learner had seen
    reads: dict[str, str] = field(default_factory=dict)  # own run id -> status read from this device, or "http N"
    foreign: dict[str, int] = field(default_factory=dict)  # "GET <path>" of another learner's run -> HTTP status
    error: str | None = None


@dataclass
class Learner:
    """One simulated learner: anonymous (a cookie) or signed in, on one device or two."""

    number: int
    email: str | None = None  # None: anonymous
    password: str = ""
    second_device: bool = False  # signs in a second client part-way through
    devices: list[httpx.AsyncClient] = field(default_factory=list)
    signup_seconds: float | None = None  # its POST /signup (then it signs in)
    signin_seconds: float | None = None  # the second device's POST /signin
    account_retries: int = 0  # form posts sent again after a lost reply or a 503
    seen: list[Seen] = field(default_factory=list)
    error: str | None = None  # signing up or in failed

    @property
    def signed_in(self) -> bool:
        return self.email is not None


def plan(concurrency: int, signed_in_share: float, second_device_share: float, seed: int) -> list[Learner]:
    """``concurrency`` learners, a fixed share of them signed in, and a share of those on a second device too.

    With any share above zero at least one learner gets it, so a small run still covers both paths.
    """
    learners = [Learner(number) for number in range(concurrency)]
    n_signed = min(concurrency, _at_least_one(concurrency * signed_in_share))
    chosen = sorted(random.Random(seed).sample(range(concurrency), n_signed))  # noqa: S311  (reproducible)
    n_second = min(n_signed, _at_least_one(n_signed * second_device_share))
    for rank, number in enumerate(chosen):
        learner = learners[number]
        learner.email = f"learner{number:03d}@load.mlkata.example"
        learner.password = secrets.token_urlsafe(12)
        learner.second_device = rank < n_second
    return learners


def _at_least_one(value: float) -> int:
    return 0 if value <= 0 else max(1, round(value))


async def sign_up(client: httpx.AsyncClient, learner: Learner, deadline: float) -> None:
    """Sign up through the form (CSRF token included), then sign in as its answer asks, as a person does.

    The answer is the same whether or not the address had an account, so a sign-up sent again after
    a lost reply needs nothing special. The client then holds the account's session.
    """
    assert learner.email is not None
    fields = {"email": learner.email, "password": learner.password, "password_again": learner.password, "next": "/"}
    response, seconds = await _post_form(client, "/signup", fields, learner, deadline)
    if response.status_code != 200 or "data-signed-up" not in response.text:
        raise AccountFailure(f"POST /signup answered {response.status_code}: {_what(response)}")
    learner.signup_seconds = seconds
    await sign_in(client, learner, deadline, second_device=False)


async def sign_in(client: httpx.AsyncClient, learner: Learner, deadline: float, *, second_device: bool) -> None:
    """Sign in through the form (CSRF token included); the client then holds a session of its own."""
    assert learner.email is not None
    fields = {"email": learner.email, "password": learner.password, "next": "/"}
    response, seconds = await _post_form(client, "/signin", fields, learner, deadline)
    _expect_signed_in(client, response, "/signin")
    if second_device:
        learner.signin_seconds = seconds


def _expect_signed_in(client: httpx.AsyncClient, response: httpx.Response, path: str) -> None:
    if response.status_code != 303 or not client.cookies.get(SESSION_COOKIE):
        raise AccountFailure(f"POST {path} answered {response.status_code}: {_what(response)}")


def _what(response: httpx.Response) -> str:
    return "the login rate limit" if response.status_code == 429 else response.text[:200]


async def _post_form(
    client: httpx.AsyncClient, path: str, fields: dict[str, str], learner: Learner, deadline: float
) -> tuple[httpx.Response, float]:
    """GET the form's page for its CSRF token and POST the form; again after a lost reply or a 503.

    Returns the answer and how long its POST took. A 429 is an answer, not retried: the load run lifts
    the login limits, so a 429 means they were not lifted.
    """
    while True:
        if time.monotonic() > deadline:
            raise AccountFailure(f"POST {path} not answered before the deadline")
        try:
            page = await client.get(path)
            if page.status_code != 503:
                found = _TOKEN.search(page.text) if page.status_code == 200 else None
                if found is None:
                    raise AccountFailure(f"GET {path} answered {page.status_code} without a form: {page.text[:200]}")
                started = time.perf_counter()
                response = await client.post(
                    path,
                    data={"csrf_token": found.group(1), **fields},
                    headers={"Origin": str(client.base_url).rstrip("/")},
                )
                seconds = time.perf_counter() - started
                if response.status_code != 503:
                    return response, seconds
        except httpx.TransportError:
            pass
        learner.account_retries += 1
        await asyncio.sleep(_RETRY_PAUSE)


async def look(
    client: httpx.AsyncClient,
    device: int,
    moment: str,
    *,
    deadline: float,
    read: Iterable[str] = (),
    foreign: Iterable[str] = (),
) -> Seen:
    """What this device is shown: the ✓, the history, the given own runs, and (not) the given runs of others."""
    seen = Seen(device, moment)
    try:
        card = await _get(client, "/api/exercises", deadline)
        seen.solved = next((bool(e["solved"]) for e in card.json() if e["slug"] == SLUG), None)
        history = await _get(client, f"/api/exercises/{SLUG}/submissions?limit={HISTORY_LIMIT}", deadline)
        seen.history = [run["id"] for run in history.json()["submissions"]]
        for submission_id in read:
            response = await _get(client, f"/api/submissions/{submission_id}", deadline, ok=(200, 404))
            found = response.status_code == 200
            seen.reads[submission_id] = response.json()["status"] if found else f"http {response.status_code}"
        for submission_id in foreign:
            for path in (f"/api/submissions/{submission_id}", f"/api/submissions/{submission_id}/events"):
                seen.foreign[f"GET {path}"] = await _status(client, path, deadline)
    except (httpx.HTTPError, AccountFailure, ValueError, KeyError) as exc:
        seen.error = f"{type(exc).__name__}: {exc}"
    return seen


async def _get(client: httpx.AsyncClient, path: str, deadline: float, ok: tuple[int, ...] = (200,)) -> httpx.Response:
    """GET ``path``, again after a lost connection or a 503 (the web process restarting), until the deadline."""
    while True:
        try:
            response = await client.get(path)
            if response.status_code != 503:
                if response.status_code not in ok:
                    raise AccountFailure(f"GET {path} answered {response.status_code}: {response.text[:200]}")
                return response
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline:
            raise AccountFailure(f"GET {path} not answered before the deadline")
        await asyncio.sleep(_RETRY_PAUSE)


async def _status(client: httpx.AsyncClient, path: str, deadline: float) -> int:
    """The status of a GET, without reading its body (an event stream that should not be there is left at once)."""
    while True:
        try:
            async with client.stream("GET", path) as response:
                if response.status_code != 503:
                    return response.status_code
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline:
            raise AccountFailure(f"GET {path} not answered before the deadline")
        await asyncio.sleep(_RETRY_PAUSE)


async def look_back(learners: list[Learner], outcomes: list[Outcome], deadline: float, at_once: int = 16) -> None:
    """After the run: every device of every learner reads what it must see and tries what it must not."""
    own: dict[int, list[Outcome]] = {}
    for outcome in outcomes:
        if outcome.submission_id is not None:
            own.setdefault(outcome.learner, []).append(outcome)
    firsts = {number: runs[0].submission_id for number, runs in own.items()}
    signed = [learner.number for learner in learners if learner.signed_in and learner.number in firsts]
    limit = asyncio.Semaphore(at_once)

    def others(number: int) -> list[str]:
        """A run of the next learner, and one of the next signed-in learner, when they are someone else."""
        picks = [(number + step) % len(learners) for step in range(1, len(learners))]
        neighbour = next((n for n in picks if n in firsts), None)
        account = next((n for n in picks if n in signed and n != neighbour), None)
        return [str(firsts[n]) for n in (neighbour, account) if n is not None and n != number]

    async def one(learner: Learner, device: int) -> None:
        # Read back from this device the runs sent from the other one: the owner reads each from where it was sent.
        elsewhere = [str(o.submission_id) for o in own.get(learner.number, []) if o.device != device]
        client = learner.devices[device]
        async with limit:
            seen = await look(
                client, device, "after the run", deadline=deadline, read=elsewhere, foreign=others(learner.number)
            )
            learner.seen.append(seen)

    await asyncio.gather(*(one(learner, device) for learner in learners for device in range(len(learner.devices))))


def known_final(outcomes: Iterable[Outcome], number: int) -> dict[str, str]:
    """The learner's runs it has seen end, with their verdicts."""
    return {
        str(o.submission_id): str(o.status)
        for o in outcomes
        if o.learner == number and o.submission_id is not None and o.done_at is not None
    }
