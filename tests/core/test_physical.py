"""A physical shoe entered card by card (issue 11, dealer mode): the steps come from the core's
drawing rules (R3-R6), the shoe holds ``decks`` of each card (R1), the burn (S2), the cut card and
the last coup (S3), a misdeal and a correction."""

from __future__ import annotations

import random

import pytest

from puntobanco.bets import BetKind
from puntobanco.cards import Card, new_shoe_cards, parse_cards
from puntobanco.coup import deal_coup
from puntobanco.errors import PuntoBancoError
from puntobanco.physical import CardRefused, HandDealtTable, PhysicalShoe, next_step
from puntobanco.rules import LastCoup, RuleSet, Side
from puntobanco.shoe import Shoe


def test_R3_R6_next_step_follows_deal_coup_on_many_random_coups() -> None:
    rng = random.Random(6)
    cards = new_shoe_cards(8)
    for _ in range(2000):
        rng.shuffle(cards)
        coup = deal_coup(iter(cards))
        order = [card for _, card in coup.dealing_order()]
        for index, (side, card) in enumerate(coup.dealing_order()):
            step = next_step(order[:index])
            assert not step.complete and step.side is side
            assert card is order[index]
        assert next_step(order).complete


@pytest.mark.parametrize(("cards", "text"), [
    ("9S 2D KH 5C", "Natural: Punto 9, Banco 7; no card drawn"),
    ("2S 6D KH KC", "Punto draws on 2"),
    ("2S 6D KH KC 4H", "Banco stands on 6 (Punto's third card 4)"),
    ("2S 6D KH KC 6H", "Banco draws on 6 (Punto's third card 6)"),
    ("2S 3D KH KC 8H", "Banco stands on 3 (Punto's third card 8)"),
    ("6S 2D KH 3C", "Banco draws on 5 (Punto stood on 6)"),
    ("7S 6D KH KC", "Banco stands on 6 (Punto stood on 7)"),
])
def test_R5_R6_the_step_says_what_the_rules_require(cards: str, text: str) -> None:
    assert next_step(parse_cards(cards)).describe() == text


def test_R1_a_shoe_holds_decks_of_each_card_and_refuses_one_more() -> None:
    table = HandDealtTable(RuleSet(decks=1))
    table.open_round()
    table.close_bets()
    table.enter_card(Card.parse("AS"))
    with pytest.raises(CardRefused) as refused:
        table.enter_card(Card.parse("as"))
    assert refused.value.code == "card-not-in-shoe"
    assert table.physical.pending == [Card.parse("AS")]


def test_cards_out_of_turn_or_not_called_for_are_refused() -> None:
    table = HandDealtTable(RuleSet())
    with pytest.raises(PuntoBancoError):
        table.enter_card(Card.parse("9H"))  # no shoe, no round
    table.open_round()
    with pytest.raises(CardRefused) as refused:
        table.enter_card(Card.parse("9H"))  # betting still open (L4)
    assert refused.value.code == "card-out-of-turn"
    table.close_bets()
    with pytest.raises(CardRefused) as refused:
        table.enter_card(Card.parse("9H"), side=Side.BANCO)  # R3: Punto's card first
    assert refused.value.code == "card-out-of-turn"
    for card in parse_cards("9H 2D KH 5C"):
        table.enter_card(card)
    with pytest.raises(CardRefused) as refused:
        table.enter_card(Card.parse("3C"))  # R4: a natural, no card drawn
    assert refused.value.code == "card-not-called"
    assert table.deal().coup.winner is Side.PUNTO


def test_a_correction_replaces_the_last_card_and_the_steps_follow() -> None:
    table = HandDealtTable(RuleSet(decks=1))
    table.open_round()
    table.close_bets()
    for card in parse_cards("2S 6D KH KC 4H"):
        step = table.enter_card(card).step
    assert step.describe() == "Banco stands on 6 (Punto's third card 4)"
    corrected = table.correct_card(Card.parse("6H"))
    assert (corrected.was, corrected.side, corrected.position) == (Card.parse("4H"), Side.PUNTO, 2)
    assert corrected.step.describe() == "Banco draws on 6 (Punto's third card 6)"
    assert table.physical.count(Card.parse("4H")) == 0


