"""The results contract: what a grading run reports, as ``mlkata grade --json`` prints it.

It is a superset of Exercism's test-runner ``results.json`` version 3 (``version``, ``status``,
``message``, ``tests[]`` with ``name``, ``status``, ``message``, ``output``), so tools built for
that format read it. Everything else is mlkata's own and documented in ``results.schema.json``.
"""

from __future__ import annotations

import enum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class Status(enum.StrEnum):
    """Exercism's three statuses, for a run and for each check."""

    PASS = "pass"
    FAIL = "fail"
    ERROR = "error"


class Reason(enum.StrEnum):
    """Why a check or a run ended as it did: one value per thing a student can fix."""

    PASSED = "passed"
    WRONG_ANSWER = "wrong_answer"
    RAISED = "raised"
    UNSUPPORTED_VALUE = "unsupported_value"
    REPLY_TOO_LARGE = "reply_too_large"
    EXITED = "exited"
    CRASHED = "crashed"
    BLOCKED_SYSCALL = "blocked_syscall"
    TIMEOUT = "timeout"
    CPU_LIMIT = "cpu_limit"
    MEMORY_LIMIT = "memory_limit"
    OUTPUT_LIMIT = "output_limit"
    NOT_RUN = "not_run"
    INVALID_SOURCE = "invalid_source"
    SYNTAX_ERROR = "syntax_error"
    IMPORT_ERROR = "import_error"
    MISSING_FUNCTION = "missing_function"
    WRONG_SIGNATURE = "wrong_signature"
    INTERNAL_ERROR = "internal_error"
    STOPPED = "stopped"


class Location(BaseModel):
    """A place in ``solution.py`` (1-based line and column)."""

    model_config = ConfigDict(extra="forbid")

    line: int
    column: int | None = None
    text: str | None = None


class Mistake(BaseModel):
    """A known mistake (one of the exercise's mutants) whose output the solution's matches."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(description="The mutant's name in the exercise.")
    mistake: str = Field(description="What a solution making it does wrong, for the student.")
    hint: str | None = Field(None, description="The advice the exercise gives for it.")
    checks: list[str] = Field(default_factory=list, description="The failing checks whose output it matches.")
    hint_id: str | None = Field(None, description="The hint's id in the exercise, to ask for its further levels.")
    hint_levels: int = Field(0, description="How many levels the hint has; ``hint`` is the first.")


class CheckResult(BaseModel):
    """One check, in the order the exercise declares them."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="The check's title, shown to the student.")
    status: Status
    message: str | None = None
    output: str | None = Field(None, description="What the solution printed while this check ran (public checks).")
    test_code: str | None = None
    # mlkata's own fields
    id: str = Field(description="Stable identifier: the check function's name.")
    reason: Reason
    public: bool = Field(description="Public checks show their inputs, expected and actual values.")
    points: float
    duration_ms: float
    hint: str | None = None
    hint_id: str | None = None
    hint_levels: int = Field(0, description="How many levels the hint has; ``hint`` is the first.")
    location: Location | None = Field(None, description="The line of solution.py where the solution raised.")
    details: dict[str, str] | None = Field(None, description="Inputs, expected and got; public checks only.")
    printed: bool = Field(False, description="Whether the solution printed anything while this check ran.")
    mistake_id: str | None = Field(
        None, description="The known mistake this failure's answers match, when no other check contradicts it."
    )
    symptom: str | None = Field(
        None, description="The kind of difference recognised in the wrong values (grader.grading.symptoms), if any."
    )
    hidden_output: str | None = Field(
        None, description="What the solution printed during a hidden check: for instructors, never sent to students."
    )
    withheld_message: str | None = Field(
        None,
        description="A hidden check's own message that showed the check's values: withheld from the student (who "
        "reads a plain one), kept for instructors and the exercise's author.",
    )
    same_as: str | None = Field(
        None,
        description="The id of the first check that failed the same way (the same function raised the same exception "
        "on the same line): a page says that failure once, for all of them.",
    )

    def for_student(self) -> CheckResult:
        """This check as the student may see it: without what hidden checks printed or withheld (for instructors)."""
        if self.hidden_output is None and self.withheld_message is None:
            return self
        return self.model_copy(update={"hidden_output": None, "withheld_message": None})


class GradeResult(BaseModel):
    """The whole run."""

    model_config = ConfigDict(extra="forbid")

    version: int = 3
    status: Status
    message: str | None = None
    tests: list[CheckResult] = Field(default_factory=list)
    # mlkata's own fields
    exercise: str
    reason: Reason
    location: Location | None = None
    points: float = 0
    max_points: float = 0
    duration_ms: float = 0
    output: str | None = Field(None, description="What the solution printed while it was loading.")
    output_truncated: bool = False
    mistake: Mistake | None = Field(None, description="The most likely mistake, named once for the whole run.")

    def failing(self) -> list[CheckResult]:
        return [t for t in self.tests if t.status is not Status.PASS]

    def for_student(self) -> GradeResult:
        """What the student may see: without what was printed during hidden checks."""
        return self.model_copy(update={"tests": [test.for_student() for test in self.tests]})

    def to_json_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


def student_document(document: dict[str, Any] | None) -> dict[str, Any] | None:
    """A stored result (``to_json_dict``) as the student may see it: hidden checks' output left out."""
    if not document or not isinstance(document.get("tests"), list):
        return document
    return {**document, "tests": [_student_check(test) for test in document["tests"]]}


def _student_check(test: Any) -> Any:
    """One stored check as the student may see it; results stored before ``printed`` said how many lines."""
    if not isinstance(test, dict):
        return test
    shown = {key: value for key, value in test.items() if key != "printed_lines"}
    if "printed_lines" in test:
        shown["printed"] = bool(test["printed_lines"])
    for instructors_only in ("hidden_output", "withheld_message"):
        if shown.get(instructors_only):
            shown[instructors_only] = None
    return shown
