"""The roadmap as a path: exercises in order, each section's progress and difficulties, and what comes next."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import httpx
import pytest
from api_support import REPO, SLUG, copy_exercise, read_events, submit

# Three exercises of one section, orders 10, 20 and 30: medium, easy, easy.
ORDER = [SLUG, "int8-quantization", "rope"]


@pytest.fixture
def exercises_dir(tmp_path: Path) -> Path:
    root = copy_exercise(tmp_path / "exercises")
    for slug in ORDER[1:]:
        shutil.copytree(REPO / "exercises" / slug, root / slug)
    return root


def solve(client: httpx.Client, slug: str) -> None:
    code = (REPO / "exercises" / slug / "reference.py").read_text(encoding="utf-8")
    accepted = submit(client, code, slug).json()
    assert read_events(client, accepted["events_url"])[-1]["data"]["status"] == "pass"


def next_up(client: httpx.Client, slug: str) -> str | None:
    detail = client.get(f"/api/exercises/{slug}").json()
    return detail["next"]["slug"] if detail["next"] else None


def test_the_roadmap_lists_a_section_in_order_with_its_progress_and_difficulties(client: httpx.Client) -> None:
    page = client.get("/").text
    assert [page.index(f'data-slug="{slug}"') for slug in ORDER] == sorted(
        page.index(f'data-slug="{slug}"') for slug in ORDER
    )
    assert "0 of 3 solved" in page
    assert re.search(r'<progress max="3" value="0"', page)
    spread = re.search(r'<p class="difficulty-spread".*?</p>', page, re.S)[0]
    assert re.sub(r"<[^>]+>|\s+", " ", spread).split() == ["easy", "2", "medium", "1"]
    steps = re.findall(r'<li class="step difficulty-(\w+)"( data-solved)?', page)
    assert steps == [("medium", ""), ("easy", ""), ("easy", "")]

    solve(client, "int8-quantization")
    page = client.get("/").text
    assert "1 of 3 solved" in page and re.search(r'<progress max="3" value="1"', page)
    steps = re.findall(r'<li class="step difficulty-(\w+)"( data-solved)?', page)
    assert steps == [("medium", ""), ("easy", " data-solved"), ("easy", "")]


def test_next_is_the_first_unsolved_exercise_after_this_one_then_before_it(client: httpx.Client) -> None:
    assert [next_up(client, slug) for slug in ORDER] == ["int8-quantization", "rope", SLUG]
    solve(client, "int8-quantization")
    assert [next_up(client, slug) for slug in ORDER] == ["rope", "rope", SLUG]
    solve(client, "rope")
    assert [next_up(client, slug) for slug in ORDER] == [None, SLUG, SLUG]
    detail = client.get("/api/exercises/rope").json()
    assert (detail["position"], detail["section_size"]) == (3, 3)
    assert detail["next"] == {"slug": SLUG, "title": "Decoding with a KV Cache", "difficulty": "medium",
                              "url": f"/exercises/{SLUG}"}  # fmt: skip


def test_the_exercise_page_offers_the_next_exercise_once_solved(client: httpx.Client) -> None:
    page = client.get("/exercises/int8-quantization").text
    assert re.search(r'id="next-exercise"[^>]*hidden', page)
    assert '<li aria-current="location">2 of 3</li>' in page
    solve(client, "int8-quantization")
    page = client.get("/exercises/int8-quantization").text
    offer = re.search(r'<p class="next-exercise" id="next-exercise">(.*?)</p>', page, re.S)
    assert offer, "a solved exercise shows what comes next"
    assert 'href="/exercises/rope"' in offer[1] and "Next up" in offer[1]
    solve(client, "rope")
    solve(client, SLUG)
    page = client.get(f"/exercises/{SLUG}").text
    offer = re.search(r'<p class="next-exercise" id="next-exercise">(.*?)</p>', page, re.S)
    assert "the last exercise you had left" in offer[1] and 'href="/"' in offer[1]
