"""What a solution prints during a hidden check reaches no student: not the result, not any event."""

from __future__ import annotations

import httpx
from api_support import KV, RunningServer, read_events, submit
from sqlalchemy import select

from app.models import Submission

# Prints its inputs on every call: during hidden checks, those are the hidden data.
PRINTING = (
    (KV / "reference.py")
    .read_text(encoding="utf-8")
    .replace(
        "def attend_step(x_t, cache, p):\n", "def attend_step(x_t, cache, p):\n    print('INPUT', x_t.tolist())\n", 1
    )
)
WORKED_EXAMPLE_INPUT = "INPUT [1.0, 0.0]"


def test_hidden_checks_output_is_only_said_to_exist_for_students_and_kept_for_instructors(
    server: RunningServer, client: httpx.Client
) -> None:
    accepted = submit(client, PRINTING).json()
    events = read_events(client, accepted["events_url"])
    done = events[-1]["data"]
    assert done["status"] == "pass"
    view = client.get(accepted["result_url"]).json()
    for result in (done["result"], view["result"]):
        public, *hidden = result["tests"][:2]
        assert WORKED_EXAMPLE_INPUT in public["output"]
        assert hidden[0]["public"] is False and hidden[0]["output"] is None and hidden[0]["printed"] is True
        assert "printed_lines" not in hidden[0]  # not even how much: a count could carry an input
        assert all(t["hidden_output"] is None for t in result["tests"])
    streamed = "".join(e["data"].get("text", "") for e in events if e["event"] == "output")
    assert streamed.count("INPUT") == 3  # the worked example's three calls, and nothing of a hidden check
    checks = [e["data"]["check"] for e in events if e["event"] == "check"]
    assert all(c["hidden_output"] is None for c in checks)
    # The stored result keeps what hidden checks printed, for the instructor's eyes.
    with server.app.state.services.sessions() as session:
        stored = session.scalar(select(Submission.result).where(Submission.id == accepted["id"]))
    hidden_stored = [t for t in stored["tests"] if not t["public"] and t["printed"]]
    assert len(hidden_stored) >= 5
    assert all(t["hidden_output"].startswith("INPUT") for t in hidden_stored)
