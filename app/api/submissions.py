"""Submitting code, following its grading as server-sent events, and reading the result."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Header, Query, Request, Response
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel, Field
from sse_starlette import EventSourceResponse, ServerSentEvent

from app.api.exercises import LiveDep, refuse_broken
from app.curriculum import LiveExercises
from app.grading import public_view
from app.learners import client_key, learner_id
from app.models import SubmissionKind
from app.queue import QueueFull, TooManyWaiting
from app.services import Services, services
from app.web import ApiError, RateLimited, error_responses
from grader.grading import MAX_INPUTS_BYTES
from grader.results import EventType, GradeResult, to_exercism

router = APIRouter(tags=["submissions"])
ServicesDep = Annotated[Services, Depends(services)]

# JSON escapes can make a body up to six times its text (\uXXXX); past this, do not even read it.
_BODY_FACTOR = 6
# int() of a long digit string takes quadratic time (and refuses more than 4,300 digits); no number
# in a submission means anything, so none needs more digits than this.
_MAX_NUMBER_DIGITS = 100
# Event ids are numbers of an Integer column: none has more digits than this.
_MAX_EVENT_ID_DIGITS = 10
_MAX_INPUTS_BYTES = MAX_INPUTS_BYTES


class SubmissionRequest(BaseModel):
    code: str = Field(description="The text of solution.py (UTF-8, no NUL bytes, at most 64 KiB).")


class TryRequest(BaseModel):
    code: str = Field(description="The text of solution.py, as for a submission.")
    inputs: str = Field(description="Python that calls your functions (at most 16 KiB); each line's value is shown.")


class SubmissionAccepted(BaseModel):
    id: str
    status: Literal["queued"]
    events_url: str
    result_url: str
    stop_url: str


class SubmissionView(BaseModel):
    id: str
    exercise: str
    kind: Literal["grade", "try"] = Field(description="A graded run, or a try on your own inputs (Try it).")
    status: Literal["queued", "running", "pass", "fail", "error"] = Field(
        description="queued or running, then the grader's verdict."
    )
    position: int | None = Field(description="1-based place in the queue while queued.")
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    duration_ms: float | None
    events_url: str
    stop_url: str
    code: str = Field(description="The solution.py that was sent.")
    inputs: str | None = Field(description="A try's inputs.")
    result: dict[str, Any] | None = Field(
        description="Once done, the results contract (as `mlkata grade --json`), or with `format=exercism` "
        "exactly Exercism's test-runner results.json version 3 (as `mlkata grade --format exercism`)."
    )


@router.post(
    "/exercises/{slug}/submissions",
    status_code=202,
    response_model=SubmissionAccepted,
    responses=error_responses(404, 409, 413, 415, 422, 429, 503),
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": SubmissionRequest.model_json_schema()}},
        }
    },
)
async def submit(slug: str, request: Request, app: ServicesDep, live: LiveDep) -> SubmissionAccepted:
    """Queue ``code`` for grading. Follow ``events_url`` for progress; ``result_url`` has the verdict.

    409 for an exercise that does not load (its author is changing it), with its problems. 429 with
    ``Retry-After`` when you, or your address, already have your share of the queue waiting, or sent
    too many runs this minute; 503 when the queue is full.
    """
    return await _accept(slug, request, app, live, SubmissionKind.GRADE)


@router.post(
    "/exercises/{slug}/tries",
    status_code=202,
    response_model=SubmissionAccepted,
    responses=error_responses(404, 409, 413, 415, 422, 429, 503),
    openapi_extra={
        "requestBody": {"required": True, "content": {"application/json": {"schema": TryRequest.model_json_schema()}}}
    },
)
async def try_it(slug: str, request: Request, app: ServicesDep, live: LiveDep) -> SubmissionAccepted:
    """Run ``inputs`` (Python calling your functions) next to ``code`` in the sandbox, graded by nothing.

    Queued and rate-limited as a submission; its events are ``started``, a ``value`` for each line
    that has one (its type, shape, dtype and text), ``output`` and ``done``.
    """
    return await _accept(slug, request, app, live, SubmissionKind.TRY)


async def _accept(
    slug: str, request: Request, app: Services, live: LiveExercises | None, kind: SubmissionKind
) -> SubmissionAccepted:
    exercise = app.exercises.get(slug)
    if exercise is None:
        refuse_broken(live, slug)
        raise ApiError(404, f"There is no exercise {slug!r}.")
    _require_json(request)
    max_bytes = min(app.settings.max_code_kb, exercise.limits.source_kb) * 1024
    payload = await _read_payload(request, max_bytes + (_MAX_INPUTS_BYTES if kind is SubmissionKind.TRY else 0))
    code = _text_field(payload, "code", "solution.py", max_bytes)
    inputs = _text_field(payload, "inputs", "Your inputs", _MAX_INPUTS_BYTES) if kind is SubmissionKind.TRY else None
    try:
        submission = await run_in_threadpool(
            app.submissions.create, learner_id(request), slug, code, client_key=client_key(request), kind=kind,
            inputs=inputs,
        )  # fmt: skip
    except TooManyWaiting as crowded:
        raise ApiError(429, crowded.message, headers={"Retry-After": str(crowded.retry_after)}) from None
    except RateLimited as limited:
        raise ApiError(
            429,
            f"Too many runs: wait {limited.retry_after} s before running again.",
            headers={"Retry-After": str(limited.retry_after)},
        ) from None
    except QueueFull:
        raise ApiError(
            503, "The grader is busy: too many submissions are waiting. Try again in a minute.",
            headers={"Retry-After": "30"},
        ) from None  # fmt: skip
    app.metrics.submissions.inc()
    return SubmissionAccepted(
        id=submission.id,
        status="queued",
        events_url=f"/api/submissions/{submission.id}/events",
        result_url=f"/api/submissions/{submission.id}",
        stop_url=f"/api/submissions/{submission.id}/stop",
    )


def _require_json(request: Request) -> None:
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


async def _read_payload(request: Request, max_bytes: int) -> dict[str, Any]:
    """The JSON object of a body, checked here so each problem gets a clear message and status."""
    limit = max_bytes * _BODY_FACTOR + 1024
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise ApiError(413, f"solution.py is larger than the limit of {max_bytes // 1024} KiB.")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise ApiError(413, f"solution.py is larger than the limit of {max_bytes // 1024} KiB.")
    try:
        text = bytes(body).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ApiError(
            422, f"The request is not valid UTF-8 (byte 0x{body[exc.start]:02x} at offset {exc.start})."
        ) from None
    payload = _parse_json(text)
    if not isinstance(payload, dict) or not isinstance(payload.get("code"), str):
        raise ApiError(422, 'The request must be a JSON object with the text of solution.py in "code".')
    return payload


def _text_field(payload: dict[str, Any], field: str, what: str, max_bytes: int) -> str:
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


@router.get("/submissions/{submission_id}", response_model=SubmissionView, responses=error_responses(404, 422))
def get_submission(
    submission_id: str,
    request: Request,
    app: ServicesDep,
    result_format: Annotated[
        Literal["mlkata", "exercism"],
        Query(
            alias="format",
            description="The form of `result`: mlkata's results contract, or Exercism's results.json version 3.",
        ),
    ] = "mlkata",
) -> SubmissionView:
    """Your submission: its status and, once graded, the results contract (or Exercism's v3 document)."""
    submission = app.submissions.get(learner_id(request), submission_id)
    if submission is None:
        raise ApiError(404, "There is no such submission of yours.")
    view = public_view(submission, app.submissions.position(submission))
    if result_format == "exercism" and view["result"] is not None and submission.kind == SubmissionKind.GRADE.value:
        view["result"] = to_exercism(GradeResult.model_validate(view["result"]))
    return SubmissionView.model_validate(view)


@router.get(
    "/submissions/{submission_id}/events",
    responses={
        204: {"description": "The client has every event already (its Last-Event-ID is the last one)."},
        200: {
            "description": f"Server-sent events: {', '.join(EventType)}.",
            "content": {"text/event-stream": {}},
        },
        **error_responses(400, 404, 422),
    },
)
async def submission_events(
    submission_id: str,
    request: Request,
    app: ServicesDep,
    last_event_id: Annotated[str | None, Header(description="Resume after this event id.")] = None,
    after: Annotated[int | None, Query(ge=0, description="Same as Last-Event-ID, for clients without it.")] = None,
) -> Response:
    """The grading run as it happens. Each event has an increasing id; reconnect with ``Last-Event-ID``."""
    submission = await run_in_threadpool(app.submissions.get, learner_id(request), submission_id)
    if submission is None:
        raise ApiError(404, "There is no such submission of yours.")
    resume = _resume_point(last_event_id, after)

    done = await run_in_threadpool(app.events.done_seq, submission_id)
    if done is not None and resume >= done:
        # Nothing left to tell; 204 is how a server tells EventSource not to reconnect.
        return Response(status_code=204)
    if resume > submission.last_event_seq:
        # No client can have seen it: the stream would wait for it, past the done event, forever.
        raise ApiError(
            400, f"Event {resume} is after the last event ({submission.last_event_seq}): resume from an id "
            "this stream sent.",
        )  # fmt: skip

    async def stream() -> AsyncIterator[ServerSentEvent]:
        async for event in app.events.follow(submission_id, resume):
            yield ServerSentEvent(data=json.dumps(event.data), event=event.type, id=str(event.seq))

    return EventSourceResponse(stream(), ping=15, headers={"Cache-Control": "no-store"})


def _resume_point(last_event_id: str | None, after: int | None) -> int:
    """The event to resume after: the later of ``after`` and Last-Event-ID, which must be an event id."""
    resume = after or 0
    value = (last_event_id or "").strip()
    if not value:
        return resume
    # ASCII digits only: "²".isdigit() is True, yet int() refuses it.
    if not (value.isascii() and value.isdigit() and len(value) <= _MAX_EVENT_ID_DIGITS):
        raise ApiError(400, f"Last-Event-ID must be the id of an event of this stream, not {value[:20]!r}.")
    return max(resume, int(value))
