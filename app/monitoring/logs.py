"""Structured logs: one JSON object a line, carrying the submission id being worked on."""

from __future__ import annotations

import contextvars
import json
import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any, Literal

_submission: contextvars.ContextVar[str | None] = contextvars.ContextVar("mlkata_submission", default=None)

# Attributes every LogRecord has; anything else was passed with ``extra=`` and is logged as a field.
_STANDARD = set(logging.makeLogRecord({}).__dict__) | {"message", "asctime", "taskName"}


@contextmanager
def submission_context(submission_id: str) -> Iterator[None]:
    """Every log line of this thread (or task) names ``submission_id`` until the block ends."""
    token = _submission.set(submission_id)
    try:
        yield
    finally:
        _submission.reset(token)


class JsonFormatter(logging.Formatter):
    """``{"time", "level", "logger", "message", "submission_id"?, "exception"?, …extra}``."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        submission_id = getattr(record, "submission_id", None) or _submission.get()
        if submission_id:
            entry["submission_id"] = submission_id
        for key, value in record.__dict__.items():
            if key not in _STANDARD and key not in entry:
                entry[key] = value if isinstance(value, str | int | float | bool | None) else repr(value)
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False)


class _SubmissionText(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        submission_id = getattr(record, "submission_id", None) or _submission.get()
        return f"{line} [submission {submission_id}]" if submission_id else line


def configure_logging(style: Literal["json", "text"], level: int = logging.INFO) -> None:
    """Send every logger (uvicorn's included) to stderr in ``style``."""
    handler = logging.StreamHandler(sys.stderr)
    if style == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(_SubmissionText("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logging.getLogger(name).handlers[:] = []
        logging.getLogger(name).propagate = True
