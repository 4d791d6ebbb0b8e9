"""The dealer loop of one table, driving the core round (:class:`puntobanco.table.Table`).

Each table has one asyncio task that repeats: (a new shoe, its commitment published) → betting
window → "no more bets" → deal, the cards pushed one by one after a short pause → settlement in one database
transaction, exactly once → (the shoe revealed after its last coup) → pause. The core decides
everything about the game — bets (L4, M3), the cards (R3–R6, S1–S3), the settlement (B*, L5,
L6) — and this module only sequences it, records it and tells the clients.

Bets and "no more bets" share one lock per table, and a bet is written to the database before
the core records it, both under that lock: a bet that was accepted is in the coup, and a bet
the database refused is nowhere. A dealer that (re)starts first repairs what a stop left behind:
rounds not dealt are void and refunded, a dealt coup not settled is settled, and the shoe being
dealt is resumed from its recorded order.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm import Session

from puntobanco.bets import BetKind
from puntobanco.errors import RuleSetError
from puntobanco.rules import Side, hand_total
from puntobanco.server.db import ledger, recall, store
from puntobanco.server.db.engine import Database
from puntobanco.server.db.models import CoupRecord
from puntobanco.server.db.store import TableSettings
from puntobanco.server.fair import commitment, new_salt, order_text
from puntobanco.server.live.hub import Hub, dumps
from puntobanco.server.messages import IdempotencyConflict
from puntobanco.server.settings import ServerSettings, table_rules_from_json
from puntobanco.shoe import Shoe
from puntobanco.table import CardDealt, Event, Table

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

    # --- life cycle -----------------------------------------------------------------------

    async def open(self) -> None:
        """Repair what a stop left behind (before any request is served), then start dealing."""
        await self._recover()
        self._task = asyncio.create_task(self._run(), name=f"dealer-{self.id}")

    async def stop(self) -> None:
        """Finish the coup being dealt (or void the open round), then end the task."""
        self._stop.set()
        if self._task is None:
            return
        try:
            await asyncio.wait_for(asyncio.shield(self._task), self.config.stop_timeout)
        except TimeoutError:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

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
                        client.push(dumps({"type": "snapshot",
                                           "table": self.snapshot(client.player_id)}))
                if await self._idle():
                    break
                await self._play_round()
            except Exception:
                log.exception("table %s: the dealer failed; resuming from the database", self.id)
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
        for attempt in range(DB_RETRIES):
            try:
                return await self.db.run_write(work)
            except OperationalError:
                if attempt == DB_RETRIES - 1:
                    raise
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
            if found.voided or found.settled:
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
            shoe = Shoe.from_order(found.shoe_order, rules)
            for row in found.shoe_coups:
                dealt = shoe.deal_coup()
                if order_text([card for _, card in dealt.dealing_order()]) != row.cards:
                    raise RuntimeError(f"table {self.id}: coup {row.id} does not match the "
                                       "recorded order of its shoe")
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
        self.hub.broadcast({"type": "shoe-started", "shoe_id": shoe_id, "shoe_no": started.shoe_no,
                            "commitment": digest, "cards_left": shoe.cards_left,
                            "cut_index": started.cut_index, "burned": len(started.burned),
                            "cards": len(started.order), "rules": rules_json})

    async def _finish_shoe(self, shoe_id: int) -> None:
        """Reveal the salt and order of a shoe whose last coup was played."""
        row = await self._write(lambda s: store.finish_shoe(s, shoe_id))
        self.hub.broadcast({"type": "shoe-finished", "shoe_id": shoe_id, "shoe_no": row.shoe_no,
                            "order": row.card_order.split(), "salt": row.salt,
                            "commitment": row.commitment})

    # --- one round ------------------------------------------------------------------------

    async def _play_round(self) -> None:
        shoe = self.table.shoe
        if shoe is None or shoe.finished:
            await self._start_shoe()
        assert self.table.shoe is not None and self.view.shoe is not None
        seconds = (self.config.betting_seconds if self.config.betting_seconds is not None
                   else self.betting_seconds)
        shoe_id = self.view.shoe["id"]
        async with self.lock:
            shoe = self.table.shoe
            coup_id = await self._write(lambda s: store.open_coup(
                s, table_id=self.id, shoe_id=shoe_id,
                round_no=self.table.round_no + 1, coup_in_shoe=shoe.coups_dealt + 1,
                last_coup=shoe.is_last_coup))
            opened = self.table.open_round()
            deadline = now_ms() + int(seconds * 1000)
            self.view = View(phase="open", round_no=opened.round_no, coup_id=coup_id,
                             coup_in_shoe=opened.coup_in_shoe, deadline=deadline,
                             shoe={**self.view.shoe, "last_coup": opened.last_coup},
                             last_result=self.view.last_result, roads=self.view.roads)
            self.hub.broadcast({"type": "round-opened", "round_no": opened.round_no,
                                "coup_id": coup_id, "coup_in_shoe": opened.coup_in_shoe,
                                "last_coup": opened.last_coup, "deadline": deadline,
                                "server_time": now_ms(), "seconds": seconds})
        stopping = await self._pause(seconds)
        async with self.lock:
            if stopping:
                await self._write(lambda s: store.void_coup(s, table_id=self.id, coup_id=coup_id))
                self.table.close_bets()  # the core refuses any later bet
                return
            await self._write(lambda s: store.close_coup(s, coup_id))
            closed = self.table.close_bets()
            self.view.phase, self.view.deadline = "closed", None
            self.hub.broadcast({"type": "bets-closed", "round_no": closed.round_no,
                                "coup_id": coup_id})
        await self._deal_and_settle(coup_id, closed.bets)

    async def _deal_and_settle(self, coup_id: int,
                               closed: Mapping[str, Mapping[BetKind, int]]) -> None:
        shoe = self.table.shoe
        assert shoe is not None and self.view.shoe is not None
        first_card = shoe.position
        self._shown = []
        dealt = self.table.deal()
        shoe_no = self.table.shoe_no

        def record(session: Session) -> dict[str, Any]:
            store.record_deal(session, coup_id, dealt.coup, first_card=first_card)
            return recall.coup_json(session.get_one(CoupRecord, coup_id), shoe_no=shoe_no)

        coup_json = await self._write(record)
        shown: dict[Side, list[int]] = {Side.PUNTO: [], Side.BANCO: []}
        for index, card in enumerate(self._shown):
            # "No more bets" stays on the pages a moment before the first card turns; a
            # stopping server skips the pauses and finishes the coup.
            await self._pause(self.config.card_seconds if index else self.config.closed_seconds)
            shown[card.side].append(card.card.value)
            message = {"side": card.side.value, "position": card.position, "card": str(card.card)}
            self.view.cards.append(message)
            self.hub.broadcast({"type": "card-dealt", **message,
                                "punto_total": hand_total(shown[Side.PUNTO]),
                                "banco_total": hand_total(shown[Side.BANCO])})
        self.view.phase = "dealt"
        self.view.shoe = {**self.view.shoe, "cards_left": dealt.cards_left,
                          "cut_card_out": dealt.cut_card_out, "coups_dealt": shoe.coups_dealt,
                          "last_coup": shoe.is_last_coup}
        self.hub.broadcast({"type": "coup-dealt", "coup": coup_json,
                            "cards_left": dealt.cards_left, "cut_card_out": dealt.cut_card_out})
        settled = self.table.settle()
        bets = {int(spot): dict(spot_bets) for spot, spot_bets in closed.items()}
        lines = {int(spot): spot_lines for spot, spot_lines in settled.lines.items()}

        def settle(session: Session) -> tuple[dict[str, Any], dict[int, Any]]:
            balances = store.settle_coup(session, table_id=self.id, coup_id=coup_id, bets=bets,
                                         lines=lines)
            result = recall.coup_json(session.get_one(CoupRecord, coup_id), shoe_no=shoe_no)
            return result, {player: (recall.lines_of(session, coup_id, player), balance)
                            for player, balance in balances.items()}

        result, per_player = await self._write(settle)
        for player, (player_lines, balance) in per_player.items():
            self.hub.send_to(player, {"type": "settlement", "coup_id": coup_id,
                                      "lines": player_lines, "balance": balance})
        self.view.phase = "settled"
        self.view.last_result = result
        self.view.roads.append(recall.road_json(result))
        self.hub.broadcast({"type": "round-settled", "round_no": settled.round_no,
                            "coup_id": coup_id, "winner": result["winner"],
                            "shoe_finished": settled.shoe_finished})
        self.rounds_played += 1
        if settled.shoe_finished:
            await self._finish_shoe(self.view.shoe["id"])
        await self._pause(self.config.result_seconds)

    # --- bets -----------------------------------------------------------------------------

    async def place_bet(self, player_id: int, kind: BetKind, stake: int,
                        key: str | None) -> dict[str, Any]:
        """Place a bet (validated by the core, paid from the wallet); see ``docs/api.md``.

        Shielded: once under way it completes even if the client goes away, so the database
        and the core never disagree about a bet.
        """
        return await asyncio.shield(self._place_bet(player_id, kind, stake, key))

    async def _place_bet(self, player_id: int, kind: BetKind, stake: int,
                         key: str | None) -> dict[str, Any]:
        fingerprint = f"{self.id}:{kind.value}:{stake}"
        spot = str(player_id)
        async with self.lock:
            coup_id, round_no = self.view.coup_id, self.table.round_no

            def write(session: Session) -> tuple[dict[str, Any], bool]:
                stored = _stored(session, player_id, key)
                if stored is not None:
                    return _replay(stored, fingerprint), False
                # The core validates the bet (L4, M3, the balance included). This runs on a
                # database thread while this coroutine holds the table's lock, and the table's
                # bets, and whether betting is open, change only under that lock.
                self.table.verify_bet(spot, kind, stake,
                                      available=ledger.wallet_balance(session, player_id))
                assert coup_id is not None
                bet_id, total, balance = store.place_bet(
                    session, table_id=self.id, coup_id=coup_id, player_id=player_id, kind=kind,
                    stake=stake)
                answer = {"bet": kind.value, "stake": stake, "total": total,
                          "my_bets": self._bets_of(spot, {kind: total}), "balance": balance,
                          "coup_id": coup_id, "round_no": round_no}
                if key is not None:
                    store.save_request(session, player_id=player_id, key=key,
                                       fingerprint=fingerprint, coup_id=coup_id, bet_id=bet_id,
                                       response=answer)
                return answer, True

            try:
                answer, placed = await self.db.run_write(write)
            except IntegrityError:  # the same key, sent at the same moment to another table
                stored = await self.db.run_read(lambda s: _stored(s, player_id, key))
                if stored is None:
                    raise
                return _replay(stored, fingerprint)
            if placed:
                self.table.place_bet(spot, kind, stake)
                self._tell_bets(player_id, answer)
            return answer

    async def withdraw_bet(self, player_id: int, kind: BetKind,
                           key: str | None = None) -> dict[str, Any]:
        """Withdraw the player's whole bet of this kind while betting is open (L4). With an
        idempotency ``key``, a retry gets the first answer again and moves no money (issue 9)."""
        return await asyncio.shield(self._withdraw_bet(player_id, kind, key))

    async def _withdraw_bet(self, player_id: int, kind: BetKind,
                            key: str | None) -> dict[str, Any]:
        spot = str(player_id)
        fingerprint = f"withdraw:{self.id}:{kind.value}"
        async with self.lock:
            coup_id, round_no = self.view.coup_id, self.table.round_no

            def write(session: Session) -> tuple[dict[str, Any], bool]:
                stored = _stored(session, player_id, key)
                if stored is not None:
                    return _replay(stored, fingerprint), False
                self.table.verify_withdraw(spot, kind)  # L4: the core
                assert coup_id is not None
                stake, balance = store.withdraw_bet(session, table_id=self.id, coup_id=coup_id,
                                                    player_id=player_id, kind=kind)
                mine = {name: value for name, value in self._bets_of(spot, {}).items()
                        if name != kind.value}
                answer = {"bet": kind.value, "stake": stake, "my_bets": mine,
                          "balance": balance, "coup_id": coup_id, "round_no": round_no}
                if key is not None:
                    store.save_request(session, player_id=player_id, key=key,
                                       fingerprint=fingerprint, coup_id=coup_id,
                                       bet_id=store.bet_id(session, coup_id, player_id, kind),
                                       response=answer)
                return answer, True

            answer, withdrawn = await self.db.run_write(write)
            if withdrawn:
                self.table.withdraw_bet(spot, kind)
                self._tell_bets(player_id, answer)
            return answer

    def _bets_of(self, spot: str, changed: Mapping[BetKind, int]) -> dict[str, int]:
        """A spot's bets as the core holds them (with ``changed`` applied), in payment order."""
        bets = {**self.table.bets.get(spot, {}), **changed}
        return {kind.value: bets[kind] for kind in BetKind if bets.get(kind)}

    def _tell_bets(self, player_id: int, answer: dict[str, Any]) -> None:
        self.hub.broadcast({"type": "bet-totals", "coup_id": answer["coup_id"],
                            "totals": self.totals(), "spots": len(self.table.bets)})
        self.hub.send_to(player_id, {"type": "my-bets", "coup_id": answer["coup_id"],
                                     "my_bets": answer["my_bets"], "balance": answer["balance"]})

    # --- views ----------------------------------------------------------------------------

    def totals(self) -> dict[str, int]:
        """The whole table's stakes on each bet this round."""
        totals = {kind.value: 0 for kind in BetKind}
        for spot_bets in self.table.bets.values():
            for kind, stake in spot_bets.items():
                totals[kind.value] += stake
        return totals

    def snapshot(self, player_id: int | None) -> dict[str, Any]:
        """Everything a page needs to draw the table now (``GET /api/tables/{id}``)."""
        view = self.view
        return {
            "id": self.id, "name": self.settings.name, "rules": self.shoe_rules,
            "phase": view.phase, "round_no": view.round_no, "coup_id": view.coup_id,
            "coup_in_shoe": view.coup_in_shoe, "shoe": view.shoe, "deadline": view.deadline,
            "server_time": now_ms(), "totals": self.totals(),
            "my_bets": self._bets_of(str(player_id), {}) if player_id is not None else {},
            "cards": list(view.cards), "last_result": view.last_result, "roads": list(view.roads),
            "betting_seconds": (self.config.betting_seconds if self.config.betting_seconds
                                is not None else self.betting_seconds),
            "spots": len(self.table.bets),
        }

    def summary(self) -> dict[str, Any]:
        """The table's entry in ``GET /api/tables``."""
        return {"id": self.id, "name": self.settings.name, "rules": self.shoe_rules,
                "next_rules": self.settings.rules_json(), "phase": self.view.phase,
                "players": self.hub.players(), "spots": len(self.table.bets)}


def _stored(session: Session, player_id: int, key: str | None) -> tuple[str, dict[str, Any]] | None:
    if key is None:
        return None
    found = store.find_request(session, player_id, key)
    return None if found is None else (found.fingerprint, dict(found.response))


def _replay(stored: tuple[str, dict[str, Any]], fingerprint: str) -> dict[str, Any]:
    if stored[0] != fingerprint:
        raise IdempotencyConflict("This idempotency key was already used for a different bet.")
    return stored[1]

