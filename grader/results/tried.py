"""What a try reports ("Try it": the learner's own inputs, graded by nothing): each line's value, described.

The values come back from the sandbox as plain data; their descriptions (type, shape, dtype, a
bounded text) are made here, on the trusted side, from that data, never from anything the sandbox
says about them. A value the wire cannot carry arrives as the solution's own repr of it, marked so.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from grader.results.display import show_value
from grader.results.records import Location, Reason, Status

#: Longest text of one value, its repr included (whatever length the sandbox sent).
VALUE_TEXT_CHARS = 2000


class TriedStatement(BaseModel):
    """One statement of the inputs: where it starts, and its text."""

    model_config = ConfigDict(extra="forbid")

    line: int = Field(description="Where the statement starts in the inputs (1-based).")
    source: str = Field(description="The statement (its first 200 characters).")


class TriedValue(TriedStatement):
    """What one statement of the inputs gave."""

    type: str = Field(description="The value's type, with its parts' for a tuple, list or dict.")
    shape: str | None = Field(None, description="An array's shape, as numpy writes it.")
    dtype: str | None = Field(None, description="An array's or numpy scalar's dtype.")
    text: str = Field(description=f"The value, shortened past {VALUE_TEXT_CHARS:,} characters.")


class TryResult(BaseModel):
    """A whole try."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["try"] = "try"
    exercise: str
    status: Status = Field(description="pass when every line ran, error otherwise.")
    reason: Reason
    message: str | None = None
    location: Location | None = Field(None, description="A syntax error's place in solution.py.")
    values: list[TriedValue] = Field(default_factory=list)
    failed: TriedStatement | None = Field(
        None, description="The statement of the inputs that stopped the try (raised, ran out of a limit…), if one did."
    )
    output: str | None = Field(None, description="What the solution and the inputs printed.")
    output_truncated: bool = False
    duration_ms: float = 0

    def for_student(self) -> TryResult:
        return self

    def to_json_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


def described(line: int, source: str, value: Any, shown_as_text: str | None = None) -> TriedValue:
    """A value as the panel shows it; ``shown_as_text`` is the type of a value that came as its repr."""
    if shown_as_text is not None:
        text = str(value)
        if len(text) > VALUE_TEXT_CHARS:  # the sandbox's own cut is no bound of ours
            text = text[: VALUE_TEXT_CHARS - 1] + "…"
        return TriedValue(line=line, source=source, type=f"{shown_as_text} (shown as its repr)", text=text)
    shape = dtype = None
    if isinstance(value, np.ndarray):
        shape, dtype = str(value.shape), str(value.dtype)
    elif isinstance(value, np.generic):
        dtype = str(value.dtype)
    return TriedValue(
        line=line, source=source, type=type_of(value), shape=shape, dtype=dtype,
        text=show_value(value, VALUE_TEXT_CHARS),
    )  # fmt: skip


def type_of(value: Any, depth: int = 0) -> str:
    """``tuple (ndarray (2,) float64, dict)``: the type, and one level of its parts' types."""
    if isinstance(value, np.ndarray):
        return f"ndarray {value.shape} {value.dtype}" if depth else "ndarray"
    if isinstance(value, tuple | list) and depth == 0 and value:
        parts = ", ".join(type_of(item, 1) for item in value[:6])
        more = f", … {len(value) - 6} more" if len(value) > 6 else ""
        return f"{type(value).__name__} of {len(value)} ({parts}{more})"
    if isinstance(value, dict) and depth == 0 and value:
        keys = ", ".join(show_value(key, 30) for key in list(value)[:6])
        return f"dict of {len(value)} (keys {keys}{', …' if len(value) > 6 else ''})"
    return type(value).__name__
