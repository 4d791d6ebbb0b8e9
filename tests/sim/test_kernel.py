"""The compiled kernels against the rules core, coup by coup, on the same card orders."""

from __future__ import annotations

import random
from fractions import Fraction

import numpy as np
import pytest

from puntobanco.cards import full_composition
from puntobanco.coup import deal_coup
from puntobanco.rules import (
    DRAGON_PAYTABLE,
    BancoPayout,
    Drawing,
    LastCoup,
    RuleSet,
)
from puntobanco.sim import engine, kernel, tables
from puntobanco.sim.rng import chunk_state

from .support import as_values, cards_of_values, hidden_burn, play_with_core

RULE_SETS = [
    RuleSet(),
    RuleSet(decks=8, lion_paytable=DRAGON_PAYTABLE, tie_pays=9),
    RuleSet(decks=1, banco_payout=BancoPayout.COMMISSION, commission=Fraction(1, 20)),
    RuleSet(decks=2, drawing=Drawing.SEED_LITERAL, cut_card=40),
    RuleSet(decks=4, burn=False, last_coup=LastCoup.NONE, cut_card=12),
    RuleSet(decks=3, lion_natural_pays=0, cut_card=100),
]


def test_R3_R6_coup_tables_agree_with_deal_coup_on_random_sequences() -> None:
    """Any first four cards (not only the tables' representatives) and the next two."""
    rng = random.Random(2000)
    for drawing in Drawing:
        spec = engine.ShoeSpec.build(RuleSet(drawing=drawing))
        for _ in range(4000):
            values = [rng.randrange(10) for _ in range(6)]
            coup = deal_coup(iter(cards_of_values(values)), drawing=drawing)
            codes, starts, _ = kernel.play_orders(
                np.array([values * 10], dtype=np.uint8), spec.codes, spec.used, spec.burns,
                False, 59, 0)
            assert int(codes[0]) == tables.code_of(coup)
            assert int(starts[1]) == coup.cards_used


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: f"{r.decks}d-cut{r.cut_card}")
def test_B1_B3_L5_payoff_rows_follow_the_spec(rules: RuleSet) -> None:
    """Each reachable outcome code pays what SPEC's B1–B3 and L5 say, under each rule set."""
    pays = tables.exact_payoffs(rules)
    for code in tables.reachable_codes(rules.drawing):
        kind, totals = divmod(code, 100)
        p, b = divmod(totals, 10)
        punto, banco, egalite, lion_p, lion_b = pays[code]
        assert punto == (1 if p > b else 0 if p == b else -1)  # B1
        if b > p:  # B2
            if rules.banco_payout is BancoPayout.COMMISSION:
                assert banco == 1 - rules.commission
            else:
                assert banco == (Fraction(1, 2) if b == 6 else 1)
        else:
            assert banco == (0 if p == b else -1)
        assert egalite == (rules.tie_pays if p == b else -1)  # B3
        for lion, mine, theirs in ((lion_p, p, b), (lion_b, b, p)):
            if kind == tables.NATURAL:  # L5a, L5b
                expected = rules.lion_natural_pays if mine > theirs else 0 if mine == theirs else -1
            elif kind == tables.DRAWN and mine - theirs >= 4:  # L5c
                expected = rules.lion_paytable[9 - (mine - theirs)]
            else:  # L5d: lost, non-natural tie, won by 1–3, or won with no card drawn
                expected = -1
            assert lion == expected, (code, lion, expected)


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: f"{r.decks}d-cut{r.cut_card}")
def test_S1_S3_kernel_agrees_with_shoe_coup_by_coup(rules: RuleSet) -> None:
    """Random card orders: same coups, same start positions, same settlement, same shoe end."""
    spec = engine.ShoeSpec.build(rules)
    rng = random.Random(rules.decks * 1000 + rules.cut_card)
    orders = []
    for _ in range(12):
        values = as_values(spec.start)
        rng.shuffle(values)
        orders.append(values)
    codes, starts, offsets = kernel.play_orders(np.array(orders, dtype=np.uint8), spec.codes,
                                                spec.used, spec.burns, rules.burn,
                                                spec.cut_index, spec.extra)
    stake = tables.unit_stake(rules)
    for s, values in enumerate(orders):
        core, _ = play_with_core(values, rules)
        mine = range(int(offsets[s]), int(offsets[s + 1]))
        assert [int(codes[i]) for i in mine] == [c.code for c in core]
        assert [int(starts[i]) for i in mine] == [c.start for c in core]
        for i, c in zip(mine, core, strict=True):
            assert tuple(spec.exact_pays[int(codes[i])][k] * stake for k in range(5)) == c.nets
            assert tuple(spec.pays[int(codes[i])] * stake) == c.nets


