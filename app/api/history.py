"""Your runs of an exercise, newest first, and stopping a run in progress."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Query, Request
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel, Field

from app.api.exercises import LiveDep, refuse_broken
from app.learners import learner_id
from app.models import Submission, SubmissionStatus, as_utc
from app.services import Services, services
from app.web import ApiError, error_responses

router = APIRouter(tags=["submissions"])
ServicesDep = Annotated[Services, Depends(services)]


class RunSummary(BaseModel):
    id: str
    status: Literal["queued", "running", "pass", "fail", "error"]
    reason: str | None = Field(description="Why it ended as it did (timeout, stopped, …), once finished.")
    created_at: datetime
    finished_at: datetime | None
    points: float | None
    max_points: float | None
    url: str = Field(description="The submission: its code and its result.")
    events_url: str


class RunHistory(BaseModel):
    exercise: str
    submissions: list[RunSummary]


def summary(submission: Submission) -> RunSummary:
    result = submission.result if isinstance(submission.result, dict) else {}
    return RunSummary(
        id=submission.id,
        status=submission.status,
        reason=result.get("reason"),
        created_at=as_utc(submission.created_at),
        finished_at=as_utc(submission.finished_at) if submission.finished_at else None,
        points=result.get("points"),
        max_points=result.get("max_points"),
        url=f"/api/submissions/{submission.id}",
        events_url=f"/api/submissions/{submission.id}/events",
    )


@router.get("/exercises/{slug}/submissions", response_model=RunHistory, responses=error_responses(404, 409))
def run_history(
    slug: str,
    request: Request,
    app: ServicesDep,
    live: LiveDep,
    limit: Annotated[int, Query(ge=1, le=200, description="How many runs, newest first.")] = 50,
) -> RunHistory:
    """Your graded runs of this exercise, newest first (not your tries); the code and result of each at its ``url``."""
    if slug not in app.exercises:
        refuse_broken(live, slug)
        raise ApiError(404, f"There is no exercise {slug!r}.")
    runs = app.submissions.history(learner_id(request), slug, limit)
    return RunHistory(exercise=slug, submissions=[summary(s) for s in runs])


@router.post("/submissions/{submission_id}/stop", response_model=RunSummary, responses=error_responses(404))
async def stop_submission(submission_id: str, request: Request, app: ServicesDep) -> RunSummary:
    """Stop your run at once: its sandbox is killed and its verdict is ``stopped`` (a finished run is left as it is)."""
    submission = await run_in_threadpool(app.submissions.get, learner_id(request), submission_id)
    if submission is None:
        raise ApiError(404, "There is no such submission of yours.")
    if not SubmissionStatus(submission.status).finished and app.stops is not None:
        await run_in_threadpool(app.stops.stop, submission)
        submission = await run_in_threadpool(app.submissions.get, learner_id(request), submission_id)
        assert submission is not None
    return summary(submission)
