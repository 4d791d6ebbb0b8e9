"""The exact engine: every bet's outcome counts, EV, variance, for any shoe and rule set.

Counting convention (the published one): all ordered six-card sequences of the shoe are equally
likely, and a coup that uses four or five cards still counts the unused ones. Eight full decks give
``416·415·414·413·412·411 = 4,998,398,275,503,360`` sequences.

>>> sheet = analyse(full_composition(8))
>>> sheet.total_combinations
4998398275503360
>>> [row.combinations for row in sheet.bets["punto"].outcomes]
[2230518282592256, 475627426473216, 2292252566437888]
>>> round(sheet.bets["punto"].house_edge * 100, 4), round(sheet.bets["egalite"].house_edge * 100, 4)
(1.2351, 14.3596)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from puntobanco.analysis.multisets import MAX_CARDS, exact_weights, falling
from puntobanco.analysis.tables import (
    BET_NAMES,
    CLASS_COUNT,
    ClassTable,
    Shape,
    class_table,
    settlement_table,
)
from puntobanco.cards import Composition, as_composition, full_composition
from puntobanco.errors import PuntoBancoError
from puntobanco.rules import Drawing, RuleSet

__all__ = [
    "BET_NAMES",
    "BetAnalysis",
    "OutcomeRow",
    "ParSheet",
    "analyse",
    "class_counts",
    "effects_of_removal",
    "full_composition",
]


@dataclass(frozen=True, slots=True)
class OutcomeRow:
    """One outcome of a bet: how many six-card sequences reach it, and its net pay per unit."""

    name: str
    combinations: int
    #: Net result per unit staked: −1 loses, 0 is a push, 8 for Égalité at 8:1.
    pays: Fraction


@dataclass(frozen=True, slots=True)
class BetAnalysis:
    """A bet's rows on the PAR sheet, and what follows from them exactly."""

    name: str
    total_combinations: int
    outcomes: tuple[OutcomeRow, ...]

    def probability(self, row: OutcomeRow) -> Fraction:
        return Fraction(row.combinations, self.total_combinations)

    def contribution(self, row: OutcomeRow) -> Fraction:
        """The row's share of the EV: probability × pays."""
        return self.probability(row) * row.pays

    @property
    def ev(self) -> Fraction:
        """Expected net result per unit staked (negative: the house's edge)."""
        return Fraction(sum(r.combinations * r.pays for r in self.outcomes), self.total_combinations)

    @property
    def rtp(self) -> Fraction:
        """Return to player: what comes back per unit staked, stake included (1 + EV)."""
        return 1 + self.ev

    @property
    def variance(self) -> Fraction:
        second = Fraction(sum(r.combinations * r.pays**2 for r in self.outcomes),
                          self.total_combinations)
        return second - self.ev**2

    @property
    def std_dev(self) -> float:
        return math.sqrt(self.variance)

    @property
    def hit_frequency(self) -> float:
        """Probability that the bet wins something (a push is not a hit)."""
        wins = sum(r.combinations for r in self.outcomes if r.pays > 0)
        return wins / self.total_combinations

    @property
    def house_edge(self) -> float:
        return float(-self.ev)

    @property
    def push_probability(self) -> Fraction:
        """Probability that the stake comes back as it was (B1, B2 on an Égalité; L5b)."""
        pushes = sum(r.combinations for r in self.outcomes if r.pays == 0)
        return Fraction(pushes, self.total_combinations)

    @property
    def edge_ties_excluded(self) -> Fraction:
        """The house edge per bet decided: pushes (a returned stake) are not counted as coups.

        For Punto and Banco this is the edge "with ties excluded" of the published tables.
        """
        return -self.ev / (1 - self.push_probability)

    @property
    def element_of_risk(self) -> Fraction:
        """Expected loss over the average amount wagered on the coup, a push counted as a wager.

        No Punto Banco bet can be raised, so the average amount wagered is the stake itself
        and the element of risk equals the house edge; it differs where a wager grows.
        """
        average_wagered = Fraction(1)
        return -self.ev / average_wagered

    def row(self, name: str) -> OutcomeRow:
        for row in self.outcomes:
            if row.name == name:
                return row
        raise KeyError(name)


@dataclass(frozen=True, slots=True)
class ParSheet:
    """Every bet analysed exactly for one shoe and one rule set."""

    composition: Composition
    rules: RuleSet
    total_combinations: int
    bets: dict[str, BetAnalysis]

    @property
    def cards(self) -> int:
        return sum(self.composition)


