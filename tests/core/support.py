"""Helpers shared by the core tests: cards from baccarat values, coups from stated hands, and the
SPEC's drawing rules written out independently of :mod:`puntobanco.rules` (R4–R6, in SPEC's words).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

from puntobanco.cards import Card, Rank, Suit
from puntobanco.coup import Coup, deal_coup

#: One rank per baccarat value: index 0 a ten, 1 an ace, v the rank of value v.
VALUE_RANKS: tuple[Rank, ...] = (Rank.TEN, Rank.ACE, Rank.TWO, Rank.THREE, Rank.FOUR, Rank.FIVE,
                                 Rank.SIX, Rank.SEVEN, Rank.EIGHT, Rank.NINE)
_SUITS = tuple(Suit)


def card_of(value: int, index: int = 0) -> Card:
    """A card of baccarat value ``value`` (suits rotate with ``index`` so cards look varied)."""
    return Card(VALUE_RANKS[value], _SUITS[index % 4])


def cards_of(values: Sequence[int]) -> list[Card]:
    return [card_of(v, i) for i, v in enumerate(values)]


def coup_of(values: Sequence[int]) -> Coup:
    """Deal a coup from cards of these values, in dealing order (P, B, P, B, then thirds)."""
    return deal_coup(iter(cards_of(values)))


def coup_from_hands(punto: Sequence[int], banco: Sequence[int]) -> Coup:
    """Deal the coup whose hands hold these values; fail loudly if R3–R6 would not deal them."""
    order = [punto[0], banco[0], punto[1], banco[1], *punto[2:], *banco[2:]]
    coup = coup_of([*order, 5, 5])  # spare cards: a hand that should have stood would take them
    dealt = ([c.value for c in coup.punto], [c.value for c in coup.banco])
    if dealt != (list(punto), list(banco)):
        raise AssertionError(f"R3-R6 deal {dealt} from {order}, not the hands {punto} v {banco}")
    return coup


# --- R4-R6 from SPEC's words, as plain if/else (independent of puntobanco.rules) ---------------

def spec_punto_draws(punto_total: int) -> bool:
    """R5: Punto draws one card on 0-5 and stands on 6-7."""
    return punto_total <= 5


def spec_banco_draws(banco_total: int, punto_third: int | None) -> bool:
    """R6, clause by clause."""
    if punto_third is None:  # "if Punto stood, Banco draws on 0-5 and stands on 6-7"
        return banco_total <= 5
    t = punto_third
    if banco_total <= 2:  # "Banco draws on 0-2"
        return True
    if banco_total == 3:  # "on 3 unless t = 8"
        return t != 8
    if banco_total == 4:  # "on 4 if t in 2..7"
        return 2 <= t <= 7
    if banco_total == 5:  # "on 5 if t in 4..7"
        return 4 <= t <= 7
    if banco_total == 6:  # "on 6 if t in 6..7"
        return 6 <= t <= 7
    return False  # "stands on 7"


def spec_hands(values: Sequence[int]) -> tuple[list[int], list[int]]:
    """The two hands R3-R6 deal from six values in shoe order (the unused values are ignored)."""
    punto = [values[0], values[2]]
    banco = [values[1], values[3]]
    rest = iter(values[4:])
    p = (punto[0] + punto[1]) % 10
    b = (banco[0] + banco[1]) % 10
    if p >= 8 or b >= 8:  # R4: a natural on either side, neither side draws
        return punto, banco
    third: int | None = None
    if spec_punto_draws(p):
        third = next(rest)
        punto.append(third)
    if spec_banco_draws(b, third):
        banco.append(next(rest))
    return punto, banco


def find_values(predicate: Callable[[Coup], bool], length: int = 6) -> list[int]:
    """The first value sequence (in lexicographic order) whose coup satisfies ``predicate``."""
    for values in itertools.product(range(10), repeat=length):
        if predicate(coup_of(values)):
            return list(values)
    raise AssertionError("no coup satisfies the predicate")
