"""Issue 21, fourth pass: a bettor's ``settlement`` is written without its model
(``messages.settlement_text``): at 5,000 players the models cost ~15 µs a bettor on the event
loop, between the last card and the last socket's settlement. The text must stay exactly the
model's, for every kind of line (won, lost, pushed, paid less a commission, the Lion Bonus)."""

from __future__ import annotations

import random

import pytest

from puntobanco.bets import BetKind, SettlementLine, settle_spot
from puntobanco.cards import new_shoe_cards
from puntobanco.coup import deal_coup
from puntobanco.rules import BancoPayout, RuleSet
from puntobanco.server.live import messages as msg


def _model_text(coup_id: int, balance: int, lines: tuple[SettlementLine, ...]) -> str:
    return msg.encode(msg.Settlement(coup_id=coup_id, balance=balance,
                                     lines=[msg.settlement_line(line) for line in lines]))


@pytest.mark.parametrize("payout", list(BancoPayout))
def test_issue21_every_settlement_text_is_the_models(payout: BancoPayout) -> None:
    rules = RuleSet(banco_payout=payout)
    shuffled = random.Random(21)
    cards = new_shoe_cards(8)
    shuffled.shuffle(cards)
    source = iter(cards)
    made: msg.LineTexts = {}
    reasons = set()
    for coup_id in range(1, 60):
        coup = deal_coup(source)
        for spot in ({BetKind.PUNTO: 1000, BetKind.LION_PUNTO: 2500},
                     {BetKind.BANCO: 12_300, BetKind.EGALITE: 1000, BetKind.LION_BANCO: 5000},
                     {BetKind.PUNTO: 500_000, BetKind.BANCO: 100},
                     {}):
            lines = settle_spot(spot, coup, rules)
            reasons |= {line.reason for line in lines}
            balance = shuffled.randrange(0, 10**9)
            assert msg.settlement_text(coup_id, balance, lines, made) == _model_text(
                coup_id, balance, lines)
    assert len(reasons) >= 5  # won, lost, pushed and the Lion's outcomes were all written


def test_issue21_a_settlement_of_another_shape_is_left_to_the_model() -> None:
    """A balance that is not a whole number is the model's to write (as before)."""
    coup = deal_coup(iter(new_shoe_cards(1)))
    lines = settle_spot({BetKind.PUNTO: 1000}, coup, RuleSet())
    assert msg.settlement_text(3, True, lines, {}) == _model_text(3, True, lines)
