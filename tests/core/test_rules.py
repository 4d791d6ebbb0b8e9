"""R2, R4, R5 and every cell of R6 (8 Banco totals × 11 columns), and the RuleSet's settings."""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Any

import pytest

from puntobanco.errors import RuleSetError
from puntobanco.rules import (
    DRAGON_PAYTABLE,
    LION_PAYTABLE,
    PUNTO_STOOD,
    BancoPayout,
    Drawing,
    LastCoup,
    Limits,
    RuleSet,
    banco_draw_table,
    banco_draws,
    hand_total,
    is_natural,
    parse_paytable,
    punto_draws,
)

from .support import coup_from_hands, coup_of, spec_banco_draws

# --- R2, R4 ---------------------------------------------------------------------------------------

@pytest.mark.parametrize(("values", "total"), [([7, 8], 5), ([0, 0], 0), ([9, 9, 9], 7),
                                               ([5, 5], 0), ([1], 1), ([], 0)])
def test_R2_total_is_sum_modulo_10(values: list[int], total: int) -> None:
    assert hand_total(values) == total


def test_R4_natural_is_two_card_8_or_9() -> None:
    for a in range(10):
        for b in range(10):
            assert is_natural([a, b]) == ((a + b) % 10 in (8, 9))
    assert not is_natural([4, 4, 0])  # three cards are never a natural


# --- R5 -------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("punto", "draws"), [(t, t <= 5) for t in range(8)],
                         ids=[f"punto{t}-{'draws' if t <= 5 else 'stands'}" for t in range(8)])
def test_R5_punto_draws_on_0_to_5_stands_on_6_7(punto: int, draws: bool) -> None:
    assert punto_draws(punto) is draws
    # dealt: Punto two cards totalling `punto`, Banco 7 (stands whatever happens), then a spare card
    coup = coup_of([punto, 7, 0, 0, 4, 4])
    assert coup.punto_total == punto or draws
    assert (coup.punto_third is not None) is draws
    assert coup.banco_third is None


# --- R6, one case per cell ------------------------------------------------------------------------

_COLUMNS: list[int | None] = [*range(10), None]
_CELLS = [(banco, third) for banco in range(8) for third in _COLUMNS]


def _cell_id(cell: tuple[int, int | None]) -> str:
    banco, third = cell
    verb = "draws" if spec_banco_draws(banco, third) else "stands"
    column = "punto-stood" if third is None else f"third-{third}"
    return f"banco{banco}-{verb}-{column}"


@pytest.mark.parametrize("cell", _CELLS, ids=[_cell_id(c) for c in _CELLS])
def test_R6_banco_drawing_table_cell(cell: tuple[int, int | None]) -> None:
    banco, third = cell
    expected = spec_banco_draws(banco, third)
    column = PUNTO_STOOD if third is None else third
    assert banco_draw_table()[banco][column] is expected
    assert banco_draws(banco, third) is expected
    # And dealt from real cards: Punto 0 (draws `third`) or 6 (stands); Banco's two cards total `banco`.
    punto = [6, 0] if third is None else [0, 0, third]
    banco_hand = [banco, 0]
    coup = coup_from_hands(punto, [*banco_hand, 5] if expected else banco_hand)
    assert (coup.banco_third is not None) is expected
    assert coup.cards_used == len(punto) + 2 + expected


def test_R6_table_shape_is_8_by_11() -> None:
    for drawing in Drawing:
        table = banco_draw_table(drawing)
        assert len(table) == 8 and all(len(row) == 11 for row in table)


def test_R6_seed_literal_reading_draws_on_0_2_only() -> None:
    table = banco_draw_table(Drawing.SEED_LITERAL)
    for banco in range(8):
        for column in range(11):
            assert table[banco][column] is (banco <= 2)
    assert RuleSet().drawing is Drawing.STANDARD


def test_R6_seed_literal_is_used_by_the_coup_when_chosen() -> None:
    from puntobanco.coup import deal_coup

    from .support import cards_of

    # Banco 3 against Punto's third card 2: draws by R6, stands by the literal reading.
    values = [0, 3, 0, 0, 2, 5]
    assert deal_coup(iter(cards_of(values))).cards_used == 6
    assert deal_coup(iter(cards_of(values)), drawing=Drawing.SEED_LITERAL).cards_used == 5


# --- RuleSet --------------------------------------------------------------------------------------

