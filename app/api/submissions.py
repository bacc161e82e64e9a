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

from app.api.bodies import max_code_bytes, read_payload, require_json, text_field
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
    require_json(request)
    max_bytes = max_code_bytes(app.settings, exercise)
    payload = await read_payload(request, max_bytes + (_MAX_INPUTS_BYTES if kind is SubmissionKind.TRY else 0))
    code = text_field(payload, "code", "solution.py", max_bytes)
    inputs = text_field(payload, "inputs", "Your inputs", _MAX_INPUTS_BYTES) if kind is SubmissionKind.TRY else None
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
