"""Exercism's test-runner ``results.json`` version 3, exactly, from a grade.

mlkata's own results document (:mod:`grader.results.records`) is a superset of that format, but it breaks
two of its rules: the run's ``message`` is a summary on pass and fail too, and a check's ``output``
may run to 64 KiB. This is the document a tool built only for Exercism reads, with nothing but the
fields version 3 defines:

* top level: ``version`` (3), ``status``, ``message`` (only when the status is ``error``), ``tests``;
* each test, in the order the exercise declares its checks: ``name``, ``status``, ``message``
  (null on pass), ``output`` (only when the solution printed something during a public check, cut
  to 500 characters with the note the interface asks for) and ``test_code`` (only a public check's,
  when the grader gives one: mlkata's checks are hidden, so none is made up). No ``task_id``:
  mlkata exercises have no numbered tasks.

Version 3 has no field for hints, a check's details or the run's likely mistake, so they go into
the failing test's ``message``, which is all a student is shown: the likely mistake once, in front
of the first failing test it explains; each other failing test's hint after its message. What a
solution printed during a hidden check (``hidden_output``) never appears: students read this.
"""

from __future__ import annotations

import re
from typing import Any

from grader.results.records import CheckResult, GradeResult, Mistake, Status

VERSION = 3
#: The most a test's ``output`` may hold, in characters, the note included.
OUTPUT_CHARS = 500
#: What the interface asks a cut output to say.
TRUNCATION_NOTE = "Output was truncated. Please limit to 500 chars"
#: The mark :func:`grader.results.caps.cap_text` ends a cut text with: the grader cut it already.
_CAP_MARK = re.compile(r"\n… [\d,]+ more characters not shown\Z")
#: Said when an error comes without a message of its own (the interface requires one).
_NO_REASON = "The solution could not be tested."


def to_exercism(result: GradeResult) -> dict[str, Any]:
    """``result`` as an Exercism v3 ``results.json`` document (a plain dict, ready for JSON)."""
    document: dict[str, Any] = {"version": VERSION, "status": result.status.value}
    if result.status is Status.ERROR:
        document["message"] = _run_message(result)
    lead = _lead_test(result)
    document["tests"] = [_test(check, result.mistake if check is lead else None) for check in result.tests]
    return document


def cut_output(text: str | None) -> str | None:
    """What a solution printed, at most 500 characters; cut text ends with the interface's note."""
    if not text:
        return None
    cut_before = _CAP_MARK.search(text)  # the grader's own cap mark is no output of the solution
    if cut_before is not None:
        text = text[: cut_before.start()]
    elif len(text) <= OUTPUT_CHARS:
        return text
    note = "\n" + TRUNCATION_NOTE
    return text[: OUTPUT_CHARS - len(note)] + note


def _run_message(result: GradeResult) -> str:
    """Why the solution could not be tested, with what it printed while loading, if anything."""
    message = result.message or _NO_REASON
    printed = cut_output(result.output)
    if printed:
        message += f"\n\nWhat solution.py printed while loading:\n{printed}"
    return message


def _lead_test(result: GradeResult) -> CheckResult | None:
    """The failing test that names the run's likely mistake: the first it explains, else the first failing."""
    failing = result.failing()
    if result.mistake is None or not failing:
        return None
    explained = set(result.mistake.checks)
    return next((t for t in failing if t.id in explained or t.mistake_id == result.mistake.id), failing[0])


def _test(check: CheckResult, mistake: Mistake | None) -> dict[str, Any]:
    test: dict[str, Any] = {"name": check.name, "status": check.status.value, "message": _test_message(check, mistake)}
    # ``output`` is the solution's printing during a public check; a hidden check's stays hidden.
    output = cut_output(check.output) if check.public else None
    if output:
        test["output"] = output
    if check.public and check.test_code:
        test["test_code"] = check.test_code
    return test


def _test_message(check: CheckResult, mistake: Mistake | None) -> str | None:
    if check.status is Status.PASS:
        return None
    parts: list[str] = []
    if mistake is not None:
        lead = _sentence(f"Likely mistake: {mistake.mistake}")
        parts.append(f"{lead} Hint: {mistake.hint}" if mistake.hint else lead)
    if check.message:
        parts.append(check.message)
    if check.hint and (mistake is None or check.hint != mistake.hint):
        parts.append(f"Hint: {check.hint}")
    if check.public:  # inputs, expected and actual values are shown of public checks only
        parts.extend(f"{key}: {value}" for key, value in (check.details or {}).items())
    return "\n".join(parts) or None


def _sentence(text: str) -> str:
    text = text.rstrip()
    return text if text.endswith((".", "!", "?", "…")) else text + "."
