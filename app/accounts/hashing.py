"""The argon2 work of one web process: a few hashes at a time, a short queue served fairly, and no hang past it.

A password hash costs about 64 MiB and a core for a moment, so a flood of sign-ins or sign-ups
could take every core from the pages and make an honest sign-in wait behind it. At most
``workers`` hashes run at once; up to ``queue`` more wait, a client address for at most a quarter
of those places. Sign-ups (the cheapest way to make a server hash: anyone may send them) hold at
most half the places, and a freed place goes to a sign-in (someone waiting to get in) before any
sign-up; within each, to the waiting address with the fewest hashes running, then to the one
served longest ago, so one address's backlog never delays another's first hash. Past that,
:class:`Busy` at once, with how long to wait.

The waiting happens in the event loop, not in threads: a full queue holds none of the threads
the pages are served from.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import Counter, deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

_Lane = dict[str, deque[asyncio.Future[None]]]
#: Until the first hashes are timed: roughly one argon2id hash at argon2-cffi's defaults on a loaded core.
_FIRST_GUESS_SECONDS = 0.5


class Busy(Exception):
    """No place for this hash: ``yours`` when the address holds its share of the queue, else the queue is full."""

    def __init__(self, retry_after: int, *, yours: bool) -> None:
        super().__init__(f"hashing busy, retry after {retry_after} s")
        self.retry_after, self.yours = retry_after, yours


class HashGate:
    """Admits argon2 work: ``async with gate.slot(client_key, first=...): ...`` around the work."""

    def __init__(self, workers: int, queue: int) -> None:
        self.workers, self.queue = workers, queue
        self.per_address = max(1, queue // 4)
        self.signup_places = max(1, workers // 2)
        self._running: Counter[str] = Counter()
        self._signups_running = 0
        # Who waits, by address: sign-ins (and password changes) first, then sign-ups.
        self._lanes: tuple[_Lane, _Lane] = ({}, {})
        # When each address running or waiting was last given a place (a count of places given, not a time).
        self._served: dict[str, int] = {}
        self._given = 0
        self._seconds = _FIRST_GUESS_SECONDS

    @property
    def running(self) -> int:
        return self._running.total()

    @property
    def waiting(self) -> int:
        return sum(len(turns) for lane in self._lanes for turns in lane.values())

    @asynccontextmanager
    async def slot(self, client: str, *, first: bool = False) -> AsyncIterator[None]:
        """Hold one of the ``workers`` places for the body; raise :class:`Busy` when none can be waited for.

        ``first``: a sign-in's password check (or a password change's), served before any sign-up.
        """
        await self._enter(client, first)
        started = time.monotonic()
        try:
            yield
        finally:
            # A moving average of how long a hash holds its place: what Retry-After is estimated from.
            self._seconds = 0.8 * self._seconds + 0.2 * (time.monotonic() - started)
            self._leave(client, first)

    def retry_after(self) -> int:
        """Seconds until the hashes running and waiting now are likely done."""
        return max(1, math.ceil((self.running + self.waiting) * self._seconds / self.workers))

    async def _enter(self, client: str, first: bool) -> None:
        if self._next_lane() is None and self._startable(first):
            self._give(client, first)
            return
        waiting = self.waiting
        mine = sum(len(lane.get(client, ())) for lane in self._lanes)
        if waiting >= self.queue or mine >= self.per_address:
            raise Busy(self.retry_after(), yours=waiting < self.queue)
        lane = self._lanes[0 if first else 1]
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        lane.setdefault(client, deque()).append(turn)
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():
                self._leave(client, first)  # given a place just as the request went away: pass it on
            else:
                self._withdraw(lane, client, turn)
            raise

    def _startable(self, first: bool) -> bool:
        return self.running < self.workers and (first or self._signups_running < self.signup_places)

    def _next_lane(self) -> int | None:
        """The lane whose first waiting address a free place would go to now; None if no one could take one."""
        for index, lane in enumerate(self._lanes):
            if lane and self._startable(index == 0):
                return index
        return None

    def _give(self, client: str, first: bool) -> None:
        self._running[client] += 1
        self._signups_running += 0 if first else 1
        self._served[client] = self._given
        self._given += 1

    def _leave(self, client: str, first: bool) -> None:
        self._running[client] -= 1
        if self._running[client] <= 0:
            del self._running[client]
        self._signups_running -= 0 if first else 1
        while (index := self._next_lane()) is not None:
            lane = self._lanes[index]
            chosen = min(lane, key=lambda address: (self._running[address], self._served.get(address, -1)))
            turn = lane[chosen].popleft()
            if not lane[chosen]:
                del lane[chosen]
            if turn.done():  # cancelled while waiting
                continue
            self._give(chosen, index == 0)
            turn.set_result(None)
        self._forget(client)

    def _forget(self, client: str) -> None:
        if client not in self._running and all(client not in lane for lane in self._lanes):
            self._served.pop(client, None)

    def _withdraw(self, lane: _Lane, client: str, turn: asyncio.Future[None]) -> None:
        mine = lane.get(client)
        if mine is not None and turn in mine:
            mine.remove(turn)
            if not mine:
                del lane[client]
        self._forget(client)
