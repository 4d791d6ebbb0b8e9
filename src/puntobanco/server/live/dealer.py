"""The dealer loop of one table, driving the core round (:class:`puntobanco.table.Table`).

Each table has one asyncio task that repeats: (a new shoe, its commitment published) → betting
window → "no more bets" → deal, the cards pushed one by one after a short pause → settlement in one database
transaction, exactly once → (the shoe revealed after its last coup) → pause. The core decides
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
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, TypeVar

from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session

from puntobanco.bets import BetKind
from puntobanco.errors import BetRefused, PuntoBancoError, RuleSetError
from puntobanco.rules import Side, hand_total
from puntobanco.server.db import recall, store
from puntobanco.server.db.engine import Database
from puntobanco.server.db.health import outage_code, recovery_counts
from puntobanco.server.db.models import CoupRecord
from puntobanco.server.db.store import TableSettings
from puntobanco.server.fair import commitment, new_salt, replayed
from puntobanco.server.live import collector
from puntobanco.server.live import messages as msg
from puntobanco.server.live.cluster import LeadershipLost
from puntobanco.server.live.desk import BetDesk, SessionUnchecked
from puntobanco.server.live.hub import Hub
from puntobanco.server.messages import IdempotencyConflict
from puntobanco.server.settings import ServerSettings, table_rules_from_json
from puntobanco.shoe import Shoe
from puntobanco.table import CardDealt, CoupDealt, Event, Phase, Table

log = logging.getLogger("puntobanco.server.live.dealer")
T = TypeVar("T")

#: How often, and after how long, a dealer retries a database write that failed for a moment.
DB_RETRIES, DB_RETRY_SECONDS = 5, 0.5


def now_ms() -> int:
    return int(time.time() * 1000)


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

    def __init__(self, settings: TableSettings, *, db: Database, config: ServerSettings) -> None:
        self.id = settings.id
        #: the table's settings as stored: the next shoe is dealt with them
        self.settings = settings
        self.db = db
        self.config = config
        self.hub = Hub()
        self.desk = BetDesk(table_id=self.id, db=db, hub=self.hub, sessions=config.guard)
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
        # operator hooks (issue 11a, docs/operator.md): see "operator hooks" below
        self.paused = False
        self._resumed = asyncio.Event()
        self._resumed.set()
        self.barred: set[int] = set()
        # several processes (live/cluster.py): another process may deal this table
        #: this process serves the table's sockets and bets, another one deals it
        self.following = False
        #: run first in each dealer write: the table's lock is still this process's
        self.fence: Callable[[Session], None] | None = None
        #: asks the dealing process to hand a hand-dealt table over to this one
        self.want_table: Callable[[], None] | None = None
        self._follow_close: asyncio.TimerHandle | None = None

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

    def cluster_state(self) -> dict[str, Any]:
        """What a following process needs to draw the table as this dealer sees it."""
        return {"view": asdict(self.view), "rules": self.shoe_rules,
                "seconds": self.betting_seconds, "paused": self.paused}

    def follow_state(self, state: Mapping[str, Any]) -> None:
        """Take the dealing process's state; open the desk for the coup it opened, close it
        when that coup's betting closed (or at its deadline, whichever comes first)."""
        if not self.following:
            return
        self.view = View(**state["view"])
        self.shoe_rules, self.betting_seconds = state["rules"], state["seconds"]
        self.paused = bool(state["paused"])
        view = self.view
        if view.phase == "open" and view.coup_id is not None:
            if view.coup_id != self.desk.coup_id:
                rules, _ = table_rules_from_json(self.shoe_rules)
                loop = asyncio.get_running_loop()
                left = (None if view.deadline is None  # a hand-dealt table's dealer closes it
                        else max(0.0, (view.deadline - now_ms()) / 1000))
                self.desk.open(coup_id=view.coup_id, round_no=view.round_no, rules=rules,
                               closes_at=None if left is None else loop.time() + left)
                self._cancel_follow_close()
                if left is not None:
                    self._follow_close = loop.call_later(left, self._close_followed)
        elif self.desk.accepting:
            self._close_followed()

    def _close_followed(self) -> None:
        self._cancel_follow_close()
        self.desk.close()
        self.desk.flush_totals()

    def _cancel_follow_close(self) -> None:
        if self._follow_close is not None:
            self._follow_close.cancel()
            self._follow_close = None

    def resnapshot(self, client: Any) -> None:
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
                await self._pause(2.0)

    async def _pause(self, seconds: float) -> bool:
        """Sleep, but wake at once when the server stops; ``True`` means it is stopping."""
        if self._stop.is_set():
            return True
        try:
            await asyncio.wait_for(self._stop.wait(), seconds)
        except TimeoutError:
            return False
        return True

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

    # --- one round ------------------------------------------------------------------------

    async def _play_round(self) -> None:
        shoe = self.table.shoe
        if shoe is None or shoe.finished:
            await self._start_shoe()
        assert self.table.shoe is not None and self.view.shoe is not None
        seconds = (self.config.betting_seconds if self.config.betting_seconds is not None
                   else self.betting_seconds)
        shoe_id = self.view.shoe["id"]
        loop = asyncio.get_running_loop()
        async with self.lock:
            shoe = self.table.shoe
            coup_id = await self._write(lambda s: store.open_coup(
                s, table_id=self.id, shoe_id=shoe_id,
                round_no=self.table.round_no + 1, coup_in_shoe=shoe.coups_dealt + 1,
                last_coup=shoe.is_last_coup))
            opened = self.table.open_round()
            closes_at = loop.time() + seconds
            deadline = now_ms() + int(seconds * 1000)
            self.desk.open(coup_id=coup_id, round_no=opened.round_no, rules=self.table.rules,
                           closes_at=closes_at)
            self.view = View(phase="open", round_no=opened.round_no, coup_id=coup_id,
                             coup_in_shoe=opened.coup_in_shoe, deadline=deadline,
                             shoe={**self.view.shoe, "last_coup": opened.last_coup},
                             last_result=self.view.last_result, roads=self.view.roads)
            self.hub.publish(msg.RoundOpened(
                round_no=opened.round_no, coup_id=coup_id, coup_in_shoe=opened.coup_in_shoe,
                last_coup=opened.last_coup, deadline=deadline, server_time=now_ms(),
                seconds=seconds))
        stopping = await self._pause(max(0.0, closes_at - loop.time()))
        async with self.lock:
            # "No more bets": a state change, at the deadline, whatever is queued. Requests
            # taken before it are answered (one batch at most is being written), then the
            # database closes the coup and says which bets it holds.
            self.desk.close()
            if not stopping:
                self.view.phase, self.view.deadline = "closed", None
                self.hub.publish(msg.BetsClosed(round_no=opened.round_no, coup_id=coup_id))
            await self.desk.drain()
            self.desk.flush_totals()  # the final totals, if the last batch changed them
            if stopping:
                refunded = {spot: sum(bets.values()) for spot, bets in self.table.bets.items()}
                balances = await self._write(
                    lambda s: store.void_coup(s, table_id=self.id, coup_id=coup_id))
                self.table.close_bets()  # the core refuses any later bet
                for player, balance in balances.items():  # the page says what came back
                    self.hub.send_to(player, {"type": "balance", "reason": "void",
                                              "coup_id": coup_id, "balance": balance,
                                              "amount": refunded.get(str(player), 0)})
                return
            held = await self._write(lambda s: store.close_coup_with_bets(s, coup_id))
            for player, spot in held.items():
                for kind in BetKind:  # the core checks the spot again (M3, L1, L3)
                    if spot.get(kind):
                        self.table.place_bet(str(player), kind, spot[kind])
            closed = self.table.close_bets()
        await self._deal_and_settle(coup_id, closed.bets)

    async def _record_deal(self, coup_id: int, dealt: CoupDealt, *,
                           first_card: int) -> dict[str, Any]:
        """Write the coup's cards (dealt from ``first_card`` of the shoe); its recall JSON."""
        shoe_no = self.table.shoe_no

        def record(session: Session) -> dict[str, Any]:
            store.record_deal(session, coup_id, dealt.coup, first_card=first_card)
            return recall.coup_json(session.get_one(CoupRecord, coup_id), shoe_no=shoe_no)

        return await self._write(record)

    async def _deal_and_settle(self, coup_id: int,
                               closed: Mapping[str, Mapping[BetKind, int]]) -> None:
        shoe = self.table.shoe
        assert shoe is not None and self.view.shoe is not None
        first_card = shoe.position
        self._shown = []
        dealt = self.table.deal()
        shoe_no = self.table.shoe_no
        coup_json = await self._record_deal(coup_id, dealt, first_card=first_card)
        # No bet of this table is waited on now: the moment for a full garbage collection when
        # one is due, taken out of the "no more bets" pause the pages show anyway.
        spent = collector.quiet_moment()
        shown: dict[Side, list[int]] = {Side.PUNTO: [], Side.BANCO: []}
        for index, card in enumerate(self._shown):
            # "No more bets" stays on the pages a moment before the first card turns; a
            # stopping server skips the pauses and finishes the coup.
            await self._pause(self.config.card_seconds if index
                              else max(0.0, self.config.closed_seconds - spent))
            shown[card.side].append(card.card.value)
            message = {"side": card.side.value, "position": card.position, "card": str(card.card)}
            self.view.cards.append(message)
            self.hub.publish(msg.CardDealt(side=card.side.value, position=card.position,
                                           card=str(card.card),
                                           punto_total=hand_total(shown[Side.PUNTO]),
                                           banco_total=hand_total(shown[Side.BANCO])))
        self.view.phase = "dealt"
        self.view.shoe = {**self.view.shoe, "cards_left": dealt.cards_left,
                          "cut_card_out": dealt.cut_card_out, "coups_dealt": shoe.coups_dealt,
                          "last_coup": shoe.is_last_coup}
        self.hub.publish(msg.CoupDealt(coup=coup_json, cards_left=dealt.cards_left,
                                       cut_card_out=dealt.cut_card_out))
        settled = self.table.settle()
        bets = {int(spot): dict(spot_bets) for spot, spot_bets in closed.items()}
        lines = {int(spot): spot_lines for spot, spot_lines in settled.lines.items()}

        def settle(session: Session) -> tuple[dict[str, Any], dict[int, int]]:
            balances = store.settle_coup(session, table_id=self.id, coup_id=coup_id, bets=bets,
                                         lines=lines)
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
        self.hub.publish(msg.RoundSettled(round_no=settled.round_no, coup_id=coup_id,
                                          winner=result["winner"],
                                          shoe_finished=settled.shoe_finished))
        self.rounds_played += 1
        if settled.shoe_finished:
            await self._finish_shoe(self.view.shoe["id"])
        await self._pause(self.config.result_seconds)

    # --- bets -----------------------------------------------------------------------------

    async def place_bet(self, player_id: int, kind: BetKind, stake: int, key: str | None,
                        *, coup_id: int | None = None, token: str | None = None
                        ) -> dict[str, Any]:
        """Place a bet (validated by the core, paid from the wallet); see ``docs/api.md``.

        ``coup_id``, when given, is the coup the player saw open: a bet for any other coup is
        refused ``table-closed``. Refusals that need no database are answered at once; the bet
        itself is written in the table's next group commit. Once queued it completes even if
        the client goes away, so the database and the table never disagree about a bet.
        With ``token``, the group commit checks that session first (``BetDesk.submit``).
        """
        self._refuse_barred(player_id)
        return await self._submit(store.BetOp(player_id, kind, stake, key),
                                  lambda: self.desk.check(kind, stake, coup_id), token=token)

    async def withdraw_bet(self, player_id: int, kind: BetKind, key: str | None = None, *,
                           coup_id: int | None = None) -> dict[str, Any]:
        """Withdraw the player's whole bet of this kind while betting is open (L4). With an
        idempotency ``key``, a retry gets the first answer again and moves no money (issue 9)."""
        return await self._submit(store.BetOp(player_id, kind, key=key, withdraw=True),
                                  lambda: self.desk.check(kind, None, coup_id))

    async def place_bets(self, player_id: int, stakes: list[tuple[BetKind, int]],
                         key: str | None, *, coup_id: int | None = None) -> dict[str, Any]:
        """Several stakes at once, all or nothing (``POST …/bets/batch``, the page's repeat
        and double): each is checked as a single bet, then the spot with all of them by the
        core and their sum against the balance, in the table's next group commit."""
        self._refuse_barred(player_id)
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
            if op.key is not None:
                stored = await self.desk.stored_request(op.player_id, op.key)
                if stored is not None:
                    if stored[0] != op.fingerprint(self.id):
                        raise IdempotencyConflict("This idempotency key was already used for "
                                                  "a different bet.") from None
                    return dict(stored[1])
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

    def _refuse_barred(self, player_id: int) -> None:
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
            "server_time": now_ms(), "totals": self.totals(),
            "my_bets": self.my_bets(player_id) if player_id is not None else {},
            "cards": list(view.cards), "last_result": view.last_result, "roads": list(view.roads),
            "betting_seconds": (self.config.betting_seconds if self.config.betting_seconds
                                is not None else self.betting_seconds),
            "spots": self.spots(), "paused": self.paused,
            "database": self.db.health.state(),  # issue 22: bets stopped by the database
        }

    def summary(self) -> dict[str, Any]:
        """The table's entry in ``GET /api/tables``."""
        return {"id": self.id, "name": self.settings.name, "rules": self.shoe_rules,
                "next_rules": self.settings.rules_json(), "phase": self.view.phase,
                "players": self.hub.players(), "spots": self.spots(),
                "paused": self.paused,
                # the window the table deals now: ``serve --betting-seconds`` overrides the
                # settings (the console says so instead of showing the settings' value)
                "betting_seconds": (self.config.betting_seconds
                                    if self.config.betting_seconds is not None
                                    else self.betting_seconds),
                "betting_seconds_fixed": self.config.betting_seconds is not None}

