"""The roadmap as a path: each section easy to hard with its progress, the attempted state, what to open next."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import httpx
import pytest
from api_support import REPO, SLUG, copy_exercise, read_events, submit

# Three exercises of one section, orders 10, 20 and 30: medium, easy, easy. The roadmap puts the easy ones first.
ORDER = ["int8-quantization", "rope", SLUG]


@pytest.fixture
def exercises_dir(tmp_path: Path) -> Path:
    root = copy_exercise(tmp_path / "exercises")
    for slug in ORDER[:2]:
        shutil.copytree(REPO / "exercises" / slug, root / slug)
    return root


def run(client: httpx.Client, slug: str, file: str = "reference.py") -> str:
    """Send ``file`` of the exercise as a graded run; its final status."""
    code = (REPO / "exercises" / slug / file).read_text(encoding="utf-8")
    accepted = submit(client, code, slug).json()
    return str(read_events(client, accepted["events_url"])[-1]["data"]["status"])


def solve(client: httpx.Client, slug: str) -> None:
    assert run(client, slug) == "pass"


def next_up(client: httpx.Client, slug: str) -> str | None:
    detail = client.get(f"/api/exercises/{slug}").json()
    return detail["next"]["slug"] if detail["next"] else None


def listed(page: str) -> list[tuple[str, str]]:
    """The roadmap's list of exercises, in order: (slug, status) of each."""
    return re.findall(r'<li data-finder-item data-slug="([\w-]+)"[^>]*data-status="([\w-]+)"', page)


def panel(page: str) -> tuple[str, str, str]:
    """The "next up" panel: (why, slug, its text)."""
    found = re.search(r'<section class="card next-up"[^>]*data-slug="([\w-]+)" data-why="(\w+)">(.*?)</section>',
                      page, re.S)  # fmt: skip
    assert found, "the roadmap shows what to open next"
    return found[2], found[1], re.sub(r"<[^>]+>|\s+", " ", found[3])


def test_the_roadmap_lists_a_section_easy_to_hard_with_its_progress_and_difficulties(client: httpx.Client) -> None:
    page = client.get("/").text
    assert listed(page) == [(slug, "not-started") for slug in ORDER]
    assert "0 of 3 solved" in page
    assert re.search(r'<progress max="3" value="0"', page)
    spread = re.search(r'<p class="difficulty-spread".*?</p>', page, re.S)[0]
    assert re.sub(r"<[^>]+>|\s+", " ", spread).split() == ["easy", "2", "medium", "1"]
    steps = re.findall(r'<li class="step difficulty-(\w+)" data-status="([\w-]+)"', page)
    assert steps == [("easy", "not-started"), ("easy", "not-started"), ("medium", "not-started")]

    solve(client, "rope")
    page = client.get("/").text
    assert "1 of 3 solved" in page and re.search(r'<progress max="3" value="1"', page)
    steps = re.findall(r'<li class="step difficulty-(\w+)" data-status="([\w-]+)"( data-solved)?', page)
    assert steps == [("easy", "not-started", ""), ("easy", "solved", " data-solved"), ("medium", "not-started", "")]
    card = re.search(r'<a class="card exercise-card" href="/exercises/rope"[^>]*>(.*?)</a>', page, re.S)
    assert "data-solved" in card[0] and "Solved:" in card[1] and "1 run" in card[1]


def test_a_failed_run_makes_an_exercise_attempted_until_it_is_solved(client: httpx.Client) -> None:
    assert run(client, "rope", "starter.py") == "fail"
    page = client.get("/").text
    assert listed(page) == [("int8-quantization", "not-started"), ("rope", "attempted"), (SLUG, "not-started")]
    card = re.search(r'<a class="card exercise-card" href="/exercises/rope"[^>]*>(.*?)</a>', page, re.S)
    assert 'data-status="attempted"' in card[0] and "Attempted:" in card[1] and "Attempted · 1 run" in card[1]
    assert "0 of 3 solved · 1 attempted" in page
    assert re.search(r'<li class="step difficulty-easy" data-status="attempted"', page)

    # A try is not a run: it attempts nothing.
    tried = client.post("/api/exercises/int8-quantization/tries", json={"code": "", "inputs": "1 + 1"})
    assert tried.status_code == 202
    read_events(client, tried.json()["events_url"])
    assert dict(listed(client.get("/").text))["int8-quantization"] == "not-started"

    solve(client, "rope")
    page = client.get("/").text
    assert dict(listed(page))["rope"] == "solved" and "1 attempted" not in page
    card = re.search(r'<a class="card exercise-card" href="/exercises/rope"[^>]*>(.*?)</a>', page, re.S)
    assert "2 runs" in card[1] and "Attempted" not in card[1]


