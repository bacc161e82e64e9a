"""``/api/exercises``: the public description of each exercise."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request

from app.catalog import ExerciseDetail, ExerciseSummary, detail, in_order, loading_error, summary
from app.errors import ApiError, error_responses
from app.learners import learner_id
from app.reload import LiveExercises, live_exercises
from app.services import Services, services

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


def refuse_broken(live: LiveExercises | None, slug: str) -> None:
    """Raise 409, saying why, if ``slug`` is an exercise that does not load."""
    broken = live.broken.get(slug) if live is not None else None
    if broken is not None:
        raise ApiError(409, loading_error(broken))
