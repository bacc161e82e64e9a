"""Grading end to end through the real sandbox: verdicts, messages and events."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from grader.exercise import Exercise, load_exercise
from grader.grading import Stop, grade, runs
from grader.grading.session import SolutionSession
from grader.results.events import CheckFinished, Finished, OutputProduced, Started
from grader.results.records import Reason, Status
from tests.grader.conftest import KV_EXERCISE, copy_with_limits

CORRECT_BUT_DIFFERENT = '''
import math
import numpy as np


def attend_step(x_t, cache, p):
    """Written with explicit loops and math.exp instead of vectorised numpy."""
    d = p["Wq"].shape[1]
    q = np.einsum("i,ij->j", x_t, p["Wq"])
    k = np.einsum("i,ij->j", x_t, p["Wk"])
    v = np.einsum("i,ij->j", x_t, p["Wv"])
    keys = np.concatenate([cache["k"], k.reshape(1, -1)], axis=0)
    values = np.concatenate([cache["v"], v.reshape(1, -1)], axis=0)
    scores = [float(np.dot(row, q)) / math.sqrt(d) for row in keys]
    top = max(scores)
    weights = [math.exp(s - top) for s in scores]
    total = sum(weights)
    out = np.zeros(d)
    for w, row in zip(weights, values):
        out += (w / total) * row
    return out, {"v": values, "k": keys}


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bytes_per_value):
    total = 2
    for factor in (n_layers, n_kv_heads, head_dim, n_tokens, bytes_per_value):
        total *= factor
    return total
'''


def test_a_correct_solution_written_differently_passes(kv_exercise: Exercise) -> None:
    result = grade(kv_exercise, CORRECT_BUT_DIFFERENT)
    assert result.status is Status.PASS, [t.message for t in result.failing()]


def test_the_time_budget_starts_once_the_sandbox_is_up(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    exercise = load_exercise(copy_with_limits(KV_EXERCISE, tmp_path, {"time_seconds": "1"}))
    real_session = runs.SolutionSession

    def slow_to_start(*args: Any, **kwargs: Any) -> SolutionSession:
        time.sleep(1.2)  # a busy host: the sandbox takes longer to start than the whole budget
        return real_session(*args, **kwargs)

    monkeypatch.setattr(runs, "SolutionSession", slow_to_start)
    result = grade(exercise, exercise.reference_path.read_text())
    assert result.status is Status.PASS, result.message


@pytest.mark.parametrize("mutant", ["no-scaling", "unstable-softmax", "global-state", "bytes-as-float"])
def test_a_mutant_fails_named_as_its_own_mistake_with_its_hint(kv_exercise: Exercise, mutant: str) -> None:
    spec = kv_exercise.config.mutants[mutant]
    result = grade(kv_exercise, kv_exercise.mutant_paths()[mutant].read_text())
    assert result.status is Status.FAIL
    failing = {t.id: t for t in result.failing()}
    assert set(spec.caught_by) <= set(failing)
    assert result.mistake is not None and result.mistake.id == mutant
    assert result.mistake.hint == kv_exercise.hint_text(spec.hint)


def test_a_syntax_error_reports_its_line_and_column(kv_exercise: Exercise) -> None:
    result = grade(kv_exercise, "import numpy as np\n\ndef attend_step(x_t, cache, p)\n    return 1\n")
    assert result.status is Status.ERROR
    assert result.reason is Reason.SYNTAX_ERROR
    assert result.location is not None and result.location.line == 3
    assert result.message.startswith("SyntaxError on line 3: expected ':'")
    assert result.tests == []


def test_an_exception_while_loading_names_the_line(adder: Exercise) -> None:
    result = grade(adder, "x = 1\ny = undefined_name\n")
    assert result.reason is Reason.IMPORT_ERROR
    assert "NameError: name 'undefined_name' is not defined (solution.py, line 2)" in result.message
    assert result.location is not None and result.location.line == 2


def test_a_missing_function_is_named_with_its_signature(adder: Exercise) -> None:
    result = grade(adder, "def plus(a, b):\n    return a + b\n")
    assert (result.status, result.reason) == (Status.ERROR, Reason.MISSING_FUNCTION)
    assert result.message == "solution.py does not define add(a, b)."


@pytest.mark.parametrize(
    "source",
    ["def add(a):\n    return a\n", "def add(a, b, c):\n    return a\n", "def add(a, b, *, c):\n    return a\n"],
)
def test_a_wrong_signature_is_refused_before_any_check(adder: Exercise, source: str) -> None:
    result = grade(adder, source)
    assert result.reason is Reason.WRONG_SIGNATURE
    assert "cannot be called as add(a, b)" in result.message


@pytest.mark.parametrize(
    "source",
    ["def add(a, b=0, c=0):\n    return a + b\n", "def add(*args):\n    return sum(args)\n", "add = max\n"],
)
def test_compatible_signatures_are_accepted(adder: Exercise, source: str) -> None:
    assert grade(adder, source).reason is not Reason.WRONG_SIGNATURE


@pytest.mark.parametrize(
    ("source", "message"),
    [
        (b"def add(a, b):\n    return a + b  # \xff\n", "solution.py is not valid UTF-8: byte 0xff on line 2."),
        (b"def add(a, b):\n\n    return a\x00 + b\n", "solution.py contains a NUL byte on line 3."),
        (b"#" * (65 * 1024), "solution.py is 65 KiB; the limit is 64 KiB."),
    ],
)
def test_unusable_sources_get_a_specific_message(adder: Exercise, source: bytes, message: str) -> None:
    result = grade(adder, source)
    assert (result.status, result.reason, result.message) == (Status.ERROR, Reason.INVALID_SOURCE, message)


def test_an_exception_in_a_call_fails_that_check_with_the_traceback(adder: Exercise) -> None:
    source = "def add(a, b):\n    if a < 100:\n        raise ValueError('too small')\n    return a + b\n"
    result = grade(adder, source)
    small, huge = result.tests
    assert huge.status is Status.PASS
    assert (small.status, small.reason) == (Status.FAIL, Reason.RAISED)
    assert small.message.startswith("add() raised ValueError: too small (solution.py, line 3)")
    assert "raise ValueError('too small')" in small.message
    # In a hidden check, the message and the traceback are the solution's text: only the kind and line are said.
    hidden = grade(adder, source.replace("a < 100", "a > 100")).tests[1]
    assert hidden.reason is Reason.RAISED and hidden.location is not None and hidden.location.line == 3
    assert (
        hidden.message
        == "add() raised ValueError on line 3 of solution.py (its message is not shown: this check is hidden)."
    )


def test_public_checks_show_their_call_and_values_and_hidden_ones_do_not(adder: Exercise) -> None:
    result = grade(adder, "def add(a, b):\n    return a - b\n")
    small, huge = result.tests
    assert small.details == {"call": "add(2, 3)", "expected": "5", "got": "-1"}
    assert small.hint is None  # a wrong value, and the adder knows no mistakes: no guessed hint
    assert huge.status is Status.FAIL and huge.details is None
    wrong_kind = grade(adder, "def add(a, b):\n    return float(a + b)\n")
    assert wrong_kind.tests[0].hint == "Use the + operator."  # a wrong kind: the check's own hint


def test_output_is_kept_per_check_and_never_parsed(adder: Exercise) -> None:
    source = 'print("loading")\ndef add(a, b):\n    print("12 passed, 0 failed")\n    return 0\n'
    result = grade(adder, source)
    assert result.status is Status.FAIL
    assert result.output == "loading\n"
    public, hidden = result.tests
    assert public.output == "12 passed, 0 failed\n" and public.printed
    assert hidden.hidden_output == "12 passed, 0 failed\n"


def test_what_a_hidden_check_prints_is_never_shown_to_the_student_nor_how_much(adder: Exercise) -> None:
    # A solution can print its inputs; a hidden check's inputs must stay hidden.
    source = "def add(a, b):\n    print('inputs:', a, b)\n    print('again')\n    return a + b\n"
    events: list[object] = []
    result = grade(adder, source, on_event=events.append)
    public, hidden = result.tests
    assert public.output == "inputs: 2 3\nagain\n"
    assert hidden.output is None and hidden.printed
    assert hidden.hidden_output == f"inputs: {10**30} 1\nagain\n"  # kept for instructors
    student_view = result.for_student().model_dump_json()
    assert str(10**30) not in student_view
    printed = [e.text for e in events if isinstance(e, OutputProduced)]
    assert printed[0] == "inputs: 2 3\nagain\n"
    assert printed[1] == "[printed during the hidden check “Adds huge numbers exactly”: not shown]\n"
    assert str(10**30) not in events[-1].result.for_student().model_dump_json()  # type: ignore[attr-defined]


def test_a_check_that_spends_the_graders_cpu_budget_is_an_internal_error_and_stops_the_run(
    make_exercise: Callable[..., Path],
) -> None:
    slow_checks = (
        ADDER_CHECKS_HEADER
        + """
