"""Naming a wrong answer's mistake: the evidence of its calls replayed on the reference and the known mistakes.

``replay`` runs recorded calls again on trusted code, ``fingerprints`` matches a wrong answer to
the known mistakes that give the same answers, ``across`` reads a pattern across a check's calls,
``derived`` adds the mistakes mutation analysis derives from the reference, and ``leads`` chooses
what the run's summary says.
"""

from grader.grading.mistakes.across import symptom_across
from grader.grading.mistakes.derived import derived_mistakes, hint_of, is_derived, prepare_in_background
from grader.grading.mistakes.fingerprints import matching
from grader.grading.mistakes.leads import ABOUT_THE_ANSWERS, name_mistakes
from grader.grading.mistakes.replay import OutOfTime, allowance

__all__ = [
    "ABOUT_THE_ANSWERS", "OutOfTime", "allowance", "derived_mistakes", "hint_of", "is_derived", "matching",
    "name_mistakes", "prepare_in_background", "symptom_across",
]  # fmt: skip
