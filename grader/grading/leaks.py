"""Whether a hidden check's message shows what it must not: its inputs, expected values or answers.

A hidden check's message is written by the exercise's author (``what=`` labels, ``fail()`` texts);
the ``expect_*`` helpers leave values out of it, but a label such as ``f"kv_cache_bytes{args}"``
puts the inputs back. This looks for them, in two ways:

* a call of one of the solution's functions written out with numbers among its arguments
  (``kv_cache_bytes(32, 8…``; ``rope(x)`` names a call without showing anything);
* a number that is one of the check's values, as written or rounded: any number with a decimal
  point or an exponent, and integers of two digits or more beyond every size (an array's
  dimension, a list's length, the number of calls): up to those they are counts and positions far
  more often than data, and say little either way; so are single digits.

The grader uses it as a safety net (a leaking message is withheld from the student and kept for
instructors) and ``mlkata check`` reports it to the author.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from grader.grading.proxy import Call

_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d[\d,_]*)(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w])")
#: How many values of each array are compared: enough for every value of a check's small inputs.
_VALUES_PER_ARRAY = 100_000


def leaks(message: str, functions: Iterable[str], calls: list[Call], *values: Any) -> list[str]:
    """What in ``message`` shows a value of ``calls`` (arguments and answers) or of ``values``: empty if nothing."""
    written = [name for name in functions if re.search(rf"\b{re.escape(name)}\([^)]*\d", message)]
    found = [f"a call written out: {name}(…)" for name in written]
    tokens = [(text, number) for text, number in _numbers(message)]
    if not tokens:
        return found
    secrets = list(_leaves([c.args for c in calls], [c.value for c in calls], list(values)))
    sizes = _sizes([c.args for c in calls], [c.value for c in calls], list(values)) | {len(calls)}
    for text, number in tokens:
        integral = not any(ch in text for ch in ".eE")
        if integral and (abs(number) < 10 or 0 <= number <= max(sizes)):
            continue  # a count, a position or a size: what a hidden check may say
        tolerance = _half_unit(text)
        if any(_near(secret, number, tolerance) for secret in secrets):
            found.append(f"the value {text}")
    return found


def _numbers(message: str) -> Iterator[tuple[str, float]]:
    for match in _NUMBER.finditer(message):
        text = match.group(0)
        try:
            yield text, float(text.replace(",", "").replace("_", ""))
        except ValueError:
            continue


def _half_unit(text: str) -> float:
    """Half a unit of the last digit written: ``0.1439`` stands for anything in [0.14385, 0.14395]."""
    mantissa, _, exponent = text.lower().replace(",", "").replace("_", "").partition("e")
    decimals = len(mantissa.partition(".")[2])
    return 0.5 * 10.0 ** (-decimals + (int(exponent) if exponent else 0))


def _near(secret: np.ndarray, number: float, tolerance: float) -> bool:
    with np.errstate(invalid="ignore", over="ignore"):
        return bool(np.any(np.abs(secret - number) <= tolerance * (1 + 1e-12)))


def _leaves(*roots: Any) -> Iterator[np.ndarray]:
    """The numbers held by ``roots``, as float64 arrays (scalars as arrays of one)."""
    stack = list(roots)
    while stack:
        value = stack.pop()
        if isinstance(value, np.ndarray):
            if value.dtype.kind in "biuf" and value.size:
                yield value.reshape(-1)[:_VALUES_PER_ARRAY].astype(np.float64)
            elif value.dtype.kind == "c" and value.size:
                flat = value.reshape(-1)[:_VALUES_PER_ARRAY]
                yield np.concatenate([flat.real, flat.imag]).astype(np.float64)
        elif isinstance(value, (bool, np.bool_)):
            continue
        elif isinstance(value, (int, float, np.integer, np.floating)):
            try:
                yield np.array([float(value)])
            except OverflowError:
                continue
        elif isinstance(value, (list, tuple)):
            stack.extend(value)
        elif isinstance(value, dict):
            stack.extend(value.values())


def _sizes(*roots: Any) -> set[int]:
    """Dimensions of the arrays and lengths of the containers in ``roots``: what a message may say."""
    sizes: set[int] = set()
    stack = list(roots)
    while stack:
        value = stack.pop()
        if isinstance(value, np.ndarray):
            sizes.update(int(n) for n in value.shape)
            sizes.add(int(value.size))
        elif isinstance(value, (list, tuple, dict)):
            sizes.add(len(value))
            stack.extend(value.values() if isinstance(value, dict) else value)
    return sizes