@check("Spins in the grader")
def spins(student):
    student.add(1, 2)
    while True:  # a bug in the check: never crosses the boundary again
        pass


@check("Never reached")
def later(student):
    expect_integer(student.add(1, 2), 3, what="add(1, 2)")
"""
    )
    folder = make_exercise(files={"checks.py": slow_checks})
    toml = folder / "exercise.toml"
    toml.write_text(toml.read_text().replace("[limits]\n", "[limits]\nchecks_cpu_seconds = 0.5\n"))
    exercise = load_exercise(folder)
    began = time.monotonic()
    result = grade(exercise, "def add(a, b):\n    return a + b\n")
    assert time.monotonic() - began < 60  # stopped, not spinning on: 0.5 s of CPU, however busy the host
    spins, later = result.tests
    assert (spins.status, spins.reason) == (Status.ERROR, Reason.INTERNAL_ERROR)
    assert "“Spins in the grader” (spins) used more than the grader's 0.5 s of CPU time" in (spins.message or "")
    assert later.reason is Reason.NOT_RUN


ADDER_CHECKS_HEADER = "from grader.checks import check, expect_integer\n"


def test_events_arrive_in_order_as_checks_finish(adder: Exercise) -> None:
    events: list[tuple[float, object]] = []
    result = grade(adder, 'print("hi")\ndef add(a, b):\n    return a + b\n',
                   on_event=lambda e: events.append((time.monotonic(), e)))  # fmt: skip
    kinds = [type(e) for _, e in events]
    assert kinds == [Started, OutputProduced, CheckFinished, CheckFinished, Finished]
    assert [e.index for _, e in events if isinstance(e, CheckFinished)] == [0, 1]
    assert events[-1][1].result == result


def test_an_endless_loop_times_out_and_later_checks_of_that_function_are_not_run(
    make_exercise: Callable[..., Path],
) -> None:
    exercise = load_exercise(make_exercise(time_seconds=1))
    began = time.monotonic()
    result = grade(exercise, "def add(a, b):\n    while True:\n        pass\n")
    # Only a hang would take this long: how long 1 s of CPU time takes depends on how busy the host is.
    assert time.monotonic() - began < 60
    first, second = result.tests
    assert (first.status, first.reason) == (Status.ERROR, Reason.TIMEOUT)
    assert first.message.startswith("Time limit exceeded during add()")
    assert (second.reason, second.message) == (
        Reason.NOT_RUN,
        "Not run: add() ran out of time in “Adds small numbers”, and this check calls it too.",
    )
    assert result.reason is Reason.TIMEOUT
    assert result.message.startswith("Timed out in “Adds small numbers”.")


TWO_FUNCTIONS_TOML = """\
title = "Two functions"
section = "Warm-ups"
difficulty = "easy"

