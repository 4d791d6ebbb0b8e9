"""A physical shoe dealt by a person: the cards are entered one by one as they are drawn.

The same core deals the coup: :func:`puntobanco.coup.deal_coup` decides which card comes next
(R3–R6), here asked about the cards entered so far (:func:`next_step`), and the round goes through
the same :class:`~puntobanco.table.Table` (bets L4/M3, settlement B*/L5/L6). What a server-dealt
shoe knows in advance — its order — a physical shoe learns card by card, so it checks instead
that each entered card is one the rules call for and one the shoe can still hold (``decks`` of
each card). The shoe events of a real table are actions here: burn (S2, cards entered or only
counted), the cut card coming out (S3: the coup in progress is completed and one more is played),
the last coup called, a misdeal (the coup void, its cards kept aside) and a correction of a
mistyped card before the coup is complete.

>>> from puntobanco.cards import Card
>>> table = HandDealtTable(RuleSet(decks=1))
>>> _ = table.open_round(); _ = table.close_bets()
>>> for text in ("4H", "2S", "9S", "3D"):
...     step = table.enter_card(Card.parse(text)).step
>>> step.describe()
'Punto draws on 3'
>>> step = table.enter_card(Card.parse("7C")).step
>>> step.describe()
"Banco draws on 5 (Punto's third card 7)"
>>> table.enter_card(Card.parse("5C")).step.complete
True
>>> table.deal().coup.winner.value
'egalite'
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from itertools import chain

from puntobanco.bets import BetKind
from puntobanco.cards import Card
from puntobanco.coup import Coup, DealListener, deal_coup
from puntobanco.errors import PuntoBancoError, ShoeExhausted, TableStateError
from puntobanco.rules import Drawing, RuleSet, Side, hand_total
from puntobanco.shoe import Shoe
from puntobanco.table import Phase, Table


class CardRefused(PuntoBancoError):
    """An entered card the rules do not call for, the shoe cannot hold, or out of turn.

    ``fields`` are the facts of the refusal (for the sentence in the dealer's language).
    """

    code = "card-refused"

    def __init__(self, message: str, *, code: str, key: str | None = None,
                 **fields: str) -> None:
        super().__init__(message, code=code)
        self.key = key or code
        self.fields = fields


class StepReason(Enum):
    """Why the rules call for a card, or why they call for no more (R3-R6)."""

    DEAL = "deal"  # the four first cards (R3)
    PUNTO_DRAWS = "punto-draws"  # R5
    BANCO_DRAWS = "banco-draws"  # R6
    NATURAL = "natural"  # R4: complete, no card drawn
    BANCO_STANDS = "banco-stands"  # R6: complete
    BANCO_DREW = "banco-drew"  # complete after Banco's third card


#: What the rules require, in the table's languages (the dealer's page shows it).
STEP_WORDS: dict[str, dict[str, str]] = {
    "deal": {"en": "Card {n} of 4, to {side}", "fr": "Carte {n} sur 4, à {side}",
             "it": "Carta {n} di 4, a {side}", "es": "Carta {n} de 4, a {side}"},
    "punto-draws": {"en": "Punto draws on {p}", "fr": "Punto tire à {p}",
                    "it": "Punto pesca con {p}", "es": "Punto pide carta con {p}"},
    "banco-draws": {"en": "Banco draws on {b} ({after})", "fr": "Banco tire à {b} ({after})",
                    "it": "Banco pesca con {b} ({after})",
                    "es": "Banco pide carta con {b} ({after})"},
    "banco-stands": {"en": "Banco stands on {b} ({after})", "fr": "Banco reste à {b} ({after})",
                     "it": "Banco sta con {b} ({after})", "es": "Banco se planta con {b} ({after})"},
    "natural": {"en": "Natural: Punto {p}, Banco {b}; no card drawn",
                "fr": "Abattage : Punto {p}, Banco {b} ; aucune carte tirée",
                "it": "Battuta: Punto {p}, Banco {b}; nessuna carta",
                "es": "Natural: Punto {p}, Banco {b}; no se pide carta"},
    "banco-drew": {"en": "Coup complete: Punto {p}, Banco {b}",
                   "fr": "Coup complet : Punto {p}, Banco {b}",
                   "it": "Colpo completo: Punto {p}, Banco {b}",
                   "es": "Mano completa: Punto {p}, Banco {b}"},
    "third": {"en": "Punto's third card {t}", "fr": "troisième carte de Punto : {t}",
              "it": "terza carta di Punto: {t}", "es": "tercera carta de Punto: {t}"},
    "stood": {"en": "Punto stood on {p}", "fr": "Punto reste à {p}", "it": "Punto sta con {p}",
              "es": "Punto se planta con {p}"},
}


@dataclass(frozen=True, slots=True)
class Step:
    """Where a hand-dealt coup stands: the card the rules call for next (``side``,
    ``position``), or ``complete``, and why (``reason``, with the totals behind it)."""

    side: Side | None
    position: int | None
    reason: StepReason
    cards: int
    punto_total: int | None = None
    banco_total: int | None = None
    #: the value of Punto's third card, when it drew one
    punto_third: int | None = None

    @property
    def complete(self) -> bool:
        return self.side is None

    def describe(self, lang: str = "en") -> str:
        """What the rules require now, in ``lang`` (fr, it, es, en)."""
        words = {key: texts.get(lang, texts["en"]) for key, texts in STEP_WORDS.items()}
        after = ""
        if self.reason in (StepReason.BANCO_DRAWS, StepReason.BANCO_STANDS):
            after = (words["third"].format(t=self.punto_third) if self.punto_third is not None
                     else words["stood"].format(p=self.punto_total))
        side = self.side.value.capitalize() if self.side is not None else ""
        return words[self.reason.value].format(n=self.cards + 1, side=side, p=self.punto_total,
                                               b=self.banco_total, after=after)

    def to_json(self) -> dict[str, object]:
        return {"side": self.side.value if self.side is not None else None,
                "position": self.position, "reason": self.reason.value,
                "complete": self.complete, "cards": self.cards,
                "punto_total": self.punto_total, "banco_total": self.banco_total,
                "punto_third": self.punto_third}


class _Asked(Exception):
    """Raised inside :func:`next_step` when the core asks for the card after those entered."""

    def __init__(self, side: Side, position: int) -> None:
        super().__init__(side, position)
        self.side, self.position = side, position


def next_step(cards: Sequence[Card], *, drawing: Drawing = Drawing.STANDARD) -> Step:
    """The card the drawing rules call for after ``cards`` (in dealing order), or ``complete``.

    The core's :func:`~puntobanco.coup.deal_coup` is asked, with one card more than entered: the
    side and position it deals that card to is the answer, and if it never takes it the coup is
    complete. The rules are thus applied in one place.

    >>> from puntobanco.cards import parse_cards
    >>> next_step(parse_cards("9S 2D")).describe()
    'Card 3 of 4, to Punto'
    >>> next_step(parse_cards("9S 2D")).describe("fr")
    'Carte 3 sur 4, à Punto'
    >>> next_step(parse_cards("9S 2D KH 5C")).describe()
    'Natural: Punto 9, Banco 7; no card drawn'
    >>> next_step(parse_cards("6S 2D KH 3C")).describe()
    'Banco draws on 5 (Punto stood on 6)'
    >>> next_step(parse_cards("2S 6D KH KC 4H")).describe()
    "Banco stands on 6 (Punto's third card 4)"
    """
    entered = len(cards)
    seen = 0

    def listen(side: Side, position: int, _card: Card) -> None:
        nonlocal seen
        seen += 1
        if seen > entered:
            raise _Asked(side, position)

    asked: _Asked | None = None
    coup: Coup | None = None
    try:  # the placeholder after the entered cards is never looked at: the listener stops first
        coup = deal_coup(chain(cards, cards[:1] or [Card.parse("AS")]), drawing=drawing,
                         on_card=listen)
    except _Asked as question:
        asked = question
    if asked is None:
        assert coup is not None
        if coup.cards_used != entered:
            raise CardRefused(f"The coup is complete after {coup.cards_used} cards, not "
                              f"{entered}.", code="card-not-called")
    if entered < 4:
        assert asked is not None
        return Step(asked.side, asked.position, StepReason.DEAL, entered)
    if asked is not None:
        third = cards[4].value if entered == 5 and asked.side is Side.BANCO else None
        punto = [cards[0], cards[2], *cards[4:5]]
        p_total = hand_total(c.value for c in punto)
        b_total = hand_total(c.value for c in (cards[1], cards[3]))
        reason = StepReason.PUNTO_DRAWS if asked.side is Side.PUNTO else StepReason.BANCO_DRAWS
        return Step(asked.side, asked.position, reason, entered, p_total, b_total, third)
    assert coup is not None
    reason = (StepReason.NATURAL if coup.natural else StepReason.BANCO_DREW
              if coup.banco_third is not None else StepReason.BANCO_STANDS)
    third = coup.punto_third.value if coup.punto_third is not None else None
    return Step(None, None, reason, entered, coup.punto_total, coup.banco_total, third)


# --- the shoe -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CardEntered:
    side: Side
    position: int
    card: Card
    step: Step  # what the rules call for after it
    kind: str = "card-entered"


@dataclass(frozen=True, slots=True)
class CardCorrected:
    side: Side
    position: int
    was: Card
    card: Card
    step: Step
    kind: str = "card-corrected"


@dataclass(frozen=True, slots=True)
class Burned:
    cards: tuple[Card, ...]
    counted: int  # burned face down, not entered
    kind: str = "burned"


@dataclass(frozen=True, slots=True)
class RoundVoided:
    """A misdeal: the round is void, every stake returned, its cards kept aside."""

    round_no: int
    bets: dict[str, dict[BetKind, int]]
    cards: tuple[Card, ...]
    kind: str = "round-voided"


class PhysicalShoe(Shoe):
    """A shoe whose cards are learnt as they are entered (``order`` grows with each coup)."""

    def __init__(self, rules: RuleSet) -> None:  # no super().__init__: nothing is known yet
        self.rules = rules
        self.order = ()
        self._position = 0
        self.cut_index = 0
        self.burned = ()
        self.coups_dealt = 0
        self._cut_card_coup = None
        #: cards burned face down and only counted
        self.counted = 0
        #: the cards of the coup in progress, in dealing order
        self.pending: list[Card] = []
        #: cards of void coups (misdeals): out of the shoe, in no coup
        self.voided: list[Card] = []
        self._last_coup: int | None = None
        self._seen: Counter[Card] = Counter()

    @property
    def capacity(self) -> int:
        return 52 * self.rules.decks

    @property
    def position(self) -> int:
        return len(self.order) + self.counted + len(self.pending) + len(self.voided)

    @property
    def cards_left(self) -> int:
        return self.capacity - self.position

    @property
    def finished(self) -> bool:
        if self._last_coup is not None and self.coups_dealt >= self._last_coup:
            return True
        return Shoe.finished.fget(self)  # type: ignore[attr-defined,no-any-return]

    @property
    def is_last_coup(self) -> bool:
        if self.finished:
            return False
        return self._last_coup == self.coups_dealt + 1 or Shoe.is_last_coup.fget(self)  # type: ignore[attr-defined]

    @property
    def cut_card_coup(self) -> int | None:
        return self._cut_card_coup

    @property
    def last_coup_no(self) -> int | None:
        return self._last_coup

    def step(self) -> Step:
        return next_step(self.pending, drawing=self.rules.drawing)

    def count(self, card: Card) -> int:
        """How many of this card have left the shoe."""
        return self._seen[card]

    def verify_holds(self, card: Card, *, replacing: Card | None = None) -> None:
        """Refuse a card the shoe cannot hold any more (``decks`` of each card, ``capacity``)."""
        out = self._seen[card] - (1 if replacing == card else 0)
        if out >= self.rules.decks:
            raise CardRefused(
                f"The shoe holds {self.rules.decks} deck(s): {out} {card} are already out of it, "
                "so this card cannot be one more.", code="card-not-in-shoe", card=str(card),
                decks=str(self.rules.decks), out=str(out))
        if replacing is None and self.cards_left <= 0:
            raise CardRefused("The shoe is empty: every card has been entered or counted.",
                              code="shoe-empty")

    def verify_enter(self, card: Card, *, side: Side | None = None) -> Step:
        if self.finished:
            raise CardRefused("The shoe is finished: start a new shoe.", code="shoe-finished")
        step = self.step()
        if step.complete:
            raise CardRefused("The coup is complete: the rules call for no more card.",
                              code="card-not-called")
        if side is not None and side is not step.side:
            assert step.side is not None
            raise CardRefused(f"The next card is {step.side.value.capitalize()}'s, not "
                              f"{side.value.capitalize()}'s.", code="card-out-of-turn",
                              side=step.side.value, given=side.value)
        self.verify_holds(card)
        return step

    def enter(self, card: Card, *, side: Side | None = None) -> CardEntered:
        step = self.verify_enter(card, side=side)
        assert step.side is not None and step.position is not None
        self.pending.append(card)
        self._seen[card] += 1
        return CardEntered(step.side, step.position, card, self.step())

    def verify_correct(self, card: Card) -> None:
        if not self.pending:
            raise CardRefused("There is no card of this coup to correct.",
                              code="nothing-to-correct")
        self.verify_holds(card, replacing=self.pending[-1])

    def correct(self, card: Card) -> CardCorrected:
        """Replace the last entered card of the coup in progress (a mistyped card)."""
        self.verify_correct(card)
        was = self.pending[-1]
        where = next_step(self.pending[:-1], drawing=self.rules.drawing)
        assert where.side is not None and where.position is not None
        self._seen[was] -= 1
        self.pending[-1] = card
        self._seen[card] += 1
        return CardCorrected(where.side, where.position, was, card, self.step())

    def verify_burn(self, cards: Sequence[Card] = (), *, counted: int = 0) -> None:
        if self.pending:
            raise TableStateError("Cards are burned between coups, not during one.",
                                  code="card-out-of-turn")
        if self.finished:
            raise CardRefused("The shoe is finished: start a new shoe.", code="shoe-finished")
        if counted < 0 or (not cards and counted == 0):
            raise CardRefused("A burn is at least one card, entered or counted.",
                              code="bad-burn")
        for card, n in Counter(cards).items():
            if self._seen[card] + n > self.rules.decks:
                raise CardRefused(
                    f"The shoe holds {self.rules.decks} deck(s): {self._seen[card]} {card} are "
                    f"already out of it, so it cannot give {n} more.", code="card-not-in-shoe",
                    card=str(card), decks=str(self.rules.decks), out=str(self._seen[card]))
        if len(cards) + counted > self.cards_left:
            raise CardRefused(f"The shoe has only {self.cards_left} cards left.",
                              code="shoe-empty")

    def burn(self, cards: Sequence[Card] = (), *, counted: int = 0) -> Burned:
        """Burn cards entered face up and/or ``counted`` face down (S2); between coups only."""
        self.verify_burn(cards, counted=counted)
        self._seen.update(cards)
        self.burned = (*self.burned, *cards)
        self.order = (*self.order, *cards)
        self.counted += counted
        return Burned(tuple(cards), counted)

    def verify_cut_card(self, *, during_coup: bool) -> None:
        if self._cut_card_coup is not None:
            raise TableStateError("The cut card is already out.", code="cut-card-out")
        if self.finished:
            raise TableStateError("The shoe is finished.", code="shoe-finished")
        if self.coups_dealt + (1 if during_coup else 0) == 0:
            raise TableStateError("The cut card cannot come out before the first coup.",
                                  code="cut-card-early")

    def mark_cut_card(self, *, during_coup: bool) -> int:
        """S3: the cut card came out (during the coup in progress, or the last one dealt).

        Returns the coup, counted in the shoe, during which it came out.
        """
        self.verify_cut_card(during_coup=during_coup)
        self._cut_card_coup = self.coups_dealt + (1 if during_coup else 0)
        return self._cut_card_coup

    def restore_marks(self, *, cut_card_coup: int | None, last_coup_no: int | None) -> None:
        """Set the cut card's coup and the last coup as recorded (a restarted server)."""
        self._cut_card_coup, self._last_coup = cut_card_coup, last_coup_no

    def mark_last_coup(self) -> int:
        """The next coup (or the one in progress) is the last of this shoe."""
        if self.finished:
            raise TableStateError("The shoe is finished.", code="shoe-finished")
        self._last_coup = self.coups_dealt + 1
        return self._last_coup

    def void_pending(self) -> tuple[Card, ...]:
        """A misdeal: the coup's cards leave the shoe but count in no coup."""
        cards = tuple(self.pending)
        self.voided.extend(cards)
        self.pending = []
        return cards

    def deal_coup(self, *, on_card: DealListener | None = None) -> Coup:
        """The coup the entered cards make (the core deals it from them)."""
        if self.finished:
            raise ShoeExhausted("The shoe is finished.")
        if not self.step().complete:
            raise ShoeExhausted("The coup is not complete: the rules call for another card.")
        coup = deal_coup(iter(self.pending), drawing=self.rules.drawing, on_card=on_card)
        self.order = (*self.order, *self.pending)
        self.pending = []
        self.coups_dealt += 1
        return coup


# --- the table ------------------------------------------------------------------------------


@dataclass
class HandDealtTable(Table):
    """A :class:`Table` whose coups are entered card by card from a :class:`PhysicalShoe`."""

    def __init__(self, rules: RuleSet | None = None, *, round_no: int = 0,
                 shoe_no: int = 0) -> None:
        super().__init__(rules, shoe_factory=PhysicalShoe, round_no=round_no, shoe_no=shoe_no)

    @property
    def physical(self) -> PhysicalShoe:
        shoe = self.shoe
        if not isinstance(shoe, PhysicalShoe):
            raise TableStateError("No shoe has been started.", code="no-shoe")
        return shoe

    def verify_enter_card(self, card: Card, *, side: Side | None = None) -> Step:
        if self.phase is not Phase.CLOSED:
            raise CardRefused("No card now: cards are entered after betting is closed.",
                              code="card-out-of-turn", key="card-out-of-turn-closed")
        return self.physical.verify_enter(card, side=side)

    def can_enter_card(self, card: Card, *, side: Side | None = None) -> bool:
        try:
            self.verify_enter_card(card, side=side)
        except PuntoBancoError:
            return False
        return True

    def enter_card(self, card: Card, *, side: Side | None = None) -> CardEntered:
        self.verify_enter_card(card, side=side)
        return self.physical.enter(card, side=side)

    def correct_card(self, card: Card) -> CardCorrected:
        if self.phase is not Phase.CLOSED:
            raise CardRefused("There is no card of this coup to correct.",
                              code="nothing-to-correct")
        return self.physical.correct(card)

    def void_round(self) -> RoundVoided:
        """Misdeal: the round is void, stakes returned (the core's void, checked by
        :meth:`Table.verify_void_round`); its cards are kept aside."""
        self.verify_void_round()
        cards = self.physical.void_pending()
        return RoundVoided(self.round_no, self.void_round_bets(), cards)
