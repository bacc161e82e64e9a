"""Replaying a check's calls on trusted code within the diagnosis's allowance: even an endless loop stops."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from grader.exercise import KnownMistake
from grader.grading.mistakes import OutOfTime, allowance, matching
from grader.grading.mistakes.replay import copy_plain
from grader.grading.proxy import Call

REFERENCE = "def step(n):\n    i = 0\n    while i < n:\n        i += 1\n    return i\n"
# What a derived change to the loop's counter makes of it, and one that also swallows what it can.
ENDLESS = "def step(n):\n    i = 0\n    while i < n:\n        i -= 1\n    return i\n"
SWALLOWING = (
    "def step(n):\n    while True:\n        try:\n            while True:\n                pass\n"
    "        except Exception:\n            pass\n"
)


def _mistake(name: str, source: str) -> KnownMistake:
    return KnownMistake.from_source(name, "", "", source, f"{name}.py")


def _within(seconds: float, work) -> object:  # type: ignore[no-untyped-def]
    """``work()``'s result, run on its own thread; fails (rather than hangs) if it has not returned in ``seconds``."""
    result: list[object] = []
    thread = threading.Thread(target=lambda: result.append(work()), daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), "the replay did not stop"
    return result[0]


@pytest.mark.parametrize("source", [ENDLESS, SWALLOWING], ids=["endless", "swallowing"])
def test_a_mistake_that_loops_forever_is_stopped_and_explains_nothing(source: str) -> None:
    reference, endless = _mistake("reference", REFERENCE), _mistake("endless", source)
    known = _mistake("known", "def step(n):\n    return n + 1\n")
    calls = [Call("step", (3,), batch=1, value=4)]  # the solution's wrong answer: the known mistake's

    named: list[list[str]] = []

    def name() -> str:
        try:
            with allowance(0.2):
                named.append(matching([endless, known], reference, calls))
        except OutOfTime:
            return "out of time"  # what the engine concludes: nothing
        return "in time"

    # Generous: a busy machine stretches 0.2 s of CPU time; an endless replay never returns at all.
    assert _within(120, name) == "out of time"
    assert named == [[]]  # nothing concluded, not even the known mistake that matches


def test_a_replay_within_its_allowance_runs_to_the_end() -> None:
    reference, known = _mistake("reference", REFERENCE), _mistake("known", "def step(n):\n    return n + 1\n")
    with allowance(5.0):
        assert matching([known], reference, [Call("step", (3,), batch=1, value=4)]) == ["known"]


def test_a_spent_allowance_is_raised_on_the_way_out_and_never_later() -> None:
    began = time.thread_time()
    ended = "in time"
    try:
        with allowance(0.05):
            try:
                while time.thread_time() < began + 0.5:
                    pass
            except OutOfTime:
                pass  # what matching does: the allowance still says so as it ends
    except OutOfTime:
        ended = "out of time"
    for _ in range(100_000):  # an exception set but not yet raised would surface here
        pass
    assert ended == "out of time"


# --------------------------------------------------------------------------- answers compared in a form

SIGNS = "def factors(n):\n    return [1.0, float(n)]\n"
# The same mistake (n + 1 where n was meant) on a machine whose factorisation picks the other signs.
FLIPPED = "def factors(n):\n    return [-1.0, -float(n + 1)]\n"


def test_a_form_compares_what_the_checks_compare_not_the_signs_a_machine_picked() -> None:
    reference, mistake = _mistake("reference", SIGNS), _mistake("off-by-one", FLIPPED)
    calls = [Call("factors", (3,), batch=1, value=[1.0, 4.0])]  # the sandbox's answer: 1·4, with other signs

    def product(answer: list[float]) -> float:
        return answer[0] * answer[1]

    with allowance(5.0):
        assert matching([mistake], reference, calls) == []  # raw factors: the signs differ
        assert matching([mistake], reference, calls, forms={"factors": product}) == ["off-by-one"]
        # A right answer in the form is right: nothing to explain, nothing named.
        right = [Call("factors", (3,), batch=1, value=[-1.0, -3.0])]
        assert matching([mistake], reference, right, forms={"factors": product}) == []


def test_an_answer_the_form_cannot_take_is_compared_as_it_is() -> None:
    reference, mistake = _mistake("reference", SIGNS), _mistake("none", "def factors(n):\n    return None\n")
    with allowance(5.0):
        named = matching([mistake], reference, [Call("factors", (3,), batch=1, value=None)], forms={"factors": len})
    assert named == ["none"]


def test_of_the_mistakes_explaining_every_wrong_answer_one_that_also_gives_the_right_ones_comes_first() -> None:
    reference = _mistake("reference", "def bound(c, m):\n    return 'memory' if m > c else 'compute'\n")
    swapped = _mistake("labels-swapped", "def bound(c, m):\n    return 'compute' if m > c else 'memory'\n")
    tie = _mistake("tie-is-memory", "def bound(c, m):\n    return 'memory' if m >= c else 'compute'\n")
    # The solution calls only ties memory-bound: right on (1, 2) and (2, 1), wrong on (2, 2).
    calls = [
        Call("bound", (1, 2), batch=1, value="memory"),
        Call("bound", (2, 1), batch=1, value="compute"),
        Call("bound", (2, 2), batch=1, value="memory"),
    ]
    with allowance(5.0):
        assert matching([swapped, tie], reference, calls) == ["tie-is-memory", "labels-swapped"]


def test_replayed_arguments_share_memory_as_the_wire_delivers_them() -> None:
    a = np.arange(12.0).reshape(3, 4)
    whole, rows, columns = copy_plain([a, a[1:], a[:, :2]], {}, set())
    rows[0, 0] = -1.0  # the array and its C-contiguous row slice share, as they arrive from the wire
    assert whole[1, 0] == -1.0
    columns[0, 0] = -2.0  # a strided view is sent as a copy of its own: it shares nothing
    assert whole[0, 0] == 0.0
