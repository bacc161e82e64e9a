"""``mlkata grade --format exercism``: exactly Exercism's test-runner ``results.json`` version 3.

One test per rule of the interface (exercism/docs ``building/tooling/test-runners/interface.md``),
each named after it, on real grades of the small "add two numbers" exercise: a pass, a fail, a
syntax error, a timeout and a solution that prints too much, in public and in hidden checks. The
conversion is pure: each solution is graded once for the module, and every test reads that result.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from grader.exercise import Exercise, load_exercise
from grader.grading.engine import grade
from grader.results.caps import cap_text
from grader.results.records import GradeResult, Mistake, Status
from grader.results.reports.exercism import OUTPUT_CHARS, TRUNCATION_NOTE, cut_output, to_exercism
from tests.conftest import ADDER_FILES, ADDER_TOML

MLKATA = str(Path(sys.executable).with_name("mlkata"))

PASSING = "def add(a, b):\n    return a + b\n"
FAILING = "def add(a, b):\n    return a - b\n"
SYNTAX_ERROR = "def add(a, b)\n"
LOOPING = "def add(a, b):\n    while True:\n        pass\n"
LONG_ERROR = "raise ValueError('no ' * 400)\n"
# Prints 800 characters during the public check, and its (hidden) inputs during the hidden one.
LOUD = """\
def add(a, b):
    if a > 10**20:
        print("SECRET", a)
    else:
        print("ab" * 400)
    return a + b
