"""Stored events: an event nothing else bounded is not kept whole."""

from __future__ import annotations

from app.events import MAX_EVENT_BYTES, bounded_event


def test_an_event_within_the_cap_is_kept_as_it_is() -> None:
    data = {"index": 0, "check": {"name": "x", "message": "m" * 1000}}
    assert bounded_event("check", data) is data


def test_an_oversized_output_event_is_cut_with_a_mark() -> None:
    kept = bounded_event("output", {"text": "x" * (MAX_EVENT_BYTES + 10)})
    assert len(kept["text"]) < 70_000 and kept["text"].endswith("more characters not shown")


def test_another_oversized_event_is_replaced_by_its_size() -> None:
    kept = bounded_event("done", {"result": {"message": "x" * MAX_EVENT_BYTES}})
    assert kept["too_large"] is True and kept["bytes"] > MAX_EVENT_BYTES
