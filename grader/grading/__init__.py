"""The grading engine: a solution run in the sandbox, checked, and its verdict computed here.

``engine`` grades a submission (``grade``) check by check through ``check_run``; ``session`` and
``proxy`` are the connection to the solution's runner, ``budget`` the CPU the checks may spend,
``verdicts`` what each case is called, ``leaks`` what a hidden check must not show; ``checking``,
``expectations``, ``exact_ints`` and ``failures`` are what a check calls (re-exported to authors by
:mod:`grader.checks`); ``playground`` runs Try it. ``symptoms`` and ``mistakes`` name a wrong
answer's mistake.
"""

from grader.grading.checking import values_shown
from grader.grading.engine import grade, grade_until_failure, stopped_result
from grader.grading.exact_ints import expect_ints
from grader.grading.expectations import (
    DEFAULT_ATOL,
    DEFAULT_RTOL,
    Expectation,
    describe,
    expect_array,
    expect_dict,
    expect_float,
    expect_integer,
    expect_sequence,
    expect_tuple,
)
from grader.grading.failures import CHECK_HINT, CheckFailed, Hint, fail
from grader.grading.mistakes import hint_of, is_derived, prepare_in_background
from grader.grading.playground import MAX_INPUTS_BYTES, try_solution
from grader.grading.proxy import Student
from grader.grading.runs import Stop
from grader.grading.symptoms import LABELS
from grader.grading.tolerances import scaled_tolerance

__all__ = [
    "CHECK_HINT", "DEFAULT_ATOL", "DEFAULT_RTOL", "LABELS", "MAX_INPUTS_BYTES", "CheckFailed", "Expectation", "Hint",
    "Stop", "Student", "describe", "expect_array", "expect_dict", "expect_float", "expect_integer", "expect_ints",
    "expect_sequence", "expect_tuple", "fail", "grade", "grade_until_failure", "hint_of", "is_derived",
    "prepare_in_background", "scaled_tolerance", "stopped_result", "try_solution", "values_shown",
]  # fmt: skip
