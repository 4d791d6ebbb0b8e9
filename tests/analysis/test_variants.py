"""Issue 13, ``par --compare``: the variants beside this game, exact, against the published
figures pinned in ``src/puntobanco/data/published_variants.json``."""

from __future__ import annotations

import json
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from puntobanco import data as published_data
from puntobanco.analysis import analyse
from puntobanco.analysis.variants import (
    PUBLISHED_PATH,
    compare,
    element_of_risk,
    ez_baccarat,
    published_checks,
)
from puntobanco.cards import full_composition
from puntobanco.rules import BancoPayout, RuleSet

DATA = Path(str(published_data.path("published_variants.json")))


def _data() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(DATA.read_text(encoding="utf-8"))
    return loaded


def _percent(value: float, places: int) -> str:
    return str(round(Decimal(value) * 100, places))


@pytest.fixture(scope="module")
def lines() -> list[Any]:
    return compare((4, 6, 8))


def test_issue13_the_data_file_is_the_one_the_command_reads() -> None:
    assert PUBLISHED_PATH == DATA


def test_issue13_every_pinned_figure_matches(lines: list[Any]) -> None:
    """Each pinned house edge (Wizard of Odds, Jacobson) at the source's own rounding."""
    checks = published_checks(lines)
    expected = sum(len(entry.get(key, {})) for entry in _data().values()
                   if isinstance(entry, dict) and entry.get("pinned")
                   for key in ("house_edge", "house_edge_3dp", "return_6dp"))
    expected += sum(len(f) for entry in _data().values() if isinstance(entry, dict)
                    for f in entry.get("house_edge_2dp", {}).values())
    assert len(checks) == expected >= 14
    assert [c for c in checks if not c["matches"]] == []


def test_issue13_ez_baccarat_published_combinations() -> None:
    """EZ Baccarat, 8 decks: the Banker's three-card-7 pushes are the Dragon 7's wins."""
    figures = _data()["ez_baccarat_8_decks"]
    ez = ez_baccarat(full_composition(8))
    combos = figures["combinations"]
    assert ez["banker"].row("win-with-three-card-7").combinations == combos[
        "banker_win_with_three_card_7"]
    assert ez["dragon_7"].row("win").combinations == combos["dragon_7_win"]
    assert ez["panda_8"].row("win").combinations == combos["panda_8_win"]
    assert ez["dragon_7"].row("win").pays == figures["pays"]["dragon_7"]
    for bet, edge in figures["house_edge"].items():
        assert _percent(ez[bet].house_edge, 4) == edge


def test_issue13_ez_rows_agree_with_the_core_settlement() -> None:
    """EZ Player is B1's Punto; EZ Banker's wins are commission Banco's wins, split at the 7."""
    shoe = full_composition(6)
    ez = ez_baccarat(shoe)
    sheet = analyse(shoe, RuleSet(banco_payout=BancoPayout.COMMISSION))
    assert [r.combinations for r in ez["player"].outcomes] == [
        r.combinations for r in sheet.bets["punto"].outcomes]
    banker = ez["banker"]
    assert (banker.row("win").combinations + banker.row("win-with-three-card-7").combinations
            == sheet.bets["banco"].row("win").combinations)
    assert banker.row("tie").combinations == sheet.bets["egalite"].row("win").combinations


def test_issue13_element_of_risk_leaves_pushes_out() -> None:
    """Commission Banker, 8 decks: house edge / (1 − P(tie))."""
    sheet = analyse(full_composition(8), RuleSet(banco_payout=BancoPayout.COMMISSION))
    banco = sheet.bets["banco"]
    tie = banco.row("push").combinations / banco.total_combinations
    assert element_of_risk(banco) == pytest.approx(banco.house_edge / (1 - tie), rel=1e-15)
    assert element_of_risk(sheet.bets["egalite"]) == sheet.bets["egalite"].house_edge


def test_issue13_compare_holds_every_game_for_each_deck_count(lines: list[Any]) -> None:
    games = {(line.game, line.decks) for line in lines}
    for decks in (4, 6, 8):
        assert {g for g, d in games if d == decks} == {
            "commission", "this_game", "ez", "dragon_bonus", "lion_bonus"}
    this_game = {(line.bet, line.decks): line for line in lines if line.game == "this_game"}
    assert _percent(this_game[("banco", 6)].house_edge, 4) == "1.4548"  # SPEC's figure


def _six(value: Fraction) -> str:
    return str(round(Decimal(value.numerator) / Decimal(value.denominator), 6))


def test_issue20_dragon_bonus_pinned_to_the_six_decimals_its_source_prints() -> None:
    """Wizard of Odds, Appendix 5: every outcome's probability and return, and the total
    return, of both Dragon Bonus sides over 8 decks, to the source's six decimals."""
    entry = _data()["dragon_bonus_8_decks_six_decimals"]
    sheet = analyse(full_composition(8), RuleSet(lion_paytable=(30, 10, 6, 4, 2, 1)))
    for side, rows in entry["rows_6dp"].items():
        bet = sheet.bets[side]
        assert _six(bet.ev) == entry["return_6dp"][side]
        assert {row.name for row in bet.outcomes} == set(rows)
        for row in bet.outcomes:
            probability, contribution = rows[row.name]
            assert _six(bet.probability(row)) == probability
            assert Decimal(_six(bet.contribution(row))) == Decimal(contribution)  # "0" as printed


def test_issue20_compare_has_tie_9_and_4_percent_commission_lines(lines: list[Any]) -> None:
    """Exact: a tie paid 9:1 returns 10 x P(tie); a 4 % commission takes 4 % of each Banco win.
    The one published tie 9:1 figure (4.80 %, 8 decks) is kept unpinned: the exact is 4.8440 %."""
    found = {(line.game, line.bet, line.decks): line for line in lines}
    for decks in (4, 6, 8):
        shoe = full_composition(decks)
        tie = analyse(shoe, RuleSet()).bets["egalite"]
        p_tie = tie.probability(tie.row("win"))
        for game in ("commission", "this_game"):
            assert found[(game, "egalite-9", decks)].analysis.ev == 10 * p_tie - 1
        banco = analyse(shoe, RuleSet(banco_payout=BancoPayout.COMMISSION)).bets["banco"]
        wins = sum(banco.probability(r) for r in banco.outcomes if r.pays > 0)
        losses = sum(banco.probability(r) for r in banco.outcomes if r.pays < 0)
        assert found[("commission", "banco-4", decks)].analysis.ev == \
            wins * Fraction(24, 25) - losses
    assert _percent(found[("commission", "egalite-9", 8)].house_edge, 4) == "4.8440"
    assert _data()["tie_9_to_1_8_decks"]["not_pinned"] == {"egalite-9": "4.80"}
