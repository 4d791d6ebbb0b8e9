"""The engine against an independent brute-force enumerator, exactly (R1–R7, B1–B3, L5).

The enumerator (``bruteforce.py``) deals value by value in plain loops and settles each kind of
coup with the core's ``settle_bet``; the engine works on multisets and derived tables. Every
outcome row of every bet must hold the same integer on full shoes of 1, 6 and 8 decks, on random
depleted shoes, and under each rule setting.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import pytest

from puntobanco.analysis import analyse
from puntobanco.cards import full_composition
from puntobanco.rules import DRAGON_PAYTABLE, BancoPayout, Drawing, RuleSet

from .bruteforce import brute_force_rows
from .support import depleted_shoes


def assert_same_sheet(composition: Sequence[int], rules: RuleSet) -> None:
    sheet = analyse(composition, rules)
    expected = brute_force_rows(composition, rules)
    for name, bet in sheet.bets.items():
        engine_rows = {row.name: (row.combinations, row.pays) for row in bet.outcomes
                       if row.combinations}
        assert engine_rows == expected[name], name
        assert sum(row.combinations for row in bet.outcomes) == sheet.total_combinations


@pytest.mark.parametrize("decks", [1, 6, 8])
def test_R1_full_shoes_match_brute_force(decks: int) -> None:
    """R1: full shoes of 1, 6 and 8 decks, every row of every bet, exact integers."""
    assert_same_sheet(full_composition(decks), RuleSet())


@pytest.mark.parametrize("composition", [tuple(int(c) for c in row)
                                         for row in depleted_shoes(4, seed=20240611)])
def test_R1_depleted_shoes_match_brute_force(composition: tuple[int, ...]) -> None:
    """R1: any depleted composition."""
    assert_same_sheet(composition, RuleSet())


@pytest.mark.parametrize("composition", [
    (0, 0, 0, 0, 0, 0, 0, 0, 3, 4),     # seven cards, only 8s and 9s: naturals only
    (2, 1, 1, 1, 0, 0, 1, 0, 0, 0),     # six cards, some values gone
    (40, 1, 0, 9, 0, 13, 2, 0, 7, 1),
])
def test_R2_small_and_lopsided_shoes_match_brute_force(composition: tuple[int, ...]) -> None:
    """R2: values missing from the shoe, and the smallest shoe a coup can need."""
    assert_same_sheet(composition, RuleSet())


@pytest.mark.parametrize("rules", [
    RuleSet(drawing=Drawing.SEED_LITERAL),
    RuleSet(banco_payout=BancoPayout.COMMISSION),
    RuleSet(banco_payout=BancoPayout.COMMISSION, commission=Fraction(1, 40)),
    RuleSet(tie_pays=9),
    RuleSet(lion_paytable=DRAGON_PAYTABLE),
    RuleSet(lion_paytable=(50, 0, 0, 3, 0, 1), lion_natural_pays=2),
], ids=["seed-literal", "commission-5%", "commission-2.5%", "tie-9", "dragon", "odd-paytable"])
def test_B2_B3_L5_rule_settings_match_brute_force(rules: RuleSet) -> None:
    """R6 variant, B2 commission, B3 9:1, L5 pay tables (including zero pays, which push)."""
    assert_same_sheet(full_composition(2), rules)
    assert_same_sheet((11, 3, 5, 2, 4, 6, 1, 3, 5, 2), rules)
