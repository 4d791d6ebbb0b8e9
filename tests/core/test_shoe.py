"""The shoe: S1 secure or seeded shuffle, S2 burn, S3 cut card and one more coup, composition."""

from __future__ import annotations

import random

import pytest

from puntobanco.cards import Card, Rank, Suit, composition_of, full_composition, new_shoe_cards
from puntobanco.errors import ShoeExhausted
from puntobanco.rules import LastCoup, RuleSet
from puntobanco.shoe import Shoe

from .support import card_of

RULES = RuleSet()


def _tens(count: int) -> list[Card]:
    """Zero-value cards: every coup then uses six (both sides draw), and a ten burns ten."""
    return [card_of(0, i) for i in range(count)]


# --- S1 --------------------------------------------------------------------------------------------

def test_S1_shuffled_shoe_holds_the_full_decks() -> None:
    for decks in (1, 6, 8):
        rules = RuleSet(decks=decks, cut_card=14)
        shoe = Shoe.shuffled(rules, rng=random.Random(decks))
        assert sorted(shoe.order, key=str) == sorted(new_shoe_cards(decks), key=str)


def test_S1_same_seed_same_shoe_different_seed_different_shoe() -> None:
    first = Shoe.shuffled(RULES, rng=random.Random(2024))
    again = Shoe.shuffled(RULES, rng=random.Random(2024))
    other = Shoe.shuffled(RULES, rng=random.Random(2025))
    assert first.order == again.order
    assert first.burned == again.burned
    assert first.order != other.order
    assert first.order != tuple(new_shoe_cards(6))  # it was shuffled


def test_S1_without_a_generator_the_shuffle_is_secure_and_unseeded() -> None:
    random.seed(7)
    state = random.getstate()
    one = Shoe.shuffled(RULES)
    two = Shoe.shuffled(RULES)
    assert one.order != two.order  # equal with probability about 1 / 312!
    assert random.getstate() == state  # the global, seedable generator was not used


def test_S1_secure_generator_is_systemrandom(monkeypatch: pytest.MonkeyPatch) -> None:
    used: list[str] = []

    class Spy(random.SystemRandom):
        def shuffle(self, x: list[Card]) -> None:  # type: ignore[override]
            used.append("system")
            super().shuffle(x)

    monkeypatch.setattr(random, "SystemRandom", Spy)
    Shoe.shuffled(RULES)
    assert used == ["system"]


# --- S2 --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("rank", list(Rank), ids=[r.value for r in Rank])
def test_S2_first_card_is_turned_and_that_many_burned(rank: Rank) -> None:
    order = [Card(rank, Suit.HEARTS), *new_shoe_cards(6)[1:]]
    shoe = Shoe.from_order(order, RULES)
    expected = 10 if rank in (Rank.TEN, Rank.JACK, Rank.QUEEN, Rank.KING) else rank.value_points
    assert len(shoe.burned) == 1 + expected
    assert shoe.burned == tuple(order[: 1 + expected])
    assert shoe.position == 1 + expected
    assert shoe.remaining() == tuple(order[1 + expected:])


def test_S2_burn_is_a_setting() -> None:
    order = new_shoe_cards(6)
    shoe = Shoe.from_order(order, RULES.replace(burn=False))
    assert shoe.burned == () and shoe.position == 0
    assert shoe.deal_coup().punto[0] == order[0]


def test_S2_dealing_starts_after_the_burned_cards() -> None:
    order = [Card(Rank.THREE, Suit.CLUBS), *new_shoe_cards(6)[:311]]
    shoe = Shoe.from_order(order, RULES)
    coup = shoe.deal_coup()
    assert coup.punto[0] == order[4] and coup.banco[0] == order[5]


# --- S3 --------------------------------------------------------------------------------------------

