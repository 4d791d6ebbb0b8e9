"""Bets and settlement of a spot: B1–B4, L1–L3, L5, L6, M1–M3 (the table's L4 is in test_table)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from puntobanco.bets import (
    PAYMENT_ORDER,
    BetKind,
    LionOutcome,
    Outcome,
    Reason,
    SettlementLine,
    limits_for,
    lion_outcome,
    pays_text,
    settle_bet,
    settle_spot,
    verify_spot,
)
from puntobanco.coup import Coup
from puntobanco.errors import BetRefused, PuntoBancoError, RuleSetError
from puntobanco.i18n import LANGUAGES, refusal
from puntobanco.rules import DRAGON_PAYTABLE, BancoPayout, Limits, RuleSet

from .support import coup_from_hands

RULES = RuleSet()
STAKE = 2_500


def net(kind: BetKind, coup: Coup, rules: RuleSet = RULES, stake: int = STAKE) -> int:
    return settle_bet(kind, stake, coup, rules).net


def line(kind: BetKind, coup: Coup, rules: RuleSet = RULES, stake: int = STAKE) -> SettlementLine:
    return settle_bet(kind, stake, coup, rules)


PUNTO_WINS = coup_from_hands([0, 0, 7], [0, 0, 5])  # 7 v 5
BANCO_WINS_7 = coup_from_hands([0, 0, 5], [0, 0, 7])  # 5 v 7
BANCO_WINS_6_TWO_CARDS = coup_from_hands([5, 0, 0], [6, 0])  # Banco 6 stands on a third 0
BANCO_WINS_6_THREE_CARDS = coup_from_hands([0, 0, 5], [0, 0, 6])
EGALITE_AT_6 = coup_from_hands([6, 0], [6, 0])
NATURAL_TIE = coup_from_hands([8, 0], [8, 0])


# --- B1 Punto --------------------------------------------------------------------------------------

def test_B1_punto_win_pays_1_to_1() -> None:
    result = line(BetKind.PUNTO, PUNTO_WINS)
    assert (result.outcome, result.net, result.returned) == (Outcome.WIN, STAKE, 2 * STAKE)


def test_B1_punto_loses_when_banco_wins() -> None:
    result = line(BetKind.PUNTO, BANCO_WINS_7)
    assert (result.outcome, result.net, result.returned) == (Outcome.LOSE, -STAKE, 0)


@pytest.mark.parametrize("coup", [EGALITE_AT_6, NATURAL_TIE, coup_from_hands([0, 0, 5], [0, 0, 5])],
                         ids=["two-card-6s", "natural-8s", "three-card-5s"])
@pytest.mark.parametrize("kind", [BetKind.PUNTO, BetKind.BANCO])
def test_B1_B2_punto_and_banco_push_on_egalite(kind: BetKind, coup: Coup) -> None:
    result = line(kind, coup)
    assert (result.outcome, result.net, result.returned) == (Outcome.PUSH, 0, STAKE)


# --- B2 Banco --------------------------------------------------------------------------------------

def test_B2_banco_win_with_7_pays_1_to_1() -> None:
    assert net(BetKind.BANCO, BANCO_WINS_7) == STAKE
    assert net(BetKind.BANCO, coup_from_hands([0, 0], [9, 0])) == STAKE  # natural 9


@pytest.mark.parametrize("coup", [BANCO_WINS_6_TWO_CARDS, BANCO_WINS_6_THREE_CARDS],
                         ids=["two-cards", "three-cards"])
def test_B2_banco_win_with_6_pays_half(coup: Coup) -> None:
    assert coup.banco_total == 6 and coup.winner.value == "banco"
    result = line(BetKind.BANCO, coup)
    assert (result.outcome, result.net, result.returned) == (Outcome.WIN, STAKE // 2, STAKE + 1_250)
    assert (result.odds, result.reason) == (Fraction(1, 2), Reason.WIN_WITH_6)


def test_B2_banco_loses_when_punto_wins() -> None:
    assert line(BetKind.BANCO, PUNTO_WINS).outcome is Outcome.LOSE
    assert net(BetKind.BANCO, PUNTO_WINS) == -STAKE


def test_B2_commission_mode_pays_1_to_1_less_5_percent_even_on_6() -> None:
    rules = RuleSet(banco_payout=BancoPayout.COMMISSION)
    assert net(BetKind.BANCO, BANCO_WINS_7, rules, 1_000) == 950
    assert net(BetKind.BANCO, BANCO_WINS_6_TWO_CARDS, rules, 1_000) == 950
    assert net(BetKind.BANCO, EGALITE_AT_6, rules, 1_000) == 0
    assert net(BetKind.BANCO, PUNTO_WINS, rules, 1_000) == -1_000
    four_percent = RuleSet(banco_payout=BancoPayout.COMMISSION, commission=Fraction(4, 100))
    assert net(BetKind.BANCO, BANCO_WINS_7, four_percent, 2_500) == 2_400


def test_B2_commission_breakage_is_kept_by_the_house() -> None:
    rules = RuleSet(banco_payout=BancoPayout.COMMISSION, chip_unit=1)
    assert net(BetKind.BANCO, BANCO_WINS_7, rules, 1_001) == 950  # 950.95 rounds down


# --- B3 Égalité ------------------------------------------------------------------------------------

@pytest.mark.parametrize(("tie_pays", "expected"), [(8, 8 * STAKE), (9, 9 * STAKE)])
@pytest.mark.parametrize("coup", [EGALITE_AT_6, NATURAL_TIE], ids=["non-natural", "natural"])
def test_B3_egalite_pays_8_to_1_or_9_to_1_by_setting(coup: Coup, tie_pays: int, expected: int) -> None:
    result = line(BetKind.EGALITE, coup, RuleSet(tie_pays=tie_pays))
    assert (result.outcome, result.net, result.odds) == (Outcome.WIN, expected, tie_pays)


@pytest.mark.parametrize("coup", [PUNTO_WINS, BANCO_WINS_7], ids=["punto", "banco"])
def test_B3_egalite_loses_otherwise(coup: Coup) -> None:
    assert line(BetKind.EGALITE, coup).outcome is Outcome.LOSE
    assert net(BetKind.EGALITE, coup) == -STAKE


# --- B4 --------------------------------------------------------------------------------------------

def test_B4_any_combination_of_punto_banco_egalite_is_accepted() -> None:
    verify_spot({BetKind.PUNTO: 1_000, BetKind.BANCO: 1_000, BetKind.EGALITE: 1_000}, RULES)
    lines = settle_spot({BetKind.PUNTO: 1_000, BetKind.BANCO: 1_000, BetKind.EGALITE: 1_000},
                        EGALITE_AT_6, RULES)
    assert [(x.bet, x.net) for x in lines] == [(BetKind.PUNTO, 0), (BetKind.BANCO, 0),
                                               (BetKind.EGALITE, 8_000)]


def test_B4_table_may_forbid_punto_and_banco_together() -> None:
    rules = RuleSet(allow_punto_and_banco=False)
    with pytest.raises(BetRefused) as info:
        verify_spot({BetKind.PUNTO: 1_000, BetKind.BANCO: 1_000}, rules)
    assert info.value.code == "punto-and-banco"
    verify_spot({BetKind.PUNTO: 1_000, BetKind.EGALITE: 1_000}, rules)
    verify_spot({BetKind.BANCO: 1_000, BetKind.LION_PUNTO: 1_000}, rules)


# --- L1–L3 -----------------------------------------------------------------------------------------

def test_L1_lion_on_both_sides_is_refused() -> None:
    with pytest.raises(BetRefused) as info:
        verify_spot({BetKind.LION_PUNTO: 1_000, BetKind.LION_BANCO: 1_000}, RULES)
    assert info.value.code == "both-lion-sides"
    assert "never both" in str(info.value)


@pytest.mark.parametrize("kind", [BetKind.LION_PUNTO, BetKind.LION_BANCO])
def test_L2_lion_bonus_alone_is_accepted_and_settled(kind: BetKind) -> None:
    verify_spot({kind: 1_000}, RULES)
    lines = settle_spot({kind: 1_000}, NATURAL_TIE, RULES)
    assert [(x.bet, x.outcome) for x in lines] == [(kind, Outcome.PUSH)]


@pytest.mark.parametrize("kind", [BetKind.LION_PUNTO, BetKind.LION_BANCO])
@pytest.mark.parametrize(("stake", "code"), [
    (900, "below-minimum"), (1_000, None), (2_500, None), (5_000, None), (5_100, "above-maximum"),
    (1_050, "not-chip-multiple"), (0, "non-positive-stake"), (-1_000, "non-positive-stake"),
])
def test_L3_lion_stake_between_10_and_50_euros(kind: BetKind, stake: int, code: str | None) -> None:
    if code is None:
        verify_spot({kind: stake}, RULES)
        return
    with pytest.raises(BetRefused) as info:
        verify_spot({kind: stake}, RULES)
    assert info.value.code == code


def test_L3_lion_limits_are_the_lion_limits_not_the_main_ones() -> None:
    assert limits_for(BetKind.LION_PUNTO, RULES) == limits_for(BetKind.LION_BANCO, RULES)
    assert limits_for(BetKind.LION_BANCO, RULES) == Limits(1_000, 5_000)
    verify_spot({BetKind.BANCO: 5_100}, RULES)  # fine on Banco


# --- M2, M3 ----------------------------------------------------------------------------------------

@pytest.mark.parametrize(("kind", "stake", "code"), [
    (BetKind.PUNTO, 900, "below-minimum"), (BetKind.PUNTO, 500_100, "above-maximum"),
    (BetKind.BANCO, 900, "below-minimum"), (BetKind.BANCO, 500_100, "above-maximum"),
    (BetKind.EGALITE, 900, "below-minimum"), (BetKind.EGALITE, 100_100, "above-maximum"),
    (BetKind.PUNTO, 1_001, "not-chip-multiple"), (BetKind.BANCO, 0, "non-positive-stake"),
])
def test_M2_M3_main_bet_limits_and_refusal_codes(kind: BetKind, stake: int, code: str) -> None:
    with pytest.raises(BetRefused) as info:
        verify_spot({kind: stake}, RULES)
    assert info.value.code == code
    assert isinstance(info.value, ValueError)
    assert "\n" not in info.value.message


@pytest.mark.parametrize(("kind", "stake"), [(BetKind.PUNTO, 1_000), (BetKind.PUNTO, 500_000),
                                             (BetKind.BANCO, 500_000), (BetKind.EGALITE, 100_000)])
def test_M2_limits_are_inclusive(kind: BetKind, stake: int) -> None:
    verify_spot({kind: stake}, RULES)


def test_M3_refusal_message_names_the_bet_and_amounts() -> None:
    with pytest.raises(BetRefused) as info:
        verify_spot({BetKind.EGALITE: 100_100}, RULES)
    assert "egalite" in str(info.value) and "€1,000.00" in str(info.value)
    assert "€1,001.00" in str(info.value)


@pytest.mark.parametrize("code", [
    "table-closed", "below-minimum", "above-maximum", "both-lion-sides", "punto-and-banco",
    "not-chip-multiple", "insufficient-balance", "non-positive-stake", "no-such-bet", "unknown-bet"])
def test_M3_every_refusal_code_has_a_message_in_every_language(code: str) -> None:
    messages = {refusal(code, lang) for lang in LANGUAGES}
    assert len(messages) == len(LANGUAGES)
    assert code not in messages


def test_M1_chip_unit_setting() -> None:
    rules = RuleSet(chip_unit=500)
    verify_spot({BetKind.PUNTO: 1_500}, rules)
    with pytest.raises(BetRefused) as info:
        verify_spot({BetKind.PUNTO: 1_200}, rules)
    assert info.value.code == "not-chip-multiple"


@pytest.mark.parametrize("stake", range(1_000, 20_001, 100))
def test_M1_half_pay_is_exact_in_cents(stake: int) -> None:
    verify_spot({BetKind.BANCO: stake}, RULES)
    result = settle_bet(BetKind.BANCO, stake, BANCO_WINS_6_THREE_CARDS, RULES)
    assert 2 * result.net == stake
    assert type(result.net) is int


@pytest.mark.parametrize("chip_unit", [1, 5, 25, 101])
def test_M1_odd_chip_unit_refused_where_banco_6_pays_half(chip_unit: int) -> None:
    # An odd chip unit would allow an odd stake, whose half pay is not a whole number of cents.
    with pytest.raises(RuleSetError, match="even"):
        RuleSet(chip_unit=chip_unit)
    assert RuleSet(chip_unit=chip_unit, banco_payout=BancoPayout.COMMISSION).chip_unit == chip_unit
    assert RuleSet(chip_unit=2 * chip_unit).chip_unit == 2 * chip_unit


# --- L5 --------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("punto", "banco", "kind"), [
    ([9, 0], [7, 0], BetKind.LION_PUNTO),
    ([8, 0], [0, 0], BetKind.LION_PUNTO),
    ([0, 0], [9, 0], BetKind.LION_BANCO),
    ([6, 0], [8, 0], BetKind.LION_BANCO),
    ([9, 0], [8, 0], BetKind.LION_PUNTO),  # natural against natural
    ([8, 0], [9, 0], BetKind.LION_BANCO),
])
def test_L5a_win_with_a_natural_pays_1_to_1(punto: list[int], banco: list[int], kind: BetKind) -> None:
    coup = coup_from_hands(punto, banco)
    result = line(kind, coup)
    assert (result.outcome, result.net, result.reason) == (Outcome.WIN, STAKE, Reason.NATURAL_WIN)
    other = BetKind.LION_BANCO if kind is BetKind.LION_PUNTO else BetKind.LION_PUNTO
    assert line(other, coup).outcome is Outcome.LOSE  # L5d: the other side lost


def test_L5a_natural_pay_is_a_setting() -> None:
    assert net(BetKind.LION_PUNTO, coup_from_hands([9, 0], [7, 0]),
               RuleSet(lion_natural_pays=2)) == 2 * STAKE


@pytest.mark.parametrize("total", [8, 9])
@pytest.mark.parametrize("kind", [BetKind.LION_PUNTO, BetKind.LION_BANCO])
def test_L5b_natural_egalite_is_returned(kind: BetKind, total: int) -> None:
    result = line(kind, coup_from_hands([total, 0], [total, 0]))
    assert (result.outcome, result.net, result.returned, result.reason) == (
        Outcome.PUSH, 0, STAKE, Reason.NATURAL_TIE)


_L5C = [
    # (side, punto hand, banco hand, margin)
    ("punto", [0, 0, 9], [0, 0, 0], 9),
    ("punto", [0, 0, 8], [0, 0, 0], 8),
    ("punto", [0, 0, 7], [0, 0, 0], 7),
    ("punto", [7, 0], [0, 0, 0], 7),  # five cards: Punto stood
    ("punto", [0, 0, 6], [0, 0, 0], 6),
    ("punto", [0, 0, 5], [0, 0, 0], 5),
    ("punto", [0, 0, 8], [3, 0], 5),  # five cards: Banco 3 stands on a third 8
    ("punto", [0, 0, 4], [0, 0, 0], 4),
    ("punto", [7, 0], [0, 0, 3], 4),
    ("banco", [0, 0, 0], [0, 0, 9], 9),
    ("banco", [0, 0, 0], [0, 0, 8], 8),
    ("banco", [0, 0, 0], [0, 0, 7], 7),
    ("banco", [0, 0, 0], [0, 0, 6], 6),
    ("banco", [0, 0, 0], [0, 0, 5], 5),
    ("banco", [0, 0, 0], [0, 0, 4], 4),
    ("banco", [0, 0, 3], [7, 0], 4),  # five cards: Banco 7 stands
    ("banco", [0, 0, 2], [6, 0], 4),  # five cards: Banco 6 stands on a third 2
]
_PAYS = {9: 20, 8: 8, 7: 4, 6: 4, 5: 2, 4: 1}


@pytest.mark.parametrize(("side", "punto", "banco", "margin"), _L5C,
                         ids=[f"{s}-by-{m}-{len(p) + len(b)}-cards" for s, p, b, m in _L5C])
def test_L5c_win_without_natural_after_a_draw_pays_by_margin(side: str, punto: list[int],
                                                            banco: list[int], margin: int) -> None:
    coup = coup_from_hands(punto, banco)
    assert not coup.natural and coup.cards_used > 4 and coup.margin == margin
    kind = BetKind.LION_PUNTO if side == "punto" else BetKind.LION_BANCO
    result = line(kind, coup)
    assert (result.outcome, result.net, result.odds, result.reason.margin) == (
        Outcome.WIN, STAKE * _PAYS[margin], _PAYS[margin], margin)
    dragon = line(kind, coup, RuleSet(lion_paytable=DRAGON_PAYTABLE))
    assert dragon.net == STAKE * {9: 30, 8: 10, 7: 6, 6: 4, 5: 2, 4: 1}[margin]


def test_L5c_win_by_4_pays_1() -> None:
    assert net(BetKind.LION_PUNTO, coup_from_hands([0, 0, 4], [0, 0, 0])) == STAKE


def test_L5c_win_by_9_pays_20() -> None:
    assert net(BetKind.LION_BANCO, coup_from_hands([0, 0, 0], [0, 0, 9])) == 20 * STAKE


def test_L5c_zero_pay_in_a_custom_table_returns_the_stake() -> None:
    rules = RuleSet(lion_paytable=(20, 8, 4, 4, 2, 0))
    result = line(BetKind.LION_PUNTO, coup_from_hands([0, 0, 4], [0, 0, 0]), rules)
    assert (result.outcome, result.net) == (Outcome.PUSH, 0)


_L5D = [
    # (bet, punto hand, banco hand, why)
    (BetKind.LION_PUNTO, [0, 0, 5], [0, 0, 5], "non-natural-tie"),
    (BetKind.LION_BANCO, [0, 0, 5], [0, 0, 5], "non-natural-tie"),
    (BetKind.LION_PUNTO, [6, 0], [6, 0], "four-card-tie"),
    (BetKind.LION_PUNTO, [0, 0, 3], [0, 0, 0], "win-by-3"),
    (BetKind.LION_PUNTO, [0, 0, 2], [0, 0, 0], "win-by-2"),
    (BetKind.LION_PUNTO, [0, 0, 1], [0, 0, 0], "win-by-1"),
    (BetKind.LION_BANCO, [0, 0, 0], [0, 0, 3], "win-by-3"),
    (BetKind.LION_BANCO, [0, 0, 0], [0, 0, 1], "win-by-1"),
    (BetKind.LION_PUNTO, [7, 0], [6, 0], "win-no-card-drawn"),
    (BetKind.LION_BANCO, [6, 0], [7, 0], "win-no-card-drawn"),
    (BetKind.LION_PUNTO, [0, 0, 0], [0, 0, 9], "loss"),
    (BetKind.LION_BANCO, [0, 0, 9], [0, 0, 0], "loss"),
    (BetKind.LION_PUNTO, [7, 0], [8, 0], "loss-to-natural"),
    (BetKind.LION_BANCO, [9, 0], [8, 0], "loss-natural-to-natural"),
]


@pytest.mark.parametrize(("kind", "punto", "banco", "why"), _L5D,
                         ids=[f"{k.value}-{w}" for k, _, _, w in _L5D])
def test_L5d_anything_else_loses(kind: BetKind, punto: list[int], banco: list[int], why: str) -> None:
    coup = coup_from_hands(punto, banco)
    result = line(kind, coup)
    assert (result.outcome, result.net, result.returned, result.odds, result.reason) == (
        Outcome.LOSE, -STAKE, 0, None, Reason.LOSE)


def test_L5d_four_card_non_natural_win_is_only_7_against_6() -> None:
    # Without a natural and without a draw both sides stand on 6 or 7: the only wins are by 1.
    import itertools

    from .support import coup_of
    seen = set()
    for values in itertools.product(range(10), repeat=4):
        coup = coup_of([*values, 0, 0])
        if coup.cards_used == 4 and not coup.natural and coup.winner.value != "egalite":
            seen.add((coup.total(coup.winner), coup.margin))
    assert seen == {(7, 1)}


@pytest.mark.parametrize(("side", "other", "natural", "drawn", "expected"), [
    (9, 7, True, False, LionOutcome.NATURAL_WIN),
    (8, 8, True, False, LionOutcome.NATURAL_TIE),
    (9, 9, True, False, LionOutcome.NATURAL_TIE),
    (7, 8, True, False, LionOutcome.LOSE),
    (9, 0, False, True, LionOutcome.WIN_BY_9),
    (4, 0, False, True, LionOutcome.WIN_BY_4),
    (3, 0, False, True, LionOutcome.LOSE),
    (5, 5, False, True, LionOutcome.LOSE),
    (0, 9, False, True, LionOutcome.LOSE),
    (7, 6, False, False, LionOutcome.LOSE),
])
def test_L5_lion_outcome_classification(side: int, other: int, natural: bool, drawn: bool,
                                        expected: LionOutcome) -> None:
    assert lion_outcome(side, other, natural=natural, drawn=drawn) is expected


def test_L5_lion_outcome_margins() -> None:
    assert [o.margin for o in LionOutcome] == [None, None, 9, 8, 7, 6, 5, 4, None]


# --- L6 --------------------------------------------------------------------------------------------

def test_L6_settle_spot_pays_main_bets_first_lion_after() -> None:
    bets = {BetKind.LION_BANCO: 1_000, BetKind.EGALITE: 1_000, BetKind.BANCO: 2_000,
            BetKind.PUNTO: 3_000}  # given in the reverse order
    coup = coup_from_hands([0, 0, 0], [0, 0, 6])  # Banco 6 by 6 after a draw
    lines = settle_spot(bets, coup, RULES)
    assert [x.bet for x in lines] == [BetKind.PUNTO, BetKind.BANCO, BetKind.EGALITE,
                                      BetKind.LION_BANCO]
    assert [x.net for x in lines] == [-3_000, 1_000, -1_000, 4_000]
    assert PAYMENT_ORDER == (BetKind.PUNTO, BetKind.BANCO, BetKind.EGALITE, BetKind.LION_PUNTO,
                             BetKind.LION_BANCO)


def test_settlement_line_serialises() -> None:
    result = line(BetKind.BANCO, BANCO_WINS_6_TWO_CARDS)
    assert result.to_dict() == {"bet": "banco", "stake": STAKE, "outcome": "win", "net": 1_250,
                                "pays": "1:2", "detail": "win-with-6"}


@pytest.mark.parametrize(("coup", "kind", "rules", "pays", "detail"), [
    (PUNTO_WINS, BetKind.PUNTO, RULES, "1:1", "win"),
    (PUNTO_WINS, BetKind.BANCO, RULES, "", "lose"),
    (EGALITE_AT_6, BetKind.BANCO, RULES, "0:1", "egalite"),
    (EGALITE_AT_6, BetKind.EGALITE, RuleSet(tie_pays=9), "9:1", "egalite"),
    (BANCO_WINS_7, BetKind.BANCO, RuleSet(banco_payout=BancoPayout.COMMISSION), "1:1 less 1/20",
     "win-commission"),
    (BANCO_WINS_6_THREE_CARDS, BetKind.BANCO, RULES, "1:2", "win-with-6"),
], ids=["win", "lose", "egalite-push", "egalite-win", "commission", "win-with-6"])
def test_issue12_json_text_is_rendered_from_typed_odds_and_reason(
        coup: Coup, kind: BetKind, rules: RuleSet, pays: str, detail: str) -> None:
    # issue 12: odds are a Fraction and the reason an enum; docs/api.md's strings are made here.
    result = line(kind, coup, rules)
    assert (result.to_dict()["pays"], result.to_dict()["detail"]) == (pays, detail)
    assert result.reason is Reason(detail) and pays_text(result) == pays
    if result.odds is not None:
        assert result.net == int(result.stake * result.odds)


def test_issue12_lion_reasons_follow_L5_rows() -> None:
    assert [Reason.for_lion(o).value for o in LionOutcome] == [o.value for o in LionOutcome]
    assert [Reason.for_lion(o).margin for o in LionOutcome] == [o.margin for o in LionOutcome]


@pytest.mark.parametrize(("text", "kind"), [
    ("punto", BetKind.PUNTO), ("Player", BetKind.PUNTO), ("BANKER", BetKind.BANCO),
    ("tie", BetKind.EGALITE), ("Égalité", BetKind.EGALITE), ("empate", BetKind.EGALITE),
    ("lion_punto", BetKind.LION_PUNTO), ("Lion Banco", BetKind.LION_BANCO),
    ("lion-player", BetKind.LION_PUNTO), ("lion-banker", BetKind.LION_BANCO),
])
def test_bet_names_in_the_table_languages(text: str, kind: BetKind) -> None:
    assert BetKind.parse(text) is kind


def test_unknown_bet_name_is_refused_naming_it() -> None:
    with pytest.raises(PuntoBancoError) as info:
        BetKind.parse("dragon")
    assert info.value.code == "unknown-bet" and "'dragon'" in str(info.value)
