"""The slots of one kind of request (reads or writes), and a bounded wait for one.

A request takes a free slot at once. When none is free it may join the line, first come first
served, while fewer than ``max_waiting`` wait already and the wait it can expect fits in the
kind's bound and in its deadline less the time a request holds a slot. Otherwise it is refused
at once, before any work. In line, it waits until a slot frees or only that time is left of
its deadline: a request refused after waiting would be a slow Busy answer, so the line is
kept short enough not to need it.
"""

from __future__ import annotations

import asyncio
import math
import random
from collections import deque
from contextlib import suppress
from dataclasses import dataclass

# Weight of the latest request in the recent time a slot is held (an exponential average).
HELD_WEIGHT = 0.2


@dataclass(frozen=True)
class SlotLimits:
    """How many requests of a kind run at once (0: no limit) and how many, how long, wait."""

    slots: int
    max_waiting: int
    max_wait_s: float


def allowed_wait(
    limits: SlotLimits, running: int, waiting: int, held_s: float, budget_s: float
) -> float | None:
    """How long a request arriving now may wait for a slot: 0.0 runs it at once, None refuses
    it. ``held_s``: how long a request has held a slot lately; ``budget_s``: the request's
    deadline, from now."""
    if not limits.slots or (running < limits.slots and not waiting):
        return 0.0
    if waiting >= limits.max_waiting:
        return None
    until_deadline = budget_s - held_s
    # Slots free up at slots / held_s a second; the waiters ahead take the first ones.
    expected = (waiting + 1) * held_s / limits.slots
    fits = expected <= min(limits.max_wait_s, until_deadline)
    return until_deadline if until_deadline > 0 and fits else None


def retry_after(
    limits: SlotLimits,
    waiting: int,
    held_s: float,
    floor_s: int,
    ceiling_s: int,
    spread: float = 0.0,
) -> int:
    """The Retry-After of a refusal: about when the line ahead has drained, as slots free up
    at slots / held_s a second, in whole seconds from ``floor_s`` to ``ceiling_s``. A crowd
    told to come back later sends fewer requests that would only be refused again.

    ``spread`` (0 ≤ spread < 1, drawn at random per refusal) moves the answer up to twice that
    far: a crowd refused in one instant, told one same number of seconds, comes back in one
    instant again, and the last of it waits behind the rest to be refused."""
    drain_s = waiting * held_s / limits.slots if limits.slots else 0.0
    base = max(math.ceil(drain_s), floor_s)
    return min(base + math.floor(spread * (base + 1)), max(ceiling_s, floor_s))


@dataclass
class Entry:
    """A request SlotGate.admit let in: holding a slot (no ticket), or in line for one."""

    ticket: asyncio.Future[None] | None
    wait_s: float
    claimed: bool = False  # wait() was called: the request gives its slot back itself


class SlotGate:
    """The slots of one kind of request in one process (one event loop: no locks needed)."""

    def __init__(self, limits: SlotLimits, rng: random.Random | None = None) -> None:
        self.limits = limits
        self._rng = rng or random.Random()  # spreads refusals' Retry-After (retry_after)
        self.running = 0
        self.held_s = 0.0  # how long a request held a slot lately
        self._waiters: deque[asyncio.Future[None]] = deque()

    @property
    def waiting(self) -> int:
        return len(self._waiters)

    def admit(self, budget_s: float) -> Entry | None:
        """Let a request arriving now in, as allowed_wait allows: a slot now, or a place in
        line; None: refused. Synchronous, so the door (service/api/door.py) decides a whole
        crowd's requests in the order they come, before any of them runs."""
        wait_s = allowed_wait(self.limits, self.running, self.waiting, self.held_s, budget_s)
        if wait_s is None:
            return None
        if wait_s == 0.0:
            self.running += 1
            return Entry(None, 0.0)
        ticket: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(ticket)
        return Entry(ticket, wait_s)

    async def wait(self, entry: Entry) -> bool:
        """Wait for the slot ``entry`` was promised; False: its wait ran out (refused). From
        here the caller gives the slot back with leave()."""
        entry.claimed = True
        if entry.ticket is None:
            return True
        try:
            async with asyncio.timeout(None if math.isinf(entry.wait_s) else entry.wait_s):
                await entry.ticket
            return True  # leave() handed the slot over: running already counts it
        except TimeoutError:
            return self._withdraw(entry.ticket)  # a slot handed over as the wait ended is taken
        except asyncio.CancelledError:
            if self._withdraw(entry.ticket):
                self.leave(None)  # the request went away holding a slot
            raise

    async def enter(self, budget_s: float) -> bool:
        """Take a slot, waiting in line as allowed_wait allows; False: refused."""
        entry = self.admit(budget_s)
        return entry is not None and await self.wait(entry)

    def withdraw(self, entry: Entry) -> bool:
        """Take ``entry`` out of the line as its wait ends; True if it was given a slot first
        (it then holds it)."""
        return entry.ticket is None or self._withdraw(entry.ticket)

    def abandon(self, entry: Entry) -> None:
        """Give back what admit() gave a request that ended before it came to wait()."""
        if entry.claimed:
            return
        entry.claimed = True
        if entry.ticket is None or self._withdraw(entry.ticket):
            self.leave(None)

    def retry_after(self, floor_s: int, ceiling_s: int) -> int:
        """When a request refused now may come back (retry_after)."""
        spread = self._rng.random()
        return retry_after(self.limits, self.waiting, self.held_s, floor_s, ceiling_s, spread)

    def _withdraw(self, ticket: asyncio.Future[None]) -> bool:
        """Take ``ticket`` out of the line; True if leave() had handed it a slot already."""
        if ticket.done() and not ticket.cancelled():
            return True
        with suppress(ValueError):
            self._waiters.remove(ticket)
        return False

    def leave(self, held_s: float | None) -> None:
        """Give the slot to the first waiter, or back; ``held_s``: how long it was held."""
        if held_s is not None:
            self.held_s += HELD_WEIGHT * (held_s - self.held_s)
        while self._waiters:
            ticket = self._waiters.popleft()
            if not ticket.done():
                ticket.set_result(None)
                return
        self.running -= 1
