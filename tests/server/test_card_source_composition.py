"""The house's exposure is figured on the cards left before the coup in progress: each card
source (``live/sources.py``) says what they are — a server shoe from its order, a real shoe from
the cards entered — so the console's live view (``api/operator.py``) asks the source and never
which kind of shoe it holds. Moved here from ``test_operator.py`` (issue 11's exposure tests),
now on the real sources rather than a stand-in dealer."""

from __future__ import annotations

from puntobanco.bets import BetKind
from puntobanco.cards import composition_of, full_composition, parse_cards
from puntobanco.rules import RuleSet
from puntobanco.server.live.sources import HandShoe, ServerShoe


def test_issue11_a_server_shoes_exposure_uses_the_shoe_as_it_stood_before_the_coup() -> None:
    """Once the coup is dealt (phases closed and dealt) its cards are put back: the exposure is
    the one the house had when betting closed, not the one of the next coup."""
    source = ServerShoe()
    rules = RuleSet(decks=1)
    table = source.new_table(rules, round_no=0, shoe_no=0)
    assert source.composition_before_coup(betting=True) is None  # no shoe yet
    source.new_shoe(rules)
    table.new_shoe(rules=rules)
    table.open_round()
    table.place_bet("1", BetKind.BANCO, 1000)
    assert table.shoe is not None
    before = tuple(composition_of(table.shoe.remaining()))
    assert source.composition_before_coup(betting=True) == before
    table.close_bets()
    table.deal()
    assert source.composition_before_coup(betting=False) == before
    assert tuple(composition_of(table.shoe.remaining())) != before


def test_issue11_a_hand_dealt_tables_exposure_counts_the_cards_entered() -> None:
    """A hand-dealt shoe's order is nobody's, but its cards left are known: the decks less the
    cards entered before the coup in progress (a shown burn card, a misdealt round's cards),
    the coup's own cards put back once dealt; cards burned face down count as still in it."""
    def less(*cards: str) -> tuple[int, ...]:
        left = list(full_composition(1))
        for card in parse_cards(list(cards)):
            left[card.value] -= 1
        return tuple(left)

    source = HandShoe()
    table = source.new_table(RuleSet(decks=1), round_no=0, shoe_no=0)
    assert source.composition_before_coup(betting=True) is None  # no shoe yet
    table.new_shoe()
    source.table.physical.burn(parse_cards(["5h"]), counted=5)  # 5 shown, 5 face down, unknown
    table.open_round()
    assert source.composition_before_coup(betting=True) == less("5h")
    table.close_bets()
    for card in parse_cards(["Kh", "2c", "Qd", "3s"]):  # 0 vs 5: Punto draws, then Banco
        source.table.enter_card(card)
        assert source.composition_before_coup(betting=False) == less("5h")
    source.void()  # a misdeal: those cards are out of the shoe, in no coup
    table.open_round()
    assert source.composition_before_coup(betting=True) == less("5h", "Kh", "2c", "Qd", "3s")
    table.close_bets()
    for card in parse_cards(["9h", "Jc", "Ks", "8d"]):  # 9 against 8: naturals, complete
        source.table.enter_card(card)
    table.deal()
    assert source.composition_before_coup(betting=False) == less("5h", "Kh", "2c", "Qd", "3s")
    table.settle()
    table.open_round()  # the next coup: the settled one's cards are out of the shoe now
    assert source.composition_before_coup(betting=True) == less(
        "5h", "Kh", "2c", "Qd", "3s", "9h", "Jc", "Ks", "8d")
