"""One coup (R3–R7): four cards, the third-card rules, and the frozen :class:`Coup` record.

The card source is anything that yields cards: a :class:`~puntobanco.shoe.Shoe`, or an iterator
over a given list (the dealer's calculator).

>>> from puntobanco.cards import parse_cards
>>> coup = deal_coup(iter(parse_cards("4H 2S 9S 3D 7C 5C")))
>>> [str(c) for c in coup.punto], [str(c) for c in coup.banco]
(['4H', '9S', '7C'], ['2S', '3D', '5C'])
>>> coup.punto_total, coup.banco_total, coup.winner.value, coup.margin
(0, 0, 'egalite', 0)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from puntobanco.cards import Card
from puntobanco.errors import ShoeExhausted
from puntobanco.rules import Drawing, Side, banco_draws, hand_total, is_natural_total, punto_draws

#: Called with each card as it is dealt: the side it goes to and its position in that hand (0–2).
DealListener = Callable[[Side, int, Card], None]


@dataclass(frozen=True, slots=True)
class Coup:
    """Everything about one dealt coup."""

    punto: tuple[Card, ...]
    banco: tuple[Card, ...]

    @property
    def punto_total(self) -> int:
        return hand_total(c.value for c in self.punto)

    @property
    def banco_total(self) -> int:
        return hand_total(c.value for c in self.banco)

    @property
    def punto_natural(self) -> bool:
        return is_natural_total(hand_total(c.value for c in self.punto[:2]))

    @property
    def banco_natural(self) -> bool:
        return is_natural_total(hand_total(c.value for c in self.banco[:2]))

    @property
    def natural(self) -> bool:
        """Either side has a natural (R4): no card was drawn."""
        return self.punto_natural or self.banco_natural

    @property
    def punto_third(self) -> Card | None:
        return self.punto[2] if len(self.punto) == 3 else None

    @property
    def banco_third(self) -> Card | None:
        return self.banco[2] if len(self.banco) == 3 else None

    @property
    def cards_used(self) -> int:
        return len(self.punto) + len(self.banco)

    @property
    def winner(self) -> Side:
        """The higher total wins; equal totals are an Égalité (R7)."""
        p, b = self.punto_total, self.banco_total
        return Side.PUNTO if p > b else Side.BANCO if b > p else Side.EGALITE

    @property
    def margin(self) -> int:
        """The difference between the totals, 0–9."""
        return abs(self.punto_total - self.banco_total)

    def total(self, side: Side) -> int:
        return self.punto_total if side is Side.PUNTO else self.banco_total

    def cards(self, side: Side) -> tuple[Card, ...]:
        return self.punto if side is Side.PUNTO else self.banco

    def dealing_order(self) -> list[tuple[Side, Card]]:
        """The cards as they left the shoe: P, B, P, B, then Punto's third, then Banco's (R3)."""
        order = [(Side.PUNTO, self.punto[0]), (Side.BANCO, self.banco[0]),
                 (Side.PUNTO, self.punto[1]), (Side.BANCO, self.banco[1])]
        if self.punto_third is not None:
            order.append((Side.PUNTO, self.punto_third))
        if self.banco_third is not None:
            order.append((Side.BANCO, self.banco_third))
        return order

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready summary (the ``replay --json`` shape)."""
        return {
            "punto": {"cards": [str(c) for c in self.punto], "total": self.punto_total},
            "banco": {"cards": [str(c) for c in self.banco], "total": self.banco_total},
            "winner": self.winner.value,
            "natural": self.natural,
            "margin": self.margin,
        }


def deal_coup(
    source: Iterator[Card],
    *,
    drawing: Drawing = Drawing.STANDARD,
    on_card: DealListener | None = None,
) -> Coup:
    """Deal one coup from ``source`` (R3–R6). Raises :class:`ShoeExhausted` if it runs dry."""

    def take(side: Side, position: int) -> Card:
        try:
            card = next(source)
        except StopIteration:
            raise ShoeExhausted("The cards ran out in the middle of a coup.") from None
        if on_card is not None:
            on_card(side, position, card)
        return card

    p1 = take(Side.PUNTO, 0)
    b1 = take(Side.BANCO, 0)
    p2 = take(Side.PUNTO, 1)
    b2 = take(Side.BANCO, 1)
    punto = [p1, p2]
    banco = [b1, b2]
    p_total = hand_total((p1.value, p2.value))
    b_total = hand_total((b1.value, b2.value))
    if not (is_natural_total(p_total) or is_natural_total(b_total)):  # R4: a natural stops it
        punto_third: int | None = None
        if punto_draws(p_total):  # R5
            third = take(Side.PUNTO, 2)
            punto.append(third)
            punto_third = third.value
        if banco_draws(b_total, punto_third, drawing):  # R6
            banco.append(take(Side.BANCO, 2))
    return Coup(punto=tuple(punto), banco=tuple(banco))
