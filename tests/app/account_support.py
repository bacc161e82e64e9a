"""Helpers for the account and course tests: forms with their CSRF token, accounts made as the operator does."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import httpx
from api_support import read_events, submit
from sqlalchemy import select, text

from app.accounts.passwords import Passwords
from app.accounts.users import Account, Accounts
from app.db import make_engine, make_sessionmaker, upgrade
from app.models import Role, Submission
from app.settings import Settings

PASSWORD = "correct horse battery"
_TOKEN = re.compile(r'name="csrf_token" value="([^"]+)"')


def csrf_token(client: httpx.Client, path: str) -> str:
    """The CSRF token of the first form on the page at ``path``."""
    page = client.get(path)
    assert page.status_code == 200, page.text[:500]
    found = _TOKEN.search(page.text)
    assert found, f"no form with a CSRF token on {path}"
    return found.group(1)


def post_form(
    client: httpx.Client, path: str, data: dict[str, str | list[str]], *, page: str | None = None
) -> httpx.Response:
    """Post ``data`` to ``path`` as a browser would, with the token of the form on ``page`` (default: ``path``)."""
    token = csrf_token(client, page or path)
    return client.post(path, data={"csrf_token": token, **data})


def sign_up(client: httpx.Client, email: str, password: str = PASSWORD) -> httpx.Response:
    """Sign up through the form, then sign in as its answer asks (a sign-up never signs in by itself)."""
    response = post_form(client, "/signup", {"email": email, "password": password, "password_again": password})
    assert response.status_code == 200 and "data-signed-up" in response.text, response.text[:500]
    signed_in = sign_in(client, email, password)
    assert signed_in.status_code == 303, signed_in.text[:500]
    return signed_in


def sign_in(client: httpx.Client, email: str, password: str = PASSWORD, next_path: str = "/") -> httpx.Response:
    return post_form(client, "/signin", {"email": email, "password": password, "next": next_path})


def make_account(settings: Settings, email: str, role: Role = Role.STUDENT, password: str = PASSWORD) -> Account:
    """An account made directly in the database, as ``mlkata user create`` does."""
    engine = make_engine(settings.resolved_database_url())
    upgrade(engine)
    try:
        return Accounts(make_sessionmaker(engine), Passwords()).create(email, password, role=role)
    finally:
        engine.dispose()


def run_to_the_end(client: httpx.Client, code: str, slug: str) -> dict:
    """Submit ``code`` and follow its events to the ``done`` event; return that event's data."""
    response = submit(client, code, slug)
    assert response.status_code == 202, response.text
    events = read_events(client, response.json()["events_url"])
    assert events[-1]["event"] == "done"
    return {"id": response.json()["id"], **events[-1]["data"]}


def stored_submissions(settings: Settings) -> list[Submission]:
    engine = make_engine(settings.resolved_database_url())
    try:
        with make_sessionmaker(engine)() as session:
            return list(session.scalars(select(Submission).order_by(Submission.created_at)))
    finally:
        engine.dispose()


def create_course(instructor: httpx.Client, title: str, slugs: list[str], due: dict[str, str] | None = None) -> str:
    """Create a course through its form; return its id."""
    data: dict[str, str | list[str]] = {"title": title, "exercise": slugs}
    data.update({f"due:{slug}": value for slug, value in (due or {}).items()})
    response = post_form(instructor, "/courses/new", data)
    assert response.status_code == 303, response.text[:800]
    return response.headers["location"].rsplit("/", 1)[1]


def join_url(instructor: httpx.Client, course_id: str) -> str:
    page = instructor.get(f"/courses/{course_id}")
    found = re.search(r"<code data-join-url>([^<]+)</code>", page.text)
    assert found, page.text[:800]
    return httpx.URL(found.group(1)).path


def join(student: httpx.Client, link: str) -> None:
    response = post_form(student, link, {})
    assert response.status_code == 303, response.text[:500]


def at_once(count: int, send: Callable[[int], httpx.Response]) -> list[httpx.Response]:
    """The answers to ``send(0)`` … ``send(count - 1)``, sent at the same moment from threads of their own."""
    barrier = threading.Barrier(count)

    def run(i: int) -> httpx.Response:
        barrier.wait()
        return send(i)

    with ThreadPoolExecutor(count) as pool:
        return list(pool.map(run, range(count)))


def login_attempts(settings: Settings) -> int:
    """How many sign-in failures and sign-ups the login limits hold now."""
    engine = make_engine(settings.resolved_database_url())
    try:
        with engine.connect() as connection:
            return int(connection.execute(text("SELECT count(*) FROM login_attempts")).scalar_one())
    finally:
        engine.dispose()


def count_users(settings: Settings) -> int:
    engine = make_engine(settings.resolved_database_url())
    try:
        with engine.connect() as connection:
            return int(connection.execute(text("SELECT count(*) FROM users")).scalar_one())
    finally:
        engine.dispose()
