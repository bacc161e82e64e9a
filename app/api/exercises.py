"""``/api/exercises``: the public description of each exercise."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query, Request
from pydantic import BaseModel, Field

from app.curriculum import (
    ExerciseDetail,
    ExerciseSummary,
    LiveExercises,
    detail,
    hint_access,
    in_order,
    live_exercises,
    loading_error,
    summary,
)
from app.learners import learner_id
from app.services import Services, services
from app.web import ApiError, error_responses

router = APIRouter(tags=["exercises"])
ServicesDep = Annotated[Services, Depends(services)]
LiveDep = Annotated[LiveExercises | None, Depends(live_exercises)]


@router.get("/exercises", response_model=list[ExerciseSummary])
def list_exercises(request: Request, app: ServicesDep) -> list[ExerciseSummary]:
    """Every exercise that loads, in roadmap order, with whether you solved it."""
    solved = app.submissions.solved(learner_id(request))
    return [summary(e, e.slug in solved) for e in in_order(list(app.exercises.values()))]


@router.get("/exercises/{slug}", response_model=ExerciseDetail, responses=error_responses(404, 409))
def get_exercise(slug: str, request: Request, app: ServicesDep, live: LiveDep) -> ExerciseDetail:
    """One exercise: statement, starter code, functions to write, limits and check titles.

    409 for an exercise that does not load, with its problems.
    """
    exercise = app.exercises.get(slug)
    if exercise is None:
        refuse_broken(live, slug)
        raise ApiError(404, f"There is no exercise {slug!r}.")
    return detail(exercise, app.submissions.solved(learner_id(request)), list(app.exercises.values()))


class HintLevel(BaseModel):
    hint_id: str
    level: int = Field(description="1-based: 1 is what a failed run shows.")
    levels: int = Field(description="How many levels the hint has.")
    kind: str = Field(description="concept, formula or code for a table's levels; hint or level N otherwise.")
    text: str
    open_levels: int = Field(description="How many levels you may read now.")
    runs_until_next: int | None = Field(
        description="Failed runs that give this hint still needed before the level after this one opens: 0 when it "
        "is open, null when this is the last."
    )
    next_opens: str | None = Field(
        description="When the level after this one opens, in words (what a 403 for it says); null unless it is closed."
    )


class ReferenceSolution(BaseModel):
    exercise: str
    code: str


@router.get("/exercises/{slug}/hints/{hint_id}", response_model=HintLevel, responses=error_responses(403, 404, 422))
def get_hint(
    slug: str,
    hint_id: str,
    request: Request,
    app: ServicesDep,
    level: Annotated[int, Query(ge=1, le=20, description="Which level, from 1.")] = 1,
) -> HintLevel:
    """One level of one of the exercise's hints, for a student who asks for more help than a run gave.

    Level n opens after n failed runs of the exercise that gave this hint (the first is what such a
    run shows); every level once you solved the exercise. 403 for a level not open yet, saying when it opens.
    """
    exercise = app.exercises.get(slug)
    if exercise is None:
        raise ApiError(404, f"There is no exercise {slug!r}.")
    levels = exercise.hint_levels(hint_id)
    if not levels:
        raise ApiError(404, f"The exercise {slug!r} has no hint {hint_id[:60]!r}.")
    if level > len(levels):
        raise ApiError(404, f"The hint {hint_id!r} has {len(levels)} level{'s' if len(levels) != 1 else ''}.")
    learner = learner_id(request)
    solved = slug in app.submissions.solved(learner)
    access = hint_access(app.sessions, learner, slug, hint_id, levels=len(levels), solved=solved)
    if level > access.open_levels:
        raise ApiError(403, access.refusal(level))
    kind, text = levels[level - 1]
    after = access.runs_until(level + 1) if level < len(levels) else None
    return HintLevel(
        hint_id=hint_id,
        level=level,
        levels=len(levels),
        kind=kind,
        text=text,
        open_levels=access.open_levels,
        runs_until_next=after,
        next_opens=access.refusal(level + 1) if after else None,
    )


@router.get("/exercises/{slug}/reference", response_model=ReferenceSolution, responses=error_responses(403, 404))
def get_reference(slug: str, request: Request, app: ServicesDep) -> ReferenceSolution:
    """The reference solution, for a learner who solved the exercise, where the exercise allows it.

    404 when the exercise does not show it; 403 until you have solved it.
    """
    exercise = app.exercises.get(slug)
    if exercise is None or not exercise.config.show_reference_after_solving:
        raise ApiError(404, f"The exercise {slug!r} does not show its reference solution.")
    if slug not in app.submissions.solved(learner_id(request)):
        raise ApiError(403, "Solve the exercise first: its reference solution is shown once you have.")
    return ReferenceSolution(exercise=slug, code=exercise.reference)


def refuse_broken(live: LiveExercises | None, slug: str) -> None:
    """Raise 409, saying why, if ``slug`` is an exercise that does not load."""
    broken = live.broken.get(slug) if live is not None else None
    if broken is not None:
        raise ApiError(409, loading_error(broken))