"""
SECRET = "SECRET 1000000000000000000000000000000"
# Prints while loading, then cannot be loaded.
PRINTS_THEN_RAISES = "print('loading…')\nraise ValueError('no')\n"

ALL = (PASSING, FAILING, SYNTAX_ERROR, LOUD, LONG_ERROR, PRINTS_THEN_RAISES)
V3_TEST_FIELDS = {"name", "status", "message", "output", "test_code", "task_id"}
STATUSES = ["pass", "fail", "error"]

#: The interface as a JSON Schema: only the fields it defines, with their types and presence.
V3_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["version", "status", "tests"],
    "additionalProperties": False,
    "properties": {
        "version": {"const": 3},
        "status": {"enum": STATUSES},
        "message": {"type": ["string", "null"]},
        "tests": {"type": "array", "items": {"$ref": "#/$defs/test"}},
    },
    # message: required (a string) when the status is error; else null or absent.
    "if": {"properties": {"status": {"const": "error"}}},
    "then": {"required": ["message"], "properties": {"message": {"type": "string", "minLength": 1}}},
    "else": {"properties": {"message": {"type": "null"}}},
    "$defs": {
        "test": {
            "type": "object",
            "required": ["name", "status"],
            "additionalProperties": False,
            "properties": {
                "name": {"type": "string", "minLength": 1},
                "status": {"enum": STATUSES},
                "message": {"type": ["string", "null"]},
                "output": {"type": "string", "maxLength": OUTPUT_CHARS},
                "test_code": {"type": "string"},
                "task_id": {"type": "number"},
            },
        }
    },
}


@pytest.fixture(scope="module")
def exercises(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """ "Add two numbers" as ``adder`` (5 s) and as ``slow-adder`` (1 s, for the timeout)."""
    root = tmp_path_factory.mktemp("exercises")
    for slug, seconds in (("adder", 5), ("slow-adder", 1)):
        (root / slug).mkdir()
        for name, text in {"exercise.toml": ADDER_TOML.format(time_seconds=seconds), **ADDER_FILES}.items():
            (root / slug / name).write_text(text)
    return root


@pytest.fixture(scope="module")
def adder(exercises: Path) -> Exercise:
    return load_exercise(exercises / "adder")


@pytest.fixture(scope="module")
def graded(adder: Exercise) -> Callable[[str], GradeResult]:
    """The result of grading a solution of the adder in the sandbox: graded once, a copy for each test."""
    recorded: dict[str, GradeResult] = {}

    def result(source: str) -> GradeResult:
        if source not in recorded:
            recorded[source] = grade(adder, source)
        return recorded[source].model_copy(deep=True)

    return result


@pytest.fixture(scope="module")
def timed_out(exercises: Path) -> GradeResult:
    """A solution that loops forever: the first check times out (error), the second is not run (error)."""
    return grade(load_exercise(exercises / "slow-adder"), LOOPING)


def v3(result: GradeResult) -> dict[str, Any]:
    document = to_exercism(result)
    return json.loads(json.dumps(document, allow_nan=False))  # as a tool reads it


# -- top level ------------------------------------------------------------------------------------------------


def test_version_is_required_and_is_3(graded: Callable[[str], GradeResult]) -> None:
    for source in (PASSING, FAILING, SYNTAX_ERROR):
        document = v3(graded(source))
        assert document["version"] == 3 and type(document["version"]) is int


def test_status_pass_when_all_tests_passed(graded: Callable[[str], GradeResult]) -> None:
    document = v3(graded(PASSING))
    assert document["status"] == "pass"
    assert [t["status"] for t in document["tests"]] == ["pass", "pass"]


def test_status_fail_when_at_least_one_test_failed(
    graded: Callable[[str], GradeResult], timed_out: GradeResult
) -> None:
    assert v3(graded(FAILING))["status"] == "fail"
    assert v3(timed_out)["status"] == "fail"  # the tests ran: one failed to finish


def test_status_error_when_the_tests_did_not_run(graded: Callable[[str], GradeResult]) -> None:
    document = v3(graded(SYNTAX_ERROR))
    assert document["status"] == "error"
    assert document["tests"] == []


def test_message_is_required_when_the_status_is_error_and_says_why(graded: Callable[[str], GradeResult]) -> None:
    document = v3(graded(SYNTAX_ERROR))
    assert document["message"].startswith("SyntaxError on line 1: expected ':'")
    assert "def add(a, b)" in document["message"]


def test_message_is_null_or_absent_when_the_status_is_not_error(
    graded: Callable[[str], GradeResult], timed_out: GradeResult
) -> None:
    for result in (graded(PASSING), graded(FAILING), timed_out):
        assert result.message  # mlkata's own document has a summary ...
        assert v3(result).get("message") is None  # ... which v3 does not allow
        assert "message" not in v3(result)  # mlkata omits it


def test_top_level_message_is_not_limited_in_length(graded: Callable[[str], GradeResult]) -> None:
    result = graded(LONG_ERROR)
    assert result.status is Status.ERROR and result.message and len(result.message) > 1000
    assert v3(result)["message"] == result.message


def test_top_level_message_shows_what_the_solution_printed_before_the_error(
    graded: Callable[[str], GradeResult],
) -> None:
    result = graded(PRINTS_THEN_RAISES)
    message = v3(result)["message"]
    assert result.message and message.startswith(result.message)
    assert message.endswith("What solution.py printed while loading:\nloading…\n")


def test_tests_is_required_and_an_array(graded: Callable[[str], GradeResult]) -> None:
    for source in (PASSING, FAILING, SYNTAX_ERROR):
        assert isinstance(v3(graded(source))["tests"], list)


def test_tests_must_be_returned_in_the_order_they_are_specified(
    adder: Exercise, graded: Callable[[str], GradeResult]
) -> None:
    declared = [check.title for check in adder.checks]
    assert declared == ["Adds small numbers", "Adds huge numbers exactly"]
    for source in (PASSING, FAILING, LOUD):
        assert [t["name"] for t in v3(graded(source))["tests"]] == declared


def test_nothing_but_version_status_message_and_tests_at_the_top_level(
    graded: Callable[[str], GradeResult],
) -> None:
    assert set(v3(graded(PASSING))) == {"version", "status", "tests"}
    assert set(v3(graded(FAILING))) == {"version", "status", "tests"}
    assert set(v3(graded(SYNTAX_ERROR))) == {"version", "status", "message", "tests"}


# -- per test -------------------------------------------------------------------------------------------------


def test_each_test_has_a_human_readable_name(graded: Callable[[str], GradeResult]) -> None:
    result = graded(FAILING)
    assert [t["name"] for t in v3(result)["tests"]] == [t.name for t in result.tests]


def test_each_test_status_is_pass_fail_or_error(graded: Callable[[str], GradeResult], timed_out: GradeResult) -> None:
    assert [t["status"] for t in v3(graded(FAILING))["tests"]] == ["fail", "fail"]
    # Timed out (the test errored) and not run (the run had ended): both errors.
    assert [t["status"] for t in v3(timed_out)["tests"]] == ["error", "error"]


def test_test_message_is_null_when_the_test_passed(graded: Callable[[str], GradeResult]) -> None:
    assert [t["message"] for t in v3(graded(PASSING))["tests"]] == [None, None]


def test_test_message_says_why_a_test_failed_in_full(
    graded: Callable[[str], GradeResult], timed_out: GradeResult
) -> None:
    for result in (graded(FAILING), timed_out):
        for check, test in zip(result.tests, v3(result)["tests"], strict=True):
            assert check.message and test["message"].startswith(check.message)  # never cut
    assert v3(graded(FAILING))["tests"][0]["message"].startswith("add(2, 3): expected 5, got -1")


def test_test_message_carries_a_public_checks_details(graded: Callable[[str], GradeResult]) -> None:
    public, hidden = v3(graded(FAILING))["tests"]
    assert public["message"].endswith("\ncall: add(2, 3)\nexpected: 5\ngot: -1")
    assert "call:" not in hidden["message"]


def test_output_is_attached_to_tests_that_produce_user_output(graded: Callable[[str], GradeResult]) -> None:
    quiet = v3(graded(PASSING))["tests"]
    assert all("output" not in t for t in quiet)
    public, _ = v3(graded("def add(a, b):\n    print('adding', a, b)\n    return a + b\n"))["tests"]
    assert public["output"] == "adding 2 3\n"


def test_output_is_only_what_the_user_printed(graded: Callable[[str], GradeResult]) -> None:
    result = graded("def add(a, b):\n    print('adding', a, b)\n    return a - b\n")
    for check, test in zip(result.tests, v3(result)["tests"], strict=True):
        assert test.get("output") == check.output  # the public check's printing, nothing of the grader's
        assert check.message and check.message not in (test.get("output") or "")


def test_output_must_be_limited_to_500_chars_with_the_truncation_message(
    graded: Callable[[str], GradeResult],
) -> None:
    result = graded(LOUD)
    assert result.tests[0].output == "ab" * 400 + "\n"
    output = v3(result)["tests"][0]["output"]
    assert len(output) == OUTPUT_CHARS
    assert output.endswith("\nOutput was truncated. Please limit to 500 chars")
    assert output == ("ab" * 400)[: OUTPUT_CHARS - len(TRUNCATION_NOTE) - 1] + "\n" + TRUNCATION_NOTE


def test_output_of_500_chars_or_fewer_is_kept_whole() -> None:
    assert cut_output("é" * 500) == "é" * 500  # characters, not bytes
    assert cut_output("x" * 501) == "x" * (OUTPUT_CHARS - len(TRUNCATION_NOTE) - 1) + "\n" + TRUNCATION_NOTE
    assert cut_output("") is None and cut_output(None) is None


def test_output_the_grader_already_cut_ends_with_the_truncation_message_not_the_graders_mark() -> None:
    cut_short = cap_text("a" * 300, 200)  # how the grader cuts outputs when a result is too large
    assert cut_short and "more characters not shown" in cut_short
    assert cut_output(cut_short) == "a" * 200 + "\n" + TRUNCATION_NOTE
    cut_long = cap_text("b" * 70_000, 64 * 1024)
    assert cut_output(cut_long) == "b" * (OUTPUT_CHARS - len(TRUNCATION_NOTE) - 1) + "\n" + TRUNCATION_NOTE


def test_test_code_is_a_string_when_present_and_never_a_hidden_checks(graded: Callable[[str], GradeResult]) -> None:
    result = graded(FAILING)
    assert all("test_code" not in t for t in v3(result)["tests"])  # mlkata gives none today
    public, hidden = result.tests
    with_code = result.model_copy(
        update={
            "tests": [
                public.model_copy(update={"test_code": "assert add(2, 3) == 5"}),
                hidden.model_copy(update={"test_code": "assert add(10**30, 1) == 10**30 + 1"}),
            ]
        }
    )
    tests = v3(with_code)["tests"]
    assert tests[0]["test_code"] == "assert add(2, 3) == 5"
    assert "test_code" not in tests[1]  # a hidden check's code would give it away


def test_task_id_is_given_only_for_a_test_linked_to_one_task(graded: Callable[[str], GradeResult]) -> None:
    # mlkata exercises have no numbered tasks: no test is linked to one.
    for source in (PASSING, FAILING, LOUD):
        assert all("task_id" not in t for t in v3(graded(source))["tests"])


def test_each_test_has_only_fields_v3_defines(graded: Callable[[str], GradeResult], timed_out: GradeResult) -> None:
    for result in (graded(PASSING), graded(FAILING), graded(LOUD), timed_out):
        for test in v3(result)["tests"]:
            assert {"name", "status", "message"} <= set(test) <= V3_TEST_FIELDS


def test_every_document_matches_the_v3_structure(graded: Callable[[str], GradeResult], timed_out: GradeResult) -> None:
    jsonschema.Draft202012Validator.check_schema(V3_SCHEMA)
    for result in [*(graded(source) for source in ALL), timed_out]:
        jsonschema.validate(v3(result), V3_SCHEMA)


def test_the_structure_check_refuses_mlkatas_own_document(graded: Callable[[str], GradeResult]) -> None:
    # The reason for this format: the results contract breaks v3's message and output rules.
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(graded(FAILING).to_json_dict(), V3_SCHEMA)


# -- what v3 has no field for, and what students must not see ------------------------------------------------


def with_mistake(result: GradeResult, explains: list[str], hints: dict[str, str]) -> GradeResult:
    """``result`` with a lead mistake explaining the checks ``explains``, and the hints ``hints``."""
    mistake = Mistake(
        id="minus", mistake="Subtracts b instead of adding it", hint="Use the + operator.", checks=explains
    )
    tests = [
        t.model_copy(update={"mistake_id": "minus" if t.id in explains else None, "hint": hints.get(t.id)})
        for t in result.tests
    ]
    return result.model_copy(update={"mistake": mistake, "tests": tests})


def test_the_lead_mistake_prefixes_the_message_of_the_first_failing_test_it_explains_once(
    graded: Callable[[str], GradeResult],
) -> None:
    result = with_mistake(graded(FAILING), explains=["huge_numbers"], hints={"small_numbers": "Mind the sign."})
    document = v3(result)
    small, huge = document["tests"]
    assert huge["message"].startswith(
        "Likely mistake: Subtracts b instead of adding it. Hint: Use the + operator.\n"
        "the sum of two huge numbers is not"
    )
    assert "Likely mistake" not in small["message"]
    assert json.dumps(document, ensure_ascii=False).count("Subtracts b instead of adding it") == 1
    # Explaining both, it leads the first failing test, and is still named once.
    both = v3(with_mistake(graded(FAILING), explains=["small_numbers", "huge_numbers"], hints={}))
    assert both["tests"][0]["message"].startswith("Likely mistake: Subtracts b instead of adding it.")
    assert json.dumps(both, ensure_ascii=False).count("Likely mistake") == 1


def test_hints_go_into_the_failing_tests_message(graded: Callable[[str], GradeResult]) -> None:
    result = with_mistake(graded(FAILING), explains=["huge_numbers"], hints={"small_numbers": "Mind the sign."})
    small, huge = v3(result)["tests"]
    assert small["message"].startswith("add(2, 3): expected 5, got -1\nHint: Mind the sign.\n")
    assert huge["message"].count("Use the + operator.") == 1  # the mistake's hint, not repeated
    plain = graded(FAILING)
    hinted = plain.model_copy(update={"tests": [plain.tests[0].model_copy(update={"hint": "Try +."}), plain.tests[1]]})
    assert "\nHint: Try +." in v3(hinted)["tests"][0]["message"]
    passing = graded(PASSING)
    hinted_pass = passing.model_copy(update={"tests": [t.model_copy(update={"hint": "x"}) for t in passing.tests]})
    assert [t["message"] for t in v3(hinted_pass)["tests"]] == [None, None]  # no hint on a pass


def test_hidden_checks_printed_output_never_appears(graded: Callable[[str], GradeResult]) -> None:
    result = graded(LOUD)
    hidden = result.tests[1]
    assert not hidden.public and hidden.hidden_output and SECRET in hidden.hidden_output  # kept for instructors
    text = json.dumps(v3(result), ensure_ascii=False)
    assert "SECRET" not in text
    assert "output" not in v3(result)["tests"][1]
    # Even were a hidden check's printing put in ``output``, it would not be shown.
    leaked = result.model_copy(update={"tests": [result.tests[0], hidden.model_copy(update={"output": SECRET})]})
    assert "SECRET" not in json.dumps(v3(leaked))


def test_mlkatas_own_document_is_unchanged(graded: Callable[[str], GradeResult]) -> None:
    result = graded(LOUD)
    before = result.to_json_dict()
    to_exercism(result)
    assert result.to_json_dict() == before
    assert before["message"] == "All 2 checks passed." and before["tests"][1]["hidden_output"]
    assert len(before["tests"][0]["output"]) == 801


# -- the command --------------------------------------------------------------------------------------------


def mlkata_grade(exercises: Path, source: str, tmp_path: Path, *options: str) -> subprocess.CompletedProcess[str]:
    solution = tmp_path / "solution.py"
    solution.write_text(source)
    args = [MLKATA, "grade", str(solution), "-e", "adder", "--exercises", str(exercises), *options]
    return subprocess.run(args, capture_output=True, text=True, timeout=120, check=False)


def test_format_exercism_prints_exactly_the_v3_document(exercises: Path, tmp_path: Path) -> None:
    run = mlkata_grade(exercises, LOUD, tmp_path, "--format", "exercism")
    assert run.returncode == 0 and run.stdout.count("\n") == 1
    document = json.loads(run.stdout)
    jsonschema.validate(document, V3_SCHEMA)
    assert document["status"] == "pass" and "SECRET" not in run.stdout
    failed = mlkata_grade(exercises, SYNTAX_ERROR, tmp_path, "--format", "exercism")
    assert failed.returncode == 1  # exit codes are the same in every format
    assert json.loads(failed.stdout)["message"].startswith("SyntaxError on line 1")


def test_format_json_is_the_results_contract_as_with_json(exercises: Path, tmp_path: Path) -> None:
    options = (["--json"], ["--format", "json"])
    documents = [json.loads(mlkata_grade(exercises, FAILING, tmp_path, *o).stdout) for o in options]
    for document in documents:
        document.pop("duration_ms")
        for test in document["tests"]:
            test.pop("duration_ms")
    assert documents[0] == documents[1]
    assert documents[0]["exercise"] == "adder" and documents[0]["message"]


def test_format_text_is_the_default_report(exercises: Path, tmp_path: Path) -> None:
    options: tuple[list[str], list[str]] = ([], ["--format", "text"])
    default, text = (mlkata_grade(exercises, FAILING, tmp_path, *o).stdout.splitlines() for o in options)
    assert default[0] == text[0] == "✗ Adds small numbers"
    assert default[:-1] == text[:-1] and text[-1].startswith("FAIL 0/2 checks passed · ")


def test_json_with_another_format_is_a_usage_error(exercises: Path, tmp_path: Path) -> None:
    run = mlkata_grade(exercises, PASSING, tmp_path, "--json", "--format", "exercism")
    assert run.returncode == 2 and run.stdout == ""
    assert "cannot be combined" in run.stderr
