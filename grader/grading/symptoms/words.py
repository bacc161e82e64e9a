"""What a student reads about a symptom: one sentence per kind, defined here once.

A sentence names the relationship between the expected values and the student's (the factor, the
axis, the dtype whose round-off it is) and asks about a likely cause; it never carries a value of
the inputs, the expected answer or the student's: hidden checks show it too. Its fields are filled
with relationships only.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Symptom:
    """A relationship between the expected values and the student's: a stable ``kind`` and its sentence."""

    kind: str
    sentence: str


SENTENCES: dict[str, str] = {
    # Values that are not numbers, or lost.
    "overflow": "Your answer holds inf where finite numbers were expected: did something overflow (exp of a large "
    "number, a product too large for the dtype), or was a log taken of a value that underflowed to 0?",
    "nan": "Your answer holds nan where numbers were expected: a 0/0 (a sum that underflowed to 0), inf − inf or "
    "inf/inf after an overflow, or the square root or log of a negative number?",
    "underflow": "Your answer holds 0 where tiny non-zero values were expected: did a product of small numbers or "
    "the exp of a very negative number underflow? Working with logs, or in float64, keeps them.",
    "precision-float32": "Your answer is off by about float32 round-off (near the 7th significant digit): is a part "
    "computed in float32 (an array, a constant, a sum)?",
    "precision-float16": "Your answer is off by about float16 round-off (near the 3rd or 4th significant digit): is a "
    "part computed in float16, which keeps only about 3 significant digits?",
    # Integers.
    "integer-overflow": "Your integer wrapped around: the true value does not fit in {dtype}, and numpy integers "
    "overflow silently. Python ints are exact at any size.",
    "integer-via-float": "Your integer is the expected one rounded to a float's precision: did it go through a float "
    "(/, float(), ** on floats, a float array) where exact integer arithmetic was needed?",
    "off-by-one": "Where your answer differs, it is one {more_less} than expected: an off-by-one (the end of a "
    "range, < for <=, a floor where a ceiling was meant, a rounding)?",
    # Each value against its own expected value.
    "sign": "Your answer is the expected one with the opposite sign: a subtraction the wrong way round, or a minus "
    "sign too many or too few?",
    "factor": "Your answer is the expected one {op}: a scaling by that factor missing, applied twice, or applied "
    "the wrong way round (× for ÷)?",
    "constant-factor": "Your answer is the expected one times a constant factor, every value scaled alike: a "
    "normalisation or a scaling missing, wrong or applied twice?",
    "absolute": "Your answer is the absolute value of the expected one: does an abs(), or the square root of a "
    "square, lose the sign?",
    "sign-part": "Your answer has the expected magnitudes, but some values have the opposite sign: a minus on one "
    "of the terms?",
    "offset": "Your answer is the expected one plus a constant, every value moved alike: a term added twice or "
    "left out (a bias, a constant of the formula)?",
    "conjugate": "Your answer is the complex conjugate of the expected one: a sign on an imaginary part (e^{{-iθ}} "
    "for e^{{iθ}})?",
    # Values at the wrong places.
    "transpose": "Your answer is the expected one with {axes} exchanged: a product in the wrong order, or a .T or "
    "swapaxes too many or too few?",
    "shift": "Your answer is the expected one shifted by one {unit}: each {unit} holds what the {which} one "
    "should (an index off by one: a slice's start, a range, the step a value belongs to)?",
    "reversed": "Your answer is the expected one in reverse order{along}: a loop, a sort or a cumulative sum "
    "running from the wrong end?",
    "permutation": "Your answer holds the expected values in another order{within}: the right numbers at the wrong "
    "positions (an index, a sort order, a reshape that mixes axes)?",
    "rotation": "Taken in pairs ({pairs}), your values have the expected lengths but point in other directions: a "
    "rotation by the wrong angle (a sign on a sine term, the wrong positions or frequencies)?",
    # Normalisations.
    "wrong-axis-normalisation": "Your answer sums to 1 along axis {got_axis} where it should along axis {axis}"
    "{plainly}: a softmax or a sum over the wrong axis?",
    "unnormalised": "Each {unit} of your answer is the expected one times a factor of its own, and the expected "
    "{units} sum to 1: is the normalisation (dividing by the sum along axis {axis}) missing or wrong?",
    "factor-per-slice": "Each {unit} of your answer is the expected one times a factor of its own: a per-{unit} "
    "scaling or normalisation missing or wrong?",
    "unnormalised-log": "Each {unit} of your answer is the expected one plus a constant of its own, and the "
    "expected {units} are log-probabilities: is the log-sum-exp subtracted along axis {axis} missing or wrong?",
    "offset-per-slice": "Each {unit} of your answer is the expected one plus a constant of its own: a per-{unit} "
    "term (a mean, a maximum, a bias) added or subtracted wrong?",
    # Whole numbers.
    "truncation": "Your answer is the expected one with the fractional part dropped (not rounded to the nearest): "
    "an int(), astype(int) or // where the value should keep its fraction?",
    "rounding": "Your answer is the expected one rounded to whole numbers: a round(), a ceil or a conversion to "
    "an integer where the value should keep its fraction?",
    # Arguments changed.
    "in-place": "Your answers are those of a correct function that changes the arguments it is given (an in-place "
    "+=, an .append, a write into an array or a dict it received), which later calls given the same objects then "
    "see: build new values and leave the arguments as they were.",
    # Right for a sub-case only, across the calls of a check.
    "first-only": "Right on the first call, wrong on every later one: what changes after the first? State carried "
    "from one call to the next (a cache, a running sum), or a part that matters only once there is more than one "
    "element?",
    "wrong-first-only": "Wrong on the first call only, right on every later one: is the start (an empty cache, no "
    "history yet, an initial value) handled differently?",
    "wrong-last-only": "Wrong on the last call only: is the end (the last step, a final partial block, the end of a "
    "range) handled?",
    "right-until": "Right on the first {count} calls, wrong from the {next} on: does something break once enough has "
    "accumulated (a window filling up, a block or page boundary)?",
    "wrong-when-empty": "Wrong exactly on the calls with an empty input: is nothing handled (zero rows, an empty "
    "cache or list; the max, mean or index of nothing)?",
}

