"""Malformed sources and bad return values: each gets its own clear, specific message."""

from __future__ import annotations

import pytest
from redteam_harness import GradeHostile, read_submission

from grader.results.records import Reason, Status

pytestmark = pytest.mark.redteam


def test_a_syntax_error_is_reported_with_its_line(hostile: GradeHostile) -> None:
    graded = hostile("syntax_error")
    assert graded.result.status is Status.ERROR and graded.result.reason is Reason.SYNTAX_ERROR, graded.explain()
    assert graded.result.location is not None and graded.result.location.line == 4
    assert "SyntaxError on line 4" in (graded.result.message or "")


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("nul_byte", "solution.py contains a NUL byte on line 2."),
        ("non_utf8", "solution.py is not valid UTF-8: byte 0xff on line 3."),
    ],
)
def test_undecodable_sources_are_refused_before_running(hostile: GradeHostile, name: str, message: str) -> None:
    graded = hostile(name)
    assert graded.result.status is Status.ERROR and graded.result.reason is Reason.INVALID_SOURCE, graded.explain()
    assert graded.result.message == message
    assert graded.seconds < 0.5  # refused without starting a sandbox


def test_a_three_megabyte_source_is_refused_with_its_size(hostile: GradeHostile) -> None:
    padding = b"# padding to make solution.py three megabytes\n" * (3 * 2**20 // 46)
    source = read_submission("huge_source") + padding
    assert len(source) >= 3 * 2**20
    graded = hostile("huge_source", source=source)
    assert graded.result.status is Status.ERROR and graded.result.reason is Reason.INVALID_SOURCE, graded.explain()
    assert graded.result.message == "solution.py is 3.0 MiB; the limit is 64 KiB."


@pytest.mark.parametrize("source", [None, b""], ids=["only-a-comment", "zero-bytes"])
def test_an_empty_solution_is_reported_as_missing_its_functions(hostile: GradeHostile, source: bytes | None) -> None:
    graded = hostile("empty", source=source)
    assert graded.result.status is Status.ERROR and graded.result.reason is Reason.MISSING_FUNCTION, graded.explain()
    assert graded.result.message == "solution.py does not define attend_step(x_t, cache, p)."


@pytest.mark.parametrize(
    ("name", "reason", "message"),
    [
        (
            "missing_function",
            Reason.MISSING_FUNCTION,
            "solution.py does not define kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bytes_per_value).",
        ),
        ("not_a_function", Reason.MISSING_FUNCTION, "attend_step in solution.py is a int, not a function."),
        (
            "wrong_signature",
            Reason.WRONG_SIGNATURE,
            "attend_step(x_t, cache) in solution.py cannot be called as attend_step(x_t, cache, p): "
            "it must take 3 arguments.",
        ),
    ],
)
def test_missing_or_misdeclared_functions_are_named(
    hostile: GradeHostile, name: str, reason: Reason, message: str
) -> None:
    graded = hostile(name)
    assert graded.result.status is Status.ERROR and graded.result.reason is reason, graded.explain()
    assert graded.result.message == message


def test_returning_none_fails_saying_none_was_returned(hostile: GradeHostile) -> None:
    graded = hostile("returns_none")
    assert graded.result.status is Status.FAIL and graded.result.reason is Reason.WRONG_ANSWER, graded.explain()
    by_id = {t.id: t for t in graded.result.tests}
    assert "should be a tuple of 2 values, got None" in (by_id["worked_example"].message or "")
    assert "should be an integer, got None" in (by_id["cache_bytes_examples"].message or "")


def test_returning_nan_fails_saying_nan_was_returned(hostile: GradeHostile) -> None:
    graded = hostile("returns_nan")
    assert graded.result.status is Status.FAIL and graded.result.reason is Reason.WRONG_ANSWER, graded.explain()
    by_id = {t.id: t for t in graded.result.tests}
    assert "holds nan at index (0,)" in (by_id["worked_example"].message or "")
    assert "should be an integer, got a float (nan)" in (by_id["cache_bytes_examples"].message or "")


def test_an_exception_is_reported_with_its_type_message_and_line(hostile: GradeHostile) -> None:
    graded = hostile("raises_exception")
    assert graded.result.status is Status.FAIL and graded.result.reason is Reason.RAISED, graded.explain()
    assert "attend_step() raised ValueError: shapes do not match (solution.py, line 4)" in graded.messages()


def test_an_exception_with_a_hostile_str_and_a_huge_name_is_reported_within_bounds(hostile: GradeHostile) -> None:
    graded = hostile("hostile_str_exception")
    assert graded.result.status is Status.FAIL and graded.result.reason is Reason.RAISED, graded.explain()
    assert "attend_step() raised Boom: <message could not be shown>" in graded.messages()
    assert all(len(t.message or "") < 10_000 for t in graded.result.tests)
