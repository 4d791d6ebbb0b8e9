"""The drawing table against published exact figures (R1–R7, B1–B3, L5).

Every coup from a full shoe is enumerated by plain loops over card values, weighted by falling
factorials of the composition; a coup that uses k < 6 cards is counted (N-k)(N-k-1)…(N-5) times, once
per ordering of the unused cards, so the grand total is N!/(N-6)!. The counts use the core's
``punto_draws`` / ``banco_draws`` (the one drawing table) and must give the published integers
pinned in ``src/puntobanco/data/published_figures.json``; the house edges settle one
representative coup of each kind with the core's ``settle_bet`` and must give SPEC's reference
figures.
"""

from __future__ import annotations

import json
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from puntobanco import data as published_data
from puntobanco.bets import BetKind, settle_bet
from puntobanco.cards import full_composition
from puntobanco.rules import Drawing, RuleSet, banco_draws, punto_draws

from .support import coup_of

FIGURES_PATH = Path(str(published_data.path("published_figures.json")))

#: (punto total, banco total, punto drew, banco drew, punto natural, banco natural)
Kind = tuple[int, int, bool, bool, bool, bool]


def _falling(n: int, k: int) -> int:
    result = 1
    for i in range(k):
        result *= n - i
    return result


def enumerate_coups(composition: tuple[int, ...], drawing: Drawing = Drawing.STANDARD,
                    ) -> tuple[dict[Kind, int], dict[Kind, list[int]]]:
    """Weight of every kind of coup (ordered six-card sequences), and one value sequence of each."""
    counts = list(composition)
    n = sum(counts)
    weights: dict[Kind, int] = {}
    examples: dict[Kind, list[int]] = {}

    def record(kind: Kind, weight: int, used: list[int]) -> None:
        weights[kind] = weights.get(kind, 0) + weight * _falling(n - len(used), 6 - len(used))
        examples.setdefault(kind, list(used))

    def banco_third(p: int, b: int, p_third: int | None, weight: int, used: list[int],
                    punto_total: int) -> None:
        if not banco_draws(b, p_third, drawing):
            record((punto_total, b, p_third is not None, False, False, False), weight, used)
            return
        for v6 in range(10):
            if counts[v6]:
                record((punto_total, (b + v6) % 10, p_third is not None, True, False, False),
                       weight * counts[v6], [*used, v6])

    for p1 in range(10):
        w1 = counts[p1]
        if not w1:
            continue
        counts[p1] -= 1
        for b1 in range(10):
            w2 = w1 * counts[b1]
            if not w2:
                continue
            counts[b1] -= 1
            for p2 in range(10):
                w3 = w2 * counts[p2]
                if not w3:
                    continue
                counts[p2] -= 1
                for b2 in range(10):
                    w4 = w3 * counts[b2]
                    if not w4:
                        continue
                    counts[b2] -= 1
                    p, b = (p1 + p2) % 10, (b1 + b2) % 10
                    used = [p1, b1, p2, b2]
                    if p >= 8 or b >= 8:
                        record((p, b, False, False, p >= 8, b >= 8), w4, used)
                    elif punto_draws(p):
                        for v5 in range(10):
                            w5 = w4 * counts[v5]
                            if w5:
                                counts[v5] -= 1
                                banco_third(p, b, v5, w5, [*used, v5], (p + v5) % 10)
                                counts[v5] += 1
                    else:
                        banco_third(p, b, None, w4, used, p)
                    counts[b2] += 1
                counts[p2] += 1
            counts[b1] += 1
        counts[p1] += 1
    return weights, examples


def _by_winner(weights: dict[Kind, int]) -> dict[str, int]:
    totals = {"punto": 0, "banco": 0, "egalite": 0}
    for (p, b, *_), weight in weights.items():
        totals["punto" if p > b else "banco" if b > p else "egalite"] += weight
    return totals


def _figures() -> dict[str, Any]:
    figures: dict[str, Any] = json.loads(FIGURES_PATH.read_text(encoding="utf-8"))
    return figures


@pytest.mark.parametrize("entry", ["baccarat_8_decks_six_card_sequences",
                                   "baccarat_6_decks_six_card_sequences"])
def test_R1_R7_published_six_card_sequence_counts(entry: str) -> None:
    published = _figures()[entry]
    assert published["source"] and published["url"]
    weights, _ = enumerate_coups(full_composition(published["decks"]))
    n = 52 * published["decks"]
    assert published["total"] == _falling(n, 6)
    assert published["banco"] + published["punto"] + published["egalite"] == published["total"]
    assert _by_winner(weights) == {key: published[key] for key in ("punto", "banco", "egalite")}


def _house_edge(kind: BetKind, weights: dict[Kind, int], examples: dict[Kind, list[int]],
                rules: RuleSet) -> Fraction:
    stake = 1_000
    expected = Fraction(0)
    for coup_kind, weight in weights.items():
        coup = coup_of([*examples[coup_kind], 0, 0])  # pad: the coup takes only what it needs
        expected += weight * settle_bet(kind, stake, coup, rules).net
    return -expected / (stake * sum(weights.values()))


@pytest.fixture(scope="module")
def six_deck_coups() -> tuple[dict[Kind, int], dict[Kind, list[int]]]:
    return enumerate_coups(full_composition(6))


@pytest.mark.parametrize(("kind", "key"), [
    (BetKind.PUNTO, "punto"), (BetKind.BANCO, "banco"), (BetKind.EGALITE, "egalite"),
    (BetKind.LION_PUNTO, "lion-punto"), (BetKind.LION_BANCO, "lion-banco"),
])
def test_B1_B3_L5_spec_reference_house_edges(
        kind: BetKind, key: str,
        six_deck_coups: tuple[dict[Kind, int], dict[Kind, list[int]]]) -> None:
    weights, examples = six_deck_coups
    for coup_kind, values in examples.items():  # each example really is a coup of its kind
        coup = coup_of([*values, 0, 0])
        assert coup.cards_used == len(values)
        assert (coup.punto_total, coup.banco_total) == coup_kind[:2]
    edge = _house_edge(kind, weights, examples, RuleSet())
    percent = Decimal(edge.numerator * 100) / Decimal(edge.denominator)
    assert percent.quantize(Decimal("0.0001")) == Decimal(_figures()["spec_house_edges_6_decks"][key])


def test_R6_seed_literal_reading_gives_punto_about_3_19_percent(
        six_deck_coups: tuple[dict[Kind, int], dict[Kind, list[int]]]) -> None:
    literal = _by_winner(enumerate_coups(full_composition(6), Drawing.SEED_LITERAL)[0])
    advantage = Fraction(literal["punto"] - literal["banco"], sum(literal.values()))
    assert round(float(advantage) * 100, 2) == 3.19
    standard = _by_winner(six_deck_coups[0])
    assert standard["banco"] > standard["punto"]  # R6 restores the house's edge

