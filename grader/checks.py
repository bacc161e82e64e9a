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

A check may take a second parameter, ``rng``: a :class:`numpy.random.Generator` seeded from the
exercise's slug and the check's id (:func:`check_rng`), the same at every run.

Checks run in the order they are defined. They are collected from the module by the marker the
decorator leaves on each function, so importing ``checks.py`` registers nothing globally.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import types
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn, TypeVar

import numpy as np

from grader import tracebacks
from grader.display import describe, show_keys
from grader.proxy import Student

__all__ = [
    "CHECK_HINT", "Check", "CheckFailed", "Expectation", "Hint", "Student", "check", "check_rng", "collect_checks",
    "describe", "expect_array", "expect_dict", "expect_float", "expect_integer", "expect_sequence", "expect_tuple",
    "fail",
]  # fmt: skip

#: What the grader calls: the check with its generator, if it takes one, already bound.
CheckFunction = Callable[[Student], None]
F = TypeVar("F", bound=Callable[..., None])
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
    #: Whether the check takes a second parameter, the seeded generator ``rng``.
    takes_rng: bool = False


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


def check_rng(slug: str, check_id: str) -> np.random.Generator:
    """The generator a check that takes ``rng`` receives: seeded from the exercise's slug and the check's id.

    A new one for every run of the check, so every run (and every replay of a failure) draws the
    same numbers, whatever ran before; other checks and other exercises draw others.
    """
    digest = hashlib.sha256(f"{slug}/{check_id}".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:16], "big"))


def collect_checks(module: types.ModuleType, *, slug: str = "") -> list[Check]:
    """The checks defined in ``module``, in definition order, each callable with the student alone.

    ``slug`` (the exercise's) seeds the generator of the checks that take ``rng``.
    """
    found: list[Check] = []
    for name, value in vars(module).items():
        marker = getattr(value, _MARKER, None)
        if marker is None or not callable(value):
            continue
        title, public, points, hint = marker
        takes_rng = _positional_parameters(value) >= 2
        function = _calling(value, slug, name, takes_rng)
        found.append(
            Check(id=name, title=title, public=public, points=points, hint=hint, function=function, takes_rng=takes_rng)
        )
    return found


def _positional_parameters(function: Callable[..., Any]) -> int:
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return 1
    return sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in parameters)


def _calling(function: Callable[..., None], slug: str, check_id: str, takes_rng: bool) -> CheckFunction:
    """``function`` as the grader calls it: with its generator, and a bug in it recorded with its traceback."""

    @functools.wraps(function)
    def run(student: Student) -> None:
        try:
            if takes_rng:
                function(student, check_rng(slug, check_id))
            else:
                function(student)
        except CheckFailed:
            raise
        except Exception as exc:
            tracebacks.record(check_id, exc)  # for the author's view (mlkata grade, mlkata check), if it asks
            raise

    return run


# --------------------------------------------------------------------------- assertions

DEFAULT_RTOL = 1e-6
DEFAULT_ATOL = 1e-9
#: One item's expectation for :func:`expect_tuple`: called with the item, it fails as ``expect_*`` do.
Expectation = Callable[[Any], object]


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


def expect_tuple(
    got: Any, expectations: Sequence[Expectation | None], *, what: str, hint: Hint = CHECK_HINT
) -> tuple[Any, ...]:
    """``got`` must be a tuple or list with one item per expectation, each passing its own; returns it as a tuple.

    Each expectation is a callable given its item (a ``lambda``, or a ``functools.partial`` of an
    ``expect_*`` helper), which fails as the helpers do; ``None`` takes the item as it is. The
    form (kind, length) is checked first, with ``hint``; then the items, in order.
    """
    items = expect_sequence(got, len(expectations), what=what, hint=hint)
    for item, expectation in zip(items, expectations, strict=True):
        if expectation is not None:
            expectation(item)
    return tuple(items)


def expect_float(
    got: Any,
    expected: float,
    *,
    what: str,
    rtol: float = DEFAULT_RTOL,
    atol: float = DEFAULT_ATOL,
    hint: Hint = CHECK_HINT,
) -> None:
    """``got`` must be a real floating-point number close to ``expected``.

    A Python float, a numpy floating scalar (``np.float64(…)``, ``np.float32(…)``) or a 0-d numpy
    array of a floating dtype; not an int or a bool (use :func:`expect_integer`), nor an array of
    one value. ``hint`` goes with a value of the wrong kind; a wrong number gets the hint of the
    known mistake it matches, or none. A nan is close only to an expected nan.
    """
    scalar = isinstance(got, (float, np.floating)) or (
        isinstance(got, np.ndarray) and got.shape == () and got.dtype.kind == "f"
    )
    if not scalar:
        fail(f"{what} should be a float, got {describe(got)}", hint=hint, expected=expected, got=got)
    value, want = float(got), float(expected)
    if bool(np.isclose(value, want, rtol=rtol, atol=atol, equal_nan=True)):
        return
    if np.isfinite(want) and not np.isfinite(value):
        fail(f"{what} is {value} where {want:.6g} was expected (inf or nan: an overflow?)", hint=None,
             expected=expected, got=got)  # fmt: skip
    error = np.abs(np.array([value - want]))
    fail(
        f"{what}: expected {want:.6g}, got {value:.6g} (absolute error {error[0]:.3g}"
        f"{_relative_error(error, np.array([want]), 'relative error')}; tolerance rtol={rtol:g}, atol={atol:g})",
        hint=None, expected=expected, got=got,
    )  # fmt: skip


