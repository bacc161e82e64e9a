"""The app factory: ``create_app(settings)`` builds everything; nothing connects at import time."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI
from fastapi.templating import Jinja2Templates
from starlette.middleware.gzip import GZipMiddleware
from starlette.responses import FileResponse

from app import api
from app.accounts import pages as account_pages
from app.accounts.kit import build_kit
from app.accounts.sessions import AccountMiddleware
from app.courses import api as course_api
from app.courses import pages as course_pages
from app.courses import staff as course_staff
from app.courses.courses import Courses
from app.curriculum import LiveExercises, pages
from app.db import make_engine, make_sessionmaker, upgrade
from app.drafts import Drafts
from app.events import EventLog, Notifier, RedisEventFeed
from app.grading import GradingJobs, Maintenance, RateLimit, StopRequests, Submissions, Sweeper, WorkerPool
from app.learners import ClientAddresses, LearnerCookies, LearnerMiddleware
from app.monitoring import Metrics, SandboxStatus, health
from app.queue import InProcessQueue, QueueShares, RedisQueue, SubmissionQueue, WaitingRuns, consumer_name, redis_client
from app.services import Services
from app.settings import Settings
from app.web import Manifest, SecurityHeadersMiddleware, StaticAssets, docs_router, install_error_handlers
from grader.exercise import Exercise, load_each_exercise

ROOT = Path(__file__).resolve().parent.parent
TEMPLATES_DIR = ROOT / "templates"
STATIC_DIST = ROOT / "static" / "dist"

log = logging.getLogger(__name__)


def build_services(
    settings: Settings, *, graders: int | None = None, role: str = "web", exercises: dict[str, Exercise] | None = None
) -> Services:
    """Everything one process needs; ``graders`` overrides how many gradings it runs at once.

    ``exercises`` is the dict the graders and pages read (a :class:`LiveExercises`' own, which
    reloading updates); without it the exercises that load are loaded, and the others logged.
    """
    engine = make_engine(settings.resolved_database_url())
    sessions = make_sessionmaker(engine)
    if exercises is None:
        exercises, broken = load_each_exercise(settings.exercises_dir)
        for exercise in broken.values():
            log.warning("%s", exercise.error)
    events = EventLog(sessions, Notifier())
    consumer = consumer_name()
    queue: SubmissionQueue
    if settings.redis_url:
        queue = RedisQueue(
            redis_client(settings.redis_url), sessions, prefix=settings.redis_prefix,
            lease_seconds=settings.lease_seconds, poll_seconds=settings.sweep_seconds, consumer=consumer,
        )  # fmt: skip
        events.feed = RedisEventFeed(
            settings.redis_url, prefix=settings.redis_prefix, ttl_seconds=settings.events_ttl_seconds,
            read_database=events.since,
        )  # fmt: skip
    else:
        queue = InProcessQueue(WaitingRuns(sessions))
    shares = QueueShares.of(
        settings.max_queue, learner_share=settings.queue_share_per_learner,
        address_share=settings.queue_share_per_address,
    )  # fmt: skip
    submissions = Submissions(
        sessions, events, queue, shares=shares,
        rate_limit=RateLimit(settings.rate_limit, settings.rate_limit_window, settings.rate_limit_per_address),
    )  # fmt: skip
    metrics = Metrics()
    size = settings.resolved_workers() if graders is None else graders
    jobs = GradingJobs(
        sessions, events, exercises, jailed=settings.jailed, lease_seconds=settings.lease_seconds,
        max_attempts=settings.max_attempts, worker_id=f"{role}:{consumer}", metrics=metrics,
        on_claimed=submissions.report_positions,
    )  # fmt: skip
    workers = WorkerPool(queue, jobs.run, size)
    maintenance = None
    if queue.shared:
        sweeper = Sweeper(queue, events, jobs, metrics, lease_seconds=settings.lease_seconds)
        maintenance = Maintenance(
            jobs, sweeper, lease_seconds=settings.lease_seconds, sweep_seconds=settings.sweep_seconds
        )
    services = Services(
        settings, engine, sessions, exercises, events, queue, submissions, jobs, workers, metrics,
        SandboxStatus(jailed=settings.jailed, graders=size), maintenance,
    )  # fmt: skip
    services.stops = StopRequests(
        events, exercises, jobs, redis_url=settings.redis_url, prefix=settings.redis_prefix, listen=size > 0
    )
    metrics.track_queue_depth(services.queue_depth)
    return services


def create_app(
    settings: Settings | None = None, *, reload_exercises: bool = False, reload_seconds: float = 1.0
) -> FastAPI:
    """The web app. Start-up migrates the database, re-queues waiting submissions and starts the workers.

    An exercise that does not load is listed with its problems and refuses submissions; the others
    are served. ``reload_exercises`` watches the exercises folder (every ``reload_seconds``) and
    reloads what changes (``mlkata serve --reload``).
    """
    settings = settings or Settings()
    live = LiveExercises(settings.exercises_dir)
    services = build_services(settings, exercises=live.exercises)
    templates = Jinja2Templates(directory=TEMPLATES_DIR)
    kit = build_kit(settings, services.sessions)
    templates.env.globals["csrf_token"] = kit.csrf.token
    manifest = Manifest.read(STATIC_DIST)
    templates.env.globals["asset"] = manifest.url
    templates.env.globals["preloads"] = manifest.preloads

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        upgrade(services.engine)
        if not services.queue.shared:
            # This process was the only grader: runs cut short by a restart are over. With Redis, workers
            # elsewhere may still be running them; the sweeper deals with the ones whose worker died.
            for submission_id in services.jobs.recover():
                services.queue.enqueue(submission_id)
        services.start()
        watcher = live.watch(reload_seconds) if reload_exercises else None
        if not (STATIC_DIST / "exercise.js").is_file():
            log.warning("static/dist is not built: run `make frontend` (the pages will have no editor)")
        try:
            yield
        finally:
            if watcher is not None:
                watcher.stop()
            services.stop()
            await services.events.aclose()

    app = FastAPI(
        title="mlkata",
        version="0.1.0",
        summary="Programming exercises with sandboxed automatic grading.",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
    )
    app.state.services = services
    app.state.live_exercises = live
    app.state.account_kit = kit
    app.state.courses = Courses(services.sessions)
    app.state.drafts = Drafts(services.sessions, new_per_address=settings.drafts_per_address)
    install_error_handlers(app, templates)
    app.include_router(health.router(services.health, services.metrics))
    app.include_router(api.router())
    app.include_router(pages.router(templates))
    app.include_router(account_pages.router(templates))
    app.include_router(course_api.router)
    app.include_router(course_pages.router(templates))
    app.include_router(course_staff.router(templates))
    app.include_router(docs_router())
    STATIC_DIST.mkdir(parents=True, exist_ok=True)
    app.mount("/static", StaticAssets(directory=STATIC_DIST, version=manifest.version), name="static")

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon() -> FileResponse:
        return FileResponse(ROOT / "static" / "favicon.svg", media_type="image/svg+xml")

    # Outermost last: security headers wrap everything, including errors; the account's learner replaces the cookie's.
    app.add_middleware(AccountMiddleware, signins=kit.signins, secure=settings.cookie_secure)
    secret_key = settings.resolved_secret_key()
    cookies = LearnerCookies(
        secret_key, max_age_days=settings.learner_cookie_days, accept_legacy=settings.legacy_learner_cookies
    )
    app.add_middleware(LearnerMiddleware, cookies=cookies, addresses=ClientAddresses(secret_key),
                       secure=settings.cookie_secure)  # fmt: skip
    # Pages and JSON compressed per response; static files come precompressed and event streams never are.
    app.add_middleware(GZipMiddleware, minimum_size=1024, compresslevel=6)
    app.add_middleware(SecurityHeadersMiddleware)
    return app
