"""A hand-dealt table's parts (``dealing: "dealer"``): the server follows a person dealing a
real shoe.

The round engine (``live/engine.py``) is the same as a server-dealt table's; composed into it
are the card source :class:`~puntobanco.server.live.sources.HandShoe` (the cards entered),
the pacer :class:`~puntobanco.server.live.pacing.DealerPacer` (no timed loop), and here
:class:`DealerControls`, the dealer page's actions (``docs/dealer.md``) — new shoe, burn, open
and close betting, each card as it is drawn, settle, cut card, last coup, misdeal, correction —
each checked by the core (:class:`puntobanco.physical.HandDealtTable`: the drawing rules of
:func:`puntobanco.coup.deal_coup`, the shoe's ``decks`` of each card; bets L4/M3), recorded
with its time and its dealer before the core takes it, then handed to the engine's round
(open, close, deal-and-settle, void) exactly as on a server-dealt table. A restarted server
resumes the shoe and the round in progress from that record, by the engine's one replay.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from sqlalchemy.orm import Session

from puntobanco.cards import Card
from puntobanco.errors import PuntoBancoError, TableStateError
from puntobanco.physical import CardRefused, HandDealtTable
from puntobanco.rules import Side
from puntobanco.server.db import admin, dealing, store
from puntobanco.server.dealer_messages import step_text
from puntobanco.server.live import messages as msg
from puntobanco.server.live.sources import HandShoe
from puntobanco.server.live.views import hand_totals
from puntobanco.table import Phase

if TYPE_CHECKING:
    from puntobanco.server.live.engine import TableDealer

T = TypeVar("T")
log = logging.getLogger("puntobanco.server.live.hand")


class DealerControls:
    """The dealer page's actions on one hand-dealt table: each recorded, then the engine's."""

    def __init__(self, engine: TableDealer, source: HandShoe) -> None:
        self.engine = engine
        self.source = source

    @property
    def hand(self) -> HandDealtTable:
        """The core round, as the hand-dealt shoe's source built it."""
        return self.source.table

    async def _act(self, dealer_id: int, work: Callable[[], Awaitable[T]]) -> T:
        """A dealer's action: under the table's lock, and completed even if the client leaves.
        A suspended account acts no more, a dealer's as any other (issue 17)."""
        engine = self.engine
        if dealer_id in engine.barred or await engine.db.run_read(
                lambda s: admin.is_suspended(s, dealer_id)):
            raise PuntoBancoError("This account is suspended.", code="account-suspended")
        if engine.following:  # several processes: the one holding the table's lock records it
            if engine.want_table is not None:  # ask for it: the next try here may find it
                engine.want_table()
            raise PuntoBancoError(f"Table {engine.id} is being handed over to this server "
                                  "process; try again in a moment.", code="table-out-of-service")

        async def locked() -> T:
            async with engine.lock:
                return await work()
        try:
            return await asyncio.shield(locked())
        except PuntoBancoError:
            raise
        except Exception:  # the core and the database may disagree: start again from the record
            log.exception("table %s: a dealer's action failed; resuming from the record",
                          engine.id)
            await engine.recover()
            raise

    # --- shoe events ----------------------------------------------------------------------

    def _between_rounds(self) -> bool:
        return self.engine.table.phase in (Phase.IDLE, Phase.SETTLED)

    async def new_shoe(self, dealer_id: int, *, decks: int | None) -> None:
        """A new shoe (of ``decks`` decks, else the table's); a shoe in play is ended first."""
        async def work() -> None:
            if not self._between_rounds():
                raise TableStateError("A new shoe is started between rounds.",
                                      code="round-in-progress")
            engine = self.engine
            settings = await engine.db.run_read(lambda s: store.load_table(s, engine.id))
            rules = settings.rules
            if decks is not None:  # the cut card is the dealer's: the setting only has to fit
                rules = rules.replace(decks=decks,
                                      cut_card=max(12, min(rules.cut_card, 52 * decks - 12)))
            await engine.start_shoe(rules=rules, rules_json={
                **settings.rules_json(), "decks": rules.decks, "cut_card": rules.cut_card})
        await self._act(dealer_id, work)

    async def burn(self, dealer_id: int, *, cards: Sequence[Card], counted: int) -> None:
        """Burn cards seen (entered) and/or counted face down (S2); not during a coup."""
        async def work() -> None:
            shoe = self.hand.physical
            if self.engine.table.phase is Phase.CLOSED:
                raise TableStateError("Cards are burned between coups, not during one.",
                                      code="card-out-of-turn")
            shoe_id = self._shoe_id()
            shoe.verify_burn(cards, counted=counted)

            def write(session: Session) -> None:
                for card in cards:
                    dealing.add_entry(session, table_id=self.engine.id, shoe_id=shoe_id,
                                      kind="burn", card=str(card), dealer_id=dealer_id)
                if counted:
                    dealing.add_entry(session, table_id=self.engine.id, shoe_id=shoe_id,
                                      kind="counted", count=counted, dealer_id=dealer_id)
                dealing.note_burn(session, shoe_id, len(cards) + counted)

            await self.engine.write(write)
            shoe.burn(cards, counted=counted)
            self._tell_shoe("burn", cards=[str(c) for c in cards], counted=counted)
        await self._act(dealer_id, work)

    async def cut_card(self, dealer_id: int) -> None:
        """S3: the cut card came out; the coup in progress is completed and one more played."""
        async def work() -> None:
            shoe = self.hand.physical
            shoe_id = self._shoe_id()
            during = self.engine.table.phase is Phase.CLOSED
            shoe.verify_cut_card(during_coup=during)
            coup_no = shoe.coups_dealt + (1 if during else 0)

            def write(session: Session) -> None:
                dealing.add_entry(session, table_id=self.engine.id, shoe_id=shoe_id,
                                  kind="cut-card", dealer_id=dealer_id,
                                  coup_id=self.engine.view.coup_id if during else None)
                dealing.set_shoe_marks(session, shoe_id, cut_card_coup=coup_no)

            await self.engine.write(write)
            shoe.mark_cut_card(during_coup=during)
            await self.engine.finish_shoe_if_done()
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
                dealing.add_entry(session, table_id=self.engine.id, shoe_id=shoe_id,
                                  kind="last-coup", coup_id=self.engine.view.coup_id,
                                  dealer_id=dealer_id)
                dealing.set_shoe_marks(session, shoe_id, last_coup_no=coup_no)

            await self.engine.write(write)
            shoe.mark_last_coup()
            self._tell_shoe("last-coup")
        await self._act(dealer_id, work)

    def _shoe_id(self) -> int:
        if self.engine.shoe_id is None or self.engine.table.shoe is None:
            raise TableStateError("Start a new shoe first.", code="no-shoe")
        return self.engine.shoe_id

    def _tell_shoe(self, event: Literal["burn", "cut-card", "last-coup"], *,
                   cards: Sequence[str] = (), counted: int = 0) -> None:
        self.engine.view.shoe = self.engine.shoe_view()
        self.engine.hub.publish(msg.ShoeEvent(event=event, shoe=self.engine.view.shoe,
                                              cards=list(cards), counted=counted))

    # --- rounds: the engine's (live/engine.py), paced by the dealer's actions ---------------

    async def open_betting(self, dealer_id: int) -> None:
        async def work() -> None:
            self._shoe_id()
            if self.hand.physical.finished:
                raise TableStateError("The shoe is finished: start a new shoe.",
                                      code="shoe-finished")
            await self.engine.open_round(seconds=None)
        await self._act(dealer_id, work)

    async def close_betting(self, dealer_id: int) -> None:
        async def work() -> None:
            if self.engine.table.phase is not Phase.OPEN or self.engine.view.coup_id is None:
                raise TableStateError("Betting is not open.", code="betting-not-open")
            await self.engine.close_round()
        await self._act(dealer_id, work)

    async def enter_card(self, dealer_id: int, card: Card, *, side: Side | None,
                         number: int | None = None) -> None:
        """Record the card the rules call for next, then give it to the core.

        ``number`` (1-6, the card's place in the coup), when given, makes a retried request
        harmless: the same card at a place already filled changes nothing, another is refused.
        """
        async def work() -> None:
            pending = self.hand.physical.pending if self.engine.table.phase is Phase.CLOSED else []
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
            coup_id, shoe_id = self.engine.view.coup_id, self._shoe_id()
            await self.engine.write(lambda s: dealing.add_entry(
                s, table_id=self.engine.id, shoe_id=shoe_id, kind="card", coup_id=coup_id,
                card=str(card), side=step.side.value if step.side else None,
                position=step.position, dealer_id=dealer_id))
            entered = self.hand.enter_card(card, side=side)
            self.engine.show_card(entered.side, entered.position, str(card))
        await self._act(dealer_id, work)

    async def correct_card(self, dealer_id: int, card: Card) -> None:
        """Replace the last card entered in the coup in progress (a mistyped card)."""
        async def work() -> None:
            if self.engine.table.phase is not Phase.CLOSED:
                raise PuntoBancoError("There is no card of this coup to correct.",
                                      code="nothing-to-correct")
            self.hand.physical.verify_correct(card)
            coup_id, shoe_id = self.engine.view.coup_id, self._shoe_id()
            assert coup_id is not None

            def write(session: Session) -> None:
                was = dealing.mark_mistyped(session, coup_id)
                dealing.add_entry(session, table_id=self.engine.id, shoe_id=shoe_id, kind="card",
                                  coup_id=coup_id, card=str(card), side=was.side,
                                  position=was.position, dealer_id=dealer_id)

            await self.engine.write(write)
            corrected = self.hand.correct_card(card)
            self.engine.view.cards[-1] = {"side": corrected.side.value,
                                   "position": corrected.position, "card": str(card)}
            punto, banco = hand_totals(self.engine.view)
            self.engine.hub.publish(msg.CardCorrected(side=corrected.side.value,
                                               position=corrected.position, card=str(card),
                                               was=str(corrected.was), punto_total=punto,
                                               banco_total=banco))
        await self._act(dealer_id, work)

    async def settle(self, dealer_id: int) -> None:
        """The coup is complete: deal it in the core and settle it as every coup is."""
        async def work() -> None:
            if self.hand.phase is not Phase.CLOSED or not self.hand.physical.step().complete:
                raise PuntoBancoError("The coup is not complete: the rules call for another "
                                      "card.", code="coup-incomplete")
            await self.engine.deal_and_settle()
        await self._act(dealer_id, work)

    async def misdeal(self, dealer_id: int) -> None:
        """Void the round: every stake returned, its cards kept in the record marked void."""
        async def work() -> None:
            self.hand.verify_void_round()
            coup_id = self.engine.view.coup_id
            assert coup_id is not None
            await self.engine.void_round(also=lambda s: dealing.void_entries(s, coup_id))
        await self._act(dealer_id, work)

    # --- views ----------------------------------------------------------------------------

    def dealer_state(self, lang: str) -> dict[str, Any]:
        """What the dealer's page shows: the step the rules require, hands, bets, the shoe."""
        physical = self.hand.shoe is not None
        shoe = self.hand.physical if physical else None
        phase = self.hand.phase
        step_json: dict[str, Any] | None = None
        if shoe is not None and phase is Phase.CLOSED:
            step = shoe.step()
            step_json = {**step.to_json(), "text": step_text(step, lang)}
        hands: dict[str, dict[str, Any]] = {"punto": {"cards": []}, "banco": {"cards": []}}
        for shown in self.engine.view.cards:
            hands[shown["side"]]["cards"].append(shown["card"])
        totals = dict(zip(("punto", "banco"), hand_totals(self.engine.view), strict=True))
        for side in ("punto", "banco"):
            hands[side]["total"] = totals[side] if hands[side]["cards"] else None
        finished = shoe is not None and shoe.finished
        in_round = phase in (Phase.OPEN, Phase.CLOSED)
        can = {
            "new_shoe": not in_round,
            "burn": physical and not finished and phase is not Phase.CLOSED,
            "open": physical and not finished and not in_round and not self.engine.paused,
            "close": phase is Phase.OPEN,
            "card": phase is Phase.CLOSED and step_json is not None and not step_json["complete"],
            "correct": phase is Phase.CLOSED and bool(self.engine.view.cards),
            "settle": step_json is not None and bool(step_json["complete"]),
            "misdeal": in_round,
            "cut_card": shoe is not None and not finished
                        and shoe.cut_card_coup is None
                        and shoe.coups_dealt + (phase is Phase.CLOSED) > 0,
            "last_coup": physical and not finished,
        }
        engine, view = self.engine, self.engine.view
        return {"table_id": engine.id, "name": engine.settings.name, "phase": view.phase,
                "round_no": view.round_no, "coup_id": view.coup_id,
                "coup_in_shoe": view.coup_in_shoe,
                "shoe": engine.shoe_view() if physical else None, "step": step_json,
                "hands": hands, "totals": engine.totals(), "spots": engine.spots(),
                "last_result": view.last_result, "can": can}
