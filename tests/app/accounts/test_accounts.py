"""Accounts over HTTP: signing up and in moves anonymous work to the account, sessions end, forms need their token."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from account_support import PASSWORD, csrf_token, make_account, post_form, run_to_the_end, sign_in, sign_up
from api_support import SLUG, RunningServer, mutant_code, reference_code
from sqlalchemy import select, text

from app.db import make_engine, make_sessionmaker
from app.models import AuthSession, Progress, Role, User
from app.settings import Settings


def solved_on_roadmap(client: httpx.Client) -> bool:
    card = client.get("/api/exercises").json()
    return next(e for e in card if e["slug"] == SLUG)["solved"]


def test_a_solve_made_anonymously_moves_to_the_new_account_and_shows_on_a_second_browser(
    server: RunningServer,
) -> None:
    with server.client() as laptop, server.client() as library_pc:
        solved = run_to_the_end(laptop, reference_code(), SLUG)
        assert solved["status"] == "pass"
        assert solved_on_roadmap(laptop)
        sign_up(laptop, "Ada@Example.org")
        assert solved_on_roadmap(laptop)  # still there, now the account's
        assert laptop.get("/").text.count("ada@example.org") >= 1

        assert not solved_on_roadmap(library_pc)
        assert sign_in(library_pc, "ada@example.org").status_code == 303
        assert solved_on_roadmap(library_pc)
        # The run itself follows: its result is readable from the other browser.
        assert library_pc.get(f"/api/submissions/{solved['id']}").json()["status"] == "pass"


def test_signing_in_merges_this_browsers_anonymous_runs_into_the_existing_account(server: RunningServer) -> None:
    make_account(server.settings, "grace@example.org")
    with server.client() as browser:
        failed = run_to_the_end(browser, mutant_code("no-scaling"), SLUG)
        assert failed["status"] == "fail"
        assert sign_in(browser, "grace@example.org").status_code == 303
        assert browser.get(f"/api/submissions/{failed['id']}").status_code == 200
    with server.client() as other:
        sign_in(other, "grace@example.org")
        assert other.get(f"/api/submissions/{failed['id']}").status_code == 200


def test_after_signing_out_the_browser_is_a_new_anonymous_learner_who_sees_nothing_of_the_account(
    server: RunningServer,
) -> None:
    with server.client() as browser:
        solved = run_to_the_end(browser, reference_code(), SLUG)
        sign_up(browser, "alan@example.org")
        session_cookie = browser.cookies["mlkata_session"]
        response = post_form(browser, "/signout", {}, page="/")
        assert response.status_code == 303
        assert "mlkata_session" not in browser.cookies
        assert not solved_on_roadmap(browser)
        assert browser.get(f"/api/submissions/{solved['id']}").status_code == 404
    with server.client() as thief:  # the old session cookie is dead on the server, not only in the browser
        thief.cookies.set("mlkata_session", session_cookie)
        assert not solved_on_roadmap(thief)
        assert thief.get("/account", follow_redirects=False).status_code == 303


def test_passwords_are_kept_as_argon2id_hashes(server: RunningServer) -> None:
    with server.client() as browser:
        sign_up(browser, "hash@example.org")
    engine = make_engine(server.settings.resolved_database_url())
    with make_sessionmaker(engine)() as session:
        stored = session.scalars(select(User.password_hash).where(User.email == "hash@example.org")).one()
        tokens = session.scalars(select(AuthSession.token_hash)).all()
    engine.dispose()
    assert stored.startswith("$argon2id$v=19$m=65536,t=3,p=4$") and PASSWORD not in stored
    assert len(tokens) == 1 and len(tokens[0]) == 64  # a SHA-256, not the cookie


@pytest.mark.parametrize(
    ("email", "password", "again", "message"),
    [
        ("not-an-address", PASSWORD, PASSWORD, "is not an e-mail address"),
        ("short@example.org", "seven77", "seven77", "at least 8 characters"),
        ("typo@example.org", PASSWORD, PASSWORD + "x", "The two passwords differ"),
        ("same@example.org", "same@example.org", "same@example.org", "other than your e-mail address"),
    ],
)
def test_a_sign_up_with_bad_input_says_what_to_fix(
    client: httpx.Client, email: str, password: str, again: str, message: str
) -> None:
    response = post_form(client, "/signup", {"email": email, "password": password, "password_again": again})
    assert response.status_code == 400
    assert message in response.text


_PER_RESPONSE = re.compile(r'nonce-[\w-]+|nonce="[^"]+"|name="csrf_token" value="[^"]+"')


def _answer(response: httpx.Response, email: str) -> tuple[object, ...]:
    """All a sign-up's answer tells: status, headers, cookies set and text, bar what every response has anew."""
    headers = sorted((k, _PER_RESPONSE.sub("", v)) for k, v in response.headers.items()
                     if k not in ("date", "content-length", "set-cookie"))  # fmt: skip
    cookies = sorted(c.split("=", 1)[0] for c in response.headers.get_list("set-cookie"))
    return response.status_code, headers, cookies, _PER_RESPONSE.sub("", response.text).replace(email, "EMAIL")


