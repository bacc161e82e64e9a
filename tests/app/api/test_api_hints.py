"""Hints in levels, through HTTP: a level opens only after failed runs that gave the hint, or once solved.

The rule: level n of a hint opens after n failed runs of the exercise whose result gave that hint (a
check's or the most likely mistake's); a learner who solved the exercise reads every level.
"""

from __future__ import annotations

import httpx
from api_support import KV, SLUG, assert_error, mutant_code, read_events, reference_code, submit

from grader.exercise import load_exercise

HINTS = f"/api/exercises/{SLUG}/hints"


def every_level() -> list[tuple[str, int]]:
    exercise = load_exercise(KV)
    return [(hint, n) for hint in exercise.config.hints for n in range(1, len(exercise.hint_levels(hint)) + 1)]


def fail_once(client: httpx.Client) -> dict:
    accepted = submit(client, mutant_code("no-scaling")).json()
    result = read_events(client, accepted["events_url"])[-1]["data"]["result"]
    assert result["status"] == "fail" and result["mistake"]["hint_id"] == "scaling"
    return result


def test_no_level_of_any_hint_is_given_to_a_learner_who_never_ran_anything(client: httpx.Client) -> None:
    levels = every_level()
    assert len(levels) > 5
    refused = [(hint, n) for hint, n in levels if client.get(f"{HINTS}/{hint}", params={"level": n}).status_code == 403]
    assert refused == levels
    message = assert_error(client.get(f"{HINTS}/scaling", params={"level": 3}), 403)
    assert message == "Level 3 of this hint opens after 3 failed runs that give it (or once you solve the exercise)."


def test_each_level_opens_after_one_more_failed_run_that_gives_the_hint(client: httpx.Client) -> None:
    fail_once(client)
    first = client.get(f"{HINTS}/scaling", params={"level": 1}).json()
    assert (first["kind"], first["open_levels"], first["runs_until_next"]) == ("concept", 1, 1)
    assert first["next_opens"] == assert_error(client.get(f"{HINTS}/scaling", params={"level": 2}), 403)
    message = assert_error(client.get(f"{HINTS}/scaling", params={"level": 3}), 403)
    assert message.startswith("Level 3 of this hint opens after 2 more failed runs that give it")
    assert "1 more failed run that gives it" in assert_error(client.get(f"{HINTS}/scaling", params={"level": 2}), 403)
    # A hint no run gave stays closed.
    assert_error(client.get(f"{HINTS}/stable-softmax", params={"level": 1}), 403)

    fail_once(client)
    second = client.get(f"{HINTS}/scaling", params={"level": 2}).json()
    assert (second["kind"], second["open_levels"], second["runs_until_next"]) == ("formula", 2, 1)
    assert second["next_opens"].startswith("Level 3 of this hint opens after 1 more failed run that gives it")
    assert_error(client.get(f"{HINTS}/scaling", params={"level": 3}), 403)

    fail_once(client)
    third = client.get(f"{HINTS}/scaling", params={"level": 3}).json()
    assert (third["kind"], third["open_levels"], third["runs_until_next"]) == ("code", 3, None)
    assert third["next_opens"] is None
    assert client.get(f"{HINTS}/scaling", params={"level": 1}).json()["runs_until_next"] == 0
    assert "3 levels" in assert_error(client.get(f"{HINTS}/scaling", params={"level": 4}), 404)
    assert_error(client.get(f"{HINTS}/no-such-hint"), 404)
    # Another learner's runs open nothing for this one.
    with httpx.Client(base_url=str(client.base_url)) as stranger:
        assert_error(stranger.get(f"{HINTS}/scaling", params={"level": 1}), 403)


def test_a_learner_who_solved_the_exercise_reads_every_level(client: httpx.Client) -> None:
    accepted = submit(client, reference_code()).json()
    assert read_events(client, accepted["events_url"])[-1]["data"]["status"] == "pass"
    exercise = load_exercise(KV)
    for hint, n in every_level():
        answer = client.get(f"{HINTS}/{hint}", params={"level": n})
        assert answer.status_code == 200, (hint, n)
        last = n == len(exercise.hint_levels(hint))
        assert (answer.json()["runs_until_next"], answer.json()["next_opens"]) == (None if last else 0, None)
