"""A hand-dealt table (``dealing: "dealer"``): the server follows a person dealing a real shoe.

:class:`HumanDealer` is a :class:`~puntobanco.server.live.dealer.TableDealer` without the timed
loop: each step waits for the dealer's action (``docs/dealer.md``) — new shoe, burn, open and
close betting, each card as it is drawn, settle, cut card, last coup, misdeal, correction. The
core decides what is allowed (:class:`puntobanco.physical.HandDealtTable`: the drawing rules of
:func:`puntobanco.coup.deal_coup`, the shoe's ``decks`` of each card; bets L4/M3); bets and the
settlement go through the same code and the same ledger as on a server-dealt table, and every
card is recorded, with its time and its dealer, before the core takes it. A restarted server
resumes the shoe and the round in progress from that record.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Literal, TypeVar

from sqlalchemy.orm import Session

from puntobanco.bets import BetKind
from puntobanco.cards import Card
from puntobanco.errors import PuntoBancoError, TableStateError
from puntobanco.physical import CardRefused, HandDealtTable, PhysicalShoe
from puntobanco.rules import Side
from puntobanco.server.db import admin, dealing, store
from puntobanco.server.db.engine import Database
from puntobanco.server.db.store import TableSettings
from puntobanco.server.dealer_messages import step_text
from puntobanco.server.live import messages as msg
from puntobanco.server.live.clock import Clock
from puntobanco.server.live.dealer import TableDealer, View
from puntobanco.server.live.links import Links
from puntobanco.server.settings import ServerSettings, table_rules_from_json
from puntobanco.table import Phase, Table

T = TypeVar("T")
log = logging.getLogger("puntobanco.server.live.human")


async def dealer_for(settings: TableSettings, *, db: Database, config: ServerSettings,
                     clock: Clock | None = None, links: Links | None = None) -> TableDealer:
    """The dealer of a table: the server's own (a shuffled shoe) or a person's (a real shoe)."""
    mode = await db.run_read(lambda s: dealing.dealing_of(s, settings.id))
    if mode == "dealer":
        return HumanDealer(settings, db=db, config=config, clock=clock, links=links)
    return TableDealer(settings, db=db, config=config, clock=clock, links=links)


class HumanDealer(TableDealer):
    """One hand-dealt table: the core round, the record of its shoe, and its clients."""

    def __init__(self, settings: TableSettings, *, db: Database, config: ServerSettings,
                 clock: Clock | None = None, links: Links | None = None) -> None:
        super().__init__(settings, db=db, config=config, clock=clock, links=links)
        self.dealing = "dealer"
        self.shoe_id: int | None = None

    def _new_table(self, settings: TableSettings, *, round_no: int = 0,
                   shoe_no: int = 0) -> Table:
        table = HandDealtTable(settings.rules, round_no=round_no, shoe_no=shoe_no)
        table.subscribe(self._on_event)
        return table

    @property
    def hand(self) -> HandDealtTable:
        assert isinstance(self.table, HandDealtTable)
        return self.table

    # --- life cycle -----------------------------------------------------------------------

    async def open(self) -> None:
        """Resume the shoe and the round in progress from the record; no timed loop."""
        await self._recover()
        self.desk.start()

    async def stop(self) -> None:
        """Nothing to finish: the round waits, as recorded, for its dealer after a restart."""
        await self.desk.stop()

    async def _recover(self) -> None:
        async with self.lock:
            found = await self._write(lambda s: dealing.resume(s, self.id))
            await self._resume_hand(found)
            await self._announce_recovered(found.settled, {})

    async def _resume_hand(self, found: dealing.Resumed) -> None:
        """Replay the shoe's record: every entry, in order, a coup's own events inside it."""
        self.settings = await self.db.run_read(lambda s: store.load_table(s, self.id))
        self.table = self._new_table(self.settings, round_no=found.last_round_no,
                                     shoe_no=found.shoe_no)
        self.view = View(round_no=found.last_round_no, last_result=found.last_result)
        self.shoe_id = found.shoe_id
        if found.shoe_id is None:
            return
        rules, seconds = table_rules_from_json(found.shoe_rules)
        # the round in progress, if any, is opened again below as the number it had
        self.table = self._new_table(
            self.settings, shoe_no=found.shoe_no - 1,
            round_no=(found.last_round_no if found.round_coup_id is None
                      else found.round_no - 1))
        self.table.new_shoe(rules=rules)
        self.shoe_rules, self.betting_seconds = found.shoe_rules, seconds
        shoe = self.hand.physical
        in_round: list[Card] = []
        current: int | None = None

        def close_coup(coup_id: int | None) -> None:
            if coup_id is None or coup_id == found.round_coup_id:
                return
            if found.coup_status.get(coup_id) == "void":
                shoe.void_pending()
            else:
                shoe.deal_coup()

        for kind, text, count, coup_id in found.entries:
            if current is not None and coup_id != current:
                # a coup ends at the first entry not its own: a cut card or a "last coup"
                # pressed between two of its cards is an event of that coup (issue 17)
                close_coup(current)
                current = None
            if kind == "card":
                current = coup_id
            if kind == "burn" and text is not None:
                shoe.burn([Card.parse(text)])
            elif kind == "counted" and count:
                shoe.burn(counted=count)
            elif kind == "card" and text is not None:
                if coup_id == found.round_coup_id:
                    in_round.append(Card.parse(text))
                else:
                    shoe.enter(Card.parse(text))
        close_coup(current)
        shoe.restore_marks(cut_card_coup=found.cut_card_coup, last_coup_no=found.last_coup_no)
        self.view.roads = found.roads
        self.view.shoe = self._hand_shoe_view()
        if found.round_coup_id is None:
            return
        opened = self.table.open_round()
        if found.round_status == "open":  # the bets are the desk's while betting is open
            self._seed_desk(found.round_coup_id, opened.round_no, found.round_bets)
        else:
            for player, bets in found.round_bets.items():
                for kind_, stake in bets.items():
                    self.table.place_bet(str(player), kind_, stake)
        self.view = View(phase="open", round_no=opened.round_no, coup_id=found.round_coup_id,
                         coup_in_shoe=opened.coup_in_shoe, shoe=self._hand_shoe_view(),
                         last_result=self.view.last_result, roads=self.view.roads)
        if found.round_status == "closed":
            self.table.close_bets()
            self.view.phase = "closed"
            for card in in_round:
                entered = self.hand.enter_card(card)
                self.view.cards.append({"side": entered.side.value,
                                        "position": entered.position, "card": str(card)})

    def _seed_desk(self, coup_id: int, round_no: int,
                   bets: dict[int, dict[BetKind, int]]) -> None:
        """The bet desk of a round resumed while its betting is open, with the recorded bets."""
        self.desk.open(coup_id=coup_id, round_no=round_no, rules=self.table.rules)
        self.desk.spots = {player: {kind.value: stake for kind, stake in spot.items()}
                           for player, spot in bets.items() if spot}
        for spot in bets.values():
            for kind, stake in spot.items():
                self.desk._totals[kind.value] += stake

    def _shoe_now(self) -> dict[str, Any]:
        return self._hand_shoe_view()

    def _hand_shoe_view(self) -> dict[str, Any]:
        shoe = self.hand.physical
        return {"id": self.shoe_id, "shoe_no": self.table.shoe_no, "commitment": "",
                "cards_left": shoe.cards_left, "cut_card_out": shoe.cut_card_out,
                "last_coup": shoe.is_last_coup, "coups_dealt": shoe.coups_dealt,
                "cut_index": 0, "burned": len(shoe.burned) + shoe.counted,
                "dealing": "dealer", "decks": shoe.rules.decks, "finished": shoe.finished,
                "coup_in_shoe": self.view.coup_in_shoe}

    async def _act(self, dealer_id: int, work: Callable[[], Awaitable[T]]) -> T:
        """A dealer's action: under the table's lock, and completed even if the client leaves.
        A suspended account acts no more, a dealer's as any other (issue 17)."""
        if dealer_id in self.barred or await self.db.run_read(
                lambda s: admin.is_suspended(s, dealer_id)):
            raise PuntoBancoError("This account is suspended.", code="account-suspended")
        if self.following:  # several processes: the one holding the table's lock records it
            if self.want_table is not None:  # ask for it: the next try here may find it
                self.want_table()
            raise PuntoBancoError(f"Table {self.id} is being handed over to this server "
                                  "process; try again in a moment.", code="table-out-of-service")
        async def locked() -> T:
            async with self.lock:
                return await work()
        try:
            return await asyncio.shield(locked())
        except PuntoBancoError:
            raise
        except Exception:  # the core and the database may disagree: start again from the record
            log.exception("table %s: a dealer's action failed; resuming from the record", self.id)
            await self._recover()
            raise

    # --- shoe events ----------------------------------------------------------------------

    def _between_rounds(self) -> bool:
        return self.table.phase in (Phase.IDLE, Phase.SETTLED)

    async def new_shoe(self, dealer_id: int, *, decks: int | None) -> None:
        """A new shoe (of ``decks`` decks, else the table's); a shoe in play is ended first."""
        async def work() -> None:
            if not self._between_rounds():
                raise TableStateError("A new shoe is started between rounds.",
                                      code="round-in-progress")
            settings = await self.db.run_read(lambda s: store.load_table(s, self.id))
            rules = settings.rules
            if decks is not None:  # the cut card is the dealer's: the setting only has to fit
                rules = rules.replace(decks=decks,
                                      cut_card=max(12, min(rules.cut_card, 52 * decks - 12)))
            rules_json = {**settings.rules_json(), "decks": rules.decks,
                          "cut_card": rules.cut_card}
            old = self.shoe_id if self.table.shoe is not None else None

            def write(session: Session) -> int:
                if old is not None:
                    store.finish_shoe(session, old)
                return dealing.create_shoe(session, table_id=self.id,
                                           shoe_no=self.table.shoe_no + 1, rules_json=rules_json)

            self.shoe_id = await self._write(write)
            self.settings = settings
            self.table.clear_log()
            started = self.table.new_shoe(rules=rules)
            self.shoe_rules, self.betting_seconds = rules_json, settings.betting_seconds
            self.view.shoe = self._hand_shoe_view()
            self.view.roads = []
            self.hub.publish(msg.ShoeStarted(
                shoe_id=self.shoe_id, shoe_no=started.shoe_no, commitment="", dealing="dealer",
                cards_left=self.hand.physical.cards_left, cut_index=0, burned=0,
                cards=52 * rules.decks, rules=rules_json))
        await self._act(dealer_id, work)

    async def burn(self, dealer_id: int, *, cards: Sequence[Card], counted: int) -> None:
        """Burn cards seen (entered) and/or counted face down (S2); not during a coup."""
        async def work() -> None:
            shoe = self.hand.physical
            if self.table.phase is Phase.CLOSED:
                raise TableStateError("Cards are burned between coups, not during one.",
                                      code="card-out-of-turn")
            shoe_id = self._shoe_id()
            shoe.verify_burn(cards, counted=counted)

            def write(session: Session) -> None:
                for card in cards:
                    dealing.add_entry(session, table_id=self.id, shoe_id=shoe_id, kind="burn",
                                      card=str(card), dealer_id=dealer_id)
                if counted:
                    dealing.add_entry(session, table_id=self.id, shoe_id=shoe_id,
                                      kind="counted", count=counted, dealer_id=dealer_id)
                dealing.note_burn(session, shoe_id, len(cards) + counted)

            await self._write(write)
            shoe.burn(cards, counted=counted)
            self._tell_shoe("burn", cards=[str(c) for c in cards], counted=counted)
        await self._act(dealer_id, work)

    async def cut_card(self, dealer_id: int) -> None:
        """S3: the cut card came out; the coup in progress is completed and one more played."""
        async def work() -> None:
            shoe = self.hand.physical
            shoe_id = self._shoe_id()
            during = self.table.phase is Phase.CLOSED
            shoe.verify_cut_card(during_coup=during)
            coup_no = shoe.coups_dealt + (1 if during else 0)

            def write(session: Session) -> None:
                dealing.add_entry(session, table_id=self.id, shoe_id=shoe_id, kind="cut-card",
                                  coup_id=self.view.coup_id if during else None,
                                  dealer_id=dealer_id)
                dealing.set_shoe_marks(session, shoe_id, cut_card_coup=coup_no)

            await self._write(write)
            shoe.mark_cut_card(during_coup=during)
            await self._finish_if_done()
            self._tell_shoe("cut-card")
        await self._act(dealer_id, work)

    async def last_coup(self, dealer_id: int) -> None:
        """The next coup (or the one in progress) is the shoe's last."""
        async def work() -> None:
            shoe = self.hand.physical
            shoe_id = self._shoe_id()
            if shoe.finished:
                raise TableStateError("The shoe is finished.", code="shoe-finished")
            coup_no = shoe.coups_dealt + 1

            def write(session: Session) -> None:
                dealing.add_entry(session, table_id=self.id, shoe_id=shoe_id, kind="last-coup",
                                  coup_id=self.view.coup_id, dealer_id=dealer_id)
                dealing.set_shoe_marks(session, shoe_id, last_coup_no=coup_no)

            await self._write(write)
            shoe.mark_last_coup()
            self._tell_shoe("last-coup")
        await self._act(dealer_id, work)

    def _shoe_id(self) -> int:
        if self.shoe_id is None or self.table.shoe is None:
            raise TableStateError("Start a new shoe first.", code="no-shoe")
        return self.shoe_id

    def _tell_shoe(self, event: Literal["burn", "cut-card", "last-coup"], *,
                   cards: Sequence[str] = (), counted: int = 0) -> None:
        self.view.shoe = self._hand_shoe_view()
        self.hub.publish(msg.ShoeEvent(event=event, shoe=self.view.shoe, cards=list(cards),
                                       counted=counted))

    async def _finish_if_done(self) -> None:
        shoe = self.hand.physical
        if shoe.finished and self._between_rounds() and self.shoe_id is not None:
            shoe_id = self.shoe_id
            row = await self._write(lambda s: store.finish_shoe(s, shoe_id))
            self.view.shoe = self._hand_shoe_view()
            self.hub.publish(msg.ShoeFinished(shoe_id=shoe_id, shoe_no=row.shoe_no,
                                              dealing="dealer"))

    # --- rounds: the engine's (live/dealer.py), paced by the dealer's actions ---------------

    async def open_betting(self, dealer_id: int) -> None:
        async def work() -> None:
            self._shoe_id()
            if self.hand.physical.finished:
                raise TableStateError("The shoe is finished: start a new shoe.",
                                      code="shoe-finished")
            await self._open_round(seconds=None)
        await self._act(dealer_id, work)

    async def close_betting(self, dealer_id: int) -> None:
        async def work() -> None:
            if self.table.phase is not Phase.OPEN or self.view.coup_id is None:
                raise TableStateError("Betting is not open.", code="betting-not-open")
            await self._close_round()
        await self._act(dealer_id, work)

    async def enter_card(self, dealer_id: int, card: Card, *, side: Side | None,
                         number: int | None = None) -> None:
        """Record the card the rules call for next, then give it to the core.

        ``number`` (1-6, the card's place in the coup), when given, makes a retried request
        harmless: the same card at a place already filled changes nothing, another is refused.
        """
        async def work() -> None:
            pending = self.hand.physical.pending if self.table.phase is Phase.CLOSED else []
            if number is not None and number <= len(pending):
                if pending[number - 1] == card:
                    return  # the same request again (a card-reading shoe's retry)
                raise CardRefused(f"Card {number} of this coup is {pending[number - 1]}, not "
                                  f"{card}: correct it instead.", code="card-already-entered",
                                  number=str(number), card=str(pending[number - 1]))
            if number is not None and number != len(pending) + 1:
                raise CardRefused(f"The next card is card {len(pending) + 1} of the coup, not "
                                  f"{number}.", code="card-out-of-turn",
                                  key="card-number-out-of-turn", number=str(len(pending) + 1))
            step = self.hand.verify_enter_card(card, side=side)
            assert step.side is not None
            coup_id, shoe_id = self.view.coup_id, self._shoe_id()
            await self._write(lambda s: dealing.add_entry(
                s, table_id=self.id, shoe_id=shoe_id, kind="card", coup_id=coup_id,
                card=str(card), side=step.side.value if step.side else None,
                position=step.position, dealer_id=dealer_id))
            entered = self.hand.enter_card(card, side=side)
            self._show_card(entered.side, entered.position, str(card))
        await self._act(dealer_id, work)

    async def correct_card(self, dealer_id: int, card: Card) -> None:
        """Replace the last card entered in the coup in progress (a mistyped card)."""
        async def work() -> None:
            if self.table.phase is not Phase.CLOSED:
                raise PuntoBancoError("There is no card of this coup to correct.",
                                      code="nothing-to-correct")
            self.hand.physical.verify_correct(card)
            coup_id, shoe_id = self.view.coup_id, self._shoe_id()
            assert coup_id is not None

            def write(session: Session) -> None:
                was = dealing.mark_mistyped(session, coup_id)
                dealing.add_entry(session, table_id=self.id, shoe_id=shoe_id, kind="card",
                                  coup_id=coup_id, card=str(card), side=was.side,
                                  position=was.position, dealer_id=dealer_id)

            await self._write(write)
            corrected = self.hand.correct_card(card)
            self.view.cards[-1] = {"side": corrected.side.value,
                                   "position": corrected.position, "card": str(card)}
            punto, banco = self._hand_totals()
            self.hub.publish(msg.CardCorrected(side=corrected.side.value,
                                               position=corrected.position, card=str(card),
                                               was=str(corrected.was), punto_total=punto,
                                               banco_total=banco))
        await self._act(dealer_id, work)

    async def settle(self, dealer_id: int) -> None:
        """The coup is complete: deal it in the core and settle it as every coup is."""
        async def work() -> None:
            if self.table.phase is not Phase.CLOSED or not self.hand.physical.step().complete:
                raise PuntoBancoError("The coup is not complete: the rules call for another "
                                      "card.", code="coup-incomplete")
            coup_id = self.view.coup_id
            assert coup_id is not None
            shoe = self.hand.physical
            first_card = shoe.position - len(shoe.pending)
            bets = {int(spot): dict(spot_bets) for spot, spot_bets in self.table.bets.items()}
            dealt = self.table.deal()
            await self._settle_round(coup_id, dealt, first_card=first_card, bets=bets)
            await self._finish_if_done()
        await self._act(dealer_id, work)

    async def misdeal(self, dealer_id: int) -> None:
        """Void the round: every stake returned, its cards kept in the record marked void."""
        async def work() -> None:
            self.hand.verify_void_round()
            coup_id = self.view.coup_id
            assert coup_id is not None
            await self._void_round(also=lambda s: dealing.void_entries(s, coup_id))
        await self._act(dealer_id, work)

    def _void_in_core(self) -> tuple[str, ...]:
        return tuple(str(card) for card in self.hand.void_round().cards)

    # --- views ----------------------------------------------------------------------------

    def dealer_state(self, lang: str) -> dict[str, Any]:
        """What the dealer's page shows: the step the rules require, hands, bets, the shoe."""
        shoe = self.table.shoe
        phase = self.table.phase
        step_json: dict[str, Any] | None = None
        if isinstance(shoe, PhysicalShoe) and phase is Phase.CLOSED:
            step = shoe.step()
            step_json = {**step.to_json(), "text": step_text(step, lang)}
        hands: dict[str, dict[str, Any]] = {"punto": {"cards": []}, "banco": {"cards": []}}
        for shown in self.view.cards:
            hands[shown["side"]]["cards"].append(shown["card"])
        totals = dict(zip(("punto", "banco"), self._hand_totals(), strict=True))
        for side in ("punto", "banco"):
            hands[side]["total"] = totals[side] if hands[side]["cards"] else None
        physical = isinstance(shoe, PhysicalShoe)
        finished = physical and shoe.finished if shoe is not None else False
        in_round = phase in (Phase.OPEN, Phase.CLOSED)
        can = {
            "new_shoe": not in_round,
            "burn": physical and not finished and phase is not Phase.CLOSED,
            "open": physical and not finished and not in_round and not self.paused,
            "close": phase is Phase.OPEN,
            "card": phase is Phase.CLOSED and step_json is not None and not step_json["complete"],
            "correct": phase is Phase.CLOSED and bool(self.view.cards),
            "settle": step_json is not None and bool(step_json["complete"]),
            "misdeal": in_round,
            "cut_card": isinstance(shoe, PhysicalShoe) and not finished
                        and shoe.cut_card_coup is None
                        and shoe.coups_dealt + (phase is Phase.CLOSED) > 0,
            "last_coup": physical and not finished,
        }
        return {"table_id": self.id, "name": self.settings.name, "phase": self.view.phase,
                "round_no": self.view.round_no, "coup_id": self.view.coup_id,
                "coup_in_shoe": self.view.coup_in_shoe,
                "shoe": self._hand_shoe_view() if physical else None, "step": step_json,
                "hands": hands, "totals": self.totals(), "spots": self.spots(),
                "last_result": self.view.last_result, "can": can}
