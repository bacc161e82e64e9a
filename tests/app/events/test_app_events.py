"""Stored events: an event nothing else bounded is not kept whole; names and data are grader.results.events'."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from api_support import mutant_code, read_events, reference_code, submit

from app.db import make_engine, make_sessionmaker, upgrade
from app.events.log import MAX_EVENT_BYTES, EventLog, Notifier, bounded_event
from grader.results.events import EVENT_DATA, EventType


def test_an_event_within_the_cap_is_kept_as_it_is() -> None:
    data = {"index": 0, "check": {"name": "x", "message": "m" * 1000}}
    assert bounded_event("check", data) is data


def test_an_oversized_output_event_is_cut_with_a_mark() -> None:
    kept = bounded_event("output", {"text": "x" * (MAX_EVENT_BYTES + 10)})
    assert len(kept["text"]) < 70_000 and kept["text"].endswith("more characters not shown")


def test_another_oversized_event_is_replaced_by_its_size() -> None:
    kept = bounded_event("done", {"result": {"message": "x" * MAX_EVENT_BYTES}})
    assert kept["too_large"] is True and kept["bytes"] > MAX_EVENT_BYTES


def test_a_stream_carries_only_the_event_types_with_the_data_of_each(client: httpx.Client) -> None:
    for code in (reference_code(), mutant_code("no-scaling")):
        events = read_events(client, submit(client, code).json()["events_url"])
        assert events[0]["event"] == EventType.QUEUED and events[-1]["event"] == EventType.DONE
        for event in events:
            shape = EVENT_DATA[EventType(event["event"])]
            # Exactly the model's fields: nothing missing, nothing extra, nothing the model would change.
            assert shape.model_validate(event["data"]).model_dump(mode="json") == event["data"]


def test_the_api_describes_the_stream_with_exactly_the_event_types(client: httpx.Client) -> None:
    spec = client.get("/openapi.json").json()
    stream = spec["paths"]["/api/submissions/{submission_id}/events"]["get"]["responses"]["200"]
    description: str = stream["description"]
    assert description.startswith("Server-sent events: ") and description.endswith(".")
    listed = description.removeprefix("Server-sent events: ").removesuffix(".").split(", ")
    assert listed == [t.value for t in EventType]


def test_an_event_of_no_event_type_is_refused(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'events.db'}")
    upgrade(engine)
    try:
        events = EventLog(make_sessionmaker(engine), Notifier())
        with pytest.raises(ValueError, match="finished"):
            events.record("no-such-submission", "finished", {})  # type: ignore[arg-type]
    finally:
        engine.dispose()
