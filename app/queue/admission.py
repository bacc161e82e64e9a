"""Room in the queue: how many waiting runs one learner, one address and everyone together may have.

The queue holds ``max_queue`` runs. One learner may hold ``queue_share_per_learner`` of it and one
client address (whatever its cookies) ``queue_share_per_address``, each at least one run, so that no
single sender can fill it: most of it always stays for everyone else. Tries count as their learner's
runs; a regrade's runs count for nobody (the operator queues them, a window at a time, and they wait
in a lane of their own).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.models import Submission, SubmissionStatus

#: Seconds a learner refused for holding their share is told to wait: about one run's time, by which
#: one of their waiting runs has usually started.
SHARE_RETRY_SECONDS = 5


class QueueFull(Exception):
    """The queue holds as many submissions as it may."""


class TooManyWaiting(Exception):
    """The learner, or their address, already holds their share of the queue."""

    def __init__(self, message: str, retry_after: int = SHARE_RETRY_SECONDS) -> None:
        super().__init__(message)
        self.message, self.retry_after = message, retry_after


@dataclass(frozen=True)
class QueueShares:
    """The most waiting runs allowed per learner, per address and in all."""

    per_learner: int
    per_address: int
    total: int

    @classmethod
    def of(cls, max_queue: int, *, learner_share: float, address_share: float) -> QueueShares:
        def share(fraction: float) -> int:
            return max(1, min(max_queue, math.floor(fraction * max_queue)))

        return cls(share(learner_share), share(address_share), max_queue)

    def check(self, session: Session, learner: str, client_key: str | None) -> None:
        """Raise :class:`TooManyWaiting` or :class:`~app.queue.in_process.QueueFull` unless one more run fits.

        Read in the transaction that adds the run, under the creation lock, so concurrent
        submissions are counted one after the other.
        """
        senders = session.execute(
            select(Submission.learner_id, Submission.client_key).where(
                Submission.status == SubmissionStatus.QUEUED.value, Submission.regrade_of.is_(None)
            )
        ).all()
        by_learner = Counter(row.learner_id for row in senders)
        by_address = Counter(row.client_key for row in senders if row.client_key is not None)
        if by_learner[learner] >= self.per_learner:
            raise TooManyWaiting(
                f"You already have {_runs(by_learner[learner])} waiting to be graded, the most one learner may have "
                "at once. This one was not queued: run it again when one of yours has started."
            )
        if client_key is not None and by_address[client_key] >= self.per_address:
            raise TooManyWaiting(
                f"Your network address already has {_runs(by_address[client_key])} waiting to be graded, the most one "
                "address may have at once (everyone sending from it counts). This one was not queued: run it again "
                "in a few seconds."
            )
        if len(senders) >= self.total:
            raise QueueFull(f"{len(senders)} submissions are waiting")


def _runs(count: int) -> str:
    return f"{count} run" if count == 1 else f"{count} runs"
