"""The check-authoring API: everything an exercise's ``checks.py`` imports, from this one module.

A check is a plain function in the trusted process. It receives the student's solution as a
:class:`~grader.grading.proxy.Student` proxy, calls it like ordinary code and fails with :func:`fail` or
one of the ``expect_*`` helpers, which check the kind of value first, then its shape and dtype,
and only then closeness (``np.allclose`` would happily broadcast a ``(1,)`` array or a scalar
against the expected shape); their messages say exactly what differs. Values coming back from a
solution are plain data (see ``runner/wire/``): exact Python types and plain numpy arrays::

    @check("The worked example from the statement", public=True)
    def worked_example(student: Student) -> None:
        out, cache = student.attend_step(x, empty_cache, params)
        expect_array(out, [1.0, 0.0], what="out")

A check may take a second parameter, ``rng``: a :class:`numpy.random.Generator` seeded from the
exercise's slug and the check's id (:func:`check_rng`), the same at every run.

Checks run in the order they are defined. They are collected from the module by the marker the
decorator leaves on each function, so importing ``checks.py`` registers nothing globally.
"""

from __future__ import annotations

from grader.exercise import Check, check, check_rng, collect_checks, compared_as
from grader.grading import (
    CHECK_HINT,
    DEFAULT_ATOL,
    DEFAULT_RTOL,
    CheckFailed,
    Expectation,
    Hint,
    Student,
    describe,
    expect_array,
    expect_dict,
    expect_float,
    expect_integer,
    expect_ints,
    expect_sequence,
    expect_tuple,
    fail,
    scaled_tolerance,
    values_shown,
)

__all__ = [
    "CHECK_HINT", "DEFAULT_ATOL", "DEFAULT_RTOL", "Check", "CheckFailed", "Expectation", "Hint", "Student", "check",
    "check_rng", "collect_checks", "compared_as", "describe", "expect_array", "expect_dict", "expect_float",
    "expect_integer", "expect_ints", "expect_sequence", "expect_tuple", "fail", "scaled_tolerance", "values_shown",
]  # fmt: skip