def test_S3_last_coup_starts_after_cut_card_and_uses_no_padding() -> None:
    """A shoe whose cut card comes out in the last possible coup still ends inside the shoe."""
    rules = RuleSet(decks=1, cut_card=12)
    spec = engine.ShoeSpec.build(rules)
    # A 3 turned burns three; then every coup takes six cards (both sides hold 0 and draw 9),
    # so the eighth coup starts right at the cut card and the one more coup ends the shoe.
    values = [3, 0, 0, 0] + [0, 0, 0, 0, 9, 9] * 8
    assert len(values) == 52 and spec.cut_index == 40
    core, _ = play_with_core(values, rules)
    assert [c.start for c in core][-2:] == [40, 46]
    codes, starts, _ = kernel.play_orders(np.array([values], dtype=np.uint8), spec.codes,
                                          spec.used, spec.burns, True, spec.cut_index, 1)
    assert [int(c) for c in codes] == [c.code for c in core]
    assert [int(s) for s in starts] == [c.start for c in core]
    assert int(starts[-1]) + 6 == 52


@pytest.mark.parametrize("rules", RULE_SETS[:4], ids=lambda r: f"{r.decks}d")
def test_S1_S3_simulate_chunk_plays_the_shoes_the_core_plays(rules: RuleSet) -> None:
    """The fast kernel's statistics equal the core's coup-by-coup results on its own shoes."""
    spec = engine.ShoeSpec.build(rules)
    shoes = 40
    orders = kernel.shuffled_orders(shoes, chunk_state(5, 3), spec.start, spec.cut_index)
    chunk = engine.simulate_chunk(spec, seed=5, chunk=3, shoes=shoes)
    hist = np.zeros(tables.N_CODES, dtype=np.int64)
    stake = tables.unit_stake(rules)
    returns, squares, cross, per_shoe = np.zeros(5), np.zeros(5), np.zeros(5), []
    for order in orders:
        core, _ = play_with_core(as_values(order), rules)
        for c in core:
            hist[c.code] += 1
        shoe_return = np.array([sum(c.nets[k] for c in core) / stake for k in range(5)])
        returns += shoe_return
        squares += shoe_return**2
        cross += shoe_return * len(core)
        per_shoe.append(len(core))
    assert (chunk.hist == hist).all()
    assert chunk.coups_per_shoe.sum() == shoes
    assert sorted(np.repeat(np.arange(spec.max_coups), chunk.coups_per_shoe)) == sorted(per_shoe)
    np.testing.assert_allclose(chunk.shoe_sums[:, 0], returns, rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(chunk.shoe_sums[:, 1], squares, rtol=1e-12)
    np.testing.assert_allclose(chunk.shoe_sums[:, 2], cross, rtol=1e-12, atol=1e-9)


def test_S2_record_chunk_compositions_and_hidden_burn_match_the_shoe() -> None:
    """The counting kernel's cards-left before each coup and face-down burn, against Shoe."""
    rules = RuleSet(decks=2)
    spec = engine.ShoeSpec.build(rules)
    shoes = 15
    orders = kernel.shuffled_orders(shoes, chunk_state(9, 0), spec.start, spec.cut_index)
    codes, comps, offsets, hidden = kernel.record_chunk(
        shoes, chunk_state(9, 0), spec.start, spec.codes, spec.used, spec.burns, True,
        spec.cut_index, spec.extra, spec.max_coups)
    for s, order in enumerate(orders):
        core, burned = play_with_core(as_values(order), rules)
        rows = range(int(offsets[s]), int(offsets[s + 1]))
        assert [int(codes[i]) for i in rows] == [c.code for c in core]
        assert [tuple(int(x) for x in comps[i]) for i in rows] == [c.composition for c in core]
        assert tuple(int(x) for x in hidden[s]) == hidden_burn(burned)


def test_record_and_simulate_kernels_share_one_stream() -> None:
    """Same seed and chunk: the counting kernel plays the very shoes the fast kernel plays."""
    spec = engine.ShoeSpec.build(RuleSet())
    chunk = engine.simulate_chunk(spec, seed=77, chunk=1, shoes=500)
    codes, _, offsets, _ = kernel.record_chunk(500, chunk_state(77, 1), spec.start, spec.codes,
                                               spec.used, spec.burns, True, spec.cut_index,
                                               spec.extra, spec.max_coups)
    assert (np.bincount(codes, minlength=tables.N_CODES) == chunk.hist).all()
    assert (np.bincount(np.diff(offsets), minlength=spec.max_coups) == chunk.coups_per_shoe).all()


def test_S1_shoe_values_hold_the_full_composition() -> None:
    for decks in (1, 6, 8):
        values = tables.shoe_values(full_composition(decks))
        assert tuple(np.bincount(values, minlength=10)) == full_composition(decks)
