"""The shoe procedure (S1–S3): shuffle, burn, cut card, one more coup, composition.

>>> import random
>>> shoe = Shoe.shuffled(RuleSet(), rng=random.Random(7))
>>> shoe.cards_left + len(shoe.burned) == 312
True
>>> coup = shoe.deal_coup()
>>> shoe.cards_left == 312 - len(shoe.burned) - coup.cards_used
True
>>> sum(shoe.composition()) == shoe.cards_left
True
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence

from puntobanco.cards import Card, Composition, composition_of, new_shoe_cards
from puntobanco.coup import Coup, DealListener, deal_coup
from puntobanco.errors import ShoeExhausted
from puntobanco.rules import LastCoup, RuleSet


class Shoe:
    """A shoe of cards in a fixed order, dealt from the front.

    Build it with :meth:`shuffled` (S1) or :meth:`from_order` (a known order, e.g. to verify a
    provably fair commitment). The burn (S2) and the cut card (S3) follow the ``RuleSet``.
    """

    def __init__(self, order: Sequence[Card], rules: RuleSet) -> None:
        self.rules = rules
        self.order: tuple[Card, ...] = tuple(order)
        self._position = 0
        #: index of the first card behind the cut card
        self.cut_index = max(len(self.order) - rules.cut_card, 0)
        self.burned: tuple[Card, ...] = ()
        self.coups_dealt = 0
        self._cut_card_coup: int | None = None  # the coup (1-based) during which it came out
        if rules.burn:
            self._burn()

    @classmethod
    def shuffled(cls, rules: RuleSet, *, rng: random.Random | None = None) -> Shoe:
        """A freshly shuffled shoe of ``rules.decks`` decks.

        With no ``rng`` the shuffle uses the operating system's secure generator (S1, play);
        pass a seeded ``random.Random`` for a reproducible shoe (S1, simulation).
        """
        cards = new_shoe_cards(rules.decks)
        (rng if rng is not None else random.SystemRandom()).shuffle(cards)
        return cls(cards, rules)

    @classmethod
    def from_order(cls, order: Sequence[Card], rules: RuleSet) -> Shoe:
        return cls(order, rules)

    def _burn(self) -> None:
        """S2: turn the first card and burn that many more (tens and faces count 10)."""
        first = self._next()
        count = first.rank.burn_count
        self.burned = (first, *(self._next() for _ in range(count)))

    def _next(self) -> Card:
        if self._position >= len(self.order):
            raise ShoeExhausted("The shoe ran out of cards.")
        card = self.order[self._position]
        self._position += 1
        return card

    def __iter__(self) -> Iterator[Card]:
        while self._position < len(self.order):
            yield self._next()

    @property
    def position(self) -> int:
        """How many cards have left the shoe (burned ones included)."""
        return self._position

    @property
    def cards_left(self) -> int:
        return len(self.order) - self._position

    @property
    def cut_card_out(self) -> bool:
        return self._cut_card_coup is not None

    @property
    def finished(self) -> bool:
        """S3: the coup after the cut card's coup has been played (or, by setting, none)."""
        if self._cut_card_coup is None:
            return False
        extra = 1 if self.rules.last_coup is LastCoup.ONE_MORE else 0
        return self.coups_dealt >= self._cut_card_coup + extra

    @property
    def is_last_coup(self) -> bool:
        """The next coup is the last of the shoe."""
        return (self._cut_card_coup is not None and not self.finished)

    def remaining(self) -> tuple[Card, ...]:
        return self.order[self._position:]

    def composition(self) -> Composition:
        """The remaining cards counted by value (index 0 = tens and faces)."""
        return composition_of(self.remaining())

    def deal_coup(self, *, on_card: DealListener | None = None) -> Coup:
        """Deal the next coup, noting when the cut card comes out."""
        if self.finished:
            raise ShoeExhausted("The shoe is finished: the cut card came out and its last coup "
                                "was played.")
        coup = deal_coup(iter(self), drawing=self.rules.drawing, on_card=on_card)
        self.coups_dealt += 1
        if self._cut_card_coup is None and self._position > self.cut_index:
            self._cut_card_coup = self.coups_dealt
        return coup
