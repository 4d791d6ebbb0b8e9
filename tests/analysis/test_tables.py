"""The derived tables against the rules core, coup by coup (R3–R7, B1–B3, L5).

The analysis never re-types a rule: its vectorised classification reads the core's drawing table
and its pays come from ``settle_bet``. These tests deal random coups with the core's ``deal_coup``
from seeded shoes and check that the tables put each in the right class with the right pay, for
every bet and several rule sets.
"""

from __future__ import annotations

import random
from fractions import Fraction
from itertools import product

import numpy as np
import pytest

from puntobanco.analysis.multisets import exact_weights, falling, multiset_trie
from puntobanco.analysis.tables import (
    BET_KINDS,
    BET_NAMES,
    class_of_coup,
    class_table,
    classify_sequences,
    coup_from_values,
    settlement_table,
)
from puntobanco.bets import settle_bet
from puntobanco.cards import Card, full_composition, new_shoe_cards
from puntobanco.coup import Coup, deal_coup
from puntobanco.rules import DRAGON_PAYTABLE, BancoPayout, Drawing, RuleSet

RULE_SETS = [
    RuleSet(),
    RuleSet(drawing=Drawing.SEED_LITERAL),
    RuleSet(banco_payout=BancoPayout.COMMISSION, commission=Fraction(3, 100), tie_pays=9),
    RuleSet(lion_paytable=DRAGON_PAYTABLE, lion_natural_pays=2),
]


def random_coups(count: int, *, seed: int, drawing: Drawing) -> list[tuple[list[Card], Coup]]:
    rng = random.Random(seed)
    cards = new_shoe_cards(1)
    dealt = []
    for _ in range(count):
        six = rng.sample(cards, 6)
        dealt.append((six, deal_coup(iter(six), drawing=drawing)))
    return dealt


@pytest.mark.parametrize("drawing", list(Drawing))
def test_R6_classification_matches_deal_coup(drawing: Drawing) -> None:
    """R4–R6: the vectorised classifier puts 3,000 dealt coups in the core coup's class."""
    dealt = random_coups(3000, seed=7, drawing=drawing)
    values = np.array([[c.value for c in six] for six, _ in dealt])
    classes, used = classify_sequences(values, drawing)
    for (_, coup), index, length in zip(dealt, classes, used, strict=True):
        assert index == class_of_coup(coup)
        assert length == coup.cards_used


def test_R6_every_start_classified_like_deal_coup() -> None:
    """R4–R6: all 10⁴ four-card starts, each with a random fifth and sixth value."""
    rng = np.random.default_rng(3)
    sequences = np.array([(*start, *rng.integers(0, 10, 2))
                          for start in product(range(10), repeat=4)])
    for drawing in Drawing:
        classes, used = classify_sequences(sequences, drawing)
        for row, index, length in zip(sequences.tolist(), classes, used, strict=True):
            coup = coup_from_values(row, drawing)
            assert (index, length) == (class_of_coup(coup), coup.cards_used)


@pytest.mark.parametrize("rules", RULE_SETS, ids=["standard", "seed-literal", "commission", "dragon"])
def test_B1_B3_L5_table_pays_equal_settle_bet(rules: RuleSet) -> None:
    """B1–B3, L5: for dealt coups, the table's net pay per unit equals ``settle_bet``'s."""
    table = settlement_table(rules)
    stake = 100 * rules.commission.denominator
    for _, coup in random_coups(1500, seed=11, drawing=rules.drawing):
        index = class_of_coup(coup)
        for bet, kind in zip(table.bets, BET_KINDS, strict=True):
            line = settle_bet(kind, stake, coup, rules)
            assert bet.pays_of_class(index) == Fraction(line.net, stake), (bet.name, index)


def test_R2_class_counts_sum_to_all_sequences() -> None:
    """Each composition's node weights times the table's orderings count every sequence once."""
    trie = multiset_trie()
    for drawing in Drawing:
        table = class_table(drawing)
        for composition in (full_composition(1), (3, 0, 2, 1, 0, 0, 0, 1, 0, 0), (0,) * 9 + (6,)):
            weights = exact_weights(composition)
            cards = sum(composition)
            total = 0
            for node, count in zip(table.nodes.tolist(), table.node_counts.tolist(), strict=True):
                depth = int(trie.depth[node])
                total += count * weights[node] * falling(cards - depth, 6 - depth)
            assert total == falling(cards, 6)


def test_trie_weights_are_falling_factorials() -> None:
    """A node's weight is the product of falling factorials of its value counts."""
    trie = multiset_trie()
    composition = (7, 3, 0, 2, 5, 1, 4, 2, 6, 3)
    weights = exact_weights(composition)
    rng = random.Random(5)
    for node in rng.sample(range(trie.size), 300):
        values = trie.values_of(node)
        expected = 1
        for v in set(values):
            expected *= falling(composition[v], values.count(v))
        assert weights[node] == expected
        assert trie.node_of(values) == node


def test_bet_names_follow_payment_order() -> None:
    """L6: the analysis lists the bets in payment order, main bets first."""
    assert BET_NAMES == ("punto", "banco", "egalite", "lion-punto", "lion-banco")
    assert [kind.value for kind in BET_KINDS] == list(BET_NAMES)  # issue 12: one spelling
