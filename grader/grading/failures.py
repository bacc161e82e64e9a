"""How a check fails: :func:`fail`, the exception it raises, and the hint a failure carries."""

from __future__ import annotations

from typing import Any, NoReturn

from grader.grading.symptoms import Symptom


class _CheckHint:
    """The hint left to the check: its own ``hint=``, the default for every failure inside it."""

    def __repr__(self) -> str:
        return "CHECK_HINT"


CHECK_HINT = _CheckHint()
#: A hint id of the exercise's ``[hints]``, ``None`` for none at all, or :data:`CHECK_HINT`.
Hint = str | None | _CheckHint


class CheckFailed(AssertionError):
    """Raised inside a check when the solution's behaviour is wrong.

    ``expected`` and ``got`` are the values compared (``got`` a part of one answer, which tells the
    grader which call the failure is about); ``symptom`` is the kind of difference, when one was
    recognised (:mod:`grader.grading.symptoms`): said in the message, and kept with the run for instructors.
    """

    def __init__(
        self,
        message: str,
        *,
        hint: Hint = CHECK_HINT,
        expected: Any = None,
        got: Any = None,
        symptom: Symptom | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.expected = expected
        self.got = got
        self.symptom = symptom


def fail(message: str, *, hint: Hint = CHECK_HINT, expected: Any = None, got: Any = None) -> NoReturn:
    """Fail the running check with a message for the student.

    ``hint``: a hint id for this failure, ``None`` for no hint, or (left out) the check's own.
    Give one where the cause is certain (a wrong shape, a missing key); for wrong values the
    grader names the mistake itself when the output matches a known one. ``got``: the part of an
    answer that is wrong, so that a public check shows the call that gave it. In a hidden check the
    message is shown as written: it must not carry the check's inputs or expected values (``mlkata
    check`` looks for them).
    """
    raise CheckFailed(message, hint=hint, expected=expected, got=got)
