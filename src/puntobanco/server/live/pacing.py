"""What paces a table's round: the other part composed into the round engine.

A :class:`Pacer` starts and stops with the engine and says whether a round a stop left undealt
is voided (the clock's: its window is over) or resumed as recorded (the dealer's: the round
waits for its dealer):

- :class:`ClockPacer`: a server-dealt table's one asyncio task, which repeats — (a new shoe,
  its commitment published) → betting window → "no more bets" → deal, the cards shown one by
  one after a short pause → settlement → (the shoe revealed after its last coup) → pause — all
  on the clock passed in (``live/clock.py``), idle while nobody watches, holding while paused.
- :class:`DealerPacer`: no task; each step is the dealer's action (``live/hand.py``).
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Protocol

from puntobanco.server.db.health import outage_code
from puntobanco.server.live.clock import WallClock
from puntobanco.server.live.links import LeadershipLost

if TYPE_CHECKING:
    from puntobanco.server.live.engine import TableDealer

log = logging.getLogger("puntobanco.server.live.dealer")


class Pacer(Protocol):
    """What paces the round (``live/pacing.py``)."""

    #: a round left open or closed by a stop is resumed as recorded (else voided, refunded)
    keeps_round: bool

    def start(self) -> None:
        """Start pacing (the engine has recovered and its desk is open)."""
        ...

    async def stop(self) -> None:
        """Finish the coup being dealt (or void the open round), then stop."""
        ...

    def halt(self) -> None:
        """Stop at once, writing nothing more (the table's lock is lost)."""
        ...

    def poke(self) -> None:
        """Someone looked at the table."""
        ...


class DealerPacer:
    """A hand-dealt table is paced by its dealer's actions: nothing runs by itself."""

    keeps_round = True

    def start(self) -> None:
        """Nothing to start: each step waits for the dealer's action."""

    async def stop(self) -> None:
        """Nothing to finish: the round waits, as recorded, for its dealer after a restart."""

    def halt(self) -> None:
        """Nothing runs."""

    def poke(self) -> None:
        """The dealer opens the next round."""


class ClockPacer:
    """A server-dealt table's loop, on the engine's clock."""

    keeps_round = False

    def __init__(self, engine: TableDealer) -> None:
        self.engine = engine
        self._task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        #: waiting for someone to watch the table (no round is dealt meanwhile): what a test
        #: waits for instead of a while on the wall clock
        self.idling = False

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"dealer-{self.engine.id}")

    async def stop(self) -> None:
        engine = self.engine
        engine.stopping.set()
        if self._task is not None:
            try:
                await asyncio.wait_for(asyncio.shield(self._task), engine.config.stop_timeout)
            except TimeoutError:
                self._task.cancel()
                await asyncio.gather(self._task, return_exceptions=True)

    def halt(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None

    def poke(self) -> None:
        """Wake an idle dealer for one round."""
        self._wake.set()

    async def _run(self) -> None:
        engine = self.engine
        failed = False
        while not engine.stopping.is_set():
            try:
                if failed:  # start again from what the database holds, and tell the clients
                    await engine.recover()
                    failed = False
                    for client in list(engine.hub.clients):
                        engine.resnapshot(client)
                if await self._hold_while_paused() or await self._idle():
                    break
                if engine.paused:  # paused while it waited for someone to watch
                    continue
                await self._play_round()
            except LeadershipLost:  # another process deals the table now (live/cluster.py)
                log.error("table %s: the table's lock is lost; this process stops dealing it",
                          engine.id)
                engine.stop_leading()
                break
            except Exception as error:
                if outage_code(error) is not None:  # said once by db/health.py (issue 22)
                    engine.db.health.dealer_failed(engine.id)
                else:
                    log.exception("table %s: the dealer failed; resuming from the database",
                                  engine.id)
                failed = True
                await WallClock().wait(engine.stopping, 2.0)  # the database's time, not the game's

    async def _wait_any(self, *events: asyncio.Event) -> None:
        waits = [asyncio.create_task(event.wait()) for event in events]
        try:
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in waits:
                task.cancel()

    async def _idle(self) -> bool:
        """Wait while nobody watches (when so configured); ``True`` means stop."""
        engine = self.engine
        if (not engine.config.idle_when_unwatched or engine.hub.watched.is_set()
                or self._wake.is_set()):
            self._wake.clear()
            return engine.stopping.is_set()
        engine.view.phase = "idle"
        engine.view.deadline = None
        self.idling = True
        try:
            await self._wait_any(engine.hub.watched, self._wake, engine.stopping)
        finally:
            self.idling = False
        self._wake.clear()
        return engine.stopping.is_set()

    async def _hold_while_paused(self) -> bool:
        """Wait while paused; ``True`` means stop."""
        engine = self.engine
        if not engine.paused:
            return engine.stopping.is_set()
        engine.view.phase, engine.view.deadline = "idle", None
        await self._wait_any(engine.resumed, engine.stopping)
        return engine.stopping.is_set()

    async def _play_round(self) -> None:
        """One round, paced by the clock."""
        engine = self.engine
        shoe = engine.table.shoe
        if shoe is None or shoe.finished:
            await engine.start_shoe()
        async with engine.lock:
            if engine.paused:  # paused meanwhile: no round opens
                return
            await engine.open_round(seconds=engine.window())
            assert engine.desk.closes_at is not None
            closes_at = engine.desk.closes_at
        stopping = await engine.pause(closes_at - engine.clock.now())
        async with engine.lock:
            if stopping:  # a stopping server voids the open round (docs/server.md)
                await engine.void_round()
                return
            await engine.close_round()
        await engine.deal_and_settle()
        await engine.pause(engine.result_until - engine.clock.now())
