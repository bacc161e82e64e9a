"""``/api/courses``: your courses, and a course's gradebook for the instructor (JSON or CSV).

Signed in by the session cookie or by a token from ``mlkata user token`` (``Authorization: Bearer``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query, Request

from app.accounts.pages import require_account
from app.courses.courses import may_teach
from app.courses.dashboard import matrix
from app.courses.gradebook import gradebook, gradebook_csv
from app.courses.pages import CoursesDep
from app.courses.runs import load_runs
from app.courses.staff import csv_response
from app.services import Services, services
from app.web import error_responses

router = APIRouter(prefix="/api", tags=["courses"])
ServicesDep = Annotated[Services, Depends(services)]


@router.get("/courses", responses=error_responses(401))
def list_courses(request: Request, catalog: CoursesDep) -> list[dict[str, Any]]:
    """The courses you are in and the ones you teach, with their exercises and due dates."""
    account = require_account(request)
    found = {c.id: c for c in catalog.enrolled_in(account)} | {c.id: c for c in catalog.taught_by(account)}
    return [
        {
            "id": c.id,
            "title": c.title,
            "teaching": may_teach(account, c),
            "exercises": [{"slug": i.slug, "due_at": i.due_at.isoformat() if i.due_at else None} for i in c.items],
        }
        for c in found.values()
    ]


@router.get("/courses/{course_id}/gradebook", responses=error_responses(401, 404))
def get_gradebook(
    course_id: str,
    request: Request,
    app: ServicesDep,
    catalog: CoursesDep,
    output: Annotated[
        Literal["json", "csv"], Query(alias="format", description="json, or csv as the page's.")
    ] = "json",
) -> Any:
    """A course's gradebook: per student and exercise the best points, solved, late and attempts (instructors)."""
    course = catalog.staff_course(require_account(request), course_id)
    students = catalog.students(course.id)
    grid = matrix(course, students, load_runs(app.sessions, [s.learner_id for s in students], course.slugs))
    book = gradebook(course, grid, app.exercises)
    if output == "csv":
        return csv_response(course, gradebook_csv(book))
    return book
