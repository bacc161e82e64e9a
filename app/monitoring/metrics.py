"""Prometheus metrics of one process.

Each process keeps its own registry and serves it: the web app at ``/metrics``, each ``mlkata
worker`` at ``--metrics-port``. Prometheus scrapes every process and sums across them (counters and
histograms add up); the queue depth is read from the database, so every process reports the same.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

CONTENT_TYPE = CONTENT_TYPE_LATEST
_SECONDS = (0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300)


class Metrics:
    """The metrics one process updates."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.submissions = Counter(
            "mlkata_submissions_total", "Submissions accepted by this web process.", registry=self.registry
        )
        self.grading_seconds = Histogram(
            "mlkata_grading_seconds", "Wall time of one grading run.", buckets=_SECONDS, registry=self.registry
        )
        self.wait_seconds = Histogram(
            "mlkata_queue_wait_seconds",
            "Time from submission to a worker's claim.",
            buckets=_SECONDS,
            registry=self.registry,
        )
        self.verdicts = Counter(
            "mlkata_verdicts_total",
            "Verdicts recorded by this process, by status and reason.",
            ["status", "reason"],
            registry=self.registry,
        )
        self.sandbox_failures = Counter(
            "mlkata_sandbox_failures_total",
            "Runs that ended in an internal error (the grader or sandbox failed, not the solution).",
            registry=self.registry,
        )
        self.requeued = Counter(
            "mlkata_requeued_total",
            "Submissions put back in the queue by this process's sweeper, by why.",
            ["why"],
            registry=self.registry,
        )
        self.queue_depth = Gauge("mlkata_queue_depth", "Submissions waiting for a worker.", registry=self.registry)

    def track_queue_depth(self, depth: Callable[[], int]) -> None:
        """Read the depth at each scrape."""
        self.queue_depth.set_function(lambda: float(depth()))

    def observe_wait(self, created_at: datetime, claimed_at: datetime) -> None:
        if created_at.tzinfo is None:  # SQLite hands datetimes back without their zone; they are UTC
            created_at = created_at.replace(tzinfo=UTC)
        self.wait_seconds.observe(max(0.0, (claimed_at - created_at).total_seconds()))

    def render(self) -> bytes:
        return generate_latest(self.registry)