def check_composition(composition: Sequence[int]) -> Composition:
    """Ten non-negative counts holding at least six cards, or :class:`PuntoBancoError`."""
    try:
        counts = as_composition(tuple(int(c) for c in composition))
    except (TypeError, ValueError):
        counts = as_composition(tuple(composition))  # raises the one-sentence error
    cards = sum(counts)
    if cards < MAX_CARDS:
        raise PuntoBancoError(
            f"A shoe needs at least {MAX_CARDS} cards for a coup; this one holds {cards}.",
            code="too-few-cards",
        )
    return counts


def class_counts(composition: Sequence[int], drawing: Drawing = Drawing.STANDARD) -> list[int]:
    """Exact number of ordered six-card sequences ending in each coup class.

    >>> counts = class_counts(full_composition(1))
    >>> sum(counts) == falling(52, 6)
    True
    """
    counts = check_composition(composition)
    return _class_counts(counts, class_table(drawing))


def _class_counts(composition: Composition, table: ClassTable) -> list[int]:
    weights = exact_weights(composition)
    cards = sum(composition)
    result = [0] * CLASS_COUNT
    for index, node, count in zip(table.classes.tolist(), table.nodes.tolist(),
                                  table.node_counts.tolist(), strict=True):
        weight = weights[node]
        if weight:
            result[index] += count * weight
    tails = [falling(cards - used, MAX_CARDS - used) for used in range(MAX_CARDS + 1)]
    for index in range(CLASS_COUNT):
        if result[index]:
            result[index] *= tails[Shape(index // 100).cards_used]
    return result


def analyse(composition: Sequence[int], rules: RuleSet | None = None) -> ParSheet:
    """The exact PAR sheet of a shoe (counts by value, index 0 = tens and faces) under ``rules``.

    >>> sheet = analyse(full_composition(6))
    >>> banco = sheet.bets["banco"]
    >>> [(row.name, str(row.pays)) for row in banco.outcomes][:3]
    [('win-with-6-two-cards', '1/2'), ('win-with-6-three-cards', '1/2'), ('win', '1')]
    >>> f"{banco.house_edge:.4%}", f"{sheet.bets['lion-banco'].house_edge:.4%}"
    ('1.4548%', '16.7751%')
    """
    counts = check_composition(composition)
    rules = RuleSet() if rules is None else rules
    settlement = settlement_table(rules)
    by_class = _class_counts(counts, settlement.classes)
    total = falling(sum(counts), MAX_CARDS)
    bets: dict[str, BetAnalysis] = {}
    for bet in settlement.bets:
        combinations = [0] * len(bet.rows)
        for index, row in enumerate(bet.class_row):
            if row >= 0:
                combinations[row] += by_class[index]
        outcomes = tuple(OutcomeRow(name, count, pays) for name, count, pays
                         in zip(bet.rows, combinations, bet.row_pays, strict=True))
        bets[bet.name] = BetAnalysis(name=bet.name, total_combinations=total, outcomes=outcomes)
    return ParSheet(composition=counts, rules=rules, total_combinations=total, bets=bets)


def effects_of_removal(
    composition: Sequence[int], rules: RuleSet | None = None
) -> dict[str, tuple[Fraction, ...]]:
    """For each bet, the exact change in EV when one card of each value leaves the shoe.

    Index ``v`` of each tuple is for a card of value ``v`` (0 = tens and faces). A value with no
    card left in the shoe has no effect to measure: its entry is ``Fraction(0)``. The shoe needs
    at least seven cards (six remain after the removal).

    >>> eor = effects_of_removal(full_composition(8))
    >>> f"{float(eor['punto'][5]):+.6f}", f"{float(eor['banco'][5]):+.6f}"
    ('+0.000084', '-0.000092')
    """
    counts = check_composition(composition)
    if sum(counts) <= MAX_CARDS:
        raise PuntoBancoError(
            f"Effects of removal need at least {MAX_CARDS + 1} cards in the shoe; this one holds "
            f"{sum(counts)}.", code="too-few-cards",
        )
    rules = RuleSet() if rules is None else rules
    base = analyse(counts, rules)
    effects: dict[str, list[Fraction]] = {name: [] for name in BET_NAMES}
    for value in range(10):
        if counts[value] == 0:
            for name in BET_NAMES:
                effects[name].append(Fraction(0))
            continue
        removed = list(counts)
        removed[value] -= 1
        sheet = analyse(removed, rules)
        for name in BET_NAMES:
            effects[name].append(sheet.bets[name].ev - base.bets[name].ev)
    return {name: tuple(values) for name, values in effects.items()}
