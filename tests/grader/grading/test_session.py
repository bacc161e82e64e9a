"""A solution loaded in a real runner (unjailed here: the protocol is the same), and strict replies."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from grader.grading.session import SolutionRaised, SolutionSession, SolutionSyntaxError, UnsupportedValue
from grader.sandbox import Ending, Limits, RunnerDied

SOLUTION = """
import numpy as np

def double(x):
    return 2 * x

def bad(x):
    raise ValueError(f"no {x}")

def changes(cache):
    cache["seen"] = cache.get("seen", 0) + 1
    return cache["seen"]

def a_set():
    return {1, 2}

def merge(vocab, pair):
    vocab[len(vocab)] = pair[0] + pair[1]
    return vocab, [pair]
"""


@pytest.fixture
def session() -> Iterator[SolutionSession]:
    opened = SolutionSession(Limits(), jailed=False, warm=False)
    yield opened
    opened.close()


def test_loading_describes_the_functions_the_exercise_expects(session: SolutionSession) -> None:
    described = session.load(SOLUTION, ["double", "missing"])
    assert described["double"]["params"] == [["x", "POSITIONAL_OR_KEYWORD", False]]
    assert described["missing"] is None


def test_calls_return_plain_values_and_batches_share_their_arguments(session: SolutionSession) -> None:
    session.load(SOLUTION, [])
    assert np.array_equal(session.call("double", [np.arange(3)]).value, [0, 2, 4])
    cache: dict[str, int] = {}
    assert session.call_each("changes", [[cache], [cache], [{}]]) == [1, 2, 1]  # one dict, as for a Python caller


def test_bytes_and_dicts_keyed_by_integers_cross_both_ways(session: SolutionSession) -> None:
    session.load(SOLUTION, [])
    vocab = {0: b"a", 1: b"b"}
    got, merges = session.call("merge", [vocab, (b"a", b"b")]).value
    assert got == {0: b"a", 1: b"b", 2: b"ab"} and merges == [(b"a", b"b")]
    assert vocab == {0: b"a", 1: b"b"}  # the caller's own dict, untouched


def test_an_exception_names_its_line_and_which_call_of_a_batch(session: SolutionSession) -> None:
    session.load(SOLUTION, [])
    with pytest.raises(SolutionRaised) as raised:
        session.call_each("bad", [[1], [2]])
    assert (raised.value.type, raised.value.message, raised.value.line, raised.value.call_index) == (
        "ValueError", "no 1", 8, 0,
    )  # fmt: skip


def test_a_value_that_cannot_cross_is_said_so(session: SolutionSession) -> None:
    session.load(SOLUTION, [])
    with pytest.raises(UnsupportedValue, match="set"):
        session.call("a_set", [])


def test_a_syntax_error_is_reported_with_its_place(session: SolutionSession) -> None:
    with pytest.raises(SolutionSyntaxError) as error:
        session.load("def f(:\n    pass\n", [])
    assert (error.value.line, error.value.text) == (1, "def f(:")


def test_a_reply_carrying_anything_beyond_the_answer_is_malformed(session: SolutionSession) -> None:
    # The solution rewrites the runner to add a claim about its own state to every answer.
    forging = SOLUTION + (
        "import sys\nrunner = sys.modules['__main__']\noriginal = runner._call\n"
        "runner._call = lambda *a: {**original(*a), 'args_after': []}\n"
    )
    session.load(forging, [])
    with pytest.raises(RunnerDied) as died:
        session.call("double", [1])
    assert died.value.ending is Ending.MALFORMED_REPLY
    assert not session.alive
