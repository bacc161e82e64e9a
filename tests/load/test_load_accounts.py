"""The load run's signed-in learners against the real app, in process: the forms a browser posts, and what
each device reads back. Nothing is graded here (no workers); runs stay queued.
"""

from __future__ import annotations

import asyncio
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from app.db import upgrade
from app.main import create_app
from app.settings import Settings
from loadtest.accounts import SESSION_COOKIE, AccountFailure, Learner, look, sign_in, sign_up
from loadtest.workload import EXERCISE, SLUG

CODE = (EXERCISE / "reference.py").read_text(encoding="utf-8")


def settings(tmp_path: Path, **overrides: object) -> Settings:
    exercises = tmp_path / "exercises"
    if not exercises.exists():
        shutil.copytree(EXERCISE, exercises / SLUG, ignore=shutil.ignore_patterns("__pycache__"))
    return Settings(_env_file=None, data_dir=tmp_path / "data", exercises_dir=exercises, workers=0, **overrides)


def in_process(settings: Settings) -> Callable[[], httpx.AsyncClient]:
    """New browsers of one app served in process, its database migrated (what its start-up does first)."""
    app = create_app(settings)
    upgrade(app.state.services.engine)
    transport = httpx.ASGITransport(app=app)

    def client() -> httpx.AsyncClient:
        return httpx.AsyncClient(transport=transport, base_url="http://testserver")

    return client


async def submit(client: httpx.AsyncClient) -> str:
    response = await client.post(f"/api/exercises/{SLUG}/submissions", json={"code": CODE})
    assert response.status_code == 202, response.text
    return str(response.json()["id"])


def test_a_learner_signs_up_submits_and_its_second_device_sees_its_run_and_not_anothers(tmp_path: Path) -> None:
    client = in_process(settings(tmp_path))
    deadline = time.monotonic() + 60

    async def scenario() -> None:
        ada = Learner(0, email="ada@load.example", password="a long password", second_device=True)
        async with client() as laptop, client() as phone, client() as stranger:
            await laptop.get("/")
            await sign_up(laptop, ada, deadline)
            assert ada.signup_seconds is not None and laptop.cookies.get(SESSION_COOKIE)
            mine = await submit(laptop)
            await stranger.get("/")
            theirs = await submit(stranger)

            await sign_in(phone, ada, deadline, second_device=True)
            assert ada.signin_seconds is not None and phone.cookies.get(SESSION_COOKIE) != laptop.cookies.get(
                SESSION_COOKIE
            )
            seen = await look(phone, 1, "after the run", deadline=deadline, read=[mine], foreign=[theirs])
            assert seen.error is None
            assert (seen.solved, seen.history, seen.reads) == (False, [mine], {mine: "queued"})
            assert seen.foreign == {
                f"GET /api/submissions/{theirs}": 404,
                f"GET /api/submissions/{theirs}/events": 404,
            }
            other = await look(stranger, 0, "after the run", deadline=deadline, foreign=[mine])
            assert other.history == [theirs]
            assert set(other.foreign.values()) == {404}
            assert ada.account_retries == 0

    asyncio.run(scenario())


def test_a_login_limit_that_was_not_lifted_is_reported_at_once_not_waited_out(tmp_path: Path) -> None:
    """Why the load run lifts the per-address sign-up limit: every learner signs up from one address."""
    client = in_process(settings(tmp_path, signups_per_address=1))
    deadline = time.monotonic() + 60

    async def scenario() -> None:
        async with client() as first, client() as second:
            await sign_up(first, Learner(0, email="one@load.example", password="a long password"), deadline)
            began = time.monotonic()
            with pytest.raises(AccountFailure, match=r"POST /signup answered 429: the login rate limit"):
                await sign_up(second, Learner(1, email="two@load.example", password="a long password"), deadline)
            assert time.monotonic() - began < 30  # refused at once, not retried until the 60 s deadline

    asyncio.run(scenario())


def test_a_wrong_password_on_the_second_device_is_a_failure_not_a_session(tmp_path: Path) -> None:
    client = in_process(settings(tmp_path))
    deadline = time.monotonic() + 60

    async def scenario() -> None:
        ada = Learner(0, email="ada@load.example", password="a long password")
        async with client() as laptop, client() as phone:
            await sign_up(laptop, ada, deadline)
            ada.password = "not the password"
            with pytest.raises(AccountFailure, match="POST /signin answered 400"):
                await sign_in(phone, ada, deadline, second_device=True)
            assert not phone.cookies.get(SESSION_COOKIE)
            assert ada.signin_seconds is None

    asyncio.run(scenario())
