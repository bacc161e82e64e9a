"""The ``expect_*`` helpers: compare a part of an answer with what was expected, and say what differs.

Each checks the kind of value first, then its shape and dtype, and only then closeness
(``np.allclose`` would happily broadcast a ``(1,)`` array or a scalar against the expected shape).
A public check's message shows both values with enough digits to tell them apart; a hidden
check's says only what kind of difference it is. Both add the symptom, when one explains every
value (:mod:`grader.grading.symptoms`: a constant factor, a transpose, float32 round-off, …).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from grader.grading import symptoms
from grader.grading.checking import values_shown
from grader.grading.failures import CHECK_HINT, Hint, fail
from grader.grading.tolerances import DEFAULT_ATOL, DEFAULT_RTOL
from grader.grading.wrong_values import fail_values, symptom_of
from grader.results import describe_kind, show_keys

log = logging.getLogger(__name__)

#: One item's expectation for :func:`expect_tuple`: called with the item, it fails as ``expect_*`` do.
Expectation = Callable[[Any], object]


def describe(value: Any) -> str:
    """A short description of a value's kind, for messages: in a public check a scalar's value too."""
    return describe_kind(value, with_value=values_shown())


def expect_sequence(got: Any, length: int, *, what: str, hint: Hint = CHECK_HINT) -> Sequence[Any]:
    """``got`` must be a tuple or list of ``length`` items."""
    if not isinstance(got, (tuple, list)):
        fail(f"{what} should be a tuple of {length} values, got {describe(got)}", hint=hint, got=got)
    if len(got) != length:
        fail(f"{what} should hold {length} values, got {len(got)}", hint=hint, got=got)
    return got


def expect_dict(got: Any, keys: Sequence[str], *, what: str, hint: Hint = CHECK_HINT) -> dict[str, Any]:
    """``got`` must be a dict with exactly ``keys``."""
    if not isinstance(got, dict):
        fail(f"{what} should be a dict with keys {list(keys)}, got {describe(got)}", hint=hint, got=got)
    if len(got) != len(keys) or set(got) != set(keys):
        # The keys are the solution's own text: a hidden check does not echo them.
        found = show_keys(got, len(got)) if values_shown() else f"{len(got):,} other key{'s' if len(got) != 1 else ''}"
        fail(f"{what} should have the keys {sorted(keys)}, got {found}", hint=hint, got=got)
    return got


def expect_integer(got: Any, expected: int, *, what: str, hint: Hint = CHECK_HINT) -> None:
    """``got`` must be an integer (Python or numpy, not bool or float) equal to ``expected``.

    ``hint`` goes with a value that is not an integer; a wrong integer gets the hint of the known
    mistake it matches, or none.
    """
    if isinstance(got, bool) or not isinstance(got, (int, np.integer)):
        fail(f"{what} should be an integer, got {describe(got)}", hint=hint, expected=expected, got=got)
    if int(got) == expected:
        return
    found = symptom_of(expected, int(got), got)
    if values_shown():
        message = f"{what}: expected {expected:,}, got {int(got):,}"
    else:
        message = f"{what} is not the expected integer"
    fail_values(message, found, expected, got)


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
        shown = f" where {symptoms.shown_apart(want, value)[0]} was expected" if values_shown() else ""
        fail_values(f"{what} is {value}{shown} (inf or nan: an overflow, or 0/0?)", None, expected, got)
    found = symptom_of(want, value, got)
    if values_shown():
        want_text, got_text = symptoms.shown_apart(want, value)
        error = abs(value - want)
        relative = f", relative error {error / abs(want):.3g}" if want != 0 else ""
        message = (
            f"{what}: expected {want_text}, got {got_text} (absolute error {error:.3g}{relative}; "
            f"tolerance rtol={rtol:g}, atol={atol:g})"
        )
    else:
        message = f"{what} is not the expected value"
    fail_values(_with_size(message, want, value), found, expected, got)


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
        if values_shown():
            expected_text = symptoms.shown_apart(complex(want[index]).real, 0.0)[0]
            message = f"{what} holds {values[index]} at index {index} where {expected_text} was expected"
        else:
            message = f"{what} holds inf or nan at index {index} where a finite value was expected"
        fail_values(f"{message} (inf or nan: an overflow, or 0/0?)", None, want, got)
    close = np.isclose(values, want, rtol=rtol, atol=atol)
    if close.all():
        return
    lost_infinity = ~np.isfinite(want) & ~np.isnan(want) & ~close
    if lost_infinity.any():
        index = _first(lost_infinity)
        if values_shown():
            message = f"{what} holds {values[index]} at index {index} where {want[index]} was expected"
        else:
            message = f"{what} holds another value at index {index} where an infinity was expected"
        fail_values(message, None, want, got)
    found = symptom_of(want, values, got)
    index = _first(~close)
    count = f"{int((~close).sum())} of {close.size} values differ"
    if values_shown():
        want_text, got_text = _apart(want[index], values[index])
        abs_err = np.abs(values - want)
        message = (
            f"{what} differs from the expected values: first at index {index} (expected {want_text}, "
            f"got {got_text}); {count}, max absolute error {_largest(abs_err):.3g}"
            f"{_relative_error(abs_err, want, 'max relative error')} (tolerance rtol={rtol:g}, atol={atol:g})"
        )
    else:
        message = f"{what} differs from the expected values: {count}"
    fail_values(_with_size(message, want, values), found, want, got)


def _expect_equal(got: np.ndarray, want: np.ndarray, what: str) -> None:
    """The values of ``got`` must equal ``want``'s exactly (nan equal to nan); shapes already agree."""
    with np.errstate(invalid="ignore"):
        same = np.asarray(got == want)
        if got.dtype.kind in "fc" and want.dtype.kind in "fc":
            same = same | (np.isnan(got) & np.isnan(want))
    if same.all():
        return
    found = symptom_of(want, got, got)
    index = _first(~same)
    count = f"{int((~same).sum())} of {same.size} values differ (compared exactly)"
    if values_shown():
        message = (
            f"{what} differs from the expected values: first at index {index} (expected {want[index]!r}, "
            f"got {got[index]!r}); {count}"
        )
    else:
        message = f"{what} differs from the expected values: {count}"
    fail_values(message, found, want, got)


def _first(mask: np.ndarray) -> tuple[int, ...]:
    return tuple(int(i) for i in np.argwhere(mask)[0])


def _apart(want: Any, got: Any) -> tuple[str, str]:
    """Two array items as text, with digits enough to differ (complex and integer items as they are)."""
    if isinstance(want, (complex, np.complexfloating)) or isinstance(got, (complex, np.complexfloating)):
        return f"{complex(want):.6g}", f"{complex(got):.6g}"
    return symptoms.shown_apart(float(want), float(got))


def _with_size(message: str, want: Any, got: Any) -> str:
    """``message`` and, when the difference is round-off sized, what that size suggests."""
    try:
        words = symptoms.error_in_words(want, got)
    except Exception:
        log.exception("sizing an error failed")
        return message
    return f"{message}; {words}" if words else message
