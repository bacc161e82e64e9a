"""Course pages for everyone in them: the list of your courses, a course's exercises and due dates, joining,
and, for instructors, creating and editing a course."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates

from app.accounts.csrf import Form
from app.accounts.kit import AccountKit, account_kit
from app.accounts.pages import require_account
from app.accounts.users import Account
from app.courses.courses import (
    EARLIEST_DUE,
    LATEST_DUE,
    STAFF_CANNOT_JOIN,
    CourseError,
    CourseInfo,
    CourseItem,
    Courses,
    may_enrol,
    may_teach,
    parse_due,
)
from app.courses.dashboard import cell
from app.courses.runs import load_runs
from app.curriculum import in_order
from app.models import utcnow
from app.services import Services, services
from app.web import ApiError

ServicesDep = Annotated[Services, Depends(services)]
KitDep = Annotated[AccountKit, Depends(account_kit)]


def courses(request: Request) -> Courses:
    """FastAPI dependency: the app's courses."""
    found = request.app.state.courses
    assert isinstance(found, Courses)
    return found


CoursesDep = Annotated[Courses, Depends(courses)]


def require_teacher(request: Request) -> Account:
    account = require_account(request)
    if not account.teaches:
        raise ApiError(403, "Only instructors create courses. Ask the site's operator to make your account one.")
    return account


def items_from(form: Form, known: set[str]) -> list[CourseItem]:
    """The exercises ticked in the course form, in the roadmap's order, each with its due date."""
    chosen = form.getlist("exercise")
    unknown = [slug for slug in chosen if slug not in known]
    if unknown:
        raise CourseError("exercise", f"There is no exercise {unknown[0]!r}.")
    return [CourseItem(slug, n, parse_due(form.get(f"due:{slug}"), slug)) for n, slug in enumerate(chosen)]


