"""What the web app and the workers need from a grading queue, whichever backend holds it.

The database row is the source of truth; a queue carries only ids, so the in-process queue and
the one on Redis Streams (for workers in other processes) are interchangeable. Either hands its
ids out in the fair order of :mod:`app.queue.fairness` (round-robin by learner), not as they came.
"""

from __future__ import annotations

from typing import Protocol


class SubmissionQueue(Protocol):
    """What the web app and the workers need from a queue."""

    #: Whether workers in other processes take from it too (then a restart's unfinished runs are theirs,
    #: or the sweeper's, to finish).
    shared: bool
    #: Who takes from it in this process, as the logs name it.
    consumer: str

    def enqueue(self, submission_id: str) -> None:
        """Add an id, recorded as queued already: the database's limits (:mod:`app.queue.admission`) were met."""
        ...

    def take(self, timeout: float) -> str | None:
        """The id whose turn it is, or None after ``timeout`` seconds or once the queue is closed."""
        ...

    def scope(self) -> set[str] | None:
        """The ids this queue hands out; None when it hands out every waiting run in the database."""
        ...

    def position(self, submission_id: str) -> int | None:
        """1-based place of a waiting id in the order it will be taken; None when it is not waiting."""
        ...

    def waiting(self) -> list[str]:
        """The waiting ids, in the order they will be taken."""
        ...

    def depth(self) -> int:
        """How many runs wait."""
        ...

    def ping(self) -> None:
        """Raise when the queue cannot be reached (an embedded one always can)."""
        ...

    def ack(self, submission_id: str) -> None:
        """The id taken last has been dealt with (its result is recorded, or it was not ours to grade)."""
        ...

    def forget_idle_consumers(self, idle_seconds: float) -> int:
        """Forget the takers (other processes) silent for ``idle_seconds``; return how many."""
        ...

    def close(self) -> None: ...
