"""``mlkata worker``: a grading process taking submissions from Redis and recording results in the database."""

from __future__ import annotations

import logging
import signal
import threading
from types import FrameType

from redis.exceptions import RedisError

from app.db import upgrade
from app.main import build_services
from app.monitoring import configure_logging, serve_endpoints
from app.settings import Settings
from grader.sandbox import close_pool

log = logging.getLogger(__name__)


class WorkerConfigError(RuntimeError):
    """The worker cannot run with these settings."""


def run_worker(
    settings: Settings,
    *,
    concurrency: int,
    metrics_host: str = "127.0.0.1",
    metrics_port: int | None = None,
    grace_seconds: float = 30.0,
) -> None:
    """Grade until SIGTERM or SIGINT, then finish the runs in progress (or give them back after ``grace_seconds``)."""
    if not settings.redis_url:
        raise WorkerConfigError("mlkata worker needs a Redis URL (MLKATA_REDIS_URL): it takes submissions from there.")
    configure_logging(settings.log_format)
    services = build_services(settings, graders=concurrency, role="worker")
    upgrade(services.engine)

    stopping = threading.Event()

    def on_signal(signum: int, _frame: FrameType | None) -> None:
        log.info("stopping on %s: finishing the runs in progress", signal.Signals(signum).name)
        stopping.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    endpoints = None
    if metrics_port is not None:
        endpoints = serve_endpoints(metrics_host, metrics_port, services.health, services.metrics)
    services.start()
    log.info(
        "worker started",
        extra={"consumer": services.queue.consumer, "concurrency": concurrency, "metrics_port": metrics_port},
    )
    while not stopping.wait(1.0):
        pass

    if not services.workers.stop(grace_seconds):
        # Still running after the grace period: give the claims back so another worker starts them now.
        for submission_id in services.jobs.release_claims():
            log.warning("given back unfinished", extra={"submission_id": submission_id})
            try:
                services.queue.enqueue(submission_id)
                services.queue.ack(submission_id)
            except RedisError as exc:  # the sweeper queues it again once Redis answers
                log.warning("queueing again failed: %s", exc, extra={"submission_id": submission_id})
    services.stop(timeout=0)
    close_pool()
    if endpoints is not None:
        endpoints.shutdown()
    log.info("worker stopped")
