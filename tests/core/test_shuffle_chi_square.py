"""S1, issue 9: the shoe's shuffle puts every card in every position equally often.

A chi-square test of card positions over many one-deck shuffles (52 cards × 52 positions): the
live table's shuffle (the operating system's secure generator, ``Shoe.shuffled`` with no rng)
passes, and the same test fails on a deliberately biased shuffle (the well-known "swap each card
with any card" mistake), which shows it can fail. The critical value is the chi-square quantile
at α = 10⁻⁴ (Wilson–Hilferty), so an honest shuffle fails about once in 10,000 runs.
"""

from __future__ import annotations

import math
import random
from collections.abc import MutableSequence
from typing import Any

from puntobanco.rules import RuleSet
from puntobanco.shoe import Shoe

SHUFFLES = 12_000
CARDS = 52
Z_ALPHA = 3.719  # one-sided normal quantile of 1 - 10⁻⁴


class NaiveShuffle(random.Random):
    """A biased shuffle: each position swapped with *any* position (not one not yet fixed)."""

    def shuffle(self, x: MutableSequence[Any]) -> None:  # type: ignore[override]
        for i in range(len(x)):
            j = self.randrange(len(x))
            x[i], x[j] = x[j], x[i]


def critical_value(df: int) -> float:
    """The chi-square quantile of 1 − α (Wilson–Hilferty approximation)."""
    return float(df * (1 - 2 / (9 * df) + Z_ALPHA * math.sqrt(2 / (9 * df))) ** 3)


def position_chi_square(rng: random.Random | None) -> float:
    """Shuffle ``SHUFFLES`` one-deck shoes (no burn) and return the chi-square statistic of the
    card × position counts against the uniform expectation."""
    rules = RuleSet(decks=1, burn=False, cut_card=14)
    counts = [[0] * CARDS for _ in range(CARDS)]
    index: dict[object, int] = {}
    for _ in range(SHUFFLES):
        shoe = Shoe.shuffled(rules, rng=rng)
        for position, card in enumerate(shoe.order):
            counts[index.setdefault(card, len(index))][position] += 1
    expected = SHUFFLES / CARDS
    return sum((count - expected) ** 2 / expected for row in counts for count in row)


def test_S1_the_secure_shuffle_puts_every_card_anywhere_alike() -> None:
    statistic = position_chi_square(None)
    assert statistic < critical_value((CARDS - 1) ** 2), statistic


def test_S1_the_same_test_fails_on_a_biased_shuffle() -> None:
    statistic = position_chi_square(NaiveShuffle(9))
    assert statistic > critical_value((CARDS - 1) ** 2), statistic
