"""The traceback of a bug in a check, for the author's view only.

A check that raises (anything but a failure, or the solution's own exception) is a bug in the
exercise: the grade says "The check itself failed (…)" and nothing more, which is all a student
may read. ``mlkata grade`` and ``mlkata check`` also show the author where: they grade inside
:func:`collecting`, and each check records the traceback of what it raised (its own frames, in
``checks.py``). Outside :func:`collecting` (the web app, the workers) nothing is recorded.
"""

from __future__ import annotations

import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

#: Longest traceback kept (a runaway recursion is summarised by the traceback module already).
MAX_CHARS = 20_000

#: The grader's own code: frames in it are the engine calling the check, not the check.
_GRADER = Path(__file__).resolve().parent.parent

_collector: ContextVar[dict[str, str] | None] = ContextVar("mlkata_check_tracebacks", default=None)


@contextmanager
def collecting() -> Iterator[dict[str, str]]:
    """While inside, each check that raises records its traceback here, by the check's id."""
    found: dict[str, str] = {}
    token = _collector.set(found)
    try:
        yield found
    finally:
        _collector.reset(token)


def record(check_id: str, exc: BaseException) -> None:
    """Keep ``exc``'s traceback for ``check_id``, from the check's own frame on, if someone is collecting."""
    found = _collector.get()
    if found is None:
        return
    frames = exc.__traceback__
    while frames is not None and Path(frames.tb_frame.f_code.co_filename).is_relative_to(_GRADER):
        frames = frames.tb_next  # the grader's own frames, down to the check's
    text = "".join(traceback.format_exception(type(exc), exc, frames))
    found[check_id] = text if len(text) <= MAX_CHARS else text[: MAX_CHARS // 2] + "\n…\n" + text[-MAX_CHARS // 2 :]
