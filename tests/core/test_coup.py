"""The coup (R3–R7) and the frozen Coup record; every one of the 10⁶ value sequences is dealt and
checked against R4–R6 written out from SPEC's words (``support.spec_hands``)."""

from __future__ import annotations

import dataclasses
import itertools

import pytest

from puntobanco.cards import parse_cards
from puntobanco.coup import deal_coup
from puntobanco.errors import ShoeExhausted
from puntobanco.rules import Side

from .support import card_of, coup_from_hands, coup_of, spec_hands


def test_R3_first_and_third_cards_to_punto_second_and_fourth_to_banco() -> None:
    coup = deal_coup(iter(parse_cards("2S 3H 4D 5C 6S 7H")))  # Punto 6 stands, Banco 8 natural
    assert [str(c) for c in coup.punto] == ["2S", "4D"]
    assert [str(c) for c in coup.banco] == ["3H", "5C"]
    assert coup.cards_used == 4


def test_R3_third_cards_in_order_punto_then_banco_and_listener_sees_dealing_order() -> None:
    seen: list[tuple[Side, int, str]] = []
    cards = parse_cards("4H 2S 9S 3D 7C 5C KD")
    coup = deal_coup(iter(cards), on_card=lambda side, pos, card: seen.append((side, pos, str(card))))
    assert seen == [(Side.PUNTO, 0, "4H"), (Side.BANCO, 0, "2S"), (Side.PUNTO, 1, "9S"),
                    (Side.BANCO, 1, "3D"), (Side.PUNTO, 2, "7C"), (Side.BANCO, 2, "5C")]
    assert [(side, str(card)) for side, card in coup.dealing_order()] == [
        (side, text) for side, _, text in seen]
    assert coup.cards_used == 6
    assert str(coup.punto_third) == "7C" and str(coup.banco_third) == "5C"


def test_R3_coup_takes_only_the_cards_it_needs() -> None:
    source = iter(parse_cards("9S 2H 9D 3C 4S 5H"))  # Punto natural 8: four cards
    deal_coup(source)
    assert [str(c) for c in source] == ["4S", "5H"]


@pytest.mark.parametrize("natural", [8, 9])
@pytest.mark.parametrize("other", range(10))
@pytest.mark.parametrize("natural_side", [Side.PUNTO, Side.BANCO])
def test_R4_natural_on_either_side_stops_the_coup(natural: int, other: int,
                                                  natural_side: Side) -> None:
    hands = ([natural, 0], [other, 0])
    punto, banco = hands if natural_side is Side.PUNTO else hands[::-1]
    coup = coup_from_hands(punto, banco)  # fails if any card were drawn
    assert coup.cards_used == 4
    assert coup.natural
    assert coup.punto_natural is (punto[0] >= 8) and coup.banco_natural is (banco[0] >= 8)
    assert coup.punto_third is None and coup.banco_third is None


def test_R4_no_natural_when_totals_below_8() -> None:
    coup = coup_from_hands([7, 0], [6, 0])
    assert not coup.natural and not coup.punto_natural and not coup.banco_natural
    # a three-card 8 or 9 is not a natural
    coup = coup_from_hands([4, 0, 5], [7, 0])
    assert coup.punto_total == 9 and not coup.natural


@pytest.mark.parametrize(("punto", "banco", "winner", "margin"), [
    ([9, 0], [8, 0], Side.PUNTO, 1),
    ([8, 0], [9, 0], Side.BANCO, 1),
    ([8, 0], [8, 0], Side.EGALITE, 0),
    ([7, 0], [6, 0], Side.PUNTO, 1),
    ([0, 0, 9], [0, 0, 0], Side.PUNTO, 9),
    ([0, 0, 0], [0, 0, 9], Side.BANCO, 9),
    ([5, 0, 5], [2, 0, 8], Side.EGALITE, 0),
])
def test_R7_higher_total_wins_equal_is_egalite(punto: list[int], banco: list[int], winner: Side,
                                               margin: int) -> None:
    coup = coup_from_hands(punto, banco)
    assert coup.winner is winner
    assert coup.margin == margin
    assert coup.total(Side.PUNTO) == coup.punto_total and coup.total(Side.BANCO) == coup.banco_total
    assert coup.cards(Side.PUNTO) == coup.punto and coup.cards(Side.BANCO) == coup.banco


def test_coup_record_is_frozen_and_serialises() -> None:
    coup = deal_coup(iter(parse_cards("4H 2S 9S 3D 7C 5C")))
    with pytest.raises(dataclasses.FrozenInstanceError):
        coup.punto = ()  # type: ignore[misc]
    assert coup.to_dict() == {
        "punto": {"cards": ["4H", "9S", "7C"], "total": 0},
        "banco": {"cards": ["2S", "3D", "5C"], "total": 0},
        "winner": "egalite", "natural": False, "margin": 0,
    }


@pytest.mark.parametrize("length", range(6))
def test_R3_running_dry_mid_coup_raises_shoe_exhausted(length: int) -> None:
    # zero-value cards: both sides always draw, so a coup needs all six
    with pytest.raises(ShoeExhausted) as info:
        deal_coup(iter([card_of(0)] * length))
    assert info.value.code == "shoe-exhausted"


@pytest.mark.parametrize("first", range(10))
def test_R4_R5_R6_every_value_sequence_matches_the_spec(first: int) -> None:
    """All 10⁵ sequences starting with ``first`` (10⁶ over the ten cases), dealt by the core."""
    cards = [card_of(value, value) for value in range(10)]
    checked = 0
    for rest in itertools.product(range(10), repeat=5):
        values = (first, *rest)
        coup = deal_coup(iter([cards[v] for v in values]))
        punto, banco = spec_hands(values)
        got_punto = [c.value for c in coup.punto]
        got_banco = [c.value for c in coup.banco]
        if got_punto != punto or got_banco != banco:
            pytest.fail(f"{values}: dealt {got_punto} v {got_banco}, R4-R6 say {punto} v {banco}")
        p, b = sum(punto) % 10, sum(banco) % 10
        assert coup.punto_total == p and coup.banco_total == b
        assert coup.winner is (Side.PUNTO if p > b else Side.BANCO if b > p else Side.EGALITE)
        assert coup.margin == abs(p - b)
        assert coup.cards_used == len(punto) + len(banco)
        checked += 1
    assert checked == 100_000


def test_coup_of_helper_builds_the_stated_values() -> None:
    coup = coup_of([1, 2, 3, 4, 5, 6])
    assert [c.value for c in coup.punto] == [1, 3, 5]
    with pytest.raises(AssertionError):
        coup_from_hands([0, 0], [0, 0])  # both would draw
