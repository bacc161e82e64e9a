"""The results contract: every result validates against the published JSON Schema."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from grader.exercise import Exercise
from grader.grading.engine import grade
from grader.results.records import CheckResult, GradeResult, Reason

SCHEMA = json.loads((Path(__file__).resolve().parents[3] / "grader" / "results" / "results.schema.json").read_text())


@pytest.mark.parametrize(
    "source",
    [
        "def add(a, b):\n    return a + b\n",  # pass
        "def add(a, b):\n    return a - b\n",  # fail, with public details and a hint
        "def add(a, b)\n",  # error: syntax, with a location
        b"\xff",  # error: invalid source
    ],
)
def test_results_validate_against_the_schema(adder: Exercise, source: str | bytes) -> None:
    document = grade(adder, source).to_json_dict()
    jsonschema.validate(document, SCHEMA)


def test_results_keep_exercisms_v3_fields(adder: Exercise) -> None:
    document = grade(adder, "def add(a, b):\n    return a - b\n").to_json_dict()
    assert document["version"] == 3
    assert document["status"] in ("pass", "fail", "error")
    for test in document["tests"]:
        assert {"name", "status", "message", "output"} <= set(test)


def test_the_schema_documents_every_field_of_the_models() -> None:
    assert set(SCHEMA["properties"]) == set(GradeResult.model_fields)
    assert set(SCHEMA["$defs"]["check"]["properties"]) == set(CheckResult.model_fields)
    reasons = {r.value for r in Reason}
    assert set(SCHEMA["$defs"]["reason"]["enum"]) == reasons