def test_a_misdeal_voids_the_round_and_keeps_its_cards_out_of_the_shoe() -> None:
    table = HandDealtTable(RuleSet(decks=1))
    table.open_round()
    table.place_bet("ann", BetKind.PUNTO, 2000)
    table.close_bets()
    table.enter_card(Card.parse("9H"))
    voided = table.void_round()
    assert voided.bets == {"ann": {BetKind.PUNTO: 2000}} and voided.cards == (Card.parse("9H"),)
    assert table.physical.cards_left == 51 and table.physical.coups_dealt == 0
    table.open_round()  # the next round, same coup number in the shoe
    table.close_bets()
    with pytest.raises(CardRefused):
        table.enter_card(Card.parse("9H"))


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("last_coup", list(LastCoup))
def test_S2_S3_burn_cut_card_and_one_more_coup_match_the_server_dealt_shoe(
        seed: int, last_coup: LastCoup) -> None:
    """The same order entered by hand gives the coups a server-dealt shoe deals (S2, S3)."""
    rules = RuleSet(decks=1 + seed % 2, cut_card=14 + seed, last_coup=last_coup)
    order = new_shoe_cards(rules.decks)
    random.Random(seed).shuffle(order)
    reference = Shoe.from_order(order, rules)
    table = HandDealtTable(rules)
    table.new_shoe()
    shoe = table.physical
    shoe.burn([order[0]], counted=order[0].rank.burn_count)
    assert shoe.position == len(reference.burned)
    source = iter(order[shoe.position:])
    while not shoe.finished:
        table.open_round()
        table.close_bets()
        while not shoe.step().complete:
            table.enter_card(next(source))
            if shoe.position == reference.cut_index + 1:
                shoe.mark_cut_card(during_coup=True)
        assert table.deal().coup == reference.deal_coup()
        table.settle()
    assert reference.finished and shoe.coups_dealt == reference.coups_dealt


def test_the_last_coup_called_ends_the_shoe_after_it() -> None:
    table = HandDealtTable(RuleSet())
    table.new_shoe()
    assert table.physical.mark_last_coup() == 1
    table.open_round()
    assert table.physical.is_last_coup
    table.close_bets()
    for card in parse_cards("9H 2D KH 5C"):
        table.enter_card(card)
    table.deal()
    assert table.settle().shoe_finished and isinstance(table.shoe, PhysicalShoe)


def _shoe_state(table: HandDealtTable) -> tuple[object, ...]:
    shoe = table.physical
    return (table.phase, tuple(shoe.pending), shoe.coups_dealt, shoe.position,
            tuple(sorted((str(c), n) for c, n in shoe._seen.items() if n)), shoe.cut_card_coup,
            shoe.last_coup_no, tuple(shoe.voided), shoe.counted)


@pytest.mark.parametrize("seed", range(40))
def test_random_dealer_actions_refused_change_nothing_and_accepted_keep_the_shoe_whole(
        seed: int) -> None:
    """Issue 11: any action, allowed or not, in any order: a refusal changes nothing (M3's
    "nothing changes", for the dealer), no card is out more than ``decks`` times (R1), the
    shoe's cards add up, and each dealt coup is what deal_coup makes of its cards (R3-R6)."""
    rng = random.Random(seed)
    rules = RuleSet(decks=1, cut_card=12)
    table = HandDealtTable(rules)
    table.new_shoe()
    deck = new_shoe_cards(1)
    actions = ["open", "close", "card", "card", "card", "card", "correct", "deal", "void",
               "burn", "cut", "last"]
    for _ in range(120):
        action = rng.choice(actions)
        card = rng.choice(deck)
        before = _shoe_state(table)
        try:
            if action == "open":
                table.open_round()
            elif action == "close":
                table.close_bets()
            elif action == "card":
                table.enter_card(card, side=rng.choice([None, None, Side.PUNTO, Side.BANCO]))
            elif action == "correct":
                table.correct_card(card)
            elif action == "deal":
                pending = list(table.physical.pending)
                dealt = table.deal()
                assert dealt.coup == deal_coup(iter(pending))
                table.settle()
            elif action == "void":
                table.void_round()
            elif action == "burn":
                table.physical.burn([card], counted=rng.randrange(3))
            elif action == "cut":
                table.physical.mark_cut_card(during_coup=table.phase.value == "closed")
            else:
                table.physical.mark_last_coup()
        except PuntoBancoError:
            assert _shoe_state(table) == before, action
        shoe = table.physical
        assert all(n <= rules.decks for n in shoe._seen.values())
        assert shoe.position + shoe.cards_left == 52
        assert shoe.position == (len(shoe.order) + shoe.counted + len(shoe.pending)
                                 + len(shoe.voided))
        if shoe.finished and table.phase.value in ("idle", "settled"):
            break