def test_RuleSet_defaults_follow_the_spec() -> None:
    rules = RuleSet()
    assert rules.decks == 6  # R1
    assert rules.drawing is Drawing.STANDARD  # R6
    assert rules.tie_pays == 8  # B3
    assert rules.banco_payout is BancoPayout.HALF_ON_SIX  # B2
    assert rules.lion_paytable == (20, 8, 4, 4, 2, 1) == LION_PAYTABLE  # L5c
    assert rules.lion_natural_pays == 1  # L5a
    assert rules.lion_limits == Limits(1_000, 5_000)  # L3
    assert rules.punto_limits == rules.banco_limits == Limits(1_000, 500_000)  # M2
    assert rules.egalite_limits == Limits(1_000, 100_000)  # M2
    assert rules.chip_unit == 100  # M1
    assert rules.allow_punto_and_banco is True  # B4
    assert rules.burn is True  # S2
    assert rules.cut_card == 14  # S3
    assert rules.last_coup is LastCoup.ONE_MORE  # S3


def test_RuleSet_is_frozen_and_keyword_only() -> None:
    rules = RuleSet()
    with pytest.raises(dataclasses.FrozenInstanceError):
        rules.decks = 8  # type: ignore[misc]
    with pytest.raises(TypeError):
        RuleSet(8)  # type: ignore[call-arg]
    changed = rules.replace(decks=8, tie_pays=9)
    assert (changed.decks, changed.tie_pays, rules.decks, rules.tie_pays) == (8, 9, 6, 8)
    assert RuleSet() == RuleSet() and hash(RuleSet()) == hash(RuleSet())


@pytest.mark.parametrize("margin", range(10))
def test_L5c_lion_pays_by_margin(margin: int) -> None:
    expected = {9: 20, 8: 8, 7: 4, 6: 4, 5: 2, 4: 1}.get(margin)
    assert RuleSet().lion_pays(margin) == expected
    dragon = RuleSet(lion_paytable=DRAGON_PAYTABLE)
    assert dragon.lion_pays(margin) == {9: 30, 8: 10, 7: 6, 6: 4, 5: 2, 4: 1}.get(margin)


@pytest.mark.parametrize(
    "changes",
    [{"decks": 0}, {"decks": 9}, {"tie_pays": 0}, {"commission": Fraction(1)},
     {"commission": Fraction(-1, 100)}, {"lion_paytable": (20, 8, 4, 4, 2)},
     {"lion_paytable": (20, 8, 4, 4, 2, -2)}, {"chip_unit": 0}, {"cut_card": 11},
     {"cut_card": 301}, {"decks": 1, "cut_card": 41}],
)
def test_RuleSet_refuses_settings_out_of_range(changes: dict[str, Any]) -> None:
    with pytest.raises(RuleSetError) as info:
        RuleSet(**changes)
    assert info.value.code == "bad-rules"
    assert "\n" not in str(info.value)


def test_RuleSet_accepts_cut_card_at_both_ends_of_its_range() -> None:
    assert RuleSet(cut_card=12).cut_card == 12
    assert RuleSet(cut_card=300).cut_card == 300
    assert RuleSet(decks=1, cut_card=40).cut_card == 40


@pytest.mark.parametrize(("minimum", "maximum"), [(0, 100), (200, 100), (-100, 100)])
def test_M2_limits_need_positive_minimum_not_above_maximum(minimum: int, maximum: int) -> None:
    with pytest.raises(RuleSetError):
        Limits(minimum, maximum)


def test_L5c_parse_paytable() -> None:
    assert parse_paytable("20,8,4,4,2,1") == LION_PAYTABLE
    assert parse_paytable(" 30, 10, 6, 4, 2, 1 ") == DRAGON_PAYTABLE
    for bad in ("20,8,4,4,2", "20,8,4,4,2,1,1", "20,8,x,4,2,1", "20,8,4,4,2,-2", ""):
        with pytest.raises(RuleSetError) as info:
            parse_paytable(bad)
        assert repr(bad) in str(info.value)


@pytest.mark.parametrize("tie_pays", [0, -1, Fraction(1, 2), 1001])
def test_B3_egalite_pays_at_least_1_to_1(tie_pays: int) -> None:
    """B3: Égalité pays 8:1, or 9:1; a designed table (issue 20) may set any pay from 1:1 to
    1000:1, in whole or half units where the chip unit allows — never less than the stake."""
    with pytest.raises(RuleSetError, match="Égalité pays 1:1 to 1000:1"):
        RuleSet(tie_pays=tie_pays)


@pytest.mark.parametrize("tie_pays", [8, 9, 1, 7, Fraction(17, 2)])
def test_B3_egalite_pays_a_designed_table_may_set(tie_pays: int) -> None:
    assert RuleSet(tie_pays=tie_pays).tie_pays == tie_pays
