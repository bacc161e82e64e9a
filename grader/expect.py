"""Assertions for checks, with messages that tell a student what exactly differs.

Values coming back from a solution are plain data (see ``runner/wire.py``): exact Python types
and plain numpy arrays. Each helper checks the kind of value first, then the shape and dtype, and
only then closeness, because ``np.allclose`` would happily broadcast a ``(1,)`` array or a scalar
against the expected shape.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from grader.checks import fail
from grader.display import describe, show_keys

__all__ = ["describe", "expect_array", "expect_dict", "expect_integer", "expect_sequence"]

DEFAULT_RTOL = 1e-6
DEFAULT_ATOL = 1e-9


def expect_sequence(got: Any, length: int, *, what: str, hint: str | None = None) -> Sequence[Any]:
    """``got`` must be a tuple or list of ``length`` items."""
    if not isinstance(got, (tuple, list)):
        fail(f"{what} should be a tuple of {length} values, got {describe(got)}", hint=hint)
    if len(got) != length:
        fail(f"{what} should hold {length} values, got {len(got)}", hint=hint)
    return got


def expect_dict(got: Any, keys: Sequence[str], *, what: str, hint: str | None = None) -> dict[str, Any]:
    """``got`` must be a dict with exactly ``keys``."""
    if not isinstance(got, dict):
        fail(f"{what} should be a dict with keys {list(keys)}, got {describe(got)}", hint=hint)
    if len(got) != len(keys) or set(got) != set(keys):
        fail(f"{what} should have the keys {sorted(keys)}, got {show_keys(got, len(got))}", hint=hint)
    return got


def expect_integer(got: Any, expected: int, *, what: str, hint: str | None = None) -> None:
    """``got`` must be an integer (Python or numpy, not bool or float) equal to ``expected``."""
    if isinstance(got, bool) or not isinstance(got, (int, np.integer)):
        fail(f"{what} should be an integer, got {describe(got)}", hint=hint, expected=expected, got=got)
    if int(got) != expected:
        fail(f"{what}: expected {expected:,}, got {int(got):,}", hint=hint, expected=expected, got=got)


def expect_array(
    got: Any,
    expected: Any,
    *,
    what: str,
    rtol: float = DEFAULT_RTOL,
    atol: float = DEFAULT_ATOL,
    hint: str | None = None,
) -> None:
    """``got`` must be a float array of the expected shape whose values are close to ``expected``."""
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
            hint=hint, expected=want, got=got,
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
            hint=hint, expected=want, got=got,
        )  # fmt: skip


def _first(mask: np.ndarray) -> tuple[int, ...]:
    return tuple(int(i) for i in np.argwhere(mask)[0])
