"""Reading a request's JSON body strictly: its media type, its encoding, its numbers and each text field's size.

Each refusal says exactly what is wrong (a 415 or a 422 naming the field), so a client learns
what to fix and nothing it sent is taken for something else.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import Request

from app.settings import Settings
from app.web import ApiError
from grader.exercise import Exercise

# JSON escapes can make a body up to six times its text (\uXXXX); past this, do not even read it.
_BODY_FACTOR = 6
# int() of a long digit string takes quadratic time (and refuses more than 4,300 digits); no number
# in a submission means anything, so none needs more digits than this.
_MAX_NUMBER_DIGITS = 100


def require_json(request: Request) -> None:
    """Refuse any body not declared JSON in UTF-8, with 415.

    An HTML form on any site can post text/plain, urlencoded or multipart bodies with the learner's
    cookie and without asking first; a JSON body needs a CORS preflight, which this server never grants.
    """
    declared = request.headers.getlist("content-type")
    if len(declared) == 1 and _is_utf8_json(declared[0]):
        return
    shown = f" (this request says {declared[0][:60]!r})" if declared else ""
    raise ApiError(415, f"Send the code as JSON, with Content-Type: application/json (UTF-8){shown}.")


def _is_utf8_json(content_type: str) -> bool:
    """``application/json``, with no parameter but an optional ``charset=utf-8``."""
    media_type, *parameters = (part.strip() for part in content_type.split(";"))
    if media_type.lower() != "application/json":
        return False
    for parameter in parameters:
        name, _, value = parameter.partition("=")
        if name.strip().lower() != "charset" or value.strip().strip('"').lower() != "utf-8":
            return False
    return True


class _NumberTooLong(Exception):
    def __init__(self, digits: int) -> None:
        super().__init__(f"a number of {digits} digits")
        self.digits = digits


def _bounded_int(literal: str) -> int:
    digits = len(literal.lstrip("-"))
    if digits > _MAX_NUMBER_DIGITS:
        raise _NumberTooLong(digits)
    return int(literal)


def _parse_json(text: str) -> Any:
    """The JSON value of ``text``; anything the parser cannot take is a 422 that says why."""
    try:
        return json.loads(text, parse_int=_bounded_int)
    except json.JSONDecodeError as exc:
        raise ApiError(
            422, f"The request is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})."
        ) from None
    except _NumberTooLong as exc:
        raise ApiError(422, f"The request holds a number with {exc.digits} digits; none may have more than "
                       f"{_MAX_NUMBER_DIGITS}.") from None  # fmt: skip
    except RecursionError:  # the C parser refuses cleanly past the recursion limit (about 1,000 levels)
        raise ApiError(422, "The request's JSON is nested too deeply to read.") from None
    except ValueError:
        raise ApiError(422, "The request is not JSON this server can read.") from None


def max_code_bytes(settings: Settings, exercise: Exercise) -> int:
    """The largest solution.py the exercise takes: the server's limit or the exercise's, whichever is smaller."""
    return min(settings.max_code_kb, exercise.limits.source_kb) * 1024


async def read_payload(request: Request, max_bytes: int) -> dict[str, Any]:
    """The JSON object of a submission's body, checked here so each problem gets a clear message and status."""
    payload = await _read_json(request, max_bytes, "solution.py")
    if not isinstance(payload, dict) or not isinstance(payload.get("code"), str):
        raise ApiError(422, 'The request must be a JSON object with the text of solution.py in "code".')
    return payload


async def read_object(request: Request, max_bytes: int, what: str) -> dict[str, Any]:
    """The JSON object of a body carrying a text (``what``) of at most ``max_bytes``."""
    payload = await _read_json(request, max_bytes, what)
    if not isinstance(payload, dict):
        raise ApiError(422, "The request must be a JSON object.")
    return payload


async def _read_json(request: Request, max_bytes: int, what: str) -> Any:
    limit = max_bytes * _BODY_FACTOR + 1024
    declared = request.headers.get("content-length", "")
    too_large = f"{what} is larger than the limit of {max_bytes // 1024} KiB."
    if declared.isdigit() and int(declared) > limit:
        raise ApiError(413, too_large)
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise ApiError(413, too_large)
    try:
        text = bytes(body).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ApiError(
            422, f"The request is not valid UTF-8 (byte 0x{body[exc.start]:02x} at offset {exc.start})."
        ) from None
    return _parse_json(text)


def text_field(payload: dict[str, Any], field: str, what: str, max_bytes: int) -> str:
    """A text field of the body: a string, valid UTF-8, without NUL bytes, within ``max_bytes``."""
    text = payload.get(field)
    if not isinstance(text, str):
        raise ApiError(422, f'The request must hold {what.lower()} as a string in "{field}".')
    try:
        encoded = text.encode("utf-8")
    except UnicodeEncodeError as exc:  # a lone surrogate such as "\ud800" in the JSON
        line = text[: exc.start].count("\n") + 1
        raise ApiError(422, f"{what} is not valid UTF-8: it has a lone surrogate on line {line}.") from None
    if len(encoded) > max_bytes:
        raise ApiError(413, f"{what} is {len(encoded) / 1024:.0f} KiB; the limit is {max_bytes // 1024} KiB.")
    if "\x00" in text:
        line = text[: text.index("\x00")].count("\n") + 1
        raise ApiError(422, f"{what} contains a NUL byte on line {line}.")
    return text
