"""Helpers shared by the simulator tests: play shoes through the rules core for comparison."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from puntobanco.bets import settle_bet
from puntobanco.cards import Card, Suit, composition_of
from puntobanco.rules import RuleSet
from puntobanco.shoe import Shoe
from puntobanco.sim.tables import BET_KINDS, card_of_value, code_of, unit_stake

SUITS = tuple(Suit)


def cards_of_values(values: Sequence[int]) -> list[Card]:
    """Real cards with these baccarat values (suits vary; a 0 is a ten)."""
    return [card_of_value(int(v), SUITS[i % 4]) for i, v in enumerate(values)]


@dataclass(frozen=True)
class CoreCoup:
    code: int
    start: int  # position in the shoe of the coup's first card
    nets: tuple[int, ...]  # settle_bet net on each of the five bets, stake unit_stake(rules)
    composition: tuple[int, ...]  # cards left before the coup


def play_with_core(values: Sequence[int], rules: RuleSet) -> tuple[list[CoreCoup], list[Card]]:
    """Deal a whole shoe of this card order with ``shoe.Shoe`` and settle every bet on every coup.

    Returns the coups and the burned cards.
    """
    shoe = Shoe.from_order(cards_of_values(values), rules)
    stake = unit_stake(rules)
    coups = []
    while not shoe.finished:
        start, left = shoe.position, shoe.composition()
        coup = shoe.deal_coup()
        nets = tuple(settle_bet(kind, stake, coup, rules).net for kind in BET_KINDS)
        coups.append(CoreCoup(code_of(coup), start, nets, left))
    return coups, list(shoe.burned)


def hidden_burn(burned: Sequence[Card]) -> tuple[int, ...]:
    """The burned cards dealt face down (all but the turned first one), by value."""
    return composition_of(burned[1:])


def as_values(order: npt.NDArray[np.uint8]) -> list[int]:
    return [int(v) for v in order]
