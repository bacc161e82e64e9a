"""Learners see only their own submissions; the API shows no checks' code, reference or mutants."""

from __future__ import annotations

from pathlib import Path

import httpx
from api_support import KV, SLUG, RunningServer, read_events, reference_code, submit

from app.learners import COOKIE_NAME


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
    for mutant in (KV / "mutants").glob("*.py"):
        assert mutant.stem not in everything
    assert "caught_by" not in everything and "mistake" not in everything
    checks_source = (KV / "checks.py").read_text()
    for line in checks_source.splitlines():
        if line.strip().startswith(("def ", "fail(", "expect")):
            assert line.strip() not in everything, f"checks.py leaked: {line!r}"
    assert "worked_example" not in everything  # check function names (ids) stay private here
