"""Symptom diagnoses: a wrong answer's mistake named from its expected and actual values alone.

Trusted side, numpy only, no I/O. :func:`diagnose` takes an answer of the right kind, shape and
dtype whose values are wrong, and returns the most specific :class:`Symptom` that explains *every*
value (a factor named after the call's sizes, a transpose, a shift by one, float32 round-off, …),
or None when nothing does or the data cannot tell two readings apart: no lead rather than a wrong
one. :func:`across_calls` names a pattern of right and wrong calls (right on the first step only,
wrong only on empty inputs). :func:`shown_apart` and :func:`error_in_words` write two numbers so
that they differ on the page, and a round-off sized error in words.

``diagnosis`` orders the tests; ``values`` (value by value) and ``shapes`` (where values went)
hold them, on a ``case``; ``words`` holds every sentence, ``digits`` the numbers, ``calls`` what
a check's calls bring. Every test costs a few passes over the values (the permutation's a sort);
above 65,536 values only the value-by-value ones run.
"""

from grader.grading.symptoms.calls import across_calls, is_empty_case, sizes_of
from grader.grading.symptoms.diagnosis import diagnose
from grader.grading.symptoms.digits import error_in_words, shown_apart
from grader.grading.symptoms.words import KINDS, LABELS, SENTENCES, Symptom, say

__all__ = [
    "KINDS",
    "LABELS",
    "SENTENCES",
    "Symptom",
    "across_calls",
    "diagnose",
    "error_in_words",
    "is_empty_case",
    "say",
    "shown_apart",
    "sizes_of",
]