def test_another_learner_sees_none_of_it(client: httpx.Client, server: object) -> None:
    assert run(client, "rope", "starter.py") == "fail"
    with httpx.Client(base_url=str(client.base_url), timeout=30) as stranger:
        page = stranger.get("/").text
    assert {status for _, status in listed(page)} == {"not-started"}
    assert panel(page)[:2] == ("start", "int8-quantization")


def test_the_roadmap_says_what_to_open_next_and_why(client: httpx.Client) -> None:
    why, slug, text = panel(client.get("/").text)
    assert (why, slug) == ("start", "int8-quantization")
    assert "Start here" in text and "1 of 3" in text and "Start" in text

    assert run(client, SLUG, "starter.py") == "fail"  # the last run, not solved: pick it up again
    why, slug, text = panel(client.get("/").text)
    assert (why, slug) == ("continue", SLUG)
    assert "Pick up where you left off" in text and "3 of 3" in text and "1 run so far" in text and "Continue" in text
    page = client.get("/").text
    marked = re.findall(r'<a class="card exercise-card" href="/exercises/([\w-]+)"[^>]* data-next>', page)
    assert marked == [SLUG]  # and the same exercise is marked in the list

    solve(client, "int8-quantization")  # solved last: next is the first unsolved one after it
    assert panel(client.get("/").text)[:2] == ("next", "rope")
    solve(client, "rope")  # wraps round to the one skipped
    assert panel(client.get("/").text)[:2] == ("next", SLUG)
    solve(client, SLUG)
    page = client.get("/").text
    assert 'class="card next-up"' not in page and "You solved every exercise of the roadmap." in page


def test_each_exercise_carries_what_the_filters_and_the_search_look_at(client: httpx.Client) -> None:
    page = client.get("/").text
    item = re.search(r"<li data-finder-item data-slug=\"rope\"([^>]*)>", page)[1]
    attributes = {name: a or b for name, a, b in re.findall(r"data-([\w-]+)=(?:'([^']*)'|\"([^\"]*)\")", item)}
    assert attributes["section"] == "efficient-inference-compression"
    assert attributes["difficulty"] == "easy" and attributes["status"] == "not-started"
    assert json.loads(attributes["tags"]) == ["attention", "positional-encoding"]
    assert json.loads(attributes["functions"]) == ["rope"]
    # The filters offer every section, difficulty, tag (with how many carry it) and status.
    form = re.search(r'<form class="finder".*?</form>', page, re.S)[0]
    options = dict(re.findall(r'<select id="finder-(\w+)" name="\w+">(.*?)</select>', form, re.S))
    values = {name: re.findall(r'<option value="([^"]*)">', html) for name, html in options.items()}
    assert values["section"] == ["", "efficient-inference-compression"]
    assert values["difficulty"] == ["", "easy", "medium", "hard"]
    assert values["status"] == ["", "solved", "attempted", "not-started"]
    assert ">attention (2)</option>" in options["tag"] and ">inference (2)</option>" in options["tag"]
    assert values["tag"][:3] == ["", "attention", "inference"]


def test_next_is_the_first_unsolved_exercise_after_this_one_then_before_it(client: httpx.Client) -> None:
    assert [next_up(client, slug) for slug in ORDER] == ["rope", SLUG, "int8-quantization"]
    solve(client, "int8-quantization")
    assert [next_up(client, slug) for slug in ORDER] == ["rope", SLUG, "rope"]
    solve(client, "rope")
    assert [next_up(client, slug) for slug in ORDER] == [SLUG, SLUG, None]
    detail = client.get("/api/exercises/rope").json()
    assert (detail["position"], detail["section_size"]) == (2, 3)
    assert detail["section_url"] == "/sections/efficient-inference-compression"
    assert detail["next"] == {"slug": SLUG, "title": "Decoding with a KV Cache", "difficulty": "medium",
                              "url": f"/exercises/{SLUG}"}  # fmt: skip


def test_the_exercise_page_offers_the_next_exercise_once_solved(client: httpx.Client) -> None:
    page = client.get("/exercises/rope").text
    assert re.search(r'id="next-exercise"[^>]*hidden', page)
    assert '<li aria-current="location">2 of 3</li>' in page
    assert '<a href="/sections/efficient-inference-compression">Efficient Inference &amp; Compression</a>' in page
    solve(client, "rope")
    page = client.get("/exercises/rope").text
    offer = re.search(r'<p class="next-exercise" id="next-exercise">(.*?)</p>', page, re.S)
    assert offer, "a solved exercise shows what comes next"
    assert f'href="/exercises/{SLUG}"' in offer[1] and "Next up" in offer[1]
    solve(client, SLUG)
    solve(client, "int8-quantization")
    page = client.get("/exercises/int8-quantization").text
    offer = re.search(r'<p class="next-exercise" id="next-exercise">(.*?)</p>', page, re.S)
    assert "the last exercise you had left" in offer[1] and 'href="/"' in offer[1]