[[functions]]
name = "add"
params = ["a", "b"]

[[functions]]
name = "double"
params = ["a"]

[limits]
time_seconds = 1
"""

TWO_FUNCTIONS_CHECKS = """\
from grader.checks import check, expect_integer


@check("Adds")
def adds(student):
    expect_integer(student.add(2, 3), 5, what="add(2, 3)")


@check("Doubles")
def doubles(student):
    expect_integer(student.double(4), 8, what="double(4)")


@check("Adds again")
def adds_again(student):
    expect_integer(student.add(1, 1), 2, what="add(1, 1)")
"""


TWO_FUNCTIONS_FILES = {
    "exercise.toml": TWO_FUNCTIONS_TOML,
    "checks.py": TWO_FUNCTIONS_CHECKS,
    "reference.py": "def add(a, b):\n    return a + b\n\ndef double(a):\n    return 2 * a\n",
    "starter.py": "def add(a, b):\n    pass\n\ndef double(a):\n    pass\n",
}


def test_after_a_timeout_the_checks_of_other_functions_still_run_in_a_fresh_run(
    make_exercise: Callable[..., Path],
) -> None:
    exercise = load_exercise(make_exercise(files=TWO_FUNCTIONS_FILES))
    hanging = "def add(a, b):\n    while True:\n        pass\n\ndef double(a):\n    return 2 * a\n"
    result = grade(exercise, hanging)
    assert [(t.id, t.reason) for t in result.tests] == [
        ("adds", Reason.TIMEOUT),
        ("doubles", Reason.PASSED),
        ("adds_again", Reason.NOT_RUN),
    ]
    assert result.points == 1
    assert "ran out of time in “Adds”" in (result.tests[2].message or "")
    # What the timeout says is true: the run goes on past its 1 s, and it says so and for what.
    assert (result.tests[0].message or "").endswith(
        "The checks left that do not call add() run next, in a new run with 1 s of CPU time of its own."
    )
    assert result.message == "Timed out in “Adds”. 2 of 3 checks did not pass."


def test_a_second_timeout_says_it_was_the_new_run_and_the_summary_names_both(
    make_exercise: Callable[..., Path],
) -> None:
    exercise = load_exercise(make_exercise(files=TWO_FUNCTIONS_FILES))
    both_hang = "def add(a, b):\n    while True:\n        pass\n\ndef double(a):\n    while True:\n        pass\n"
    result = grade(exercise, both_hang)
    first, second, third = result.tests
    assert (first.reason, second.reason, third.reason) == (Reason.TIMEOUT, Reason.TIMEOUT, Reason.NOT_RUN)
    assert "in a new run with 1 s of CPU time of its own" in (first.message or "")
    assert (second.message or "").startswith("Time limit exceeded during double(): the run used up its 1 s")
    assert (second.message or "").endswith(
        "That was the new run for the checks that do not call add(): no further run is started."
    )
    assert result.message == "Timed out in “Adds”, then in “Doubles”. 3 of 3 checks did not pass."


def test_a_timeout_in_the_last_check_promises_no_new_run(make_exercise: Callable[..., Path]) -> None:
    exercise = load_exercise(make_exercise(files=TWO_FUNCTIONS_FILES))
    last_hangs = "def add(a, b):\n    if a == 1:\n        while True:\n            pass\n    return a + b\n\n"
    result = grade(exercise, last_hangs + "def double(a):\n    return 2 * a\n")
    assert [t.reason for t in result.tests] == [Reason.PASSED, Reason.PASSED, Reason.TIMEOUT]
    assert "new run" not in (result.tests[2].message or "")


STARTER_KV_HEAD = "worked_example"  # the first check of attend_step, public: its traceback is the one said
STARTER_BYTES_HEAD = "cache_bytes_examples"


def test_every_check_the_starter_fails_the_same_way_points_at_the_first_that_did(kv_exercise: Exercise) -> None:
    result = grade(kv_exercise, kv_exercise.starter)
    heads = [t for t in result.tests if t.same_as is None]
    # One failure per function that is not written yet, each said once, with a traceback, by its first check.
    assert [t.id for t in heads] == [STARTER_KV_HEAD, STARTER_BYTES_HEAD]
    for head, line in zip(heads, (12, 17), strict=True):
        assert head.public and f'File "solution.py", line {line}' in (head.message or "")
        assert head.location is not None and head.location.line == line
    by_id = {t.id: t for t in result.tests}
    for test in result.tests:
        if test.same_as is not None:
            head = by_id[test.same_as]
            assert head.same_as is None and result.tests.index(head) < result.tests.index(test)
            assert test.location == head.location and test.reason is head.reason is Reason.RAISED
    assert sum(t.same_as == STARTER_KV_HEAD for t in result.tests) == 9
    assert sum(t.same_as == STARTER_BYTES_HEAD for t in result.tests) == 1


def test_checks_that_raise_differently_are_not_the_same_failure(adder: Exercise) -> None:
    # The two checks raise on different lines: two failures, each said where it happened.
    two_lines = "def add(a, b):\n    if a > 100:\n        raise ValueError('big')\n    raise ValueError('small')\n"
    assert [t.same_as for t in grade(adder, two_lines).tests] == [None, None]
    # The same line, another type: not the same either.
    two_types = "def add(a, b):\n    raise (ValueError if a > 100 else TypeError)('no')\n"
    assert [t.same_as for t in grade(adder, two_types).tests] == [None, None]


def test_a_hidden_check_joins_a_public_failure_by_type_and_line_alone(adder: Exercise) -> None:
    # Its message carries the check's inputs: whether it equals the public one's must not decide anything.
    echoing = "def add(a, b):\n    raise ValueError(f'{a} and {b}')\n"
    public, hidden = grade(adder, echoing).tests
    assert "ValueError: 2 and 3" in (public.message or "")
    assert hidden.same_as == "small_numbers" and str(10**30) not in (hidden.message or "")


def test_stop_kills_the_run_at_once_and_the_verdict_is_stopped(make_exercise: Callable[..., Path]) -> None:
    exercise = load_exercise(make_exercise(time_seconds=30))
    stop = Stop()
    events: list[object] = []

    def on_event(event: object) -> None:
        events.append(event)

    timer = threading.Timer(1.0, stop.request)
    timer.start()
    began = time.monotonic()
    result = grade(exercise, "def add(a, b):\n    while True:\n        pass\n", on_event=on_event, stop=stop)
    took = time.monotonic() - began
    timer.join()
    assert took < 25, f"the 30 s time limit was waited for ({took:.1f} s)"  # 30 s of CPU take 30 s at least
    assert (result.status, result.reason) == (Status.ERROR, Reason.STOPPED)
    assert result.message == "Stopped during “Adds small numbers”: you stopped the run before it finished."
    assert [(t.id, t.reason) for t in result.tests] == [
        ("small_numbers", Reason.STOPPED),
        ("huge_numbers", Reason.NOT_RUN),
    ]


def test_a_stop_asked_for_before_the_run_starts_grades_nothing(adder: Exercise) -> None:
    stop = Stop()
    stop.request()
    result = grade(adder, "def add(a, b):\n    return a + b\n", stop=stop)
    assert result.reason is Reason.STOPPED
    assert {t.reason for t in result.tests} <= {Reason.STOPPED, Reason.NOT_RUN}


def test_a_raising_check_carries_the_line_of_solution_py(adder: Exercise) -> None:
    result = grade(adder, "def add(a, b):\n    x = 1\n    return a + b + None\n")
    assert result.tests[0].location is not None and result.tests[0].location.line == 3


def test_a_crash_in_one_check_does_not_hide_the_next(adder: Exercise) -> None:
    source = "import os\ndef add(a, b):\n    if a == 2:\n        os._exit(0)\n    return a + b\n"
    result = grade(adder, source)
    first, second = result.tests
    assert (first.status, first.reason) == (Status.FAIL, Reason.EXITED)
    assert "exit code 0" in first.message
    assert second.status is Status.PASS


def test_trusted_mode_gives_the_same_verdicts_without_the_sandbox(kv_exercise: Exercise) -> None:
    jailed = grade(kv_exercise, kv_exercise.mutant_paths()["no-scaling"].read_text())
    trusted = grade(kv_exercise, kv_exercise.mutant_paths()["no-scaling"].read_text(), jailed=False)
    assert [(t.id, t.status) for t in trusted.tests] == [(t.id, t.status) for t in jailed.tests]


BATCH_CHECKS = """\
from grader.checks import check
from grader.checks import expect_integer


