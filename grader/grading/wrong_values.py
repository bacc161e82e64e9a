"""A wrong answer's failure: the symptom that explains every value, if one does, said beside the message."""

from __future__ import annotations

import logging
from typing import Any, NoReturn

from grader.grading import symptoms
from grader.grading.checking import input_sizes
from grader.grading.failures import CheckFailed

log = logging.getLogger(__name__)


def symptom_of(want: Any, got: Any, answer: Any) -> symptoms.Symptom | None:
    """The symptom that explains every value, if one does (never a guess; never an error of the grader)."""
    try:
        found = symptoms.diagnose(want, got, sizes=input_sizes(answer))
    except Exception:
        log.exception("diagnosing a wrong answer failed")
        return None
    return found  # its sentence carries relationships only: hidden checks say it too


def fail_values(message: str, found: symptoms.Symptom | None, expected: Any, got: Any) -> NoReturn:
    """Fail with wrong values: no fixed hint (the known mistake's, if one matches), the symptom said."""
    if found is not None:
        message = f"{message}\n{found.sentence}"
    raise CheckFailed(message, hint=None, expected=expected, got=got, symptom=found)
