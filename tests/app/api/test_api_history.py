"""The run history, stopping a run, the reference after solving and tries, through HTTP (hints: test_api_hints)."""

from __future__ import annotations

import time

import httpx
from api_support import REPO, SLUG, assert_error, mutant_code, read_events, reference_code, submit

STARTER = (REPO / "exercises" / SLUG / "starter.py").read_text(encoding="utf-8")
LOOPING = reference_code().replace(
    "def attend_step(x_t, cache, p):\n", "def attend_step(x_t, cache, p):\n    while True:\n        pass\n", 1
)


def wait_started(client: httpx.Client, url: str) -> None:
    deadline = time.monotonic() + 60
    while client.get(url).json()["status"] != "running":
        assert time.monotonic() < deadline, "the run never started"
        time.sleep(0.05)


def test_history_lists_your_runs_newest_first_with_their_code(client: httpx.Client) -> None:
    first = submit(client, mutant_code("no-scaling")).json()
    read_events(client, first["events_url"])
    second = submit(client, reference_code()).json()
    read_events(client, second["events_url"])
    history = client.get(f"/api/exercises/{SLUG}/submissions").json()
    runs = history["submissions"]
    assert [r["id"] for r in runs] == [second["id"], first["id"]]
    assert [r["status"] for r in runs] == ["pass", "fail"]
    assert runs[0]["points"] == runs[0]["max_points"] > 0
    assert runs[0]["url"] == f"/api/submissions/{second['id']}"
    assert client.get(runs[1]["url"]).json()["code"] == mutant_code("no-scaling")
    # Another learner (no cookie) sees none of them, and cannot read their code.
    with httpx.Client(base_url=str(client.base_url)) as stranger:
        assert stranger.get(f"/api/exercises/{SLUG}/submissions").json()["submissions"] == []
        assert_error(stranger.get(runs[1]["url"]), 404)


def test_history_of_an_unknown_exercise_is_404(client: httpx.Client) -> None:
    assert_error(client.get("/api/exercises/no-such-thing/submissions"), 404)


def test_stop_ends_a_hanging_run_at_once_with_the_verdict_stopped(client: httpx.Client) -> None:
    accepted = submit(client, LOOPING).json()
    wait_started(client, accepted["result_url"])
    stopped = client.post(accepted["stop_url"])
    assert stopped.status_code == 200
    assert (stopped.json()["status"], stopped.json()["reason"]) == ("error", "stopped")
    events = read_events(client, accepted["events_url"])
    result = events[-1]["data"]["result"]
    assert result["reason"] == "stopped" and result["message"].startswith("Stopped during")
    assert {t["reason"] for t in result["tests"]} <= {"stopped", "not_run", "passed"}
    # It says how long it ran before it was stopped, never "0 ms": it had started.
    assert result["duration_ms"] > 0
    assert client.get(accepted["result_url"]).json()["duration_ms"] == result["duration_ms"]
    # The server grades the next run as usual: nothing else was harmed.
    after = submit(client, reference_code()).json()
    assert read_events(client, after["events_url"])[-1]["data"]["status"] == "pass"


def test_only_the_owner_can_stop_a_run(client: httpx.Client) -> None:
    accepted = submit(client, LOOPING).json()
    with httpx.Client(base_url=str(client.base_url)) as stranger:
        assert_error(stranger.post(accepted["stop_url"]), 404)
    client.post(accepted["stop_url"])


def test_a_timeout_names_its_check_and_the_other_function_s_checks_still_run(client: httpx.Client) -> None:
    accepted = submit(client, LOOPING).json()
    result = read_events(client, accepted["events_url"])[-1]["data"]["result"]
    assert result["reason"] == "timeout" and result["message"].startswith("Timed out in “")
    by_reason = {t["reason"] for t in result["tests"]}
    assert "passed" in by_reason, "kv_cache_bytes's checks did not run after attend_step timed out"
    assert any("ran out of time in" in (t["message"] or "") for t in result["tests"] if t["reason"] == "not_run")


def test_the_reference_is_refused_until_solved_and_never_in_the_page_before(client: httpx.Client) -> None:
    url = f"/api/exercises/{SLUG}/reference"
    assert "Solve the exercise first" in assert_error(client.get(url), 403)
    page = client.get(f"/exercises/{SLUG}").text
    own = [line.strip() for line in reference_code().splitlines() if "=" in line and line.strip() not in STARTER]
    assert own and not [line for line in own if line in page]
    accepted = submit(client, reference_code()).json()
    read_events(client, accepted["events_url"])
    assert client.get(url).json()["code"] == reference_code()


def test_a_try_streams_each_line_s_value_with_its_shape_and_dtype(client: httpx.Client) -> None:
    inputs = 'x = np.ones((2, 3))\nprint("hi")\nkv_cache_bytes(1, 1, 1, 1, 2)\n'
    accepted = client.post(f"/api/exercises/{SLUG}/tries", json={"code": reference_code(), "inputs": inputs})
    assert accepted.status_code == 202
    events = read_events(client, accepted.json()["events_url"])
    values = [e["data"]["value"] for e in events if e["event"] == "value"]
    assert [(v["line"], v["shape"], v["dtype"]) for v in values] == [(1, "(2, 3)", "float64"), (3, None, None)]
    assert values[1]["text"] == "4"
    assert any(e["event"] == "output" and "hi" in e["data"]["text"] for e in events)
    done = events[-1]["data"]["result"]
    assert (done["kind"], done["status"]) == ("try", "pass")
    # A try is graded by nothing: not in the history, and nothing is marked solved.
    assert client.get(f"/api/exercises/{SLUG}/submissions").json()["submissions"] == []
    assert client.get(f"/api/exercises/{SLUG}").json()["solved"] is False


def test_a_try_that_raises_says_where_and_an_unparsable_one_says_why(client: httpx.Client) -> None:
    url = f"/api/exercises/{SLUG}/tries"
    accepted = client.post(url, json={"code": reference_code(), "inputs": "1 / 0\n"}).json()
    done = read_events(client, accepted["events_url"])[-1]["data"]["result"]
    assert done["reason"] == "raised" and "ZeroDivisionError" in done["message"]
    accepted = client.post(url, json={"code": reference_code(), "inputs": "x = (\n"}).json()
    done = read_events(client, accepted["events_url"])[-1]["data"]["result"]
    assert done["reason"] == "syntax_error" and "in your inputs, line 1" in done["message"]


def test_a_try_without_inputs_or_with_huge_inputs_is_refused_clearly(client: httpx.Client) -> None:
    url = f"/api/exercises/{SLUG}/tries"
    assert "inputs" in assert_error(client.post(url, json={"code": reference_code()}), 422)
    assert "16 KiB" in assert_error(client.post(url, json={"code": "", "inputs": "x = 1\n" * 4000}), 413)
    assert "NUL" in assert_error(client.post(url, json={"code": "", "inputs": "x\x00"}), 422)
