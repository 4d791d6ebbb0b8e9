"""Hypothesis properties: card conservation over whole shoes, at most six cards a coup, and the
settlement invariants (a push returns the stake, a loss costs at most the stake, main bets are paid
before the Lion Bonus) checked against SPEC's words for random coups, spots and rule settings."""

from __future__ import annotations

import random
from fractions import Fraction

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from puntobanco.bets import PAYMENT_ORDER, BetKind, Outcome, settle_spot, verify_spot
from puntobanco.cards import Card, composition_of, full_composition, standard_deck
from puntobanco.coup import Coup, deal_coup
from puntobanco.errors import BetRefused
from puntobanco.rules import DRAGON_PAYTABLE, LION_PAYTABLE, BancoPayout, LastCoup, RuleSet
from puntobanco.shoe import Shoe
from puntobanco.table import BetPlaced, BetWithdrawn, RoundOpened, RoundSettled, Table, replay

from .support import spec_hands

SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])

six_cards = st.lists(st.sampled_from(standard_deck()), min_size=6, max_size=6)


@st.composite
def rule_sets(draw: st.DrawFn) -> RuleSet:
    payout = draw(st.sampled_from(list(BancoPayout)))
    return RuleSet(
        tie_pays=draw(st.sampled_from([8, 9])),
        banco_payout=payout,
        commission=draw(st.sampled_from([Fraction(5, 100), Fraction(4, 100), Fraction(0)])),
        lion_paytable=draw(st.sampled_from([LION_PAYTABLE, DRAGON_PAYTABLE, (20, 8, 4, 4, 2, 0)])),
        lion_natural_pays=draw(st.sampled_from([1, 2])),
        chip_unit=draw(st.sampled_from([100, 200, 50] if payout is BancoPayout.HALF_ON_SIX
                                       else [100, 1, 25])),
        allow_punto_and_banco=draw(st.booleans()),
    )


