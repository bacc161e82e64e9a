"""A learner's profile: solved per section and difficulty, their runs, their latest runs, a year of activity."""

from __future__ import annotations

import re
import shutil
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
from api_support import REPO, SLUG, copy_exercise, read_events, submit


@pytest.fixture
def exercises_dir(tmp_path: Path) -> Path:
    root = copy_exercise(tmp_path / "exercises")
    shutil.copytree(REPO / "exercises" / "rope", root / "rope")
    return root


def run(client: httpx.Client, slug: str, file: str) -> str:
    code = (REPO / "exercises" / slug / file).read_text(encoding="utf-8")
    accepted = submit(client, code, slug).json()
    return str(read_events(client, accepted["events_url"])[-1]["data"]["status"])


def text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).strip()


def stat(page: str, name: str) -> str:
    return text(re.search(rf'<li data-stat="{name}">(.*?)</li>', page, re.S)[1])


def test_a_new_learner_has_an_empty_profile_and_is_told_to_sign_up_to_keep_it(client: httpx.Client) -> None:
    page = client.get("/profile")
    assert page.status_code == 200
    html = page.text
    assert '<a href="/profile" aria-current="page">Profile</a>' in html
    assert "You are not signed in" in html and 'href="/signup?next=/profile"' in html
    assert stat(html, "solved") == "0 solved of 2" and stat(html, "runs") == "0 runs, 0 passing"
    assert stat(html, "streak") == "0 days in a row, longest 0"
    assert "No run yet." in html
    levels = re.findall(r'<td data-date="[\d-]+" data-level="(\d)"', html)
    assert len(levels) > 360 and set(levels) == {"0"}


def test_runs_and_tries_fill_the_profile(client: httpx.Client) -> None:
    before = datetime.now(UTC).date().isoformat()
    assert run(client, "rope", "reference.py") == "pass"
    assert run(client, SLUG, "starter.py") == "fail"
    tried = client.post("/api/exercises/rope/tries", json={"code": "", "inputs": "1 + 1"})
    read_events(client, tried.json()["events_url"])
    html = client.get("/profile").text

    assert stat(html, "solved") == "1 solved of 2" and stat(html, "attempted") == "1 attempted, not solved yet"
    assert stat(html, "runs") == "2 runs, 1 passing" and stat(html, "tries") == "1 try with your own inputs"
    assert stat(html, "streak") == "1 day in a row, longest 1"
    # Solved by section and difficulty: rope is easy, the KV exercise medium, both of one section.
    row = re.search(r'<tr data-section="efficient-inference-compression">(.*?)</tr>', html, re.S)[1]
    cells = dict(re.findall(r'data-difficulty="(\w+)">(.*?)</td>', row, re.S))
    assert {name: text(cell) for name, cell in cells.items()} == {
        "easy": "1 / 1", "medium": "0 / 1", "hard": "— none", "all": "1 / 2",
    }  # fmt: skip
    assert '<td class="num complete" data-difficulty="easy">' in row
    total = re.search(r'<tr data-section="all">(.*?)</tr>', html, re.S)[1]
    assert [text(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", total, re.S)] == ["1 / 1", "0 / 1", "0 / 0", "1 / 2"]
    # Today, in UTC: two runs and a try (one day, even should midnight pass meanwhile).
    active = re.findall(r'<td data-date="([\d-]+)" data-level="([1-4])" title="([^"]+)">', html)
    assert len(active) == 1, active
    day, level, label = active[0]
    assert day in (before, datetime.now(UTC).date().isoformat()) and level == "2" and label.endswith(": 2 runs, 1 try")
    assert "1 active day in the last year" in html
    # The latest runs, newest first, each leading to its exercise's history.
    runs = re.findall(r'<span class="status" data-state="(\w+)">([\w ]+)</span>\s*<a href="([^"]+)">([^<]+)</a>', html)
    assert runs == [
        ("fail", "failed", f"/exercises/{SLUG}#history", "Decoding with a KV Cache"),
        ("pass", "passed", "/exercises/rope#history", "Rotary Position Embeddings"),
    ]

    # Nothing of it is anyone else's.
    with httpx.Client(base_url=str(client.base_url), timeout=30) as stranger:
        other = stranger.get("/profile").text
    assert stat(other, "runs") == "0 runs, 0 passing" and "No run yet." in other
