"""Hidden checks for "Stop Strings in a Stream".

Expected answers come from a second formulation written here, over the whole text received so
far rather than over a pending buffer: after delta i the text is T_i = deltas[0] + … + deltas[i];
the stream stops at the first i whose T_i contains a stop (the stop is the occurrence with the
earliest start, found by trying every position and every stop, ties to the lowest index); before
that, everything of T_i is released except its longest suffix that is a proper prefix of a stop
(found by trying every suffix length), so delta i's string is the text between two such release
points. A few cases are worked out by hand. A wrong answer is named by the grader, by comparing it
with the exercise's mutants on the same calls.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import numpy as np

from grader.checks import Student, check, describe, expect_sequence, fail, values_shown

# --------------------------------------------------------------------------- independent answers


def first_stop(text: str, stops: list[str]) -> tuple[int, int] | None:
    """(start, index) of the stop occurrence that starts earliest in text, ties to the lowest index."""
    for start in range(len(text)):
        for j, stop in enumerate(stops):
            if text[start : start + len(stop)] == stop:
                return start, j
    return None


def release_point(text: str, stops: list[str]) -> int:
    """len(text) minus its longest suffix that is a proper prefix of some stop."""
    for held in range(len(text), 0, -1):
        suffix = text[len(text) - held :]
        if any(len(stop) > held and stop.startswith(suffix) for stop in stops):
            return len(text) - held
    return len(text)


def expected_stops(deltas: list[str], stops: list[str]) -> tuple[list[str], int]:
    released: list[str] = []
    text, point = "", 0
    for i, delta in enumerate(deltas):
        text += delta
        hit = first_stop(text, stops)
        if hit is not None:
            released.append(text[point : hit[0]])
            return released, hit[1]
        if i == len(deltas) - 1:  # the stream is over: nothing is held any longer
            released.append(text[point:])
            break
        new_point = release_point(text, stops)
        released.append(text[point:new_point])
        point = new_point
    return released, -1


def split_text(rng: np.random.Generator, text: str, n_pieces: int) -> list[str]:
    """text cut at random places into n_pieces deltas, some of them empty."""
    cuts = sorted(int(c) for c in rng.integers(0, len(text) + 1, size=n_pieces - 1))
    bounds = [0, *cuts, len(text)]
    return [text[a:b] for a, b in pairwise(bounds)]


def random_word(rng: np.random.Generator, alphabet: str, low: int, high: int) -> str:
    return "".join(alphabet[int(k)] for k in rng.integers(0, len(alphabet), size=int(rng.integers(low, high + 1))))


def random_stops(rng: np.random.Generator, alphabet: str, count: int) -> list[str]:
    stops: list[str] = []
    while len(stops) < count:
        stop = random_word(rng, alphabet, 1, 4)
        if stop not in stops:
            stops.append(stop)
    return stops


# --------------------------------------------------------------------------- comparing answers


def expect_form(result: Any, what: str) -> tuple[list[Any], Any]:
    """(released, stop_index): a tuple of a list of str and an int."""
    released, index = expect_sequence(result, 2, what=f"the return value ({what})", hint="form")
    if not isinstance(result, tuple):
        fail(f"the return value ({what}) should be a tuple (released, stop_index), got {describe(result)}",
             hint="form")  # fmt: skip
    if not isinstance(released, list):
        fail(f"released ({what}) should be a list of str, got {describe(released)}", hint="form")
    for n, piece in enumerate(released):
        if not isinstance(piece, str):
            fail(f"released ({what}) should hold only str, but item {n} is {describe(piece)}", hint="form")
    if isinstance(index, bool) or not isinstance(index, (int, np.integer)):
        fail(f"stop_index ({what}) should be an int, got {describe(index)}", hint="form")
    return released, index


def expect_stops(result: Any, want: tuple[list[str], int], what: str) -> None:
    """The form, then the strings released delta by delta, then the stop index."""
    released, index = expect_form(result, what)
    want_released, want_index = want
    shown = values_shown()
    if released != want_released:
        common = min(len(released), len(want_released))
        first = next((i for i in range(common) if released[i] != want_released[i]), None)
        if first is not None:
            detail = f": expected {want_released[first]!r}, got {released[first]!r}" if shown else ""
            kind = "differs"
            if not shown:
                if want_released[first].startswith(released[first]):
                    kind = "is too short (it holds back text that should be released)"
                elif released[first].startswith(want_released[first]):
                    kind = "is too long (it releases text that should be held back or never sent)"
            message = f"released ({what}): the string of delta {first} {kind}{detail}"
        elif len(released) > len(want_released):
            message = (f"released ({what}) has {len(released)} strings where {len(want_released)} were expected: "
                       "the stream should stop earlier, or every delta after a stop is read")  # fmt: skip
        else:
            message = (f"released ({what}) has {len(released)} strings where {len(want_released)} were expected: "
                       "one string per delta read, the empty ones included")  # fmt: skip
        fail(message, hint=None, expected=want_released, got=released)
    if int(index) != want_index:
        if shown:
            message = f"stop_index ({what}): expected {want_index}, got {int(index)}"
        elif want_index == -1:
            message = f"stop_index ({what}) names a stop, but no stop occurs in the text"
        elif int(index) == -1:
            message = f"stop_index ({what}) is -1, but a stop occurs in the text"
        else:
            message = f"stop_index ({what}) names another stop than the one that starts earliest"
        fail(message, hint=None, expected=want_index, got=index)


def compare_all(student: Student, cases: list[tuple[list[str], list[str], str]]) -> None:
    """Every case in one crossing; each compared with the independent answer."""
    results = student.apply_stops.each([(list(deltas), list(stops)) for deltas, stops, _ in cases])
    for (deltas, stops, what), result in zip(cases, results, strict=True):
        expect_stops(result, expected_stops(deltas, stops), what)


# --------------------------------------------------------------------------- the checks


@check("The worked examples from the statement", public=True, points=2, hint="holdback")
def worked_example(student: Student) -> None:
    cases = [
        (["Hello", " wor", "ld<", "/s", ">!!"], ["</s>", "\n\n"], (["Hello", " wor", "ld", "", ""], 0), "the first"),
        (["a<", "b"], ["</s>"], (["a", "<b"], -1), "the second"),
        (["abxEND"], ["END", "x"], (["ab"], 1), "the third"),
        (["ab", "ab", "c"], ["abc"], (["", "ab", ""], 0), "the fourth"),
        (["a\n"], ["\n\n"], (["a\n"], -1), "the fifth"),
    ]
    results = student.apply_stops.each([(deltas, stops) for deltas, stops, *_ in cases])
    for (_, _, want, which), result in zip(cases, results, strict=True):
        expect_stops(result, want, f"{which} example")


@check("The result is a tuple: a list of str and an int", public=True, hint="form")
def result_form(student: Student) -> None:
    expect_stops(student.apply_stops(["ab", "c"], ["x"]), (["ab", "c"], -1), "two deltas, no stop")


@check("Edge cases: no deltas, no stops, empty deltas", public=True, hint="form")
def edge_cases(student: Student) -> None:
    cases = [
        ([], ["</s>"], ([], -1), "no deltas"),
        ([], [], ([], -1), "no deltas and no stops"),
        (["a", "", "b<"], [], (["a", "", "b<"], -1), "no stops: everything is released at once"),
        (["", "", ""], ["x"], (["", "", ""], -1), "only empty deltas"),
        (["x"], ["x"], ([""], 0), "a delta that is exactly a stop"),
        (["a<", "", "", "/s>z"], ["</s>"], (["a", "", "", ""], 0), "empty deltas while a prefix is held"),
    ]
    results = student.apply_stops.each([(deltas, stops) for deltas, stops, *_ in cases])
    for (_, _, want, what), result in zip(cases, results, strict=True):
        expect_stops(result, want, what)


@check("Stops split across deltas are found, and their prefixes held back until then", hint="holdback")
def split_stops(student: Student) -> None:
    cases = [
        (["The end", "<", "|", "eot", "|", ">tail"], ["<|eot|>"], "a stop streamed in five pieces"),
        (["x<|e", "ot|", "y"], ["<|eot|>"], "a prefix held, then broken"),
        (["<<", "<|e", "ot|>"], ["<|eot|>"], "a prefix that starts again inside itself"),
        (["aa", "a", "ab"], ["aaab"], "overlapping prefixes: the held suffix must be the longest"),
        (["line\n", "\n", "more"], ["\n\n", "###"], "a newline held, then completing the stop"),
        (["#", "#x#", "#", "#"], ["###", "\n\n"], "a prefix broken and started again"),
        (["ca", "b"], ["abz", "cab"], "a suffix that is a prefix of one stop, and the stop another completes"),
    ]
    compare_all(student, cases)


@check("The held suffix is the longest one that is a prefix of any stop", hint="longest-suffix")
def longest_suffix(student: Student) -> None:
    cases = [
        (["xab", "c", "d!"], ["b", "abcd"], "a one-letter stop before a long one"),
        (["wxyz", "q"], ["z!", "xyz!"], "the second stop gives the longer suffix"),
        (["zzab", "cz"], ["abc?", "b?", "zab?"], "three stops whose prefixes end the text"),
        (["aab", "ab", "abx"], ["aabx", "abab", "ba"], "suffixes that match several stops"),
        (["end of str", "ing"], ["ing!", "of string", "g"], "a stop that completes two deltas later"),
    ]
    compare_all(student, cases)


@check("The stop that starts earliest wins, equal starts go to the lowest index", hint="earliest")
def earliest_start(student: Student) -> None:
    cases = [
        (["abc"], ["abc", "b"], "a shorter stop completes first but starts later"),
        (["xxEND stop"], ["stop", "END"], "the second stop starts earlier"),
        (["ab", "cd"], ["abcd", "ab"], "two stops at the same start, the longer listed first"),
        (["ab", "cd"], ["ab", "abcd"], "two stops at the same start, the shorter listed first"),
        (["qab", "cde"], ["bcd", "abcde", "cde"], "three stops complete in one delta"),
        (["..a", "bb"], ["bb", "abb", "b"], "a held prefix decides the earliest start"),
    ]
    compare_all(student, cases)


@check("Text after the stop is never released", hint="after-stop")
def after_the_stop(student: Student) -> None:
    cases = [
        (["Hi</s>and more", "ignored"], ["</s>"], "text after the stop in the same delta, then a delta more"),
        (["a", "STOP", "b", "STOP"], ["STOP"], "a stop that occurs twice"),
        (["xy", "z", "xyz"], ["z"], "a one-letter stop"),
        (["ab<", "/s>", "</s>"], ["</s>"], "a second stop in a later delta"),
    ]
    compare_all(student, cases)


@check("At the end of the stream, the held text is released", hint="flush")
def end_of_stream(student: Student) -> None:
    cases = [
        (["a", "b<"], ["<|x|>"], "a prefix held at the end"),
        (["a<|x"], ["<|x|>"], "a long prefix held at the end of a single delta"),
        (["a<", ""], ["<b"], "a prefix held, then an empty last delta"),
        (["ab", "a"], ["aa", "aab"], "the whole last delta held"),
    ]
    compare_all(student, cases)


@check("Random streams, cut at random places, with random stops", hint="holdback")
def random_streams(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for n in range(240):
        alphabet = "ab" if n % 3 == 0 else "abc"
        stops = random_stops(rng, alphabet, int(rng.integers(1, 4)))
        text = random_word(rng, alphabet + "xy", 4, 30)
        pieces = split_text(rng, text, int(rng.integers(1, 9)))
        cases.append((pieces, stops, f"random stream {n + 1} of 240, {len(pieces)} deltas, {len(stops)} stops"))
    compare_all(student, cases)


@check("Long streams, one character per delta", hint="holdback")
def char_by_char(student: Student, rng: np.random.Generator) -> None:
    chat = ["<|", "im_", "end", "|>", "\n", "User", ":", " ", "a", "<", "|"]
    cases = []
    for n in range(6):
        if n < 3:
            stops, text = random_stops(rng, "ab", 3), random_word(rng, "abc", 40, 80)
        else:
            stops = ["<|im_end|>", "\n\nUser:", "|>a"]
            text = "".join(chat[int(k)] for k in rng.integers(0, len(chat), size=int(rng.integers(20, 40))))
        cases.append((list(text), stops, f"long stream {n + 1} of 6, one character per delta"))
    compare_all(student, cases)


@check("The deltas and the stops are left unchanged", hint="no-mutation")
def inputs_unchanged(student: Student) -> None:
    deltas, stops = ["Hi <", "/s", "> bye", "more"], ["</s>", "bye"]
    other = ["no stop ", "here <", "/"]
    # The same lists for three calls in one crossing: a call that changes them changes what the
    # later calls see.
    calls = [(deltas, stops), (deltas, stops), (other, stops), (other, stops)]
    whats = ["a first call", "a second call with the same lists", "a stream without a stop",
             "the same stream again"]  # fmt: skip
    for (d, s), what, result in zip(calls, whats, student.apply_stops.each(calls), strict=True):
        expect_stops(result, expected_stops(list(d), list(s)), what)
