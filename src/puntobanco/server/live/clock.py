"""The one clock a table's round reads (issue 17): the wall clock in production, a hand-moved
clock in tests, so that a test runs rounds without sleeping through real betting windows.

Everything that paces a round asks the clock passed to it: the betting deadline (announced in
epoch milliseconds and checked by the desk), the pauses between "no more bets", the cards and
the next window, and the moment a following process closes its desk. Only the database's
retry back-off and the cluster's lock campaign keep real time: they wait for other machines,
not for the game.

>>> import asyncio
>>> async def demo() -> list[bool]:
...     clock = ManualClock(start=100.0)
...     stop = asyncio.Event()
...     waiting = asyncio.ensure_future(clock.wait(stop, 15.0))
...     await asyncio.sleep(0)
...     clock.advance(14.0)
...     await asyncio.sleep(0)
...     early = waiting.done()
...     clock.advance(1.0)
...     return [early, await waiting, clock.now() == 115.0]
>>> from concurrent.futures import ThreadPoolExecutor
>>> with ThreadPoolExecutor(1) as thread:  # its own loop, on a thread of its own
...     thread.submit(asyncio.run, demo()).result()
[False, False, True]
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import threading
import time
from typing import Any, Protocol


class Clock(Protocol):
    """What paces a round: the time now, and a wait that an event may cut short."""

    def now(self) -> float:
        """Seconds since the epoch."""
        ...

    async def wait(self, event: asyncio.Event, seconds: float) -> bool:
        """Wait ``seconds`` or until ``event`` is set; ``True`` means the event was set."""
        ...


def now_ms(clock: Clock) -> int:
    """The clock's time in epoch milliseconds (what the pages are told)."""
    return int(clock.now() * 1000)


class WallClock:
    """The machine's clock (production)."""

    def now(self) -> float:
        return time.time()

    async def wait(self, event: asyncio.Event, seconds: float) -> bool:
        if event.is_set():
            return True
        if seconds <= 0:
            return False
        try:
            await asyncio.wait_for(event.wait(), seconds)
        except TimeoutError:
            return event.is_set()
        return True


class ManualClock:
    """A clock that moves only when told (:meth:`advance`, from any thread): a betting window
    stays open until the test ends it, and no test waits for a real one."""

    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self._now = start
        self._lock = threading.Lock()
        self._order = itertools.count()
        #: (due, order, loop, future) of every wait under way
        self._due: list[tuple[float, int, asyncio.AbstractEventLoop, asyncio.Future[Any]]] = []

    def now(self) -> float:
        with self._lock:
            return self._now

    async def wait(self, event: asyncio.Event, seconds: float) -> bool:
        if event.is_set():
            return True
        if seconds <= 0:
            return False
        loop = asyncio.get_running_loop()
        timer: asyncio.Future[Any] = loop.create_future()
        with self._lock:
            heapq.heappush(self._due, (self._now + seconds, next(self._order), loop, timer))
        setter: asyncio.Future[Any] = asyncio.ensure_future(event.wait())
        try:
            await asyncio.wait([timer, setter], return_when=asyncio.FIRST_COMPLETED)
        finally:
            setter.cancel()
            if not timer.done():
                timer.cancel()
        return event.is_set()

    def advance(self, seconds: float) -> None:
        """Move the time on by ``seconds``; every wait due by then ends."""
        with self._lock:
            self._now += seconds
            due = []
            while self._due and self._due[0][0] <= self._now:
                due.append(heapq.heappop(self._due))
        for _, _, loop, timer in due:
            if not loop.is_closed():
                loop.call_soon_threadsafe(_end, timer)

    def waiting(self) -> int:
        """How many waits are under way (a test advances once the dealer waits)."""
        with self._lock:
            return sum(1 for *_, timer in self._due if not timer.done())


def _end(timer: asyncio.Future[Any]) -> None:
    if not timer.done():
        timer.set_result(None)
