"""Composition-free outcome tables, derived from the rules core.

Every coup falls in one *class*: its shape (natural; both stood; only Punto drew; only Banco drew;
both drew) and the two final totals. The class fixes the settlement of every bet, and the cards it
uses fix its multiset node (:mod:`.multisets`). So the analysis needs two tables, built once:

* :func:`class_table` — for a drawing rule, how many ordered value sequences of each multiset node
  end in each class (``node_counts``), found by classifying all 10⁶ value sequences with the core's
  :data:`~puntobanco.rules.PUNTO_DRAWS` and :func:`~puntobanco.rules.banco_draw_table`;
* :func:`settlement_table` — for a rule set, each bet's outcome row and net pay per unit staked in
  each class, found by dealing a representative of the class with :func:`~puntobanco.coup.deal_coup`
  and settling it with :func:`~puntobanco.bets.settle_bet`.

Nothing here re-types a rule; the tests check both tables against the core coup by coup.

>>> table = class_table(Drawing.STANDARD)
>>> int(table.node_counts.sum())   # every four-, five- or six-card coup prefix, once
339400
>>> describe_class(class_index(Shape.BOTH_DREW, 7, 1))
'both drew, Punto 7, Banco 1'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum
from fractions import Fraction
from functools import cache
from operator import attrgetter

import numpy as np
import numpy.typing as npt

from puntobanco.analysis.multisets import MAX_CARDS, IntArray, multiset_keys, multiset_trie
from puntobanco.bets import BetKind, LionOutcome
from puntobanco.coup import Coup, deal_coup
from puntobanco.payoffs import BET_KINDS, BET_NAMES, card_of_value, settle_unit
from puntobanco.rules import (
    NATURAL_MIN,
    PAYOUT_SETTINGS,
    PUNTO_DRAWS,
    PUNTO_STOOD,
    BancoPayout,
    Drawing,
    RuleSet,
    banco_draw_table,
)

__all__ = [
    "BET_KINDS",  # re-exported: the one list lives in puntobanco.payoffs
    "BET_NAMES",
    "CLASS_COUNT",
    "BetTable",
    "ClassTable",
    "SettlementTable",
    "Shape",
    "class_index",
    "class_of_coup",
    "class_parts",
    "class_table",
    "classify_sequences",
    "coup_from_values",
    "describe_class",
    "outcome_rows",
    "payout_key",
    "settlement_table",
]


class Shape(IntEnum):
    """How a coup ended (R4–R6)."""

    NATURAL = 0
    STOOD = 1
    PUNTO_DREW = 2
    BANCO_DREW = 3
    BOTH_DREW = 4

    @property
    def cards_used(self) -> int:
        return 4 + (self >= Shape.PUNTO_DREW) + (self == Shape.BOTH_DREW)


SHAPE_TEXT = {
    Shape.NATURAL: "natural", Shape.STOOD: "both stood", Shape.PUNTO_DREW: "Punto drew",
    Shape.BANCO_DREW: "Banco drew", Shape.BOTH_DREW: "both drew",
}
CLASS_COUNT = len(Shape) * 100


def class_index(shape: Shape, punto_total: int, banco_total: int) -> int:
    """The class number of a coup: ``shape·100 + punto_total·10 + banco_total``."""
    return int(shape) * 100 + punto_total * 10 + banco_total


def class_parts(index: int) -> tuple[Shape, int, int]:
    """The shape and totals of a class number."""
    return Shape(index // 100), index // 10 % 10, index % 10


def describe_class(index: int) -> str:
    shape, punto, banco = class_parts(index)
    return f"{SHAPE_TEXT[shape]}, Punto {punto}, Banco {banco}"


def classify_sequences(
    sequences: npt.NDArray[np.integer], drawing: Drawing
) -> tuple[IntArray, IntArray]:
    """Classify coups dealt from value sequences (rows of six values, in dealing order, R3).

    Returns each row's class number and the number of cards the coup used (4–6); the values past
    that are unused. The drawing rules are read from the core's tables (R4–R6).
    """
    seq = np.asarray(sequences, dtype=np.int64)
    p1, b1, p2, b2, fifth, sixth = (seq[:, i] for i in range(MAX_CARDS))
    punto2 = (p1 + p2) % 10
    banco2 = (b1 + b2) % 10
    natural = (punto2 >= NATURAL_MIN) | (banco2 >= NATURAL_MIN)  # R4
    punto_rule = np.array([*PUNTO_DRAWS, False, False], dtype=bool)
    banco_rule = np.zeros((10, PUNTO_STOOD + 1), dtype=bool)
    banco_rule[:8] = np.array(banco_draw_table(drawing), dtype=bool)
    punto_drew = ~natural & punto_rule[punto2]
    column = np.where(punto_drew, fifth, PUNTO_STOOD)
    banco_drew = ~natural & banco_rule[banco2, column]
    banco_third = np.where(punto_drew, sixth, fifth)
    punto_total = (punto2 + np.where(punto_drew, fifth, 0)) % 10
    banco_total = (banco2 + np.where(banco_drew, banco_third, 0)) % 10
    shape = np.where(
        natural, Shape.NATURAL,
        np.where(punto_drew,
                 np.where(banco_drew, Shape.BOTH_DREW, Shape.PUNTO_DREW),
                 np.where(banco_drew, Shape.BANCO_DREW, Shape.STOOD)),
    ).astype(np.int64)
    used = 4 + punto_drew.astype(np.int64) + banco_drew.astype(np.int64)
    return shape * 100 + punto_total * 10 + banco_total, used


@dataclass(frozen=True, eq=False)
class ClassTable:
    """For one drawing rule: how many ordered value sequences of each node end in each class.

    The table is sparse: entry ``i`` says that ``node_counts[i]`` orderings of the values of
    multiset ``nodes[i]`` (a four-, five- or six-card coup, every card used) end in class
    ``classes[i]``.
    """

    drawing: Drawing
    classes: IntArray
    nodes: IntArray
    node_counts: IntArray
    #: One dealing-order value sequence (padded to six values) for each class that can occur.
    representatives: dict[int, tuple[int, ...]]

    @property
    def possible_classes(self) -> tuple[int, ...]:
        return tuple(sorted(self.representatives))


def _coup_sequences(drawing: Drawing) -> tuple[npt.NDArray[np.int64], IntArray, IntArray]:
    """Every coup once: its values in dealing order (unused places zero), class and length.

    The four-card prefixes are classified first; only those that draw are extended by a fifth
    value, and only those that draw twice by a sixth.
    """
    done: list[tuple[npt.NDArray[np.int64], IntArray, IntArray]] = []
    rows = np.zeros((10**4, MAX_CARDS), dtype=np.int64)
    rows[:, :4] = np.indices((10,) * 4).reshape(4, -1).T
    for position in (4, 5, MAX_CARDS):
        classes, used = classify_sequences(rows, drawing)
        finished = used == position
        done.append((rows[finished], classes[finished], used[finished]))
        if position == MAX_CARDS:
            break
        rows = np.repeat(rows[~finished], 10, axis=0)
        rows[:, position] = np.tile(np.arange(10), rows.shape[0] // 10)
    return (np.concatenate([d[0] for d in done]), np.concatenate([d[1] for d in done]),
            np.concatenate([d[2] for d in done]))


@cache
def class_table(drawing: Drawing) -> ClassTable:
    """Classify every coup once and count its value orderings by (class, node)."""
    sequences, classes, used = _coup_sequences(drawing)
    trie = multiset_trie()
    nodes = trie.nodes_of_keys(multiset_keys(sequences, used))
    pair, counts = np.unique(classes * trie.size + nodes, return_counts=True)
    _, class_first = np.unique(classes, return_index=True)
    representatives = {
        int(classes[i]): tuple(int(v) for v in sequences[i]) for i in class_first
    }
    return ClassTable(
        drawing=drawing,
        classes=(pair // trie.size).astype(np.int64),
        nodes=(pair % trie.size).astype(np.int64),
        node_counts=counts.astype(np.int64),
        representatives=representatives,
    )


def coup_from_values(values: Sequence[int], drawing: Drawing) -> Coup:
    """Deal a coup with the core from card values in dealing order (suits are immaterial)."""
    cards = [card_of_value(v) for v in values]
    return deal_coup(iter(cards), drawing=drawing)


def class_of_coup(coup: Coup) -> int:
    """The class of a coup dealt by the core."""
    shape = Shape.NATURAL
    if not coup.natural:
        shape = Shape(1 + (len(coup.punto) == 3) + 2 * (len(coup.banco) == 3))
    return class_index(shape, coup.punto_total, coup.banco_total)


def outcome_rows(kind: BetKind, rules: RuleSet) -> tuple[str, ...]:
    """The PAR sheet's outcome rows of a bet, in display order."""
    if kind is BetKind.PUNTO:
        return ("win", "push", "lose")
    if kind is BetKind.BANCO:
        if rules.banco_payout is BancoPayout.HALF_ON_SIX:
            reduced = tuple(f"win-with-{total}-{cards}-cards"
                            for total, _ in rules.banco_reduced_pays for cards in ("two", "three"))
            return (*reduced, "win", "push", "lose")
        return ("win", "push", "lose")
    if kind is BetKind.EGALITE:
        return ("win", "lose")
    return tuple(outcome.value for outcome in LionOutcome)