@st.composite
def valid_spots(draw: st.DrawFn, rules: RuleSet) -> dict[BetKind, int]:
    """Bets that ``verify_spot`` must accept: limits, chip unit, one Lion side, B4 setting."""
    kinds = draw(st.lists(st.sampled_from(list(BetKind)), unique=True, min_size=1))
    if BetKind.LION_PUNTO in kinds and BetKind.LION_BANCO in kinds:
        kinds.remove(draw(st.sampled_from([BetKind.LION_PUNTO, BetKind.LION_BANCO])))
    if not rules.allow_punto_and_banco and BetKind.PUNTO in kinds and BetKind.BANCO in kinds:
        kinds.remove(BetKind.PUNTO)
    limits = {BetKind.PUNTO: rules.punto_limits, BetKind.BANCO: rules.banco_limits,
              BetKind.EGALITE: rules.egalite_limits, BetKind.LION_PUNTO: rules.lion_limits,
              BetKind.LION_BANCO: rules.lion_limits}
    unit = rules.chip_unit
    return {kind: unit * draw(st.integers(-(-limits[kind].minimum // unit),
                                          limits[kind].maximum // unit))
            for kind in kinds}


# --- the settlement, from SPEC's words ----------------------------------------------------------------

def spec_net(kind: BetKind, stake: int, coup: Coup, rules: RuleSet) -> int:
    """B1–B3 and L5 read literally, from the dealt hands."""
    punto = [c.value for c in coup.punto]
    banco = [c.value for c in coup.banco]
    p, b = sum(punto) % 10, sum(banco) % 10
    punto_natural = sum(punto[:2]) % 10 >= 8
    banco_natural = sum(banco[:2]) % 10 >= 8
    if kind is BetKind.PUNTO:  # B1
        return 0 if p == b else stake if p > b else -stake
    if kind is BetKind.BANCO:  # B2
        if p == b:
            return 0
        if p > b:
            return -stake
        if rules.banco_payout is BancoPayout.COMMISSION:
            return stake * (rules.commission.denominator - rules.commission.numerator) \
                // rules.commission.denominator
        return stake // 2 if b == 6 else stake
    if kind is BetKind.EGALITE:  # B3
        return stake * rules.tie_pays if p == b else -stake
    mine, other = (p, b) if kind is BetKind.LION_PUNTO else (b, p)
    my_natural = punto_natural if kind is BetKind.LION_PUNTO else banco_natural
    if my_natural and mine > other:  # L5a
        return stake * rules.lion_natural_pays
    if punto_natural and banco_natural and p == b:  # L5b
        return 0
    fifth_card = len(punto) + len(banco) >= 5
    if not punto_natural and not banco_natural and fifth_card and mine - other >= 4:  # L5c
        return stake * {9: rules.lion_paytable[0], 8: rules.lion_paytable[1],
                        7: rules.lion_paytable[2], 6: rules.lion_paytable[3],
                        5: rules.lion_paytable[4], 4: rules.lion_paytable[5]}[mine - other]
    return -stake  # L5d


@SETTINGS
@given(cards=six_cards, data=st.data())
def test_B_L_settlement_matches_the_spec_and_keeps_its_invariants(
        cards: list[Card], data: st.DataObject) -> None:
    rules = data.draw(rule_sets())
    bets = data.draw(valid_spots(rules))
    coup = deal_coup(iter(cards))
    verify_spot(bets, rules)
    lines = settle_spot(bets, coup, rules)
    # every bet settled once, in L6 order: main bets before any Lion Bonus
    assert [line.bet for line in lines] == [kind for kind in PAYMENT_ORDER if kind in bets]
    positions = [PAYMENT_ORDER.index(line.bet) for line in lines]
    assert positions == sorted(positions)
    lion_seen = False
    for line in lines:
        lion_seen = lion_seen or line.bet.is_lion
        assert not (lion_seen and not line.bet.is_lion), "a main bet paid after the Lion Bonus"
        assert line.stake == bets[line.bet]
        assert line.net == spec_net(line.bet, line.stake, coup, rules)
        assert type(line.net) is int
        assert line.net >= -line.stake  # a bet never costs more than its stake
        if line.outcome is Outcome.PUSH:
            assert line.net == 0 and line.returned == line.stake
        elif line.outcome is Outcome.LOSE:
            assert line.net == -line.stake and line.returned == 0
        else:
            assert line.net >= 0 and line.returned == line.stake + line.net
            assert line.net <= line.stake * max(rules.tie_pays, *rules.lion_paytable,
                                                rules.lion_natural_pays, 1)


@SETTINGS
@given(data=st.data())
def test_M3_verify_spot_accepts_exactly_the_bets_spec_allows(data: st.DataObject) -> None:
    rules = data.draw(rule_sets())
    bets = data.draw(st.dictionaries(st.sampled_from(list(BetKind)),
                                     st.integers(-1_000, 600_000) | st.sampled_from(
                                         [900, 1_000, 5_000, 5_100, 100_000, 100_100, 500_000])))
    limits = {BetKind.PUNTO: rules.punto_limits, BetKind.BANCO: rules.banco_limits,
              BetKind.EGALITE: rules.egalite_limits, BetKind.LION_PUNTO: rules.lion_limits,
              BetKind.LION_BANCO: rules.lion_limits}
    broken = set()
    for kind, stake in bets.items():
        if stake <= 0:
            broken.add("non-positive-stake")
        elif stake % rules.chip_unit:
            broken.add("not-chip-multiple")
        elif stake < limits[kind].minimum:
            broken.add("below-minimum")
        elif stake > limits[kind].maximum:
            broken.add("above-maximum")
    if BetKind.LION_PUNTO in bets and BetKind.LION_BANCO in bets:
        broken.add("both-lion-sides")
    if not rules.allow_punto_and_banco and BetKind.PUNTO in bets and BetKind.BANCO in bets:
        broken.add("punto-and-banco")
    try:
        verify_spot(bets, rules)
    except BetRefused as refused:
        assert refused.code in broken
    else:
        assert not broken


@SETTINGS
@given(cards=six_cards)
def test_R3_R6_a_coup_uses_four_to_six_cards_as_the_spec_deals_them(cards: list[Card]) -> None:
    source = iter(cards)
    coup = deal_coup(source)
    assert 4 <= coup.cards_used <= 6
    assert 2 <= len(coup.punto) <= 3 and 2 <= len(coup.banco) <= 3
    assert len(list(source)) == 6 - coup.cards_used  # it took only what it used
    punto, banco = spec_hands([c.value for c in cards])
    assert ([c.value for c in coup.punto], [c.value for c in coup.banco]) == (punto, banco)
    assert [card for _, card in coup.dealing_order()] == cards[:coup.cards_used]


@settings(deadline=None, max_examples=40)
@given(seed=st.integers(0, 2**32 - 1), decks=st.integers(1, 8), data=st.data())
def test_S1_S3_cards_are_conserved_over_a_whole_shoe(seed: int, decks: int,
                                                      data: st.DataObject) -> None:
    rules = RuleSet(decks=decks, cut_card=data.draw(st.integers(12, 52 * decks - 12)),
                    last_coup=data.draw(st.sampled_from(list(LastCoup))),
                    burn=data.draw(st.booleans()))
    shoe = Shoe.shuffled(rules, rng=random.Random(seed))
    assert shoe.order == Shoe.shuffled(rules, rng=random.Random(seed)).order  # S1: reproducible
    assert composition_of(shoe.order) == full_composition(decks)
    dealt: list[Card] = []
    while not shoe.finished:
        before = shoe.position
        coup = shoe.deal_coup()
        assert 4 <= coup.cards_used <= 6
        assert shoe.position - before == coup.cards_used
        dealt.extend(card for _, card in coup.dealing_order())
        assert sum(shoe.composition()) == shoe.cards_left
    assert (*shoe.burned, *dealt, *shoe.remaining()) == shoe.order
    assert shoe.cut_card_out and shoe.position > shoe.cut_index


spot_actions = st.lists(st.tuples(st.sampled_from(["ann", "bob", "cat"]),
                                   st.sampled_from(list(BetKind)),
                                   st.sampled_from([0, 500, 1_000, 1_050, 2_500, 5_000, 60_000]),
                                   st.booleans()), max_size=12)


@settings(deadline=None, max_examples=60)
@given(seed=st.integers(0, 2**16), rounds=st.lists(spot_actions, min_size=1, max_size=4))
def test_table_bets_follow_the_log_and_the_log_replays(
        seed: int, rounds: list[list[tuple[str, BetKind, int, bool]]]) -> None:
    table = Table(RuleSet(), rng=random.Random(seed))
    for actions in rounds:
        table.open_round()
        start = len(table.log)
        for spot, kind, stake, withdraw in actions:
            log_length = len(table.log)
            try:
                if withdraw:
                    table.withdraw_bet(spot, kind)
                else:
                    table.place_bet(spot, kind, stake)
            except BetRefused:
                assert len(table.log) == log_length  # M3: nothing changes
        rebuilt: dict[str, dict[BetKind, int]] = {}
        for event in table.log[start:]:
            if isinstance(event, BetPlaced):
                rebuilt.setdefault(event.spot, {})[event.bet] = event.total
            elif isinstance(event, BetWithdrawn):
                del rebuilt[event.spot][event.bet]
        assert {s: b for s, b in rebuilt.items() if b} == table.bets
        for spot_bets in table.bets.values():
            verify_spot(spot_bets, table.rules)
        table.close_bets()
        table.deal()
        settled = table.settle()
        assert set(settled.lines) == set(table.bets)
    assert sum(isinstance(e, RoundOpened) for e in table.log) == len(rounds)
    assert replay(table.log, table.rules) == [e for e in table.log if isinstance(e, RoundSettled)]
