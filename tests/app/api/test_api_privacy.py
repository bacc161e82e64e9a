"""Learners see only their own submissions; the API shows no checks' code, reference or mutants.

Learner cookies expire and are renewed; client addresses are stored only as keyed hashes.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from api_support import KV, SLUG, RunningServer, read_events, reference_code, submit
from itsdangerous import Signer
from sqlalchemy import select

from app.learners import COOKIE_NAME, ClientAddresses, LearnerCookies
from app.models import Submission
from app.settings import Settings

DAY = 24 * 3600


def test_a_learner_cannot_read_another_learners_submission(server: RunningServer) -> None:
    with server.client() as owner, server.client() as other:
        accepted = submit(owner, reference_code()).json()
        read_events(owner, accepted["events_url"])
        for url in (accepted["result_url"], accepted["events_url"]):
            response = other.get(url)
            assert response.status_code == 404
            assert response.json()["error"]["status"] == 404
        assert owner.get(accepted["result_url"]).status_code == 200


def test_a_forged_cookie_is_a_new_learner(server: RunningServer) -> None:
    with server.client() as owner:
        accepted = submit(owner, reference_code()).json()
        learner_cookie = owner.cookies[COOKIE_NAME]
    learner_id, _, _signature = learner_cookie.rpartition(".")
    forged = httpx.get(server.url + accepted["result_url"], headers={"cookie": f"{COOKIE_NAME}={learner_id}.forged"})
    assert forged.status_code == 404
    fresh = forged.headers["set-cookie"]  # given a fresh identity
    assert fresh.startswith(f"{COOKIE_NAME}=") and learner_id not in fresh


def test_the_learner_cookie_is_signed_httponly_and_samesite(client: httpx.Client) -> None:
    response = client.get("/api/exercises")
    cookie = response.headers["set-cookie"]
    assert cookie.startswith(f"{COOKIE_NAME}=")
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Path=/" in cookie
    assert "set-cookie" not in client.get("/api/exercises").headers  # known learners keep theirs


def test_exercise_api_exposes_public_data_only(client: httpx.Client, exercises_dir: Path) -> None:
    listed = client.get("/api/exercises")
    detail = client.get(f"/api/exercises/{SLUG}")
    assert listed.status_code == detail.status_code == 200
    data = detail.json()
    assert data["title"] == "Decoding with a KV Cache"
    assert data["section"] == "Efficient Inference & Compression"
    assert data["difficulty"] == "medium" and data["tags"] == ["inference", "attention"]
    assert data["limits"]["time_seconds"] == 2 and data["limits"]["memory_mb"] == 512
    assert data["starter"] == (KV / "starter.py").read_text()
    assert len(data["checks"]) == 12
    assert all(set(c) == {"title", "public", "points"} for c in data["checks"])

    everything = listed.text + detail.text + client.get("/openapi.json").text
    reference = (KV / "reference.py").read_text()
    for line in reference.splitlines():
        if len(line.strip()) > 25 and line.strip() not in data["starter"]:
            assert line.strip() not in everything, f"reference line leaked: {line!r}"
    mutants = sorted(path.stem for path in (KV / "mutants").iterdir())  # each a .diff against reference.py
    assert len(mutants) >= 12
    for mutant in mutants:
        assert mutant not in everything
    assert "caught_by" not in everything and "mistake" not in everything
    checks_source = (KV / "checks.py").read_text()
    for line in checks_source.splitlines():
        if line.strip().startswith(("def ", "fail(", "expect")):
            assert line.strip() not in everything, f"checks.py leaked: {line!r}"
    assert "worked_example" not in everything  # check function names (ids) stay private here


def test_the_client_address_is_stored_only_as_a_hash_keyed_with_the_secret_key(server: RunningServer) -> None:
    with server.client() as learner:
        submit(learner, reference_code())
    with server.app.state.services.sessions() as session:
        (row,) = session.scalars(select(Submission)).all()
    assert row.client_key and "127.0.0.1" not in row.client_key
    assert row.client_key == ClientAddresses(server.settings.resolved_secret_key()).key("127.0.0.1")
    assert row.client_key != ClientAddresses("another server's key").key("127.0.0.1")


def test_addresses_of_one_ipv6_64_share_a_key_and_mapped_ipv4_is_ipv4() -> None:
    addresses = ClientAddresses("key")
    # One subscriber usually gets a whole /64: counting single IPv6 addresses would give them 2**64 limits.
    assert addresses.key("2001:db8:1:2::1") == addresses.key("2001:db8:1:2:ffff::9")
    assert addresses.key("2001:db8:1:2::1") != addresses.key("2001:db8:1:3::1")
    assert addresses.key("::ffff:192.0.2.7") == addresses.key("192.0.2.7") != addresses.key("192.0.2.8")
    assert addresses.key(None) == addresses.key(None)


def cookie_from(server: RunningServer, *, age_seconds: float) -> Callable[[str], str]:
    """Sign learner ids as this server would have ``age_seconds`` ago."""
    then = time.time() - age_seconds
    cookies = LearnerCookies(server.settings.resolved_secret_key(), max_age_days=400, clock=lambda: then)
    return cookies.sign


def test_a_returning_learners_cookie_older_than_a_day_is_reissued_and_keeps_their_submissions(
    server: RunningServer,
) -> None:
    with server.client() as owner:
        accepted = submit(owner, reference_code()).json()
        learner_id = owner.cookies[COOKIE_NAME].partition(".")[0]
    old = cookie_from(server, age_seconds=2 * DAY)(learner_id)
    response = httpx.get(server.url + accepted["result_url"], headers={"cookie": f"{COOKIE_NAME}={old}"})
    assert response.status_code == 200
    renewed = response.headers["set-cookie"]
    assert renewed.startswith(f"{COOKIE_NAME}={learner_id}.") and old not in renewed


def test_a_cookie_past_its_expiry_is_a_new_learner(
    make_settings: Callable[..., Settings], start_server: Callable[[Settings], RunningServer]
) -> None:
    server = start_server(make_settings(learner_cookie_days=30))
    with server.client() as owner:
        accepted = submit(owner, reference_code()).json()
        learner_id = owner.cookies[COOKIE_NAME].partition(".")[0]
    expired = cookie_from(server, age_seconds=31 * DAY)(learner_id)
    response = httpx.get(server.url + accepted["result_url"], headers={"cookie": f"{COOKIE_NAME}={expired}"})
    assert response.status_code == 404
    assert learner_id not in response.headers["set-cookie"]  # a fresh identity


def test_the_browser_keeps_the_cookie_as_long_as_the_server_honours_it(
    make_settings: Callable[..., Settings], start_server: Callable[[Settings], RunningServer]
) -> None:
    server = start_server(make_settings(learner_cookie_days=30))
    cookie = httpx.get(server.url + "/api/exercises").headers["set-cookie"]
    assert f"Max-Age={30 * DAY};" in cookie


@pytest.mark.parametrize("legacy", [True, False])
def test_a_cookie_of_the_unexpiring_format_is_upgraded_unless_legacy_cookies_are_refused(
    make_settings: Callable[..., Settings], start_server: Callable[[Settings], RunningServer], legacy: bool
) -> None:
    server = start_server(make_settings(legacy_learner_cookies=legacy))
    with server.client() as owner:
        accepted = submit(owner, reference_code()).json()
        learner_id = owner.cookies[COOKIE_NAME].partition(".")[0]
    # What the server signed before cookies expired: the id and a signature, with no timestamp.
    old = Signer(server.settings.resolved_secret_key(), salt="mlkata.learner").sign(learner_id).decode()
    assert str(uuid.UUID(old.partition(".")[0])) == learner_id
    response = httpx.get(server.url + accepted["result_url"], headers={"cookie": f"{COOKIE_NAME}={old}"})
    upgraded = response.headers["set-cookie"].split(";")[0].partition("=")[2]
    if not legacy:
        assert response.status_code == 404 and learner_id not in upgraded
        return
    assert response.status_code == 200
    assert upgraded != old and upgraded.startswith(f"{learner_id}.")
    again = httpx.get(server.url + accepted["result_url"], headers={"cookie": f"{COOKIE_NAME}={upgraded}"})
    assert again.status_code == 200 and "set-cookie" not in again.headers
