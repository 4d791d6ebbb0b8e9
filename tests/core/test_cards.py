"""R1, R2 and the card text (rank then suit, case-insensitive; anything else refused by name)."""

from __future__ import annotations

import pytest

from puntobanco.cards import (
    Card,
    Composition,
    Rank,
    Suit,
    as_composition,
    composition_of,
    full_composition,
    new_shoe_cards,
    parse_cards,
    standard_deck,
)
from puntobanco.errors import CardParseError, PuntoBancoError, RuleSetError


@pytest.mark.parametrize("decks", [1, 6, 8])
def test_R1_shoe_holds_52_cards_per_deck_each_card_once_per_deck(decks: int) -> None:
    cards = new_shoe_cards(decks)
    assert len(cards) == 52 * decks
    assert all(cards.count(card) == decks for card in standard_deck())
    assert len(set(standard_deck())) == 52


def test_R1_six_decks_make_312_cards() -> None:
    assert len(new_shoe_cards(6)) == 312
    assert sum(full_composition(6)) == 312


@pytest.mark.parametrize("decks", [0, 9, -1])
def test_R1_shoe_of_0_or_9_decks_is_refused(decks: int) -> None:
    # issue 12: a bad deck count is a setting out of range, not a CardParseError
    with pytest.raises(RuleSetError, match=str(decks)) as info:
        new_shoe_cards(decks)
    assert info.value.code == "bad-decks" and not isinstance(info.value, CardParseError)
    with pytest.raises(RuleSetError, match=str(decks)):
        full_composition(decks)


@pytest.mark.parametrize(
    ("rank", "value"),
    [(Rank.ACE, 1), (Rank.TWO, 2), (Rank.THREE, 3), (Rank.FOUR, 4), (Rank.FIVE, 5), (Rank.SIX, 6),
     (Rank.SEVEN, 7), (Rank.EIGHT, 8), (Rank.NINE, 9), (Rank.TEN, 0), (Rank.JACK, 0),
     (Rank.QUEEN, 0), (Rank.KING, 0)],
)
def test_R2_card_values(rank: Rank, value: int) -> None:
    assert rank.value_points == value
    assert all(Card(rank, suit).value == value for suit in Suit)


def test_R2_full_composition_counts_tens_and_faces_together() -> None:
    assert full_composition(1) == (16, 4, 4, 4, 4, 4, 4, 4, 4, 4)
    assert full_composition(8) == (128, *[32] * 9)
    for decks in (1, 6, 8):
        assert composition_of(new_shoe_cards(decks)) == full_composition(decks)


@pytest.mark.parametrize(
    ("text", "expected"),
    [("AS", "AS"), ("as", "AS"), ("aS", "AS"), ("10h", "TH"), ("10H", "TH"), ("th", "TH"),
     ("Kd", "KD"), ("qc", "QC"), ("jS", "JS"), ("2c", "2C"), ("9d", "9D"), (" 7h ", "7H")],
)
def test_card_text_is_rank_then_suit_case_insensitive(text: str, expected: str) -> None:
    card = Card.parse(text)
    assert str(card) == expected
    assert Card.parse(str(card)) == card
    assert repr(card) == f"Card({expected!r})"


def test_card_text_round_trips_for_every_card() -> None:
    for card in standard_deck():
        assert Card.parse(str(card)) == card
        assert Card.parse(str(card).lower()) == card


@pytest.mark.parametrize(
    "token", ["1s", "11h", "SA", "A", "S", "", "AX", "0S", "10", "A S", "KDD", "ZS", "AS2", "１S"]
)
def test_bad_card_text_is_refused_naming_the_token(token: str) -> None:
    with pytest.raises(CardParseError) as info:
        Card.parse(token)
    assert repr(token) in str(info.value)
    assert info.value.code == "bad-card"
    assert isinstance(info.value, ValueError)
    assert str(info.value).count(".") >= 1 and "\n" not in str(info.value)


def test_parse_cards_splits_on_spaces_and_commas() -> None:
    assert [str(c) for c in parse_cards("AS 9d, kc,10h\t2s")] == ["AS", "9D", "KC", "TH", "2S"]
    assert [str(c) for c in parse_cards(["AS 9d", "kc"])] == ["AS", "9D", "KC"]
    assert parse_cards("") == []


def test_parse_cards_names_the_one_bad_token() -> None:
    with pytest.raises(CardParseError) as info:
        parse_cards("AS 9d XX kc")
    assert "'XX'" in str(info.value)
    assert "9d" not in str(info.value)


@pytest.mark.parametrize("counts", [[1] * 9, [1] * 11, [1, 2, 3, 4, 5, 6, 7, 8, 9, -1]])
def test_bad_composition_is_refused(counts: list[int]) -> None:
    with pytest.raises(PuntoBancoError) as info:
        as_composition(counts)
    assert info.value.code == "bad-composition"


def test_composition_is_kept_as_given() -> None:
    assert as_composition([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]) == (0, 1, 2, 3, 4, 5, 6, 7, 8, 9)


def test_S2_burn_count_is_the_value_with_tens_and_faces_counting_10() -> None:
    expected = {"A": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9,
                "T": 10, "J": 10, "Q": 10, "K": 10}
    assert {rank.value: rank.burn_count for rank in Rank} == expected


def test_issue12_composition_is_a_real_type_that_checks_itself() -> None:
    full = full_composition(2)
    assert isinstance(full, Composition) and isinstance(composition_of(standard_deck()), Composition)
    assert full == (32, 8, 8, 8, 8, 8, 8, 8, 8, 8) and full.cards == 104
    assert Composition(full) == full and hash(Composition(full)) == hash(tuple(full))
    for wrong in [(1, 2, 3), (-1,) * 10, (1.5,) * 10]:
        with pytest.raises(CardParseError) as info:
            Composition(wrong)  # type: ignore[arg-type]
        assert info.value.code == "bad-composition"
