"""Submitting solutions over HTTP and following their grading with the real grader."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import jsonschema
from api_support import SLUG, RunningServer, mutant_code, read_events, reference_code, submit

from grader.exercise import load_exercise

SCHEMA = json.loads((Path(__file__).resolve().parents[3] / "grader" / "results" / "results.schema.json").read_text())


def test_reference_solution_streams_one_check_event_per_check_then_passes(
    client: httpx.Client, exercises_dir: Path
) -> None:
    exercise = load_exercise(exercises_dir / SLUG)
    response = submit(client, reference_code())
    assert response.status_code == 202
    accepted = response.json()
    assert set(accepted) == {"id", "status", "events_url", "result_url", "stop_url"}
    assert accepted["status"] == "queued"
    assert accepted["events_url"] == f"/api/submissions/{accepted['id']}/events"

    events = read_events(client, accepted["events_url"])
    kinds = [e["event"] for e in events]
    assert kinds[0] == "queued" and events[0]["data"]["position"] >= 1
    assert kinds[1] == "started"
    assert events[1]["data"]["checks"] == [c.title for c in exercise.checks]
    checks = [e for e in events if e["event"] == "check"]
    assert [e["data"]["index"] for e in checks] == list(range(len(exercise.checks)))
    assert [e["data"]["check"]["name"] for e in checks] == [c.title for c in exercise.checks]
    assert all(e["data"]["check"]["status"] == "pass" for e in checks)
    assert kinds[-1] == "done" and kinds.count("done") == 1
    assert events[-1]["data"]["status"] == "pass"
    assert [int(e["id"]) for e in events] == list(range(1, len(events) + 1))

    result = client.get(accepted["result_url"]).json()
    assert result["status"] == "pass"
    assert result["id"] == accepted["id"] and result["exercise"] == SLUG
    assert result["finished_at"] is not None and result["duration_ms"] > 0
    jsonschema.validate(result["result"], SCHEMA)
    assert result["result"] == events[-1]["data"]["result"]
    assert result["result"]["points"] == result["result"]["max_points"] > 0


def test_wrong_solution_reports_the_failing_checks_message_and_its_mistake(client: httpx.Client) -> None:
    accepted = submit(client, mutant_code("no-scaling")).json()
    events = read_events(client, accepted["events_url"])
    failing = [e["data"]["check"] for e in events if e["event"] == "check" and e["data"]["check"]["status"] != "pass"]
    assert failing, "the mutant must fail at least one check"
    worked = next(c for c in failing if c["id"] == "worked_example")
    assert worked["message"] and worked["public"] is True and set(worked["details"]) >= {"call", "expected", "got"}
    # The mistake is named once the run is over (only a mistake that explains every failing check is).
    assert worked["mistake_id"] is None
    hidden = [c for c in failing if not c["public"]]
    assert hidden and all(c["details"] is None for c in hidden)
    done = events[-1]
    assert done["event"] == "done" and done["data"]["status"] == "fail"
    mistake = done["data"]["result"]["mistake"]
    assert mistake["id"] == "no-scaling" and "√d" in mistake["hint"]
    explained = [t["id"] for t in done["data"]["result"]["tests"] if t["mistake_id"] == "no-scaling"]
    assert "worked_example" in explained and explained == mistake["checks"]
    assert client.get(accepted["result_url"]).json()["status"] == "fail"


def test_syntax_error_ends_with_its_line(client: httpx.Client) -> None:
    code = "import numpy as np\n\ndef attend_step(x_t, cache, p)\n    return None\n"
    accepted = submit(client, code).json()
    events = read_events(client, accepted["events_url"])
    assert [e["event"] for e in events if e["event"] == "check"] == []
    result = events[-1]["data"]["result"]
    assert result["status"] == "error" and result["reason"] == "syntax_error"
    assert result["location"]["line"] == 3


def test_infinite_loop_times_out_and_the_server_keeps_serving(client: httpx.Client) -> None:
    code = reference_code().replace(
        "def attend_step(x_t, cache, p):\n", "def attend_step(x_t, cache, p):\n    while True:\n        pass\n", 1
    )
    assert "while True" in code
    accepted = submit(client, code).json()
    events = read_events(client, accepted["events_url"])
    reasons = [e["data"]["check"]["reason"] for e in events if e["event"] == "check"]
    assert "timeout" in reasons
    result = events[-1]["data"]["result"]
    assert result["status"] == "fail" and result["reason"] == "timeout"
    assert "Time limit exceeded" in next(t["message"] for t in result["tests"] if t["reason"] == "timeout")
    assert client.get("/api/exercises").status_code == 200


def test_output_is_streamed_as_output_events(client: httpx.Client) -> None:
    code = 'print("loading <b>solution</b>")\n' + reference_code()
    accepted = submit(client, code).json()
    events = read_events(client, accepted["events_url"])
    outputs = [e["data"]["text"] for e in events if e["event"] == "output"]
    assert "loading <b>solution</b>\n" in outputs
    assert events.index(next(e for e in events if e["event"] == "output")) > 1  # after queued and started


def test_concurrent_submissions_all_finish(server: RunningServer) -> None:
    with server.client() as one, server.client() as two:
        ids = [submit(c, reference_code()).json() for c in (one, two, one)]
        clients = [one, two, one]
        for c, accepted in zip(clients, ids, strict=True):
            events = read_events(c, accepted["events_url"])
            assert events[-1]["data"]["status"] == "pass", events[-1]["data"]["result"]
