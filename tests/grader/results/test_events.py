"""The event vocabulary is defined once (grader/results/events.py): every copy and every part agrees with it."""

from __future__ import annotations

import json
import re
import typing
from pathlib import Path

from grader.results.events import EVENT_DATA, EventType, GradeEvent, TrySink

REPO = Path(__file__).resolve().parents[3]
RUNS_JS = REPO / "static" / "src" / "runs.js"


def test_every_event_type_has_the_shape_of_its_data() -> None:
    assert list(EVENT_DATA) == list(EventType)


def test_the_grader_emits_every_event_type_but_queued() -> None:
    (union, *_) = typing.get_args(GradeEvent)
    grading = [model.model_fields["type"].default for model in typing.get_args(union)]
    (sink_args, _) = typing.get_args(TrySink)
    trying = [model.model_fields["type"].default for model in typing.get_args(sink_args[0])]
    emitted = set(grading) | set(trying)
    assert emitted == {t for t in EventType if t is not EventType.QUEUED}
    assert EventType.VALUE not in grading  # a try's alone


def test_the_page_subscribes_to_exactly_the_event_types() -> None:
    # The page keeps a literal copy (the front-end build runs no Python): it must equal EventType,
    # names and order, so adding, removing or renaming an event on either side fails here.
    source = RUNS_JS.read_text(encoding="utf-8")
    assert len(re.findall(r"\bEVENT_TYPES\s*=", source)) == 1, "runs.js must define EVENT_TYPES exactly once"
    literal = re.search(r"^const EVENT_TYPES = (\[[^\]]*\]);$", source, re.MULTILINE)
    assert literal is not None, "runs.js must define EVENT_TYPES as one array of strings"
    assert json.loads(literal.group(1)) == [t.value for t in EventType]
