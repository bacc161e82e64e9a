"""``GET /api/submissions/{id}?format=exercism``: the result as exactly Exercism's results.json version 3."""

from __future__ import annotations

import json

import httpx
from api_support import KV, RunningServer, assert_error, mutant_code, read_events, submit
from sqlalchemy import select

from app.models import Submission
from grader.exercise import load_exercise

V3_TEST_FIELDS = {"name", "status", "message", "output", "test_code", "task_id"}
# The "no scaling" mistake, printing its inputs on every call: during hidden checks, those are hidden data.
PRINTING_MUTANT = mutant_code("no-scaling").replace(
    "def attend_step(x_t, cache, p):\n", "def attend_step(x_t, cache, p):\n    print('INPUT', x_t.tolist())\n", 1
)


def test_format_exercism_serves_the_v3_document_without_hidden_output(
    server: RunningServer, client: httpx.Client
) -> None:
    assert PRINTING_MUTANT.count("print('INPUT'") == 1
    accepted = submit(client, PRINTING_MUTANT).json()
    read_events(client, accepted["events_url"])  # to the end of the run
    mlkata = client.get(accepted["result_url"]).json()
    assert client.get(accepted["result_url"], params={"format": "mlkata"}).json() == mlkata
    response = client.get(accepted["result_url"], params={"format": "exercism"})
    assert response.status_code == 200
    view = response.json()

    # The envelope is the same; only ``result`` takes the other form.
    assert {k: v for k, v in view.items() if k != "result"} == {k: v for k, v in mlkata.items() if k != "result"}
    assert mlkata["result"]["exercise"] == "kv-cache-decoding" and mlkata["result"]["message"]
    document = view["result"]
    assert document["version"] == 3 and document["status"] == "fail"
    assert set(document) == {"version", "status", "tests"}  # no message unless the status is error
    titles = [check.title for check in load_exercise(KV).checks]
    assert [t["name"] for t in document["tests"]] == titles
    for test, check in zip(document["tests"], mlkata["result"]["tests"], strict=True):
        assert {"name", "status", "message"} <= set(test) <= V3_TEST_FIELDS
        assert test["status"] == check["status"]
        assert (test["message"] is None) == (check["status"] == "pass")
        assert len(test.get("output", "")) <= 500
        assert ("output" in test) == bool(check["public"] and check["output"])
    worked = document["tests"][0]
    assert worked["status"] == "fail" and worked["output"].startswith("INPUT [1.0, 0.0]")

    # Nothing a hidden check printed, though the stored result keeps it for instructors.
    with server.app.state.services.sessions() as session:
        stored = session.scalar(select(Submission.result).where(Submission.id == accepted["id"]))
    hidden_lines = {line for t in stored["tests"] if t["hidden_output"] for line in t["hidden_output"].splitlines()}
    public_lines = {line for t in stored["tests"] if t["output"] for line in t["output"].splitlines()}
    assert len(hidden_lines - public_lines) >= 5
    text = json.dumps(document, ensure_ascii=False)
    assert not [line for line in hidden_lines - public_lines if line in text]

    # The lead mistake, when the grader names one, is said once, before the first failing test it explains.
    mistake = stored["mistake"]
    if mistake is not None:
        assert text.count(f"Likely mistake: {mistake['mistake']}") == 1
        lead = next(t for t, c in zip(document["tests"], stored["tests"], strict=True) if c["id"] in mistake["checks"])
        assert lead["message"].startswith(f"Likely mistake: {mistake['mistake']}")


def test_an_unknown_format_is_refused_with_the_error_body(client: httpx.Client) -> None:
    accepted = submit(client, mutant_code("no-scaling")).json()
    message = assert_error(client.get(accepted["result_url"], params={"format": "junit"}), 422)
    assert "format" in message