def test_S3_cut_card_coup_completes_then_one_more_then_finished() -> None:
    # 312 tens: the first burns 10 more (11 out); each coup takes 6; the cut card lies before index
    # 298. Coup 48 deals indices 293..298, reaching the cut card; coup 49 is the last.
    shoe = Shoe.from_order(_tens(312), RULES)
    assert shoe.cut_index == 298
    for _ in range(47):
        shoe.deal_coup()
        assert not shoe.cut_card_out and not shoe.finished and not shoe.is_last_coup
    shoe.deal_coup()
    assert shoe.cut_card_out and not shoe.finished and shoe.is_last_coup
    shoe.deal_coup()
    assert shoe.finished and not shoe.is_last_coup
    assert shoe.coups_dealt == 49 and shoe.cards_left == 7
    with pytest.raises(ShoeExhausted) as info:
        shoe.deal_coup()
    assert info.value.code == "shoe-exhausted"
    assert shoe.cards_left == 7  # the refused coup took nothing


def test_S3_cut_card_reached_exactly_at_a_coup_boundary_comes_out_with_the_next_card() -> None:
    # cut_card 19: cut index 293 = 11 + 6 × 47, so after coup 47 the cut card is the next thing
    shoe = Shoe.from_order(_tens(312), RULES.replace(cut_card=19))
    for _ in range(47):
        shoe.deal_coup()
    assert shoe.position == shoe.cut_index == 293
    assert not shoe.cut_card_out
    shoe.deal_coup()
    assert shoe.cut_card_out and not shoe.finished
    shoe.deal_coup()
    assert shoe.finished


def test_S3_last_coup_none_ends_with_the_cut_card_coup() -> None:
    shoe = Shoe.from_order(_tens(312), RULES.replace(last_coup=LastCoup.NONE))
    for _ in range(47):
        shoe.deal_coup()
    assert not shoe.finished
    shoe.deal_coup()
    assert shoe.cut_card_out and shoe.finished and not shoe.is_last_coup
    with pytest.raises(ShoeExhausted):
        shoe.deal_coup()


@pytest.mark.parametrize("cut_card", [12, 14, 60, 300])
@pytest.mark.parametrize("seed", range(5))
def test_S3_a_random_shoe_always_has_cards_for_its_last_coup(cut_card: int, seed: int) -> None:
    shoe = Shoe.shuffled(RULES.replace(cut_card=cut_card), rng=random.Random(seed))
    coups = 0
    while not shoe.finished:
        shoe.deal_coup()
        coups += 1
    assert shoe.cut_card_out and coups == shoe.coups_dealt
    assert shoe.position > shoe.cut_index


@pytest.mark.parametrize("decks", [1, 8])
def test_S3_worst_case_shoe_of_tens_with_smallest_cut_card_does_not_run_dry(decks: int) -> None:
    # the burn takes 11 cards and every coup 6: the most a shoe can need past the cut card is 12
    for cut_card in range(12, 24):
        shoe = Shoe.from_order(_tens(52 * decks), RuleSet(decks=decks, cut_card=cut_card))
        while not shoe.finished:
            shoe.deal_coup()
        assert shoe.cut_card_out and shoe.position > shoe.cut_index


# --- composition -------------------------------------------------------------------------------------

def test_composition_of_the_remaining_cards_at_every_moment() -> None:
    shoe = Shoe.shuffled(RULES, rng=random.Random(11))
    assert composition_of(shoe.burned) == tuple(
        f - r for f, r in zip(full_composition(6), shoe.composition(), strict=True))
    dealt: list[Card] = []
    while not shoe.finished:
        coup = shoe.deal_coup()
        dealt.extend(card for _, card in coup.dealing_order())
        assert sum(shoe.composition()) == shoe.cards_left
        used = composition_of([*shoe.burned, *dealt])
        assert tuple(u + r for u, r in zip(used, shoe.composition(), strict=True)) == \
            full_composition(6)
    assert tuple(shoe.burned) + tuple(dealt) + shoe.remaining() == shoe.order


def test_shoe_iterates_the_remaining_cards() -> None:
    shoe = Shoe.from_order(new_shoe_cards(1), RuleSet(decks=1, burn=False))
    shoe.deal_coup()
    position = shoe.position
    assert list(shoe) == list(new_shoe_cards(1)[position:])
    assert shoe.cards_left == 0


def test_shoe_too_short_for_its_burn_raises() -> None:
    with pytest.raises(ShoeExhausted):
        Shoe.from_order([Card(Rank.KING, Suit.SPADES)] * 5, RULES)
