"""``/api/exercises``: the public description of each exercise."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request

from app.catalog import ExerciseDetail, ExerciseSummary, detail, summary
from app.errors import ApiError, error_responses
from app.learners import learner_id
from app.services import Services, services

router = APIRouter(tags=["exercises"])
ServicesDep = Annotated[Services, Depends(services)]


@router.get("/exercises", response_model=list[ExerciseSummary])
def list_exercises(request: Request, app: ServicesDep) -> list[ExerciseSummary]:
    """Every exercise, in roadmap order, with whether you solved it."""
    solved = app.submissions.solved(learner_id(request))
    return [summary(e, e.slug in solved) for e in app.exercises.values()]


@router.get("/exercises/{slug}", response_model=ExerciseDetail, responses=error_responses(404))
def get_exercise(slug: str, request: Request, app: ServicesDep) -> ExerciseDetail:
    """One exercise: statement, starter code, functions to write, limits and check titles."""
    exercise = app.exercises.get(slug)
    if exercise is None:
        raise ApiError(404, f"There is no exercise {slug!r}.")
    return detail(exercise, slug in app.submissions.solved(learner_id(request)))
