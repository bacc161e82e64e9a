"""The HTML pages: the roadmap, each section, each exercise (or, for one that does not load, why not), and the
learner's profile."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates

from app.curriculum.calendar import calendar, first_day
from app.curriculum.catalog import RoadmapEntry, RoadmapSection, detail, roadmap, tag_counts
from app.curriculum.live import LiveExercises, live_exercises
from app.curriculum.profile import daily_counts, recent_runs, run_counts, solved_table
from app.curriculum.progress import LearnerProgress, Status, learner_progress, next_up
from app.drafts import DraftField, Drafts, Opening, drafts, owner_key
from app.learners import learner_id
from app.models import utcnow
from app.services import Services, services
from app.web import ApiError
from grader.exercise import DIFFICULTIES

ServicesDep = Annotated[Services, Depends(services)]
LiveDep = Annotated[LiveExercises | None, Depends(live_exercises)]
DraftsDep = Annotated[Drafts, Depends(drafts)]


Standing = tuple[list[RoadmapSection], LearnerProgress]


def standing(request: Request, app: Services, live: LiveExercises | None) -> Standing:
    """The roadmap's sections, and where the request's learner stands on them."""
    learner = learner_id(request)
    exercises = list(app.exercises.values())  # one look: a reload may change the dict meanwhile
    sections = roadmap(exercises, list(live.broken.values()) if live is not None else [])
    return sections, learner_progress(app.sessions, learner, app.submissions.solved(learner))


def entries_by_slug(sections: list[RoadmapSection]) -> dict[str, tuple[RoadmapSection, RoadmapEntry]]:
    return {entry.slug: (section, entry) for section in sections for entry in section.entries}


def router(templates: Jinja2Templates) -> APIRouter:
    pages = APIRouter(include_in_schema=False, default_response_class=HTMLResponse)

    @pages.get("/")
    def roadmap_page(request: Request, app: ServicesDep, live: LiveDep) -> HTMLResponse:
        sections, progress = standing(request, app, live)
        ordered = [slug for section in sections for slug in section.slugs]
        up = next_up(ordered, progress) if ordered else None
        return templates.TemplateResponse(
            request,
            "roadmap.html",
            {
                "sections": sections,
                "progress": progress,
                "next_up": up,
                "next_place": entries_by_slug(sections)[up.slug] if up else None,
                "tags": tag_counts(sections),
                "difficulties": DIFFICULTIES,
                "statuses": list(Status),
                "solved_count": progress.count(Status.SOLVED, ordered),
                "attempted_count": progress.count(Status.ATTEMPTED, ordered),
                "total": len(ordered),
            },
        )

    @pages.get("/sections/{slug}")
    def section_page(slug: str, request: Request, app: ServicesDep, live: LiveDep) -> HTMLResponse:
        sections, progress = standing(request, app, live)
        place = next((n for n, section in enumerate(sections) if section.slug == slug), None)
        if place is None:
            raise ApiError(404, f"There is no section “{slug}”.")
        section = sections[place]
        up = next_up(section.slugs, progress) if section.slugs else None
        return templates.TemplateResponse(
            request,
            "section.html",
            {
                "section": section,
                "number": place + 1,
                "section_count": len(sections),
                "progress": progress,
                "next_up": up,
                "next_place": entries_by_slug([section])[up.slug] if up else None,
                "previous_section": sections[place - 1] if place > 0 else None,
                "next_section": sections[place + 1] if place + 1 < len(sections) else None,
            },
        )

    @pages.get("/profile")
    def profile_page(request: Request, app: ServicesDep, live: LiveDep) -> HTMLResponse:
        sections, progress = standing(request, app, live)
        learner = learner_id(request)
        today = utcnow().date()
        entries = entries_by_slug(sections)
        rows, totals = solved_table(sections, progress.solved)
        ordered = [slug for section in sections for slug in section.slugs]
        return templates.TemplateResponse(
            request,
            "profile.html",
            {
                "difficulties": DIFFICULTIES,
                "rows": rows,
                "totals": totals,
                "solved_count": progress.count(Status.SOLVED, ordered),
                "attempted_count": progress.count(Status.ATTEMPTED, ordered),
                "total": len(ordered),
                "counts": run_counts(app.sessions, learner),
                "recent": recent_runs(app.sessions, learner),
                "titles": {slug: entry.title for slug, (_, entry) in entries.items()},
                "calendar": calendar(daily_counts(app.sessions, learner, first_day(today)), today),
            },
        )

    @pages.get("/exercises/{slug}")
    def exercise_page(slug: str, request: Request, app: ServicesDep, live: LiveDep, store: DraftsDep) -> HTMLResponse:
        exercise = app.exercises.get(slug)
        broken = live.broken.get(slug) if live is not None and exercise is None else None
        if broken is not None:
            return templates.TemplateResponse(request, "exercise_error.html", {"broken": broken}, status_code=409)
        if exercise is None:
            raise ApiError(404, f"There is no exercise called “{slug}”.")
        learner = learner_id(request)
        solved = app.submissions.solved(learner)
        info = detail(exercise, solved, list(app.exercises.values()))
        last = app.submissions.latest(learner, slug)
        # Where the exercise allows it, the page offers the reference once solved; the API refuses it before
        # (403), so nothing of it is in the page.
        reference = exercise.config.show_reference_after_solving
        opening = store.openings(learner, slug, starter=exercise.starter, example=exercise.try_example)
        page_data = {
            "slug": slug,
            "starter": exercise.starter,
            "submissions_url": info.submissions_url,
            "tries_url": f"/api/exercises/{slug}/tries",
            "hints_url": f"/api/exercises/{slug}/hints",
            "reference_url": f"/api/exercises/{slug}/reference" if reference else None,
            "try_example": exercise.try_example,
            "drafts": {
                "url": f"/api/exercises/{slug}/drafts",
                "owner": owner_key(learner),
                # Only an anonymous learner's page takes in what older versions kept in the browser (app.drafts).
                "anonymous": getattr(request.state, "account", None) is None,
                **{field.value: _opening(opening[field]) for field in DraftField},
            },
            "last_run": None
            if last is None
            else {
                "id": last.id,
                "events_url": f"/api/submissions/{last.id}/events",
                "result_url": f"/api/submissions/{last.id}",
                "stop_url": f"/api/submissions/{last.id}/stop",
            },
            "checks": [c.model_dump() for c in info.checks],
            "solved": info.solved,
            "style_nonce": request.state.csp_nonce,  # for the editor's one <style> element
        }
        info_view = {**info.model_dump(), "reference_available": reference}
        context = {"exercise": info_view, "page_data": page_data, "code": opening[DraftField.CODE].text}
        # The page holds the learner's own code: no cache keeps it for whoever uses this browser next.
        return templates.TemplateResponse(request, "exercise.html", context, headers={"Cache-Control": "no-store"})

    return pages


def _opening(opening: Opening) -> dict[str, object]:
    saved_at = opening.saved_at.isoformat() if opening.saved_at else None
    return {"text": opening.text, "source": opening.source.value, "revision": opening.revision, "saved_at": saved_at}
