"""The instructor's view of a course: the matrix, each exercise's analytics, a student's runs, one run, the CSV.

Every route here first finds the course as one the signed-in account teaches (its owner, or an
admin); for anyone else it does not exist (404), and nothing about it is read.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, Response
from fastapi.templating import Jinja2Templates
from sqlalchemy import select

from app.accounts.pages import require_account
from app.courses.charts import bar_chart
from app.courses.courses import CourseInfo, Student
from app.courses.dashboard import duration, exercise_stats, matrix
from app.courses.gradebook import gradebook, gradebook_csv
from app.courses.pages import CoursesDep
from app.courses.runs import load_runs
from app.models import Submission, SubmissionEvent
from app.services import Services, services
from app.web import ApiError

ServicesDep = Annotated[Services, Depends(services)]


def csv_response(course: CourseInfo, text: str) -> Response:
    name = re.sub(r"\W+|_", "-", course.title.lower()).strip("-")[:60]
    return Response(
        text,
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": attachment(f"{name or 'course'}-gradebook.csv")},
    )


def attachment(filename: str) -> str:
    """A download's Content-Disposition (RFC 6266) for a name in any script: ``filename*`` is the name in UTF-8
    (RFC 5987), and ``filename`` an ASCII stand-in for clients that read only that (accents dropped, the rest -)."""
    stem, dot, extension = filename.rpartition(".")
    ascii_stem = unicodedata.normalize("NFKD", stem).encode("ascii", "ignore").decode("ascii")
    ascii_stem = re.sub(r"[^A-Za-z0-9]+", "-", ascii_stem).strip("-") or "download"
    fallback = f"{ascii_stem}{dot}{re.sub(r'[^A-Za-z0-9]+', '', extension)}"
    return f"attachment; filename=\"{fallback}\"; filename*=UTF-8''{quote(filename, safe='')}"


def router(templates: Jinja2Templates) -> APIRouter:
    pages = APIRouter(include_in_schema=False, default_response_class=HTMLResponse)

    def page(request: Request, name: str, **context: Any) -> HTMLResponse:
        return templates.TemplateResponse(request, name, {"active": "courses", "duration": duration, **context})

    def staff(request: Request, catalog: CoursesDep, course_id: str) -> tuple[CourseInfo, list[Student]]:
        course = catalog.staff_course(require_account(request), course_id)
        return course, catalog.students(course.id)

    @pages.get("/courses/{course_id}/dashboard")
    def dashboard(course_id: str, request: Request, app: ServicesDep, catalog: CoursesDep) -> Response:
        course, students = staff(request, catalog, course_id)
        grid = matrix(course, students, load_runs(app.sessions, [s.learner_id for s in students], course.slugs))
        titles = {slug: app.exercises[slug].config.title if slug in app.exercises else slug for slug in course.slugs}
        chart = bar_chart(
            "Solved, per exercise",
            "solved",
            [
                (
                    titles[slug],
                    grid.solve_rate(slug),
                    f"{grid.solve_rate(slug):.0%}",
                    f"{titles[slug]}: solved by {grid.solve_rate(slug):.0%} of {len(students)} students",
                )
                for slug in course.slugs
            ],
        )
        return page(request, "courses/dashboard.html", course=course, grid=grid, titles=titles, chart=chart)

    @pages.get("/courses/{course_id}/exercises/{slug}")
    def exercise_view(course_id: str, slug: str, request: Request, app: ServicesDep, catalog: CoursesDep) -> Response:
        course, students = staff(request, catalog, course_id)
        exercise = app.exercises.get(slug)
        if slug not in course.slugs or exercise is None:
            raise ApiError(404, f"The course has no exercise {slug!r} that loads.")
        runs = load_runs(app.sessions, [s.learner_id for s in students], [slug], results=True)
        stats = exercise_stats(exercise, students, runs)
        emails = {s.user_id: s.email for s in students}
        checks_chart = bar_chart(
            "Failure rate, per check",
            "check",
            [
                (
                    c.title,
                    c.failure_rate,
                    f"{c.failure_rate:.0%} of {c.runs}",
                    f"{c.title}: failed in {c.failed} of {c.runs} runs, by {len(c.students)} students",
                )
                for c in stats.checks
            ],
        )
        share = [(m, len(m.students) / stats.students if stats.students else 0.0) for m in stats.mistakes]
        mistakes_chart = bar_chart(
            "Mistakes and symptoms: share of the class told each",
            "mistake",
            [
                (
                    m.text,
                    fraction,
                    f"{fraction:.0%} ({len(m.students)})",
                    f"{m.text} — made by {len(m.students)} of {stats.students} students, in {m.runs} runs",
                )
                for m, fraction in share
            ],
        )
        return page(
            request,
            "courses/exercise.html",
            course=course,
            exercise=exercise,
            stats=stats,
            emails=emails,
            checks_chart=checks_chart,
            mistakes_chart=mistakes_chart,
            share=share,
        )

    @pages.get("/courses/{course_id}/students/{user_id}")
    def student_view(course_id: str, user_id: str, request: Request, app: ServicesDep, catalog: CoursesDep) -> Response:
        course, students = staff(request, catalog, course_id)
        student = next((s for s in students if s.user_id == user_id), None)
        if student is None:
            raise ApiError(404, "There is no such student in this course.")
        runs = load_runs(app.sessions, [student.learner_id], course.slugs)
        grid = matrix(course, [student], runs)
        by_exercise = {slug: [r for r in reversed(runs) if r.exercise == slug] for slug in course.slugs}
        return page(
            request,
            "courses/student.html",
            course=course,
            student=student,
            grid=grid,
            by_exercise=by_exercise,
            exercises=app.exercises,
        )

    @pages.get("/courses/{course_id}/submissions/{submission_id}")
    def submission_view(
        course_id: str, submission_id: str, request: Request, app: ServicesDep, catalog: CoursesDep
    ) -> Response:
        course, students = staff(request, catalog, course_id)
        with app.sessions() as session:
            submission = session.get(Submission, submission_id)
            # Only a run of this course's students on its exercises: a course is no window onto other runs.
            student = next((s for s in students if submission and s.learner_id == submission.learner_id), None)
            if submission is None or student is None or submission.exercise not in course.slugs:
                raise ApiError(404, "There is no such run in this course.")
            regrades = session.scalars(
                select(Submission).where(Submission.regrade_of == submission.id).order_by(Submission.created_at)
            ).all()
            events = session.scalars(
                select(SubmissionEvent)
                .where(SubmissionEvent.submission_id == submission.id)
                .order_by(SubmissionEvent.seq)
            ).all()
        exercise = app.exercises.get(submission.exercise)
        return page(
            request,
            "courses/submission.html",
            course=course,
            student=student,
            submission=submission,
            regrades=regrades,
            events=events,
            exercise=exercise,
            current_version=exercise.version if exercise else None,
        )

    @pages.get("/courses/{course_id}/gradebook.csv")
    def gradebook_download(course_id: str, request: Request, app: ServicesDep, catalog: CoursesDep) -> Response:
        course, students = staff(request, catalog, course_id)
        grid = matrix(course, students, load_runs(app.sessions, [s.learner_id for s in students], course.slugs))
        return csv_response(course, gradebook_csv(gradebook(course, grid, app.exercises)))

    return pages