def router(templates: Jinja2Templates) -> APIRouter:
    pages = APIRouter(include_in_schema=False, default_response_class=HTMLResponse)

    def page(request: Request, name: str, status: int = 200, **context: Any) -> HTMLResponse:
        return templates.TemplateResponse(request, name, {"active": "courses", **context}, status_code=status)

    def course_form(request: Request, app: Services, course: CourseInfo | None) -> HTMLResponse:
        """The form, filled in with the course as it is (or empty, for a new one)."""
        if course is None:
            return form_page(request, app, None, title="", due={})
        due = {item.slug: item.due_at.strftime("%Y-%m-%dT%H:%M") if item.due_at else "" for item in course.items}
        return form_page(request, app, course, title=course.title, due=due)

    def form_page(
        request: Request,
        app: Services,
        course: CourseInfo | None,
        *,
        title: str,
        due: dict[str, str],
        error: CourseError | None = None,
    ) -> HTMLResponse:
        """The course form; after bad input, with what was typed, the message and the field at fault marked."""
        return page(
            request,
            "courses/form.html",
            422 if error else 200,
            course=course,
            title=title,
            due=due,
            exercises=in_order(list(app.exercises.values())),
            error=error,
            earliest_due=EARLIEST_DUE,
            latest_due=LATEST_DUE,
        )

    def refused(request: Request, app: Services, course: CourseInfo | None, form: Form, error: CourseError) -> Response:
        ticked = form.getlist("exercise")
        typed = {slug: form.get(f"due:{slug}") for slug in ticked}
        return form_page(request, app, course, title=form.get("title"), due=typed, error=error)

    @pages.get("/courses")
    def course_list(request: Request, app: ServicesDep, catalog: CoursesDep) -> Response:
        account = require_account(request)
        enrolled = catalog.enrolled_in(account)
        solved = app.submissions.solved(account.learner_id)
        now = utcnow()
        due_soon = sorted(
            (
                (item.due_at, course, item)
                for course in enrolled
                for item in course.items
                if item.due_at and item.slug not in solved and item.due_at > now
            ),
            key=lambda entry: entry[0],
        )
        taught = catalog.taught_by(account) if account.teaches else []
        return page(
            request,
            "courses/list.html",
            enrolled=enrolled,
            taught=taught,
            due_soon=due_soon[:10],
            exercises=app.exercises,
            solved=solved,
            account=account,
        )

    @pages.get("/courses/new")
    def new_course_page(request: Request, app: ServicesDep) -> Response:
        require_teacher(request)
        return course_form(request, app, None)

    @pages.post("/courses/new")
    async def create_course(request: Request, app: ServicesDep, kit: KitDep, catalog: CoursesDep) -> Response:
        form = await kit.csrf.form(request)
        account = require_teacher(request)
        try:
            items = items_from(form, set(app.exercises))
            course = await run_in_threadpool(catalog.create, account, form.get("title"), items)
        except CourseError as exc:
            return refused(request, app, None, form, exc)
        return RedirectResponse(f"/courses/{course.id}", status_code=303)

    @pages.get("/courses/{course_id}")
    def course_page(course_id: str, request: Request, app: ServicesDep, catalog: CoursesDep) -> Response:
        account = require_account(request)
        course = catalog.member_course(account, course_id)
        runs = load_runs(app.sessions, [account.learner_id], course.slugs)
        mine = {item.slug: cell([r for r in runs if r.exercise == item.slug], item.due_at) for item in course.items}
        teaching = may_teach(account, course)
        join_url = str(request.url_for("join_page", code=course.join_code)) if teaching else None
        return page(
            request,
            "courses/course.html",
            course=course,
            exercises=app.exercises,
            mine=mine,
            teaching=teaching,
            join_url=join_url,
            now=utcnow(),
        )

    @pages.get("/courses/{course_id}/edit")
    def edit_course_page(course_id: str, request: Request, app: ServicesDep, catalog: CoursesDep) -> Response:
        course = catalog.staff_course(require_account(request), course_id)
        return course_form(request, app, course)

    @pages.post("/courses/{course_id}/edit")
    async def edit_course(
        course_id: str, request: Request, app: ServicesDep, kit: KitDep, catalog: CoursesDep
    ) -> Response:
        form = await kit.csrf.form(request)
        course = catalog.staff_course(require_account(request), course_id)
        try:
            items = items_from(form, set(app.exercises) | set(course.slugs))
            await run_in_threadpool(catalog.update, course.id, form.get("title"), items)
        except CourseError as exc:
            return refused(request, app, course, form, exc)
        return RedirectResponse(f"/courses/{course.id}", status_code=303)

    @pages.post("/courses/{course_id}/join-code")
    async def replace_join_code(course_id: str, request: Request, kit: KitDep, catalog: CoursesDep) -> Response:
        await kit.csrf.form(request)
        course = catalog.staff_course(require_account(request), course_id)
        await run_in_threadpool(catalog.new_join_code, course.id)
        return RedirectResponse(f"/courses/{course.id}", status_code=303)

    @pages.get("/join/{code}", name="join_page")
    def join_page(code: str, request: Request, catalog: CoursesDep) -> Response:
        course = catalog.by_join_code(code)
        if course is None:
            raise ApiError(404, "This join link does not work (it may have been replaced): ask your instructor.")
        account = require_account(request)
        if may_teach(account, course) or catalog.is_enrolled(account, course.id):
            return RedirectResponse(f"/courses/{course.id}", status_code=303)
        if not may_enrol(account, course):
            raise ApiError(409, STAFF_CANNOT_JOIN)
        return page(request, "courses/join.html", course=course, code=code)

    @pages.post("/join/{code}")
    async def join(code: str, request: Request, kit: KitDep, catalog: CoursesDep) -> Response:
        await kit.csrf.form(request)
        account = require_account(request)
        course = catalog.by_join_code(code)
        if course is None:
            raise ApiError(404, "This join link does not work (it may have been replaced): ask your instructor.")
        try:
            await run_in_threadpool(catalog.join, account, course)
        except CourseError as exc:
            raise ApiError(409, exc.message) from None
        return RedirectResponse(f"/courses/{course.id}", status_code=303)

    return pages
