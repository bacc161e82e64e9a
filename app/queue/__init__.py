"""The grading queue: which runs wait, whose turn is next, and room for one more.

``protocol`` is what every caller uses; ``in_process`` and ``in_redis`` are its two backends side
by side; ``fairness`` reads the round-robin order from the database, ``admission`` the room a
learner, an address and everyone may take.
"""

from app.queue.admission import QueueFull, QueueShares, TooManyWaiting
from app.queue.fairness import WaitingRuns, exclusive
from app.queue.in_process import InProcessQueue
from app.queue.in_redis import RedisQueue, consumer_name, redis_client
from app.queue.protocol import SubmissionQueue

__all__ = [
    "InProcessQueue", "QueueFull", "QueueShares", "RedisQueue", "SubmissionQueue", "TooManyWaiting", "WaitingRuns",
    "consumer_name", "exclusive", "redis_client",
]  # fmt: skip
