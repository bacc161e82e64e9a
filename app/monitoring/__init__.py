"""What operators watch: ``/healthz`` and ``/metrics`` (``health``, ``metrics``) and JSON logs (``logs``)."""

from app.monitoring.health import (
    SandboxStatus,
    check_database,
    check_queue,
    health_report,
    sandbox_refusal,
    serve_endpoints,
)
from app.monitoring.logs import configure_logging, submission_context
from app.monitoring.metrics import Metrics

__all__ = [
    "Metrics", "SandboxStatus", "check_database", "check_queue", "configure_logging", "health", "health_report",
    "sandbox_refusal", "serve_endpoints", "submission_context",
]  # fmt: skip
