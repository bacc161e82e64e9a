"""The login limits as reservations: requests sent at once never get past a limit, and a refused one hashes nothing."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable

import httpx
import pytest
from account_support import PASSWORD, at_once, count_users, csrf_token, login_attempts, make_account, sign_in
from api_support import RunningServer

from app.accounts.limits import LoginLimiter, LoginLimits
from app.db import make_engine, make_sessionmaker, upgrade
from app.settings import Settings
from app.web.errors import RateLimited

Start = Callable[..., RunningServer]


def browsers(server: RunningServer, count: int, page: str) -> list[tuple[httpx.Client, str]]:
    """``count`` browsers, each with the CSRF token of the form on ``page``."""
    found = []
    for _ in range(count):
        client = server.client()
        found.append((client, csrf_token(client, page)))
    return found


def test_reservations_taken_at_the_same_moment_never_exceed_the_limit(make_settings: Callable[..., Settings]) -> None:
    engine = make_engine(make_settings().resolved_database_url())
    upgrade(engine)
    limits = LoginLimits(per_account=10, per_address=1000, signups_per_address=20, window_seconds=900)
    limiter = LoginLimiter(make_sessionmaker(engine), "a key", limits)
    barrier, outcomes = threading.Barrier(23), Counter[str]()

    def attempt(reserve: Callable[[], object]) -> None:
        barrier.wait()
        try:
            reserve()
            outcomes["reserved"] += 1
        except RateLimited:
            outcomes["limited"] += 1

    for reserve in (lambda: limiter.reserve_signin("victim@example.org", "attacker"),
                    lambda: limiter.reserve_signup("new@example.org", "attacker")):  # fmt: skip
        threads = [threading.Thread(target=attempt, args=(reserve,)) for _ in range(23)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    engine.dispose()
    # 10 of 23 sign-ins for the account, then 20 of 23 sign-ups from the address.
    assert outcomes == {"reserved": 30, "limited": 16}


def test_sixteen_wrong_passwords_sent_at_once_are_evaluated_only_up_to_the_limit(
    make_settings: Callable[..., Settings], start_server: Start
) -> None:
    server = start_server(make_settings())  # login_attempts: 10
    make_account(server.settings, "victim@example.org")
    forms = browsers(server, 16, "/signin")

    def guess(i: int) -> httpx.Response:
        client, token = forms[i]
        return client.post("/signin", data={"csrf_token": token, "email": "victim@example.org",
                                            "password": f"guess-{i:04d}"})  # fmt: skip

    answers = at_once(16, guess)
    assert Counter(a.status_code for a in answers) == {400: 10, 429: 6}
    assert all("Too many failed sign-ins" in a.text and int(a.headers["Retry-After"]) > 0
               for a in answers if a.status_code == 429)  # fmt: skip
    assert login_attempts(server.settings) == 10
    with server.client() as owner:  # the account waits, even for its owner, as the limit says
        assert sign_in(owner, "victim@example.org").status_code == 429
    for client, _ in forms:
        client.close()


def test_twenty_three_sign_ups_sent_at_once_from_one_address_make_at_most_twenty_accounts(
    make_settings: Callable[..., Settings], start_server: Start
) -> None:
    # A hashing queue long enough for all of them: what stops them here is the sign-up limit (20).
    server = start_server(make_settings(hashing_queue=100))
    forms = browsers(server, 23, "/signup")

    def sign_up(i: int) -> httpx.Response:
        client, token = forms[i]
        return client.post("/signup", data={"csrf_token": token, "email": f"bot{i}@example.org",
                                            "password": PASSWORD, "password_again": PASSWORD})  # fmt: skip

    answers = at_once(23, sign_up)
    assert Counter(a.status_code for a in answers) == {200: 20, 429: 3}
    assert count_users(server.settings) == 20
    assert all("Too many sign-ups" in a.text for a in answers if a.status_code == 429)
    for client, _ in forms:
        client.close()


def test_wrong_current_passwords_on_the_account_page_are_limited_like_sign_ins(
    make_settings: Callable[..., Settings], start_server: Start
) -> None:
    server = start_server(make_settings(login_attempts=3))
    make_account(server.settings, "owner@example.org")
    with server.client() as thief:
        assert sign_in(thief, "owner@example.org").status_code == 303
        token = csrf_token(thief, "/account")
        # The same signed-in browser, from several connections at once.
        tabs = [httpx.Client(base_url=server.url, cookies=thief.cookies, timeout=60) for _ in range(8)]

        def guess(i: int) -> httpx.Response:
            return tabs[i].post("/account/password", data={"csrf_token": token, "current": f"guess-{i:04d}",
                                                           "password": "a new long password"})  # fmt: skip

        answers = at_once(8, guess)
        assert Counter(a.status_code for a in answers) == {400: 3, 429: 5}
        limited = next(a for a in answers if a.status_code == 429)
        assert "Too many wrong passwords" in limited.text and int(limited.headers["Retry-After"]) > 0
        # The right password waits too, here and on the sign-in form: one budget for guessing one password.
        right = tabs[0].post("/account/password", data={"csrf_token": token, "current": PASSWORD,
                                                        "password": "a new long password"})  # fmt: skip
        assert right.status_code == 429
        for tab in tabs:
            tab.close()
    with server.client() as owner:
        assert sign_in(owner, "owner@example.org").status_code == 429


def test_a_right_current_password_changes_it_and_forgets_the_owners_typos(
    make_settings: Callable[..., Settings], start_server: Start
) -> None:
    server = start_server(make_settings(login_attempts=3))
    make_account(server.settings, "typo@example.org")
    with server.client() as owner:
        sign_in(owner, "typo@example.org")
        token = csrf_token(owner, "/account")
        for current in ("typo-one", "typo-two", PASSWORD):
            answer = owner.post("/account/password", data={"csrf_token": token, "current": current,
                                                           "password": "a new long password"})  # fmt: skip
        assert answer.status_code == 303
    assert login_attempts(server.settings) == 0


@pytest.mark.parametrize("address_count", [1, 12])
def test_with_the_hashing_queue_full_a_sign_in_gets_503_at_once_and_nothing_is_counted(
    make_settings: Callable[..., Settings], start_server: Start, address_count: int
) -> None:
    settings = make_settings(hashing_workers=1, hashing_queue=4, forwarded_allow_ips="127.0.0.1")
    server = start_server(settings)
    forms = browsers(server, 12, "/signin")

    def sign_in_wrongly(i: int) -> httpx.Response:
        client, token = forms[i]
        return client.post("/signin", data={"csrf_token": token, "email": f"someone{i}@example.org",
                                            "password": "guess-guess"},
                           headers={"X-Forwarded-For": f"10.0.0.{i % address_count + 1}"})  # fmt: skip

    answers = at_once(12, sign_in_wrongly)
    statuses = Counter(a.status_code for a in answers)
    assert set(statuses) <= {400, 503} and statuses[503] >= 1, statuses
    busy = next(a for a in answers if a.status_code == 503)
    assert "being checked right now" in busy.text and int(busy.headers["Retry-After"]) >= 1
    # A request that got no hashing place was never evaluated, so it counts against no limit.
    assert login_attempts(server.settings) == statuses[400]
    for client, _ in forms:
        client.close()
