"""The round engine of one table, driving the core round (:class:`puntobanco.table.Table`).

Open, close, deal-and-settle and void are written once here (``_open_round``,
``_close_round``, ``_settle_round``, ``_void_round``) for both kinds of table; a hand-dealt
table (``live/human.py``) brings its own card source (the cards entered) and pacing (its
dealer's actions), a server-dealt one is paced by the clock passed in (``live/clock.py``).

A server-dealt table has one asyncio task that repeats: (a new shoe, its commitment published) → betting
window → "no more bets" → deal, the cards pushed one by one after a short pause → settlement
in one database transaction, exactly once → (the shoe revealed after its last coup) → pause. The core decides
everything about the game — bets (L4, M3), the cards (R3–R6, S1–S3), the settlement (B*, L5,
L6) — and this module only sequences it, records it and tells the clients.

Bets go through the table's :class:`~puntobanco.server.live.desk.BetDesk`: cheap refusals at
once, the rest written in group commits; "no more bets" closes the desk at the announced
deadline, lets the batch under way finish, then closes the coup in the database and gives the
core exactly the bets the database holds (``docs/server.md`` has the argument). A dealer that
(re)starts first repairs what a stop left behind: rounds not dealt are void and refunded, a
dealt coup not settled is settled, and the shoe being dealt is resumed from its recorded order.

What the rest of the server calls (``casino``, ``api``): :meth:`TableDealer.open`,
:meth:`~TableDealer.stop`, :meth:`~TableDealer.poke`, :meth:`~TableDealer.place_bet`,
:meth:`~TableDealer.withdraw_bet`, :meth:`~TableDealer.snapshot`, :meth:`~TableDealer.summary`,
:meth:`~TableDealer.totals`, and the attributes ``id``, ``settings``, ``hub`` (its clients),
``desk`` (its bets), ``view`` and ``lock`` (held by the dealer while it opens or closes a round
or recovers: a hook that changes the table between rounds takes it too).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, TypeVar

from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session

from puntobanco.bets import BetKind
from puntobanco.cards import Card
from puntobanco.errors import BetRefused, PuntoBancoError, RuleSetError, TableStateError
from puntobanco.rules import Side, hand_total
from puntobanco.server.db import recall, store
from puntobanco.server.db.engine import Database
from puntobanco.server.db.health import outage_code, recovery_counts
from puntobanco.server.db.models import CoupRecord
from puntobanco.server.db.store import TableSettings
from puntobanco.server.fair import commitment, new_salt, replayed
from puntobanco.server.live import collector
from puntobanco.server.live import messages as msg
from puntobanco.server.live.clock import Clock, WallClock, now_ms
from puntobanco.server.live.desk import BetDesk, SessionUnchecked
from puntobanco.server.live.hub import Client, Hub
from puntobanco.server.live.links import Fence, LeadershipLost, Links
from puntobanco.server.messages import IdempotencyConflict
from puntobanco.server.settings import ServerSettings, table_rules_from_json
from puntobanco.shoe import Shoe
from puntobanco.table import CardDealt, CoupDealt, Event, Phase, Table

log = logging.getLogger("puntobanco.server.live.dealer")
T = TypeVar("T")

#: How often, and after how long, a dealer retries a database write that failed for a moment.
DB_RETRIES, DB_RETRY_SECONDS = 5, 0.5


@dataclass(slots=True)
class View:
    """What the clients have been told so far: the snapshot is built from it."""

    phase: str = "idle"
    round_no: int = 0
    coup_id: int | None = None
    coup_in_shoe: int = 0
    deadline: int | None = None
    cards: list[dict[str, Any]] = field(default_factory=list)
    shoe: dict[str, Any] | None = None
    last_result: dict[str, Any] | None = None
    roads: list[dict[str, Any]] = field(default_factory=list)


class TableDealer:
    """One live table: the core round, its lock, its dealer task and its clients."""

    def __init__(self, settings: TableSettings, *, db: Database, config: ServerSettings,
                 clock: Clock | None = None, links: Links | None = None) -> None:
        self.id = settings.id
        #: who deals the table: the server (here) or a person (live/human.py)
        self.dealing: msg.Dealing = "server"
        #: what paces the round (live/clock.py): the wall clock unless a test moves its own
        self.clock: Clock = clock or WallClock()
        #: the table's settings as stored: the next shoe is dealt with them
        self.settings = settings
        self.db = db
        self.config = config
        #: its clients (with several processes, a hub that also relays: live/links.py)
        self.hub = Hub() if links is None else links.hub(self.id, self._relayed_state)
        self.desk = BetDesk(table_id=self.id, db=db, hub=self.hub, sessions=config.guard,
                            clock=self.clock, linger=config.bet_linger_seconds)
        self.lock = asyncio.Lock()
        self.view = View()
        self.table = self._new_table(settings)
        #: the rules JSON and betting window of the shoe being dealt
        self.shoe_rules: dict[str, Any] = settings.rules_json()
        self.betting_seconds = settings.betting_seconds
        self._shown: list[CardDealt] = []
        self._prepared: Shoe | None = None
        self._stop = asyncio.Event()
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self.rounds_played = 0
        #: when the pause after the last result ends (on the clock)
        self._result_until = 0.0
        # operator hooks (issue 11a, docs/operator.md): see "operator hooks" below
        self.paused = False
        self._resumed = asyncio.Event()
        self._resumed.set()
        self.barred: set[int] = set()
        # several processes (live/cluster.py): another process may deal this table
        #: this process serves the table's sockets and bets, another one deals it
        self.following = False
        #: run first in each dealer write: the table's lock is still this process's
        self.fence: Fence | None = None if links is None else links.fence(self.id)
        #: asks the dealing process to hand a hand-dealt table over to this one
        self.want_table: Callable[[], None] | None = (
            None if links is None else lambda: links.want(self.id))
        self._follow_close: asyncio.Task[None] | None = None

    # --- life cycle -----------------------------------------------------------------------

    async def open(self) -> None:
        """Repair what a stop left behind (before any request is served), then start dealing."""
        await self._recover()
        self.desk.start()
        self._task = asyncio.create_task(self._run(), name=f"dealer-{self.id}")

    async def stop(self) -> None:
        """Finish the coup being dealt (or void the open round), then end the task."""
        self._stop.set()
        if self._task is not None:
            try:
                await asyncio.wait_for(asyncio.shield(self._task), self.config.stop_timeout)
            except TimeoutError:
                self._task.cancel()
                await asyncio.gather(self._task, return_exceptions=True)
        await self.desk.stop()

    # --- several processes (live/cluster.py) ----------------------------------------------

    def follow(self) -> None:
        """Serve the table's sockets and bets while another process deals it: the desk is
        opened and closed by the dealer's relayed state (:meth:`follow_state`)."""
        self.following = True
        self.desk.start()

    async def lead(self) -> None:
        """This process deals the table from now on: the desk it kept for the last dealer is
        closed (its batches answered), then what that dealer left is repaired and the loop
        starts (:meth:`open`)."""
        self._cancel_follow_close()
        self.desk.close()
        await self.desk.drain()
        self.following = False
        self._stop = asyncio.Event()
        await self.open()

    def demote(self) -> None:
        """The table's lock is lost: stop dealing at once (no more writes; the next dealer
        repairs whatever this one left) and follow."""
        self.following = True
        if self._task is not None:
            self._task.cancel()
            self._task = None
        self.desk.close()

    def cluster_state(self) -> msg.DealerState:
        """What a following process needs to draw the table as this dealer sees it."""
        return msg.DealerState(view=asdict(self.view), rules=self.shoe_rules,
                               seconds=self.betting_seconds, paused=self.paused)

    def _relayed_state(self) -> msg.DealerState | None:
        """The state relayed with each table event: the dealing process's only."""
        return None if self.following else self.cluster_state()

    def follow_state(self, state: msg.DealerState) -> None:
        """Take the dealing process's state; open the desk for the coup it opened, close it
        when that coup's betting closed (or at its deadline, whichever comes first)."""
        if not self.following:
            return
        self.view = View(**state.view)
        self.shoe_rules, self.betting_seconds = dict(state.rules), state.seconds
        self.paused = state.paused
        view = self.view
        if view.phase == "open" and view.coup_id is not None:
            if view.coup_id != self.desk.coup_id:
                rules, _ = table_rules_from_json(self.shoe_rules)
                closes_at = None if view.deadline is None else view.deadline / 1000
                self.desk.open(coup_id=view.coup_id, round_no=view.round_no, rules=rules,
                               closes_at=closes_at)
                self._cancel_follow_close()
                if closes_at is not None:  # a hand-dealt table's dealer closes it instead
                    self._follow_close = asyncio.create_task(self._close_followed_at(closes_at))
        elif self.desk.accepting:
            self._close_followed()

    async def _close_followed_at(self, closes_at: float) -> None:
        await self.clock.wait(asyncio.Event(), closes_at - self.clock.now())
        self._follow_close = None
        self._close_followed()

    def _close_followed(self) -> None:
        self._cancel_follow_close()
        self.desk.close()
        self.desk.flush_totals()

    def _cancel_follow_close(self) -> None:
        if self._follow_close is not None:
            self._follow_close.cancel()
            self._follow_close = None

    def resnapshot(self, client: Client) -> None:
        """Draw the table afresh on one socket (after a recovery, or a takeover)."""
        client.push(msg.encode(msg.Snapshot(table=self.snapshot(client.player_id))))

    def poke(self) -> None:
        """Wake an idle dealer for one round (someone looked at the table)."""
        self._wake.set()

    async def _run(self) -> None:
        failed = False
        while not self._stop.is_set():
            try:
                if failed:  # start again from what the database holds, and tell the clients
                    await self._recover()
                    failed = False
                    for client in list(self.hub.clients):
                        self.resnapshot(client)
                if await self._hold_while_paused() or await self._idle():
                    break
                if self.paused:  # paused while it waited for someone to watch
                    continue
                await self._play_round()
            except LeadershipLost:  # another process deals the table now (live/cluster.py)
                log.error("table %s: the table's lock is lost; this process stops dealing it",
                          self.id)
                self.following = True
                self.desk.close()
                break
            except Exception as error:
                if outage_code(error) is not None:  # said once by db/health.py (issue 22)
                    self.db.health.dealer_failed(self.id)
                else:
                    log.exception("table %s: the dealer failed; resuming from the database",
                                  self.id)
                failed = True
                await WallClock().wait(self._stop, 2.0)  # the database's time, not the game's

    async def _pause(self, seconds: float) -> bool:
        """Sleep, but wake at once when the server stops; ``True`` means it is stopping."""
        return await self.clock.wait(self._stop, seconds)

    async def _idle(self) -> bool:
        """Wait while nobody watches (when so configured); ``True`` means stop."""
        if not self.config.idle_when_unwatched or self.hub.watched.is_set() or self._wake.is_set():
            self._wake.clear()
            return self._stop.is_set()
        self.view.phase = "idle"
        self.view.deadline = None
        waits = [asyncio.create_task(event.wait())
                 for event in (self.hub.watched, self._wake, self._stop)]
        try:
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in waits:
                task.cancel()
        self._wake.clear()
        return self._stop.is_set()

    async def _write(self, work: Callable[[Session], T]) -> T:
        """A dealer's write: retried while the database is momentarily unavailable or busy."""
        fence, unfenced = self.fence, work
        if fence is not None:  # several processes: only the lock's holder writes as the dealer
            def fenced(session: Session) -> T:
                fence(session)
                return unfenced(session)
            work = fenced
        for attempt in range(DB_RETRIES):
            try:  # essential: written from the disk's reserve (db/health.py)
                return await self.db.run_write(work, essential=True)
            except OperationalError as error:
                if attempt == DB_RETRIES - 1:
                    raise
                if outage_code(error) is None:  # an outage is logged once, by db/health.py
                    log.warning("table %s: database busy, retrying", self.id)
                await asyncio.sleep(DB_RETRY_SECONDS * (attempt + 1))
        raise AssertionError("unreachable")

    # --- recovery and shoes ---------------------------------------------------------------

    def _new_table(self, settings: TableSettings, *, round_no: int = 0,
                   shoe_no: int = 0) -> Table:
        table = Table(settings.rules, shoe_factory=self._take_prepared, round_no=round_no,
                      shoe_no=shoe_no)
        table.subscribe(self._on_event)
        return table

    def _take_prepared(self, _rules: object) -> Shoe:
        shoe, self._prepared = self._prepared, None
        assert shoe is not None, "a shoe is prepared (and its commitment stored) before it starts"
        return shoe

    def _on_event(self, event: Event) -> None:
        if isinstance(event, CardDealt):
            self._shown.append(event)

    async def _recover(self) -> None:
        async with self.lock:
            found = await self._write(lambda s: store.recover(s, self.id))
            if self.db.health.recovering(self.id):  # the "database back" line says it
                counts = await self.db.run_read(
                    lambda s: recovery_counts(s, found.voided, found.settled))
                self.db.health.dealer_recovered(self.id, found.voided, found.settled, *counts)
            elif found.voided or found.settled:
                log.warning("table %s: voided rounds %s, settled coups %s left by a stop",
                            self.id, found.voided, found.settled)
            await self._resume(found)
            await self._announce_recovered(found.settled, found.refunds)

    async def _resume(self, found: store.Recovered) -> None:
        """Resume the shoe being dealt from its recorded order (the table's lock held)."""
        self.settings = await self.db.run_read(lambda s: store.load_table(s, self.id))
        self.table = self._new_table(self.settings, round_no=found.last_round_no,
                                     shoe_no=found.shoe_no)
        self.view = View(round_no=found.last_round_no, last_result=found.last_result)
        if found.shoe_id is None:
            return
        try:
            rules, seconds = table_rules_from_json(found.shoe_rules)
        except RuleSetError:  # rules an older server accepted: end that shoe (issue 9)
            log.warning("table %s: shoe %s's rules are refused; it ends here", self.id,
                        found.shoe_id)
            await self._finish_shoe(found.shoe_id)
            return
        try:
            shoe = replayed(found.shoe_order, rules,
                            [(row.id, row.cards) for row in found.shoe_coups])
        except ValueError as error:
            raise RuntimeError(f"table {self.id}: {error}") from error
        if shoe.finished:
            await self._finish_shoe(found.shoe_id)
            return
        self.table = self._new_table(self.settings, round_no=found.last_round_no,
                                     shoe_no=found.shoe_no - 1)  # this shoe starts again
        self._prepared = shoe
        self.table.new_shoe(rules=rules)
        self.shoe_rules, self.betting_seconds = found.shoe_rules, seconds
        self.view.shoe = self._shoe_view(found.shoe_id, found.shoe_commitment, shoe)
        self.view.roads = [recall.road_json(recall.coup_json(row, shoe_no=found.shoe_no))
                           for row in found.shoe_coups]

    def _shoe_view(self, shoe_id: int, commitment_hex: str, shoe: Shoe) -> dict[str, Any]:
        return {"id": shoe_id, "shoe_no": self.table.shoe_no, "commitment": commitment_hex,
                "cards_left": shoe.cards_left, "cut_card_out": shoe.cut_card_out,
                "last_coup": shoe.is_last_coup, "coups_dealt": shoe.coups_dealt,
                "cut_index": shoe.cut_index, "burned": len(shoe.burned)}

    async def _start_shoe(self) -> None:
        """Shuffle securely (S1), store the order and publish its commitment, then burn (S2)."""
        settings = await self.db.run_read(lambda s: store.load_table(s, self.id))
        shoe = Shoe.shuffled(settings.rules)
        salt = new_salt()
        digest = commitment(salt, shoe.order)
        rules_json = settings.rules_json()
        shoe_id = await self._write(lambda s: store.create_shoe(
            s, table_id=self.id, shoe_no=self.table.shoe_no + 1, shoe=shoe, salt=salt,
            commitment=digest, rules_json=rules_json))
        self.settings = settings
        self._prepared = shoe
        self.table.clear_log()  # the database keeps the history; the core's log holds one shoe
        started = self.table.new_shoe(rules=settings.rules)
        self.shoe_rules, self.betting_seconds = rules_json, settings.betting_seconds
        self.view.shoe = self._shoe_view(shoe_id, digest, shoe)
        self.view.roads = []
        self.hub.publish(msg.ShoeStarted(
            shoe_id=shoe_id, shoe_no=started.shoe_no, commitment=digest,
            cards_left=shoe.cards_left, cut_index=started.cut_index, burned=len(started.burned),
            cards=len(started.order), rules=rules_json))

    async def _finish_shoe(self, shoe_id: int) -> None:
        """Reveal the salt and order of a shoe whose last coup was played."""
        row = await self._write(lambda s: store.finish_shoe(s, shoe_id))
        self.hub.publish(msg.ShoeFinished(shoe_id=shoe_id, shoe_no=row.shoe_no,
                                          order=row.card_order.split(), salt=row.salt,
                                          commitment=row.commitment))

    # --- one round: written once for both kinds of table ----------------------------------
    #
    # Open, close, deal-and-settle and void are the engine's; what paces them differs (the
    # clock in _play_round below, the dealer's actions in live/human.py) and where the cards
    # come from (a shuffled shoe dealt by the core, or the cards a dealer enters).

    def _shoe_now(self) -> dict[str, Any]:
        """The shoe as the pages see it now (a hand-dealt table says it its own way)."""
        shoe = self.table.shoe
        assert shoe is not None and self.view.shoe is not None
        return {**self.view.shoe, "cards_left": shoe.cards_left,
                "cut_card_out": shoe.cut_card_out, "coups_dealt": shoe.coups_dealt,
                "last_coup": shoe.is_last_coup, "coup_in_shoe": self.view.coup_in_shoe}

    def _refuse_if_paused(self) -> None:
        if self.paused:
            raise TableStateError("The table is paused: no round opens until the operator "
                                  "resumes it.", code="table-paused")

    async def _open_round(self, *, seconds: float | None) -> int:
        """Open a round for bets (the table's lock held): recorded, the core's, the desk's;
        ``seconds`` is the betting window (``None``: until the dealer closes it)."""
        self._refuse_if_paused()
        shoe = self.table.shoe
        assert shoe is not None and self.view.shoe is not None
        self.table.verify_open_round()
        shoe_id = self.view.shoe["id"]
        coup_id = await self._write(lambda s: store.open_coup(
            s, table_id=self.id, shoe_id=shoe_id, round_no=self.table.round_no + 1,
            coup_in_shoe=shoe.coups_dealt + 1, last_coup=shoe.is_last_coup))
        opened = self.table.open_round()
        closes_at = None if seconds is None else self.clock.now() + seconds
        deadline = None if closes_at is None else int(closes_at * 1000)
        self.desk.open(coup_id=coup_id, round_no=opened.round_no, rules=self.table.rules,
                       closes_at=closes_at)
        self.view = View(phase="open", round_no=opened.round_no, coup_id=coup_id,
                         coup_in_shoe=opened.coup_in_shoe, deadline=deadline,
                         shoe=self.view.shoe, last_result=self.view.last_result,
                         roads=self.view.roads)
        self.view.shoe = self._shoe_now()
        self.hub.publish(msg.RoundOpened(
            round_no=opened.round_no, coup_id=coup_id, coup_in_shoe=opened.coup_in_shoe,
            shoe_no=self.table.shoe_no, last_coup=opened.last_coup, deadline=deadline,
            server_time=now_ms(self.clock), seconds=seconds, dealing=self.dealing))
        return coup_id

    async def _close_round(self) -> dict[int, dict[BetKind, int]]:
        """"No more bets" (the table's lock held): a state change, whatever is queued.
        Requests taken before it are answered (one batch at most is being written), then the
        database closes the coup and says which bets it holds; the core takes exactly those
        (and checks each spot again: M3, L1, L3). Returns them, per player."""
        coup_id = self.view.coup_id
        assert coup_id is not None
        self.desk.close()
        self.view.phase, self.view.deadline = "closed", None
        self.hub.publish(msg.BetsClosed(round_no=self.table.round_no, coup_id=coup_id))
        await self.desk.drain()
        self.desk.flush_totals()  # the final totals, if the last batch changed them
        held = await self._write(lambda s: store.close_coup_with_bets(s, coup_id))
        for player, spot in held.items():
            for kind in BetKind:
                if spot.get(kind):
                    self.table.place_bet(str(player), kind, spot[kind])
        self.table.close_bets()
        return {player: dict(spot) for player, spot in held.items() if spot}

    async def _void_round(self, *, also: Callable[[Session], None] | None = None) -> None:
        """Void the round under way (the table's lock held): every stake back to its wallet,
        each player told what came back, every page told the round is void. ``also`` runs in
        the same transaction (a hand-dealt coup's cards marked void)."""
        coup_id = self.view.coup_id
        assert coup_id is not None
        if self.table.phase is Phase.OPEN:  # the bets being written are taken, then refunded
            self.desk.close()
            await self.desk.drain()
            self.desk.flush_totals()

        def write(session: Session) -> dict[int, store.Refund]:
            refunds = store.void_coup(session, table_id=self.id, coup_id=coup_id)
            if also is not None:
                also(session)
            return refunds

        refunds = await self._write(write)
        cards = self._void_in_core()
        self.view.phase, self.view.cards, self.view.deadline = "void", [], None
        self.view.shoe = self._shoe_now()
        self._tell_void(coup_id, self.table.round_no, refunds, cards)

    def _void_in_core(self) -> tuple[str, ...]:
        """The core's round ends void (no card of a server-dealt round is dealt before its
        close); the cards it had (none)."""
        self.table.void_round_bets()
        return ()

    def _tell_void(self, coup_id: int, round_no: int, refunds: Mapping[int, store.Refund],
                   cards: tuple[str, ...] = (), *, shoe_no: int | None = None,
                   coup_in_shoe: int | None = None) -> None:
        for player, refund in refunds.items():  # the page says what came back
            self.hub.send(player, msg.Balance(reason="void", coup_id=coup_id,
                                              amount=refund.amount, balance=refund.balance))
            self.hub.send(player, msg.MyBets(coup_id=coup_id, my_bets={},
                                             balance=refund.balance))
        self.hub.publish(msg.RoundVoided(
            round_no=round_no, coup_id=coup_id, cards=list(cards),
            shoe_no=self.table.shoe_no if shoe_no is None else shoe_no,
            coup_in_shoe=self.view.coup_in_shoe if coup_in_shoe is None else coup_in_shoe))

    async def _settle_round(self, coup_id: int, dealt: CoupDealt, *, first_card: int,
                            bets: Mapping[int, Mapping[BetKind, int]],
                            shown: list[CardDealt] | None = None) -> bool:
        """Record the dealt coup, show its cards (``shown``: those not yet on the pages, paced
        by the clock), settle it exactly once and tell everyone. ``True``: the shoe ended."""
        shoe_no = self.table.shoe_no
        coup_json = await self._record_deal(coup_id, dealt, first_card=first_card)
        # No bet of this table is waited on now: the moment for a full garbage collection when
        # one is due, taken out of the "no more bets" pause the pages show anyway.
        spent = collector.quiet_moment()
        for index, card in enumerate(shown or []):
            # "No more bets" stays on the pages a moment before the first card turns; a
            # stopping server skips the pauses and finishes the coup.
            await self._pause(self.config.card_seconds if index
                              else max(0.0, self.config.closed_seconds - spent))
            self._show_card(card.side, card.position, str(card.card))
        self.view.phase = "dealt"
        self.view.shoe = self._shoe_now()
        self.hub.publish(msg.CoupDealt(coup=coup_json, cards_left=dealt.cards_left,
                                       cut_card_out=dealt.cut_card_out))
        settled = self.table.settle()
        lines = {int(spot): spot_lines for spot, spot_lines in settled.lines.items()}
        spots = {player: dict(spot) for player, spot in bets.items() if spot}

        def settle(session: Session) -> tuple[dict[str, Any], dict[int, int]]:
            balances = store.settle_coup(session, table_id=self.id, coup_id=coup_id,
                                         bets=spots, lines=lines)
            result = recall.coup_json(session.get_one(CoupRecord, coup_id), shoe_no=shoe_no)
            return result, balances

        result, balances = await self._write(settle)
        for player, balance in balances.items():
            self.hub.send(player, msg.Settlement(
                coup_id=coup_id, balance=balance,
                lines=[{**line.to_dict(), "returned": line.returned} for line in lines[player]]))
        self.view.phase = "settled"
        self.view.last_result = result
        self.view.roads.append(recall.road_json(result))
        # the pause after the result ends at a moment fixed before anyone hears of it (a test
        # moving the clock once it sees the result moves it past this moment)
        self._result_until = self.clock.now() + self.config.result_seconds
        self.hub.publish(msg.RoundSettled(round_no=settled.round_no, coup_id=coup_id,
                                          shoe_no=shoe_no, coup_in_shoe=self.view.coup_in_shoe,
                                          winner=result["winner"],
                                          shoe_finished=settled.shoe_finished))
        self.rounds_played += 1
        return settled.shoe_finished

    def _show_card(self, side: Side, position: int, card: str) -> None:
        """One card on the pages, with the totals shown so far."""
        self.view.cards.append({"side": side.value, "position": position, "card": card})
        totals = self._hand_totals()
        self.hub.publish(msg.CardDealt(side=side.value, position=position, card=card,
                                       punto_total=totals[0], banco_total=totals[1]))

    def _hand_totals(self) -> tuple[int, int]:
        values: dict[str, list[int]] = {"punto": [], "banco": []}
        for shown in self.view.cards:
            values[shown["side"]].append(Card.parse(shown["card"]).value)
        return hand_total(values["punto"]), hand_total(values["banco"])

    async def _record_deal(self, coup_id: int, dealt: CoupDealt, *,
                           first_card: int) -> dict[str, Any]:
        """Write the coup's cards (dealt from ``first_card`` of the shoe); its recall JSON."""
        shoe_no = self.table.shoe_no

        def record(session: Session) -> dict[str, Any]:
            store.record_deal(session, coup_id, dealt.coup, first_card=first_card)
            return recall.coup_json(session.get_one(CoupRecord, coup_id), shoe_no=shoe_no)

        return await self._write(record)

    async def _announce_recovered(self, settled: list[int],
                                  voided: Mapping[int, Mapping[int, store.Refund]]) -> None:
        """Tell the sockets what a recovery did, as if the dealer had: a coup it settled
        (its cards, each player's settlement, the result), a round it voided (each player's
        refund). Nothing to say to a table nobody watches yet (a start)."""
        for coup_id in settled:
            def read(session: Session, coup_id: int = coup_id) -> tuple[
                    dict[str, Any], dict[int, tuple[list[dict[str, Any]], int]]]:
                row = session.get_one(CoupRecord, coup_id)
                result = recall.coup_json(row, shoe_no=recall.shoe_no_of(session, row.shoe_id))
                players = sorted(store.active_or_settled_players(session, coup_id))
                balances = store.wallet_balances(session, players)
                return result, {player: (recall.lines_of(session, coup_id, player),
                                         balances[player]) for player in players}

            result, per_player = await self.db.run_read(read)
            self.hub.publish(msg.CoupDealt(coup=result, cards_left=self.view.shoe["cards_left"]
                                           if self.view.shoe else 0,
                                           cut_card_out=bool(self.view.shoe
                                                             and self.view.shoe["cut_card_out"])))
            for player, (player_lines, balance) in per_player.items():
                self.hub.send(player, msg.Settlement(coup_id=coup_id, lines=player_lines,
                                                     balance=balance))
            self.hub.publish(msg.RoundSettled(
                round_no=result["round_no"], coup_id=coup_id, shoe_no=result["shoe_no"],
                coup_in_shoe=result["coup_in_shoe"], winner=result["winner"],
                shoe_finished=False))
        for coup_id, refunds in voided.items():
            def named(session: Session, coup_id: int = coup_id) -> tuple[int, int, int]:
                row = session.get_one(CoupRecord, coup_id)
                return row.round_no, recall.shoe_no_of(session, row.shoe_id), row.coup_in_shoe

            round_no, shoe_no, coup_in_shoe = await self.db.run_read(named)
            self._tell_void(coup_id, round_no, refunds, shoe_no=shoe_no,
                            coup_in_shoe=coup_in_shoe)

    async def _play_round(self) -> None:
        """One round of a server-dealt table, paced by the clock."""
        shoe = self.table.shoe
        if shoe is None or shoe.finished:
            await self._start_shoe()
        assert self.table.shoe is not None
        seconds = (self.config.betting_seconds if self.config.betting_seconds is not None
                   else self.betting_seconds)
        async with self.lock:
            if self.paused:  # paused meanwhile: no round opens
                return
            coup_id = await self._open_round(seconds=seconds)
            assert self.desk.closes_at is not None
            closes_at = self.desk.closes_at
        stopping = await self._pause(closes_at - self.clock.now())
        async with self.lock:
            if stopping:  # a stopping server voids the open round (docs/server.md)
                await self._void_round()
                return
            bets = await self._close_round()
        shoe = self.table.shoe
        assert shoe is not None
        first_card = shoe.position
        self._shown = []
        dealt = self.table.deal()
        if await self._settle_round(coup_id, dealt, first_card=first_card, bets=bets,
                                    shown=self._shown):
            assert self.view.shoe is not None
            await self._finish_shoe(self.view.shoe["id"])
        await self._pause(self._result_until - self.clock.now())

    # --- bets -----------------------------------------------------------------------------

    async def place_bet(self, player_id: int, kind: BetKind, stake: int, key: str | None,
                        *, role: str, coup_id: int | None = None, token: str | None = None
                        ) -> dict[str, Any]:
        """Place a bet (validated by the core, paid from the wallet); see ``docs/api.md``.

        ``coup_id``, when given, is the coup the player saw open: a bet for any other coup is
        refused ``table-closed``. Refusals that need no database are answered at once; the bet
        itself is written in the table's next group commit. Once queued it completes even if
        the client goes away, so the database and the table never disagree about a bet.
        With ``token``, the group commit checks that session first (``BetDesk.submit``).
        Only a player's account bets (``role``: a dealer's or operator's is refused).
        """
        self._refuse_barred(player_id, role)
        return await self._submit(store.BetOp(player_id, kind, stake, key),
                                  lambda: self.desk.check(kind, stake, coup_id), token=token)

    async def withdraw_bet(self, player_id: int, kind: BetKind, key: str | None = None, *,
                           coup_id: int | None = None) -> dict[str, Any]:
        """Withdraw the player's whole bet of this kind while betting is open (L4). With an
        idempotency ``key``, a retry gets the first answer again and moves no money (issue 9)."""
        return await self._submit(store.BetOp(player_id, kind, key=key, withdraw=True),
                                  lambda: self.desk.check(kind, None, coup_id))

    async def place_bets(self, player_id: int, stakes: list[tuple[BetKind, int]],
                         key: str | None, *, role: str, coup_id: int | None = None
                         ) -> dict[str, Any]:
        """Several stakes at once, all or nothing (``POST …/bets/batch``, the page's repeat
        and double): each is checked as a single bet, then the spot with all of them by the
        core and their sum against the balance, in the table's next group commit."""
        self._refuse_barred(player_id, role)
        merged: dict[BetKind, int] = {}
        for kind, stake in stakes:
            merged[kind] = merged.get(kind, 0) + stake

        def check() -> None:
            for kind, stake in merged.items():
                self.desk.check(kind, stake, coup_id)

        return await self._submit(store.BetOp(player_id, next(iter(merged)), key=key,
                                              group=tuple(merged.items())), check)

    async def _submit(self, op: store.BetOp, check: Callable[[], None], *,
                      token: str | None = None) -> dict[str, Any]:
        """Queue ``op`` for the next group commit once ``check`` (the refusals that need no
        database) passes. A refused request with an idempotency key already taken gets the
        first answer again (a retry after the close), or ``idempotency-conflict``. Once queued
        it completes even if the client goes away."""
        try:
            check()
        except BetRefused:
            if token is not None:  # the session unchecked: not even a stored answer is given
                raise SessionUnchecked from None
            if op.key is not None:  # the one idempotency check, as the batch makes it
                again = store.idempotent_answer(
                    await self.desk.stored_request(op.player_id, op.key), op.fingerprint(self.id))
                if isinstance(again, IdempotencyConflict):
                    raise again from None
                if again is not None:
                    return dict(again)
            raise
        return await asyncio.shield(self.desk.submit(op, token=token))

    # --- operator hooks (issue 11a): pause after the coup, suspended players ----------------

    def set_paused(self, paused: bool) -> None:
        """Pause (the coup under way is finished and settled, then no round opens) or resume."""
        self.paused = paused
        if paused:
            self._resumed.clear()
        else:
            self._resumed.set()

    async def _hold_while_paused(self) -> bool:
        """Wait while paused; ``True`` means stop."""
        if not self.paused:
            return self._stop.is_set()
        self.view.phase, self.view.deadline = "idle", None
        waits = [asyncio.create_task(event.wait()) for event in (self._resumed, self._stop)]
        try:
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in waits:
                task.cancel()
        return self._stop.is_set()

    def _refuse_barred(self, player_id: int, role: str) -> None:
        if role != "player":  # dealers and operators hold no money at a table (issue 17)
            raise PuntoBancoError("Only a player's account bets and holds money.",
                                  code="not-a-player")
        if player_id in self.barred:
            raise PuntoBancoError("This account is suspended.", code="account-suspended")

    async def refund_suspended(self, player_id: int) -> int:
        """Bar a suspended player from betting here and give back their bets on a round still
        open for betting, through the desk like a withdrawal (ledger reason ``refund``); bets
        already closed stand. Returns the cents given back."""
        self.barred.add(player_id)
        kinds = list(self.desk.spots.get(player_id, {})) if self._betting() else []
        given = 0
        for name in kinds:
            kind = BetKind(name)
            try:
                self.desk.check(kind, None, None)
                answer = await asyncio.shield(self.desk.submit(
                    store.BetOp(player_id, kind, withdraw=True, refund=True)))
            except PuntoBancoError:  # betting closed meanwhile: the rest stand
                break
            given += int(answer["stake"])
        return given

    # --- views ----------------------------------------------------------------------------

    def totals(self) -> dict[str, int]:
        """The whole table's stakes on each bet this round."""
        if self._betting():
            return self.desk.totals()
        totals = {kind.value: 0 for kind in BetKind}
        for spot_bets in self.table.bets.values():
            for kind, stake in spot_bets.items():
                totals[kind.value] += stake
        return totals

    def my_bets(self, player_id: int) -> dict[str, int]:
        """A player's bets this round, in payment order."""
        if self._betting():
            return dict(self.desk.spots.get(player_id, {}))
        bets = self.table.bets.get(str(player_id), {})
        return {kind.value: bets[kind] for kind in BetKind if bets.get(kind)}

    def spot_bets(self) -> dict[int, dict[str, int]]:
        """Every player's bets this round, in payment order (the operator's live view)."""
        if self._betting():
            return {player: dict(bets) for player, bets in self.desk.spots.items()}
        return {int(spot): {kind.value: bets[kind] for kind in BetKind if bets.get(kind)}
                for spot, bets in self.table.bets.items()}

    def spots(self) -> int:
        """How many players have a bet this round."""
        return len(self.desk.spots) if self._betting() else len(self.table.bets)

    def _betting(self) -> bool:
        """The bets are the desk's (the core gets them from the database at the close); a
        following process knows the bets from its desk only."""
        return self.following or self.table.phase is Phase.OPEN

    def snapshot(self, player_id: int | None) -> dict[str, Any]:
        """Everything a page needs to draw the table now (``GET /api/tables/{id}``)."""
        view = self.view
        return {
            "id": self.id, "name": self.settings.name, "rules": self.shoe_rules,
            "phase": view.phase, "round_no": view.round_no, "coup_id": view.coup_id,
            "coup_in_shoe": view.coup_in_shoe, "shoe": view.shoe, "deadline": view.deadline,
            "server_time": now_ms(self.clock), "totals": self.totals(),
            "my_bets": self.my_bets(player_id) if player_id is not None else {},
            "cards": list(view.cards), "last_result": view.last_result, "roads": list(view.roads),
            "betting_seconds": (self.config.betting_seconds if self.config.betting_seconds
                                is not None else self.betting_seconds),
            "spots": self.spots(), "paused": self.paused, "dealing": self.dealing,
            "database": self.db.health.state(),  # issue 22: bets stopped by the database
        }

    def summary(self) -> dict[str, Any]:
        """The table's entry in ``GET /api/tables``."""
        return {"id": self.id, "name": self.settings.name, "rules": self.shoe_rules,
                "next_rules": self.settings.rules_json(), "phase": self.view.phase,
                "players": self.hub.players(), "spots": self.spots(),
                "paused": self.paused, "dealing": self.dealing,
                # the window the table deals now: ``serve --betting-seconds`` overrides the
                # settings (the console says so instead of showing the settings' value)
                "betting_seconds": (self.config.betting_seconds
                                    if self.config.betting_seconds is not None
                                    else self.betting_seconds),
                "betting_seconds_fixed": self.config.betting_seconds is not None}

