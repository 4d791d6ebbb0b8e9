"""Where a table's cards come from: one of the two parts composed into the round engine.

A :class:`CardSource` builds the core round of its kind, records a new shoe, deals a closed
coup, voids a round in the core, says what the pages see of its shoe, and — in the one
recovery replay (``live/replay.py``) — puts back the cards recorded for each coup:

- :class:`ServerShoe`: a shoe the server shuffles (S1), whose order is stored and committed
  (``sha256(salt:cards)``) before its first card and dealt by the core; a replay deals each
  recorded coup from the stored order again and checks it against its record.
- :class:`HandShoe`: a real shoe a dealer deals; each card entered is checked by
  :class:`puntobanco.physical.HandDealtTable` (the drawing rules, the shoe's ``decks`` of each
  card) and recorded (``dealer_entries``); a replay enters the recorded cards again.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from sqlalchemy.orm import Session

from puntobanco.cards import Card, composition_of, full_composition
from puntobanco.physical import HandDealtTable
from puntobanco.rules import RuleSet, Side
from puntobanco.server.db import dealing, store
from puntobanco.server.db.models import ShoeRecord
from puntobanco.server.fair import commitment, new_salt, order_text
from puntobanco.server.live import messages as msg
from puntobanco.shoe import Shoe
from puntobanco.table import ShoeStarted, Table

#: records a new shoe: (session, table id, shoe number, rules JSON) → the shoe's id
ShoeWriter = Callable[[Session, int, int, dict[str, Any]], int]


@dataclass(frozen=True, slots=True)
class Shown:
    """A card on the pages: its hand and place in it (1-3), and its text."""

    side: Side
    position: int
    card: str


class CardSource(Protocol):
    """Where the cards come from (``live/sources.py``)."""

    #: who deals the table: the server or a person
    dealing: msg.Dealing
    #: the cards of a deal are shown one by one at the deal (a hand-dealt coup's cards were
    #: shown as they were entered)
    shows_cards_at_deal: bool

    def new_table(self, rules: RuleSet, *, round_no: int, shoe_no: int) -> Table:
        """The core round of this kind (kept by the source: it deals from it)."""
        ...

    def new_shoe(self, rules: RuleSet) -> ShoeWriter:
        """Prepare a shoe under ``rules`` (shuffled, or nothing known yet); what records it."""
        ...

    def shoe_view(self, shoe_id: int | None, coup_in_shoe: int) -> dict[str, Any]:
        """The shoe as the pages see it now."""
        ...

    def shoe_started(self, shoe_id: int, started: ShoeStarted,
                     rules_json: dict[str, Any]) -> msg.ShoeStarted: ...

    def shoe_finished(self, row: ShoeRecord) -> msg.ShoeFinished: ...

    def first_card(self) -> int:
        """Where in the shoe the coup about to be dealt starts."""
        ...

    def void(self) -> tuple[str, ...]:
        """End the round under way void in the core; the cards it had."""
        ...

    def composition_before_coup(self, *, betting: bool) -> tuple[int, ...] | None:
        """The cards left in the shoe before the coup in progress, counted by value (index 0 =
        tens and faces; the house's exposure, ``api/operator.py``); ``betting``: the coup is
        still open for bets (no card of it is out). ``None`` before the first shoe."""
        ...

    # the one recovery replay (live/replay.py)

    def resume_shoe(self, order: Sequence[Card], commitment_hex: str) -> None:
        """Before the core starts the recorded shoe again: its recorded order, if any."""
        ...

    def replay_burn(self, cards: Sequence[Card], counted: int) -> None: ...

    def replay_coup(self, coup_id: int, cards: Sequence[Card], *, void: bool) -> None:
        """Put a finished coup's recorded cards out of the shoe again (a void coup's too)."""
        ...

    def replay_marks(self, *, cut_card_coup: int | None, last_coup_no: int | None) -> None: ...

    def replay_round_cards(self, cards: Sequence[Card]) -> list[Shown]:
        """The cards recorded for the coup in progress, given to the core again."""
        ...


class ServerShoe:
    """A shoe the server shuffles, commits to and deals (the core's :class:`Shoe`)."""

    dealing: msg.Dealing = "server"
    shows_cards_at_deal = True

    def __init__(self) -> None:
        self._prepared: Shoe | None = None
        self.commitment = ""
        self.table: Table | None = None

    def _take_prepared(self, _rules: object) -> Shoe:
        shoe, self._prepared = self._prepared, None
        assert shoe is not None, "a shoe is prepared (and its commitment stored) before it starts"
        return shoe

    def _shoe(self) -> Shoe:
        assert self.table is not None and self.table.shoe is not None
        return self.table.shoe

    def new_table(self, rules: RuleSet, *, round_no: int, shoe_no: int) -> Table:
        self.table = Table(rules, shoe_factory=self._take_prepared, round_no=round_no,
                           shoe_no=shoe_no)
        return self.table

    def new_shoe(self, rules: RuleSet) -> ShoeWriter:
        """Shuffle securely (S1); the order is stored and its commitment published."""
        shoe = Shoe.shuffled(rules)
        salt = new_salt()
        digest = commitment(salt, shoe.order)

        def write(session: Session, table_id: int, shoe_no: int,
                  rules_json: dict[str, Any]) -> int:
            return store.create_shoe(session, table_id=table_id, shoe_no=shoe_no, shoe=shoe,
                                     salt=salt, commitment=digest, rules_json=rules_json)

        self._prepared, self.commitment = shoe, digest
        return write

    def shoe_view(self, shoe_id: int | None, coup_in_shoe: int) -> dict[str, Any]:
        shoe = self._shoe()
        assert self.table is not None
        return {"id": shoe_id, "shoe_no": self.table.shoe_no, "commitment": self.commitment,
                "cards_left": shoe.cards_left, "cut_card_out": shoe.cut_card_out,
                "last_coup": shoe.is_last_coup, "coups_dealt": shoe.coups_dealt,
                "cut_index": shoe.cut_index, "burned": len(shoe.burned),
                "coup_in_shoe": coup_in_shoe}

    def shoe_started(self, shoe_id: int, started: ShoeStarted,
                     rules_json: dict[str, Any]) -> msg.ShoeStarted:
        return msg.ShoeStarted(
            shoe_id=shoe_id, shoe_no=started.shoe_no, commitment=self.commitment,
            cards_left=self._shoe().cards_left, cut_index=started.cut_index,
            burned=len(started.burned), cards=len(started.order), rules=rules_json)

    def shoe_finished(self, row: ShoeRecord) -> msg.ShoeFinished:
        """The shoe's salt and order revealed after its last coup."""
        return msg.ShoeFinished(shoe_id=row.id, shoe_no=row.shoe_no,
                                order=row.card_order.split(), salt=row.salt,
                                commitment=row.commitment)

    def first_card(self) -> int:
        return self._shoe().position

    def composition_before_coup(self, *, betting: bool) -> tuple[int, ...] | None:
        """The order's cards not dealt yet, with the coup in progress's put back."""
        if self.table is None or self.table.shoe is None:
            return None
        coup = self.table.coup
        in_coup = [card for _, card in coup.dealing_order()] if coup and not betting else []
        return tuple(composition_of([*self.table.shoe.remaining(), *in_coup]))

    def void(self) -> tuple[str, ...]:
        """No card of a server-dealt round is dealt before its close: none to put aside."""
        assert self.table is not None
        self.table.void_round_bets()
        return ()

    def resume_shoe(self, order: Sequence[Card], commitment_hex: str) -> None:
        assert self.table is not None
        self._prepared = Shoe.from_order(order, self.table.rules)
        self.commitment = commitment_hex

    def replay_burn(self, cards: Sequence[Card], counted: int) -> None:
        raise RuntimeError("a server-dealt shoe's burn is in its order, not in its record")

    def replay_coup(self, coup_id: int, cards: Sequence[Card], *, void: bool) -> None:
        """The order deals the coup again: it must deal exactly the recorded cards."""
        if void and not cards:  # voided before its deal: no card left the shoe
            return
        shoe = self._shoe()
        if shoe.finished or order_text(
                [card for _, card in shoe.deal_coup().dealing_order()]) != order_text(cards):
            raise RuntimeError(f"coup {coup_id} does not match the recorded order of its shoe")

    def replay_marks(self, *, cut_card_coup: int | None, last_coup_no: int | None) -> None:
        """The cut card's place is in the order (S3): nothing recorded to put back."""

    def replay_round_cards(self, cards: Sequence[Card]) -> list[Shown]:
        if cards:
            raise RuntimeError("a server-dealt coup records no card before its deal")
        return []


class HandShoe:
    """A real shoe dealt by a person: the cards entered, checked by the core as they come."""

    dealing: msg.Dealing = "dealer"
    shows_cards_at_deal = False

    def __init__(self) -> None:
        self.hand: HandDealtTable | None = None

    @property
    def table(self) -> HandDealtTable:
        assert self.hand is not None
        return self.hand

    def new_table(self, rules: RuleSet, *, round_no: int, shoe_no: int) -> Table:
        self.hand = HandDealtTable(rules, round_no=round_no, shoe_no=shoe_no)
        return self.hand

    def new_shoe(self, rules: RuleSet) -> ShoeWriter:
        """Nothing is known of a real shoe before its cards are entered: no order, no
        commitment."""
        def write(session: Session, table_id: int, shoe_no: int,
                  rules_json: dict[str, Any]) -> int:
            return dealing.create_shoe(session, table_id=table_id, shoe_no=shoe_no,
                                       rules_json=rules_json)
        return write

    def shoe_view(self, shoe_id: int | None, coup_in_shoe: int) -> dict[str, Any]:
        shoe = self.table.physical
        return {"id": shoe_id, "shoe_no": self.table.shoe_no, "commitment": "",
                "cards_left": shoe.cards_left, "cut_card_out": shoe.cut_card_out,
                "last_coup": shoe.is_last_coup, "coups_dealt": shoe.coups_dealt,
                "cut_index": 0, "burned": len(shoe.burned) + shoe.counted,
                "dealing": "dealer", "decks": shoe.rules.decks, "finished": shoe.finished,
                "coup_in_shoe": coup_in_shoe}

    def shoe_started(self, shoe_id: int, started: ShoeStarted,
                     rules_json: dict[str, Any]) -> msg.ShoeStarted:
        shoe = self.table.physical
        return msg.ShoeStarted(
            shoe_id=shoe_id, shoe_no=started.shoe_no, commitment="", dealing="dealer",
            cards_left=shoe.cards_left, cut_index=0, burned=0, cards=shoe.capacity,
            rules=rules_json)

    def shoe_finished(self, row: ShoeRecord) -> msg.ShoeFinished:
        return msg.ShoeFinished(shoe_id=row.id, shoe_no=row.shoe_no, dealing="dealer")

    def first_card(self) -> int:
        shoe = self.table.physical
        return shoe.position - len(shoe.pending)

    def composition_before_coup(self, *, betting: bool) -> tuple[int, ...] | None:
        """A real shoe's order is nobody's, but its cards left are known: the decks less every
        card entered before this coup (shown burn cards and misdealt ones included); the cards
        burned face down, never seen, count as still in the shoe."""
        if self.hand is None or self.hand.shoe is None:
            return None
        shoe = self.hand.physical
        out = Counter([*shoe.order, *shoe.voided])
        coup = self.hand.coup
        if coup is not None and not betting and not shoe.pending:
            out.subtract(card for _, card in coup.dealing_order())  # dealt: the order's last
        return tuple(count - seen for count, seen in zip(
            full_composition(shoe.rules.decks), composition_of(out.elements()), strict=True))

    def void(self) -> tuple[str, ...]:
        """A misdeal: the cards entered are kept aside, out of the shoe and of every coup."""
        return tuple(str(card) for card in self.table.void_round().cards)

    def resume_shoe(self, order: Sequence[Card], commitment_hex: str) -> None:
        """A real shoe starts again empty: its record gives back every card."""

    def replay_burn(self, cards: Sequence[Card], counted: int) -> None:
        self.table.physical.burn(cards, counted=counted)

    def replay_coup(self, coup_id: int, cards: Sequence[Card], *, void: bool) -> None:
        shoe = self.table.physical
        for card in cards:
            shoe.enter(card)
        if void:
            shoe.void_pending()
        else:
            shoe.deal_coup()

    def replay_marks(self, *, cut_card_coup: int | None, last_coup_no: int | None) -> None:
        self.table.physical.restore_marks(cut_card_coup=cut_card_coup, last_coup_no=last_coup_no)

    def replay_round_cards(self, cards: Sequence[Card]) -> list[Shown]:
        shown = []
        for card in cards:
            entered = self.table.enter_card(card)
            shown.append(Shown(entered.side, entered.position, str(card)))
        return shown

