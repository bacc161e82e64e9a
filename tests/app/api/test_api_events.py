"""Event streams replay from the database: reconnecting, arriving late, and after a restart.

A resume point (Last-Event-ID or ``after``) that is no event id the stream sent is a 400 or 422, never a 500.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import httpx
from api_support import RunningServer, assert_error, read_events, reference_code, submit

from app.learners import COOKIE_NAME
from app.settings import Settings


def test_last_event_id_gets_only_the_missed_events(client: httpx.Client) -> None:
    accepted = submit(client, reference_code()).json()
    everything = read_events(client, accepted["events_url"])
    assert len(everything) >= 5
    rest = read_events(client, accepted["events_url"], last_event_id="3")
    assert rest == everything[3:]
    assert [int(e["id"]) for e in rest] == list(range(4, len(everything) + 1))


def test_a_client_connecting_after_the_end_gets_the_whole_story_and_then_nothing(client: httpx.Client) -> None:
    accepted = submit(client, reference_code()).json()
    first = read_events(client, accepted["events_url"])
    again = read_events(client, accepted["events_url"])
    assert again == first
    # Having seen the last event, EventSource is told not to reconnect.
    last = client.get(accepted["events_url"], headers={"Last-Event-ID": first[-1]["id"]})
    assert last.status_code == 204


def test_the_after_query_parameter_resumes_like_last_event_id(client: httpx.Client) -> None:
    accepted = submit(client, reference_code()).json()
    everything = read_events(client, accepted["events_url"])
    assert read_events(client, accepted["events_url"] + "?after=2") == everything[2:]


def test_submissions_events_and_progress_survive_a_restart(
    make_settings: Callable[..., Settings], start_server: Callable[[Settings], RunningServer]
) -> None:
    settings = make_settings()
    first = start_server(settings)
    with first.client() as learner:
        accepted = submit(learner, reference_code()).json()
        events = read_events(learner, accepted["events_url"])
        result = learner.get(accepted["result_url"]).json()
        cookie = learner.cookies[COOKIE_NAME]
    first.stop()

    second = start_server(make_settings())  # a new app object on the same data dir (same database and key)
    assert second.app is not first.app
    with httpx.Client(base_url=second.url, cookies={COOKIE_NAME: cookie}, timeout=30) as same:
        assert same.get(accepted["result_url"]).json() == result
        assert read_events(same, accepted["events_url"]) == events
        listed = {e["slug"]: e for e in same.get("/api/exercises").json()}
        assert all(e["solved"] for e in listed.values())
        assert "✓" in same.get("/").text


def test_waiting_submissions_are_graded_after_a_restart(
    make_settings: Callable[..., Settings], start_server: Callable[[Settings], RunningServer]
) -> None:
    queue_only = start_server(make_settings(workers=0))
    with queue_only.client() as learner:
        accepted = submit(learner, reference_code()).json()
        assert learner.get(accepted["result_url"]).json()["status"] == "queued"
        assert learner.get(accepted["result_url"]).json()["position"] == 1
        cookie = learner.cookies[COOKIE_NAME]
    queue_only.stop()

    grading = start_server(make_settings(workers=1))
    with httpx.Client(base_url=grading.url, cookies={COOKIE_NAME: cookie}, timeout=30) as learner:
        events = read_events(learner, accepted["events_url"])
        assert events[0]["event"] == "queued"
        assert events[-1]["data"]["status"] == "pass"


def test_waiting_submissions_hear_their_queue_position_move(
    make_settings: Callable[..., Settings], start_server: Callable[[Settings], RunningServer]
) -> None:
    server = start_server(make_settings(workers=1))
    looping = reference_code().replace(
        "def attend_step(x_t, cache, p):\n", "def attend_step(x_t, cache, p):\n    while True:\n        pass\n", 1
    )
    with server.client() as learner:
        busy = submit(learner, looping).json()
        while learner.get(busy["result_url"]).json()["status"] == "queued":
            time.sleep(0.02)  # wait until the only worker is busy with it
        second = submit(learner, reference_code()).json()
        third = submit(learner, reference_code()).json()
        events = read_events(learner, third["events_url"])
    positions = [e["data"]["position"] for e in events if e["event"] == "queued"]
    assert positions[0] == 2 and positions[-1] == 1
    assert [e["event"] for e in events].index("started") > len(positions) - 1
    assert events[-1]["data"]["status"] == "pass"
    assert second["id"] != third["id"]


def test_a_last_event_id_of_a_superscript_digit_is_refused_with_400_not_500(client: httpx.Client) -> None:
    accepted = submit(client, reference_code()).json()
    # "²".isdigit() is True, int("²") raises: the header must be ASCII digits.
    response = client.get(accepted["events_url"], headers={"Last-Event-ID": "²".encode("latin-1")})
    assert_error(response, 400)


def test_a_last_event_id_of_5000_digits_is_refused_with_400_not_500(client: httpx.Client) -> None:
    accepted = submit(client, reference_code()).json()
    message = assert_error(client.get(accepted["events_url"], headers={"Last-Event-ID": "9" * 5000}), 400)
    assert "Last-Event-ID" in message


def test_an_after_of_5000_digits_is_refused_with_422_not_500(client: httpx.Client) -> None:
    accepted = submit(client, reference_code()).json()
    assert "after" in assert_error(client.get(accepted["events_url"] + "?after=" + "9" * 5000), 422)


def test_a_resume_point_past_the_last_event_is_refused_with_400_not_a_stream_that_never_ends(
    make_settings: Callable[..., Settings], start_server: Callable[[Settings], RunningServer]
) -> None:
    server = start_server(make_settings(workers=0))  # the submission stays queued: one event so far
    with server.client() as learner:
        accepted = submit(learner, reference_code()).json()
        for query, headers in (("?after=99999999999", {}), ("", {"Last-Event-ID": "2"})):
            response = learner.get(accepted["events_url"] + query, headers=headers, timeout=5)
            assert "after the last event" in assert_error(response, 400)


def test_an_empty_last_event_id_means_from_the_start(client: httpx.Client) -> None:
    accepted = submit(client, reference_code()).json()
    assert read_events(client, accepted["events_url"], last_event_id="") == read_events(client, accepted["events_url"])