#: Every kind a diagnosis may return: stable ids, counted by instructors' analytics.
KINDS = tuple(SENTENCES)

#: Each kind in a few words, for instructors' analytics (the student reads the sentence).
LABELS: dict[str, str] = {
    "overflow": "inf where finite numbers were expected",
    "nan": "nan where numbers were expected",
    "underflow": "0 where tiny values were expected",
    "precision-float32": "float32 round-off",
    "precision-float16": "float16 round-off",
    "integer-overflow": "an integer that wrapped around",
    "integer-via-float": "an integer rounded through a float",
    "off-by-one": "off by one",
    "sign": "the opposite sign",
    "factor": "off by a named factor",
    "constant-factor": "off by a constant factor",
    "absolute": "the absolute value",
    "sign-part": "some signs flipped",
    "offset": "off by a constant",
    "conjugate": "the complex conjugate",
    "transpose": "axes exchanged",
    "shift": "shifted by one",
    "reversed": "in reverse order",
    "permutation": "the right values in another order",
    "rotation": "pairs rotated by the wrong angle",
    "wrong-axis-normalisation": "normalised along the wrong axis",
    "unnormalised": "not normalised",
    "factor-per-slice": "a factor per row or column",
    "unnormalised-log": "log-probabilities not normalised",
    "offset-per-slice": "an offset per row or column",
    "truncation": "fractions dropped",
    "rounding": "rounded to whole numbers",
    "in-place": "arguments changed in place",
    "first-only": "right on the first step only",
    "wrong-first-only": "wrong on the first call only",
    "wrong-last-only": "wrong on the last call only",
    "right-until": "right until some call, wrong after",
    "wrong-when-empty": "wrong on empty inputs",
}


def say(kind: str, **parts: object) -> Symptom:
    """The symptom ``kind`` with its sentence, filled with ``parts`` (relationships only, never values)."""
    return Symptom(kind, SENTENCES[kind].format(**parts))


def unit(ndim: int, axis: int) -> tuple[str, str]:
    """What one index along ``axis`` selects, singular and plural: a position, a row, a column, a slice."""
    if ndim == 1:
        return "position", "positions"
    if ndim == 2:
        return ("row", "rows") if axis == 0 else ("column", "columns")
    return f"slice along axis {axis}", f"slices along axis {axis}"


def line(ndim: int, axis: int) -> tuple[str, str]:
    """What varies along ``axis``, the other indices fixed, singular and plural: a matrix's row varies along axis 1."""
    if ndim == 2:
        return ("row", "rows") if axis == 1 else ("column", "columns")
    return f"line along axis {axis}", f"lines along axis {axis}"


def along(ndim: int, axis: int) -> str:
    """`` along axis k``, said only when there is more than one axis."""
    return "" if ndim == 1 else f" along axis {axis}"
