"""Text forms of values for a student's eyes, at a cost bounded by the length of the text.

Values shown here come back from the sandbox, so they may be built to be expensive: a list of
50,000 references to one array costs minutes in ``repr()``. These helpers walk a value only as far
as the text they produce, so rendering costs the same whatever sits beyond the cut, and mark the cut
with "… N more".
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import islice
from typing import Any

import numpy as np

#: Longest form of one value in a check's details (call, expected, got).
VALUE_CHARS = 600
#: Significant digits of an array's floats: enough that a value like 1e-6 is not shown as 0 (numpy then
#: writes the whole array in scientific notation) and that values close enough to look alike mostly are.
_DIGITS = 6
_SEPARATOR = ", "


#: Room kept for the "… N more" marks and closing brackets once the budget is spent.
_RESERVE = 40


class _Text:
    """Parts of a text being built, and how much room is left for values (marks always fit)."""

    def __init__(self, limit: int) -> None:
        self.parts: list[str] = []
        self.room = max(limit - _RESERVE, limit // 2)

    @property
    def full(self) -> bool:
        return self.room <= 0

    def add(self, text: str) -> None:
        # Every part is short by construction (strings are cut before, arrays summarised), so a part
        # may overrun the room a little; the whole is cut to the limit at the end.
        self.parts.append(text)
        self.room -= len(text)

    def text(self, limit: int) -> str:
        joined = "".join(self.parts)
        return joined if len(joined) <= limit else joined[: limit - 1] + "…"


def show_value(value: Any, limit: int = VALUE_CHARS) -> str:
    """A compact form of a plain value (as the wire delivers them), at most ``limit`` characters."""
    out = _Text(limit)
    _render(value, out)
    return out.text(limit)


def show_keys(keys: Iterable[str | int], count: int, shown: int = 12) -> str:
    """The keys of a dict as a list, sorted when there are few (numbers first), else the first ``shown`` and a count."""
    if count <= shown:
        return show_value(sorted(keys, key=lambda key: (type(key) is str, key)))
    first = [show_value(key, 60) for key in islice(keys, shown)]
    return f"[{', '.join(first)}, … {count - shown:,} more]"


def describe_kind(value: Any, *, with_value: bool = True) -> str:
    """A short description of a value's kind (and, ``with_value``, a scalar's value), for messages.

    Without the value it says only the kind, shape, dtype or length: what a hidden check may say.
    """
    if isinstance(value, np.ndarray):
        return f"a numpy array of shape {value.shape} and dtype {value.dtype}"
    if isinstance(value, np.generic):
        return f"a numpy {value.dtype} scalar"
    if value is None:
        return "None"
    name = "bytes object" if type(value) is bytes else type(value).__name__
    article = "an" if name[:1].lower() in "aeiou" else "a"
    if isinstance(value, (list, tuple, dict, str, bytes)):
        return f"{article} {name} of length {len(value):,}"
    return f"{article} {name} ({show_value(value, 80)})" if with_value else f"{article} {name}"


def _render(value: Any, out: _Text) -> None:
    kind = type(value)
    if kind is list:
        _render_items(value, len(value), "[", "]", out)
    elif kind is tuple:
        _render_items(value, len(value), "(", ",)" if len(value) == 1 else ")", out)
    elif kind is dict:
        _render_items(value.items(), len(value), "{", "}", out, pairs=True)
    elif kind is np.ndarray:
        out.add(_array_text(value))
    elif kind is str:
        shown = value[: max(out.room, 8)]
        out.add(repr(shown) if len(shown) == len(value) else repr(shown)[:-1] + f"… ({len(value):,} characters)'")
    elif kind is bytes:
        shown = value[: max(out.room, 8)]
        out.add(repr(shown) if len(shown) == len(value) else repr(shown)[:-1] + f"… ({len(value):,} bytes)'")
    elif kind is int and value.bit_length() > 256:
        out.add(f"<an integer of about {int(value.bit_length() * 0.30103):,} digits>")
    else:
        with np.printoptions(precision=_DIGITS, suppress=False):
            out.add(repr(value))


def _array_text(array: np.ndarray) -> str:
    """numpy's own form while it is short; past that, the shape, dtype and first values."""
    with np.printoptions(precision=_DIGITS, threshold=24, edgeitems=3, suppress=False, linewidth=100):
        if array.size <= 24 or array.ndim <= 2:
            # Summarised past ``threshold`` from the edges alone: at most 6 × 6 values are formatted.
            return repr(array)
        first = np.array2string(array.reshape(-1)[:6], separator=", ")
        return f"array(shape={array.shape}, dtype={array.dtype}, first values {first[:-1]}, …])"


def _render_items(
    items: Iterable[Any], count: int, opening: str, closing: str, out: _Text, *, pairs: bool = False
) -> None:
    """The items of a container (``pairs``: a dict's items) until the room is spent, then how many are left."""
    out.add(opening)
    for n, item in enumerate(items):
        if out.full:
            out.add(f"… {count - n:,} more")
            break
        if n:
            out.add(_SEPARATOR)
        if pairs:
            key, item = item
            _render(key, out)
            out.add(": ")
        _render(item, out)
    out.add(closing)
