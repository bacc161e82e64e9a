"""The hashing gate: a few hashes at a time, a bounded queue served by address, Busy at once past it, never a hang."""

from __future__ import annotations

import asyncio

import pytest

from app.accounts.hashing import Busy, HashGate


class Holder:
    """A request holding (or waiting for) a place until told to let go; ``first`` for a sign-in."""

    def __init__(self, gate: HashGate, address: str, order: list[str], *, first: bool = False) -> None:
        self.address, self.release = address, asyncio.Event()
        self.task = asyncio.create_task(self._run(gate, order, first))

    async def _run(self, gate: HashGate, order: list[str], first: bool) -> None:
        async with gate.slot(self.address, first=first):
            order.append(self.address)
            await self.release.wait()


async def settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


def test_a_flooding_address_does_not_hold_up_another_addresss_first_hash() -> None:
    async def scenario() -> list[str]:
        gate, order = HashGate(workers=1, queue=8), []
        flood = [Holder(gate, "flooder", order) for _ in range(3)]
        await settle()
        honest = Holder(gate, "honest", order)
        await settle()
        assert (gate.running, gate.waiting) == (1, 3)
        flood[0].release.set()  # the place the first flood hash held goes to the honest sign-in, not to the flood
        await settle()
        honest.release.set()
        for holder in flood[1:]:
            holder.release.set()
        await asyncio.gather(*(holder.task for holder in [*flood, honest]))
        return order

    assert asyncio.run(scenario()) == ["flooder", "honest", "flooder", "flooder"]


def test_a_sign_in_goes_before_sign_ups_that_waited_longer_from_any_number_of_addresses() -> None:
    async def scenario() -> list[str]:
        gate, order = HashGate(workers=1, queue=8), []
        sign_ups = [Holder(gate, f"bot-{n}", order) for n in range(4)]
        await settle()
        sign_in = Holder(gate, "student", order, first=True)
        await settle()
        for holder in [*sign_ups[:1], sign_in, *sign_ups[1:]]:
            holder.release.set()
            await settle()
        await asyncio.gather(*(holder.task for holder in [*sign_ups, sign_in]))
        return order

    assert asyncio.run(scenario()) == ["bot-0", "student", "bot-1", "bot-2", "bot-3"]


def test_sign_ups_hold_at_most_half_the_places_so_a_sign_in_starts_at_once() -> None:
    async def scenario() -> None:
        gate, order = HashGate(workers=2, queue=8), []
        sign_ups = [Holder(gate, f"bot-{n}", order) for n in range(3)]
        await settle()
        assert (gate.running, gate.waiting) == (1, 2)
        sign_in = Holder(gate, "student", order, first=True)
        await settle()
        assert order == ["bot-0", "student"] and gate.running == 2
        for holder in [sign_in, *sign_ups]:
            holder.release.set()
        await asyncio.gather(*(holder.task for holder in [*sign_ups, sign_in]))
        assert order == ["bot-0", "student", "bot-1", "bot-2"] and (gate.running, gate.waiting) == (0, 0)

    asyncio.run(scenario())


def test_past_its_share_of_the_queue_an_address_is_refused_at_once_and_others_still_get_in() -> None:
    async def scenario() -> None:
        gate, order = HashGate(workers=1, queue=8), []  # an address may hold 2 of the 8 waiting places
        holders = [Holder(gate, "flooder", order) for _ in range(3)]
        await settle()
        with pytest.raises(Busy) as refused:
            async with gate.slot("flooder"):
                pass
        assert refused.value.yours and refused.value.retry_after >= 1
        other = Holder(gate, "other", order)
        await settle()
        assert gate.waiting == 3
        for holder in [*holders, other]:
            holder.release.set()
        await asyncio.gather(*(holder.task for holder in [*holders, other]))
        assert (gate.running, gate.waiting) == (0, 0)

    asyncio.run(scenario())


def test_a_full_queue_refuses_everyone_at_once_with_a_retry_after() -> None:
    async def scenario() -> None:
        gate, order = HashGate(workers=1, queue=4), []  # one waiting place per address
        holders = [Holder(gate, f"address-{n}", order) for n in range(5)]
        await settle()
        assert (gate.running, gate.waiting) == (1, 4)
        with pytest.raises(Busy) as refused:
            async with gate.slot("newcomer"):
                pass
        assert not refused.value.yours and refused.value.retry_after >= 1
        for holder in holders:
            holder.release.set()
        await asyncio.gather(*(holder.task for holder in holders))
        assert order == [f"address-{n}" for n in range(5)]

    asyncio.run(scenario())


def test_a_request_that_goes_away_while_waiting_gives_up_its_turn() -> None:
    async def scenario() -> None:
        gate, order = HashGate(workers=1, queue=4), []
        first, gone, last = Holder(gate, "a", order), Holder(gate, "b", order), Holder(gate, "c", order)
        await settle()
        gone.task.cancel()
        await settle()
        assert gate.waiting == 1
        first.release.set()
        last.release.set()
        await asyncio.gather(first.task, last.task)
        assert order == ["a", "c"] and (gate.running, gate.waiting) == (0, 0)

    asyncio.run(scenario())
