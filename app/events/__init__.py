"""The story of each grading run as numbered events: stored in the database, followed by the page.

``log`` records and reads them (and wakes the streams of this process); ``in_redis`` is the feed
that carries them between processes when workers run elsewhere.
"""

from app.events.in_redis import RedisEventFeed
from app.events.log import EventFeed, EventLog, Notifier, StoredEvent

__all__ = ["EventFeed", "EventLog", "Notifier", "RedisEventFeed", "StoredEvent"]