def _largest(errors: np.ndarray) -> float:
    """The largest error that is a number (inf minus inf is not), or nan if none is."""
    numbers = errors[~np.isnan(errors)]
    return float(numbers.max()) if numbers.size else float("nan")


def _relative_error(abs_err: np.ndarray, want: np.ndarray, label: str) -> str:
    """The text ``, <label> X`` over the expected values that are not 0 (relative to 0 means nothing)."""
    nonzero = (want != 0) & np.isfinite(want) & np.isfinite(abs_err)
    if not nonzero.any():
        return ""
    with np.errstate(over="ignore"):  # against a subnormal expected value the ratio is inf, and says so
        return f", {label} {(abs_err[nonzero] / np.abs(want[nonzero])).max():.3g}"


def expect_array(
    got: Any,
    expected: Any,
    *,
    what: str,
    rtol: float = DEFAULT_RTOL,
    atol: float = DEFAULT_ATOL,
    dtype: Any = None,
    exact: bool = False,
    hint: Hint = CHECK_HINT,
) -> None:
    """``got`` must be a numpy array of the expected shape whose values are close to ``expected``.

    Without ``dtype``, any dtype of real numbers (integers or floats) is accepted and compared as
    float64; with ``dtype`` (``np.int8``, ``"float32"``, …) the array must have exactly that one.
    ``exact=True`` compares the values exactly (``np.array_equal``; nan equals nan) instead of with
    ``rtol`` and ``atol``. ``hint`` goes with a value of the wrong kind, dtype or shape; wrong values
    get the hint of the known mistake they match, or none: a fixed hint for them would be a guess.
    """
    required = None if dtype is None else np.dtype(dtype)
    compared_as = np.complex128 if required is not None and required.kind == "c" else np.float64
    want = np.asarray(expected) if exact else np.asarray(expected, dtype=compared_as)
    if not isinstance(got, np.ndarray):
        fail(f"{what} should be a numpy array of shape {want.shape}, got {describe(got)}", hint=hint,
             expected=want, got=got)  # fmt: skip
    if required is not None and got.dtype != required:
        fail(f"{what} should have dtype {required}, got dtype {got.dtype}", hint=hint, expected=want, got=got)
    if required is None and got.dtype.kind not in "fiu":
        fail(f"{what} should hold real numbers, got dtype {got.dtype}", hint=hint, expected=want, got=got)
    if got.shape != want.shape:
        fail(f"{what} should have shape {want.shape}, got shape {got.shape}", hint=hint, expected=want, got=got)
    if exact:
        _expect_equal(got, want, what)
        return
    values = got.astype(want.dtype)
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
        fail(
            f"{what} differs from the expected values: first at index {index} "
            f"(expected {want[index]:.6g}, got {values[index]:.6g}); "
            f"{int((~close).sum())} of {close.size} values differ, max absolute error "
            f"{_largest(abs_err):.3g}{_relative_error(abs_err, want, 'max relative error')} "
            f"(tolerance rtol={rtol:g}, atol={atol:g})",
            hint=None, expected=want, got=got,
        )  # fmt: skip


def _expect_equal(got: np.ndarray, want: np.ndarray, what: str) -> None:
    """The values of ``got`` must equal ``want``'s exactly (nan equal to nan); shapes already agree."""
    with np.errstate(invalid="ignore"):
        same = np.asarray(got == want)
        if got.dtype.kind in "fc" and want.dtype.kind in "fc":
            same = same | (np.isnan(got) & np.isnan(want))
    if same.all():
        return
    index = _first(~same)
    fail(
        f"{what} differs from the expected values: first at index {index} (expected {want[index]!r}, "
        f"got {got[index]!r}); {int((~same).sum())} of {same.size} values differ (compared exactly)",
        hint=None, expected=want, got=got,
    )  # fmt: skip


def _first(mask: np.ndarray) -> tuple[int, ...]:
    return tuple(int(i) for i in np.argwhere(mask)[0])