def test_a_sign_up_answers_the_same_whether_or_not_the_address_has_an_account_and_changes_no_account(
    make_settings: Callable[..., Settings], start_server: Callable[..., RunningServer]
) -> None:
    server = start_server(make_settings(signups_per_address=3))
    make_account(server.settings, "known@example.org")
    other = "another long password"

    def probe(email: str) -> httpx.Response:
        with server.client() as prober:
            return post_form(prober, "/signup", {"email": email, "password": other, "password_again": other})

    taken, free = probe(" KNOWN@Example.org "), probe("free@example.org")
    assert taken.status_code == 200 and "data-signed-up" in taken.text
    assert _answer(taken, "known@example.org") == _answer(free, "free@example.org")
    with server.client() as owner:  # the account is as it was: its own password, not the prober's
        assert sign_in(owner, "known@example.org", other).status_code == 400
        assert sign_in(owner, "known@example.org").status_code == 303
    with server.client() as newcomer:  # and the free address has the account it was asked for
        assert sign_in(newcomer, "free@example.org", other).status_code == 303
    # Every sign-up counts against the address, taken or not: the third probe is the last.
    assert probe("known@example.org").status_code == 200
    limited = probe("known@example.org")
    assert limited.status_code == 429 and "Too many sign-ups" in limited.text and limited.headers["Retry-After"]


def test_a_wrong_password_is_refused_and_past_the_limit_the_account_must_wait_from_any_address(
    make_settings: Callable[..., Settings], start_server: Callable[..., RunningServer]
) -> None:
    server = start_server(make_settings(login_attempts=3))
    make_account(server.settings, "target@example.org")
    with server.client() as attacker:
        for _ in range(3):
            response = sign_in(attacker, "target@example.org", "guess-guess")
            assert response.status_code == 400 and "do not match an account" in response.text
        limited = sign_in(attacker, "target@example.org", "guess-guess")
        assert limited.status_code == 429 and "Too many failed sign-ins" in limited.text
        assert 800 < int(limited.headers["Retry-After"]) <= 900
        # Even the right password waits: the limit is checked before the password.
        assert sign_in(attacker, "target@example.org").status_code == 429
    engine = make_engine(server.settings.resolved_database_url())
    with engine.begin() as connection:
        connection.execute(text("DELETE FROM login_attempts"))
    engine.dispose()
    with server.client() as owner:
        assert sign_in(owner, "target@example.org").status_code == 303


def test_the_address_limit_counts_failures_across_accounts(
    make_settings: Callable[..., Settings], start_server: Callable[..., RunningServer]
) -> None:
    server = start_server(make_settings(login_attempts_per_address=2))
    with server.client() as sprayer:
        assert sign_in(sprayer, "a@example.org", "password1").status_code == 400
        assert sign_in(sprayer, "b@example.org", "password1").status_code == 400
        assert sign_in(sprayer, "c@example.org", "password1").status_code == 429


