"""Your drafts of an exercise: read them, and save one as you type (last writer wins)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Depends, Query, Request, Response
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel, Field

from app.api.bodies import max_code_bytes, read_object, require_json, text_field
from app.api.exercises import LiveDep, refuse_broken
from app.curriculum import LiveExercises
from app.drafts import DraftField, Drafts, DraftText, TooManyDrafts, drafts, owner_key
from app.learners import client_key, learner_id
from app.services import Services, services
from app.web import ApiError, error_responses
from grader.exercise import Exercise
from grader.grading import MAX_INPUTS_BYTES

router = APIRouter(tags=["drafts"])
ServicesDep = Annotated[Services, Depends(services)]
DraftsDep = Annotated[Drafts, Depends(drafts)]
#: A page's drafts are its learner's own, never to be kept by a browser or a proxy.
_PRIVATE = {"Cache-Control": "no-store"}
_OWNER = (
    "The learner a page was opened for (its page data's drafts.owner): given, a request for another learner — "
    "this browser signed in or out since — is refused with 409 instead."
)


class DraftView(BaseModel):
    text: str
    revision: int = Field(description="How many times it was saved; send it back as `base` with the next save.")
    saved_at: datetime


class ExerciseDrafts(BaseModel):
    exercise: str
    code: DraftView | None = Field(description="Your solution.py as you last typed it; null if never saved.")
    inputs: DraftView | None = Field(description="Your Try it inputs as you last typed them; null if never saved.")


class DraftSave(BaseModel):
    text: str = Field(description="The whole text: solution.py (as a submission's code) or the inputs (16 KiB).")
    base: int = Field(0, ge=0, description="The revision this text was typed on (0: none was saved yet).")
    owner: str | None = Field(None, description=_OWNER)


class DraftSaved(BaseModel):
    revision: int
    saved_at: datetime
    replaced: DraftView | None = Field(
        description="What this save replaced when that was saved after `base` (in another tab or on another "
        "device): the save counts all the same, last writer wins."
    )


def _view(draft: DraftText | None) -> DraftView | None:
    return None if draft is None else DraftView(text=draft.text, revision=draft.revision, saved_at=draft.saved_at)


def _exercise(app: Services, live: LiveExercises | None, slug: str) -> Exercise:
    exercise = app.exercises.get(slug)
    if exercise is None:
        refuse_broken(live, slug)
        raise ApiError(404, f"There is no exercise {slug!r}.")
    return exercise


def _check_owner(request: Request, owner: str | None) -> str:
    learner = learner_id(request)
    if owner is not None and owner != owner_key(learner):
        raise ApiError(409, "You signed in or out in another tab since this page was opened: reload the page to "
                       "work on your own drafts.")  # fmt: skip
    return learner


@router.get("/exercises/{slug}/drafts", response_model=ExerciseDrafts, responses=error_responses(404, 409))
def read_drafts(
    slug: str,
    request: Request,
    response: Response,
    app: ServicesDep,
    live: LiveDep,
    store: DraftsDep,
    owner: Annotated[str | None, Query(max_length=64, description=_OWNER)] = None,
) -> ExerciseDrafts:
    """Your drafts of this exercise: its code and your Try it inputs, as last saved from any browser."""
    _exercise(app, live, slug)
    found = store.read(_check_owner(request, owner), slug)
    response.headers.update(_PRIVATE)
    return ExerciseDrafts(
        exercise=slug, code=_view(found.get(DraftField.CODE)), inputs=_view(found.get(DraftField.INPUTS))
    )


@router.put(
    "/exercises/{slug}/drafts/{field}",
    response_model=DraftSaved,
    responses=error_responses(404, 409, 413, 415, 422, 429),
    openapi_extra={
        "requestBody": {"required": True, "content": {"application/json": {"schema": DraftSave.model_json_schema()}}}
    },
)
async def save_draft(
    slug: str, field: DraftField, request: Request, response: Response, app: ServicesDep, live: LiveDep,
    store: DraftsDep,
) -> DraftSaved:  # fmt: skip
    """Save the draft of the code or of the Try it inputs, whatever was saved since ``base``: last writer wins.

    When another tab or device saved after ``base``, ``replaced`` is what this save replaced. 429 with
    ``Retry-After`` when your address started too many new drafts this hour.
    """
    exercise = _exercise(app, live, slug)
    require_json(request)
    if field is DraftField.CODE:
        what, max_bytes = "solution.py", max_code_bytes(app.settings, exercise)
    else:
        what, max_bytes = "Your inputs", MAX_INPUTS_BYTES
    payload = await read_object(request, max_bytes, what)
    text = text_field(payload, "text", what, max_bytes)
    base, owner = payload.get("base", 0), payload.get("owner")
    if not isinstance(base, int) or isinstance(base, bool) or base < 0:
        raise ApiError(422, 'The request\'s "base" must be the revision the text was typed on: 0 or more.')
    if owner is not None and not isinstance(owner, str):
        raise ApiError(422, "The request's \"owner\" must be a string (the page's drafts.owner).")
    learner = _check_owner(request, owner)
    try:
        saved = await run_in_threadpool(
            store.save, learner, slug, field, text, base=base, client_key=client_key(request)
        )
    except TooManyDrafts as limited:
        minutes = max(1, round(limited.retry_after / 60))
        raise ApiError(429, f"Too many new drafts were saved from your address: wait {minutes} min.",
                       headers={"Retry-After": str(limited.retry_after)}) from None  # fmt: skip
    response.headers.update(_PRIVATE)
    return DraftSaved(revision=saved.revision, saved_at=saved.saved_at, replaced=_view(saved.replaced))