@check("Adds many pairs in one crossing", public=True)
def many_pairs(student):
    pairs = [(a, a + 1) for a in range(50)]
    for (a, b), got in zip(pairs, student.add.each(pairs)):
        expect_integer(got, a + b, what=f"add({a}, {b})")
"""


def test_batched_calls_return_every_result_in_order(make_exercise: Callable[..., Path]) -> None:
    exercise = load_exercise(make_exercise(files={"checks.py": BATCH_CHECKS}))
    result = grade(exercise, "def add(a, b):\n    return a + b\n")
    assert result.status is Status.PASS


def test_a_batched_call_that_raises_is_named_in_the_message_and_details(make_exercise: Callable[..., Path]) -> None:
    exercise = load_exercise(make_exercise(files={"checks.py": BATCH_CHECKS}))
    result = grade(exercise, "def add(a, b):\n    if a == 7:\n        raise ValueError('seven')\n    return a + b\n")
    [check_result] = result.tests
    assert check_result.reason is Reason.RAISED
    assert check_result.message.startswith("add() raised ValueError: seven (solution.py, line 3)")
    assert check_result.details == {"call": "add(7, 8)"}


def test_a_sandbox_that_cannot_start_is_the_servers_error_not_the_solutions(
    make_exercise: Callable[..., Path],
) -> None:
    folder = make_exercise()
    toml = (folder / "exercise.toml").read_text()
    # Too little memory for Python and numpy to start: the runner dies before any student code runs.
    (folder / "exercise.toml").write_text(toml.replace("[limits]\n", "[limits]\nmemory_mb = 64\n"))
    result = grade(load_exercise(folder), "def add(a, b):\n    return a + b\n", warm=False)
    assert (result.status, result.reason) == (Status.ERROR, Reason.INTERNAL_ERROR)
    assert result.message.startswith("The grader could not start its sandbox")
    assert "not with your solution" in result.message


PRINTS_THEN_EXITS = """
import os, sys


def attend_step(x_t, cache, p):
    sys.stdout.write("x" * 40_000)
    sys.stdout.flush()
    os._exit(3)


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bytes_per_value):
    return 0
"""


def test_the_output_allowance_is_for_the_whole_run_not_for_each_runner_after_a_crash(tmp_path: Path) -> None:
    exercise = load_exercise(copy_with_limits(KV_EXERCISE, tmp_path, {"output_kb": "64"}))
    result = grade(exercise, PRINTS_THEN_EXITS)
    first, second, *rest = result.tests
    assert first.reason is Reason.EXITED  # 40 KB printed, then a fresh runner for the next check
    assert second.reason is Reason.OUTPUT_LIMIT, second.message  # 40 KB more passes the 64 KiB of the run
    assert {t.reason for t in rest} == {Reason.NOT_RUN}
