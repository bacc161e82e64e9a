"""The check-authoring API: everything an exercise's ``checks.py`` imports, from this one module.

A check is a plain function in the trusted process. It receives the student's solution as a
:class:`~grader.proxy.Student` proxy, calls it like ordinary code and fails with :func:`fail` or
one of the ``expect_*`` helpers, which check the kind of value first, then its shape and dtype,
and only then closeness (``np.allclose`` would happily broadcast a ``(1,)`` array or a scalar
against the expected shape); their messages say exactly what differs. Values coming back from a
solution are plain data (see ``runner/wire.py``): exact Python types and plain numpy arrays::

    @check("The worked example from the statement", public=True)
    def worked_example(student: Student) -> None:
        out, cache = student.attend_step(x, empty_cache, params)
        expect_array(out, [1.0, 0.0], what="out")

Checks run in the order they are defined. They are collected from the module by the marker the
decorator leaves on each function, so importing ``checks.py`` registers nothing globally.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn, TypeVar

import numpy as np

from grader.display import describe, show_keys
from grader.proxy import Student

__all__ = [
    "CHECK_HINT", "Check", "CheckFailed", "Hint", "Student", "check", "collect_checks", "describe", "expect_array",
    "expect_dict", "expect_integer", "expect_sequence", "fail",
]  # fmt: skip

CheckFunction = Callable[[Student], None]
F = TypeVar("F", bound=CheckFunction)
_MARKER = "__mlkata_check__"


class _CheckHint:
    """The hint left to the check: its own ``hint=``, the default for every failure inside it."""

    def __repr__(self) -> str:
        return "CHECK_HINT"


CHECK_HINT = _CheckHint()
#: A hint id of the exercise's ``[hints]``, ``None`` for none at all, or :data:`CHECK_HINT`.
Hint = str | None | _CheckHint


@dataclass(frozen=True)
class Check:
    """A check as collected from ``checks.py``."""

    id: str
    title: str
    public: bool
    points: float
    hint: str | None
    function: CheckFunction


class CheckFailed(AssertionError):
    """Raised inside a check when the solution's behaviour is wrong."""

    def __init__(self, message: str, *, hint: Hint = CHECK_HINT, expected: Any = None, got: Any = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.expected = expected
        self.got = got


def check(title: str, *, public: bool = False, points: float = 1, hint: str | None = None) -> Callable[[F], F]:
    """Mark a function as a check.

    ``hint`` names an entry of the exercise's ``[hints]`` table: the default for every failure
    inside the check that does not name its own. When a wrong answer matches one of the
    exercise's known mistakes (its mutants), that mistake's hint is shown instead.
    """

    def mark(function: F) -> F:
        setattr(function, _MARKER, (title, public, points, hint))
        return function

    return mark


def fail(message: str, *, hint: Hint = CHECK_HINT, expected: Any = None, got: Any = None) -> NoReturn:
    """Fail the running check with a message for the student.

    ``hint``: a hint id for this failure, ``None`` for no hint, or (left out) the check's own.
    Give one where the cause is certain (a wrong shape, a missing key); for wrong values the
    grader names the mistake itself when the output matches a known one.
    """
    raise CheckFailed(message, hint=hint, expected=expected, got=got)


def collect_checks(module: types.ModuleType) -> list[Check]:
    """The checks defined in ``module``, in definition order."""
    found: list[Check] = []
    for name, value in vars(module).items():
        marker = getattr(value, _MARKER, None)
        if marker is None or not callable(value):
            continue
        title, public, points, hint = marker
        found.append(Check(id=name, title=title, public=public, points=points, hint=hint, function=value))
    return found


# --------------------------------------------------------------------------- assertions

DEFAULT_RTOL = 1e-6
DEFAULT_ATOL = 1e-9


def expect_sequence(got: Any, length: int, *, what: str, hint: Hint = CHECK_HINT) -> Sequence[Any]:
    """``got`` must be a tuple or list of ``length`` items."""
    if not isinstance(got, (tuple, list)):
        fail(f"{what} should be a tuple of {length} values, got {describe(got)}", hint=hint)
    if len(got) != length:
        fail(f"{what} should hold {length} values, got {len(got)}", hint=hint)
    return got


def expect_dict(got: Any, keys: Sequence[str], *, what: str, hint: Hint = CHECK_HINT) -> dict[str, Any]:
    """``got`` must be a dict with exactly ``keys``."""
    if not isinstance(got, dict):
        fail(f"{what} should be a dict with keys {list(keys)}, got {describe(got)}", hint=hint)
    if len(got) != len(keys) or set(got) != set(keys):
        fail(f"{what} should have the keys {sorted(keys)}, got {show_keys(got, len(got))}", hint=hint)
    return got


def expect_integer(got: Any, expected: int, *, what: str, hint: Hint = CHECK_HINT) -> None:
    """``got`` must be an integer (Python or numpy, not bool or float) equal to ``expected``.

    ``hint`` goes with a value that is not an integer; a wrong integer gets the hint of the known
    mistake it matches, or none.
    """
    if isinstance(got, bool) or not isinstance(got, (int, np.integer)):
        fail(f"{what} should be an integer, got {describe(got)}", hint=hint, expected=expected, got=got)
    if int(got) != expected:
        fail(f"{what}: expected {expected:,}, got {int(got):,}", hint=None, expected=expected, got=got)


def expect_array(
    got: Any,
    expected: Any,
    *,
    what: str,
    rtol: float = DEFAULT_RTOL,
    atol: float = DEFAULT_ATOL,
    hint: Hint = CHECK_HINT,
) -> None:
    """``got`` must be a float array of the expected shape whose values are close to ``expected``.

    ``hint`` goes with a value of the wrong kind, dtype or shape; wrong values get the hint of the
    known mistake they match, or none: a fixed hint for them would be a guess.
    """
    want = np.asarray(expected, dtype=np.float64)
    if not isinstance(got, np.ndarray):
        fail(f"{what} should be a numpy array of shape {want.shape}, got {describe(got)}", hint=hint,
             expected=want, got=got)  # fmt: skip
    if got.dtype.kind not in "fiu":
        fail(f"{what} should hold real numbers, got dtype {got.dtype}", hint=hint, expected=want, got=got)
    if got.shape != want.shape:
        fail(f"{what} should have shape {want.shape}, got shape {got.shape}", hint=hint, expected=want, got=got)
    values = got.astype(np.float64)
    bad_finite = ~np.isfinite(values) & np.isfinite(want)
    if bad_finite.any():
        index = _first(bad_finite)
        fail(
            f"{what} holds {values[index]} at index {index} where {want[index]:.6g} was expected "
            "(inf or nan: an overflow?)",
            hint=None, expected=want, got=got,
        )  # fmt: skip
    close = np.isclose(values, want, rtol=rtol, atol=atol)
    if not close.all():
        index = _first(~close)
        abs_err = np.abs(values - want)
        rel_err = abs_err / np.maximum(np.abs(want), np.finfo(np.float64).tiny)
        fail(
            f"{what} differs from the expected values: first at index {index} "
            f"(expected {want[index]:.6g}, got {values[index]:.6g}); "
            f"{int((~close).sum())} of {close.size} values differ, max absolute error {abs_err.max():.3g}, "
            f"max relative error {rel_err.max():.3g} (tolerance rtol={rtol:g}, atol={atol:g})",
            hint=None, expected=want, got=got,
        )  # fmt: skip


def _first(mask: np.ndarray) -> tuple[int, ...]:
    return tuple(int(i) for i in np.argwhere(mask)[0])