def payout_key(rules: RuleSet) -> tuple[object, ...]:
    """The settings that change an analysis (the limits, shoe procedure and so on do not)."""
    return _PAYOUT_SETTINGS(rules)


_PAYOUT_SETTINGS = attrgetter(*PAYOUT_SETTINGS)  # one C call: this key is taken on every EV call


@dataclass(frozen=True, eq=False)
class BetTable:
    """One bet under one rule set: its outcome rows, their pays, and each class's row."""

    name: str
    kind: BetKind
    rows: tuple[str, ...]
    #: Net result per unit staked of each row: −1 loses, 0 is a push.
    row_pays: tuple[Fraction, ...]
    #: Row index of each class number (−1 for classes that cannot occur).
    class_row: tuple[int, ...]

    def pays_of_class(self, index: int) -> Fraction:
        return self.row_pays[self.class_row[index]]


@dataclass(frozen=True, eq=False)
class SettlementTable:
    rules: RuleSet
    classes: ClassTable
    bets: tuple[BetTable, ...]

    def class_pays(self) -> npt.NDArray[np.float64]:
        """Net pay per unit of every bet (columns) in every class (rows), as floats."""
        pays = np.zeros((CLASS_COUNT, len(self.bets)), dtype=np.float64)
        for column, bet in enumerate(self.bets):
            for index, row in enumerate(bet.class_row):
                if row >= 0:
                    pays[index, column] = float(bet.row_pays[row])
        return pays


