"""A submission's life on the server: created, graded by a worker, stopped, or swept up after a crash.

``submissions`` stores a run and queues it (within the rate limits and the queue's room);
``pool`` holds a process's grading threads, ``jobs`` what each does with an id (claim, grade,
record); ``stopping`` ends a run its learner stops, and ``sweeper`` queues again the runs whose
worker died. The processes built on it are ``app.main`` (the web app) and ``app.worker``.
"""

from app.grading.jobs import GradingJobs
from app.grading.pool import WorkerPool
from app.grading.stopping import StopRequests
from app.grading.submissions import RateLimit, Submissions, public_view
from app.grading.sweeper import Maintenance, Sweeper

__all__ = [
    "GradingJobs",
    "Maintenance",
    "RateLimit",
    "StopRequests",
    "Submissions",
    "Sweeper",
    "WorkerPool",
    "public_view",
]