@pytest.mark.parametrize("path", ["/signup", "/signin", "/signout", "/account/password"])
def test_every_account_form_without_its_csrf_token_is_refused(client: httpx.Client, path: str) -> None:
    sign_up(client, "csrf@example.org")
    for token in (None, "0" * 64, csrf_token(client, "/account") + "x"):
        data = {"email": "csrf@example.org", "password": PASSWORD, "current": PASSWORD}
        if token is not None:
            data["csrf_token"] = token
        response = client.post(path, data=data)
        assert response.status_code == 403 and "This form has expired" in response.text
    assert client.get("/account").status_code == 200  # still signed in: nothing was done


def test_a_form_sent_from_another_site_is_refused_even_with_a_token(client: httpx.Client) -> None:
    token = csrf_token(client, "/signup")
    response = client.post(
        "/signup", data={"csrf_token": token, "email": "x@example.org", "password": PASSWORD,
                         "password_again": PASSWORD}, headers={"Origin": "https://evil.example"},
    )  # fmt: skip
    assert response.status_code == 403 and "from another site" in response.text


def test_a_form_body_that_is_not_a_form_is_refused(client: httpx.Client) -> None:
    response = client.post("/signin", json={"email": "x@example.org"})
    assert response.status_code == 415


@pytest.mark.parametrize("target", ["https://evil.example/", "//evil.example/x", "/\\evil.example"])
def test_signing_in_never_sends_the_browser_to_another_site(client: httpx.Client, target: str) -> None:
    sign_up(client, "next@example.org")
    post_form(client, "/signout", {}, page="/")
    response = sign_in(client, "next@example.org", next_path=target)
    assert response.status_code == 303 and response.headers["location"] == "/"


def test_a_signed_in_page_sends_anonymous_visitors_to_sign_in_and_back(client: httpx.Client) -> None:
    response = client.get("/account", follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"] == "/signin?next=%2Faccount"
    sign_up(client, "back@example.org")
    post_form(client, "/signout", {}, page="/")
    response = sign_in(client, "back@example.org", next_path="/account")
    assert response.status_code == 303 and response.headers["location"] == "/account"


def test_changing_the_password_ends_every_other_session(server: RunningServer) -> None:
    with server.client() as phone, server.client() as laptop:
        sign_up(phone, "change@example.org")
        sign_in(laptop, "change@example.org")
        response = post_form(phone, "/account/password", {"current": PASSWORD, "password": "a new long password"},
                             page="/account")  # fmt: skip
        assert response.status_code == 303
        assert "Your password was changed" in phone.get("/account?changed=1").text
        assert laptop.get("/account", follow_redirects=False).status_code == 303
        assert sign_in(laptop, "change@example.org", "a new long password").status_code == 303


def test_progress_rows_merge_keeping_the_earliest_solve(server: RunningServer) -> None:
    with server.client() as first:
        run_to_the_end(first, reference_code(), SLUG)
        sign_up(first, "merge@example.org")
    with server.client() as second:
        run_to_the_end(second, reference_code(), SLUG)
        sign_in(second, "merge@example.org")
    engine = make_engine(server.settings.resolved_database_url())
    with make_sessionmaker(engine)() as session:
        learner = session.scalars(select(User.learner_id).where(User.email == "merge@example.org")).one()
        rows = session.scalars(select(Progress).where(Progress.exercise == SLUG)).all()
    engine.dispose()
    assert [row.learner_id for row in rows] == [learner]  # one row, the account's


def test_an_admin_made_on_the_command_line_has_its_role(server: RunningServer, tmp_path: Path) -> None:
    make_account(server.settings, "root@example.org", Role.ADMIN)
    with server.client() as browser:
        sign_in(browser, "root@example.org")
        assert 'data-role="admin"' in browser.get("/account").text