def _row_of(kind: BetKind, coup: Coup, rules: RuleSet) -> tuple[str, Fraction]:
    line, pays = settle_unit(kind, coup, rules)
    if kind.is_lion:
        return line.reason.value, pays  # the L5 rows are the Lion Bonus reasons
    total = line.reason.banco_total
    if total is not None:
        cards = "two" if len(coup.banco) == 2 else "three"
        return f"win-with-{total}-{cards}-cards", pays
    return line.outcome.value, pays


def settlement_table(rules: RuleSet) -> SettlementTable:
    """Each bet's outcome row and pay in every possible class, from the core's ``settle_bet``."""
    return _settlement_table(payout_key(rules), rules)


_SETTLEMENT_CACHE: dict[tuple[object, ...], SettlementTable] = {}


def _settlement_table(key: tuple[object, ...], rules: RuleSet) -> SettlementTable:
    cached = _SETTLEMENT_CACHE.get(key)
    if cached is not None:
        return cached
    table = class_table(rules.drawing)
    coups = {index: coup_from_values(values, rules.drawing)
             for index, values in table.representatives.items()}
    for index, coup in coups.items():
        if class_of_coup(coup) != index:  # the vectorised classification disagrees with the core
            raise AssertionError(f"class {describe_class(index)} misread by the analysis tables")
    bets: list[BetTable] = []
    for name, kind in zip(BET_NAMES, BET_KINDS, strict=True):
        rows = outcome_rows(kind, rules)
        row_pays: list[Fraction | None] = [None] * len(rows)
        class_row = [-1] * CLASS_COUNT
        for index, coup in coups.items():
            row, pays = _row_of(kind, coup, rules)
            position = rows.index(row)
            if row_pays[position] is None:
                row_pays[position] = pays
            elif row_pays[position] != pays:
                raise AssertionError(f"{name} row {row} pays differently in different coups")
            class_row[index] = position
        bets.append(BetTable(
            name=name, kind=kind, rows=rows,
            row_pays=tuple(_default_pays(kind, row, rules) if p is None else p
                           for row, p in zip(rows, row_pays, strict=True)),
            class_row=tuple(class_row),
        ))
    result = SettlementTable(rules=rules, classes=table, bets=tuple(bets))
    if len(_SETTLEMENT_CACHE) > 64:
        _SETTLEMENT_CACHE.clear()
    _SETTLEMENT_CACHE[key] = result
    return result


def _default_pays(kind: BetKind, row: str, rules: RuleSet) -> Fraction:
    """Pays of a row that no coup reaches (kept so every PAR sheet has the same rows)."""
    if row == "lose":
        return Fraction(-1)
    if row == "push":
        return Fraction(0)
    if row == "win":  # every winning Banco total is paid otherwise
        return Fraction(1)
    if row.startswith("win-with-"):  # e.g. a Banco win with 9 in three cards
        return Fraction(rules.banco_win_pays(int(row.split("-")[2])))
    if row == "natural-tie":
        return Fraction(rules.lion_natural_tie_pays)
    margin = LionOutcome(row).margin if kind.is_lion else None
    pays = None if margin is None else rules.lion_pays(margin)
    if pays is not None:
        return Fraction(pays)
    raise AssertionError(f"no coup reaches the {kind.value} row {row}")
