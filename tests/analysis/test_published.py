"""Published figures, pinned with their sources in ``src/puntobanco/data/published_figures.json``."""

from __future__ import annotations

from decimal import Decimal

import pytest

from puntobanco.analysis import analyse, expected_values
from puntobanco.analysis.multisets import falling
from puntobanco.cards import full_composition
from puntobanco.rules import DRAGON_PAYTABLE, BancoPayout, RuleSet

from .support import published


def _percent(value: float, places: int) -> Decimal:
    return round(Decimal(value) * 100, places)


@pytest.mark.parametrize("key", ["baccarat_8_decks_six_card_sequences",
                                 "baccarat_6_decks_six_card_sequences"])
def test_R7_published_main_bet_counts(key: str) -> None:
    """R3–R7: the published Punto / Banco / Égalité counts of full 8- and 6-deck shoes."""
    figures = published()[key]
    sheet = analyse(full_composition(figures["decks"]))
    assert sheet.total_combinations == figures["total"] == falling(52 * figures["decks"], 6)
    punto = {row.name: row.combinations for row in sheet.bets["punto"].outcomes}
    assert punto == {"win": figures["punto"], "lose": figures["banco"], "push": figures["egalite"]}
    assert sheet.bets["egalite"].row("win").combinations == figures["egalite"]


def test_R6_spec_reference_house_edges() -> None:
    """SPEC's reference figures: six decks, R6, B2, B3 8:1, L5 — four decimals, exact engine."""
    figures = published()["spec_house_edges_6_decks"]
    sheet = analyse(full_composition(6))
    for name in ("punto", "banco", "egalite", "lion-punto", "lion-banco"):
        assert _percent(sheet.bets[name].house_edge, 4) == Decimal(figures[name]), name


def test_R6_spec_reference_house_edges_fast_path() -> None:
    """The same figures from the float64 path."""
    figures = published()["spec_house_edges_6_decks"]
    ev = expected_values(full_composition(6))[0]
    names = ("punto", "banco", "egalite", "lion-punto", "lion-banco")
    assert [_percent(-x, 4) for x in ev] == [Decimal(figures[n]) for n in names]


def test_L5_dragon_bonus_published_counts() -> None:
    """L5 with the Dragon Bonus pay table: every published row of both sides, eight decks."""
    figures = published()["dragon_bonus_8_decks_six_card_sequences"]
    rules = RuleSet(lion_paytable=tuple(figures["lion_paytable"]))
    assert rules.lion_paytable == DRAGON_PAYTABLE
    sheet = analyse(full_composition(figures["decks"]), rules)
    for side in ("punto", "banco"):
        bet = sheet.bets[f"lion-{side}"]
        for row, count in figures[side].items():
            assert bet.row(row).combinations == count, (side, row)
        assert _percent(bet.house_edge, 4) == Decimal(figures[f"house_edge_{side}"])


@pytest.mark.parametrize("decks", ["8", "6"])
def test_B2_commission_house_edges(decks: str) -> None:
    """B2 in commission mode (5 %): the conventional published edges, two decimals."""
    figures = published()["commission_house_edges_rounded"][decks]
    sheet = analyse(full_composition(int(decks)), RuleSet(banco_payout=BancoPayout.COMMISSION))
    for name in ("banco", "punto", "egalite"):
        assert _percent(sheet.bets[name].house_edge, 2) == Decimal(figures[name]), name


def test_R6_seed_literal_rule_gives_punto_the_edge() -> None:
    """SPEC R6: the literal reading gives Punto about +3.19 % over six decks."""
    from puntobanco.rules import Drawing

    sheet = analyse(full_composition(6), RuleSet(drawing=Drawing.SEED_LITERAL))
    assert round(float(sheet.bets["punto"].ev) * 100, 2) == 3.19
