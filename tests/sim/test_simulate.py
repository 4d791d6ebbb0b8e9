"""Seeded runs: reproducible whatever the threads, and in agreement with the exact analysis."""

from __future__ import annotations

import statistics
from fractions import Fraction

import numpy as np
import pytest

from puntobanco.analysis import analyse
from puntobanco.cards import full_composition
from puntobanco.errors import PuntoBancoError
from puntobanco.rules import DRAGON_PAYTABLE, BancoPayout, RuleSet
from puntobanco.sim import bet_statistics, chunk_plan, simulate
from puntobanco.sim.engine import ShoeSpec
from puntobanco.sim.simulate import coups_per_shoe, exact_evs


def test_S1_same_seed_same_result_on_one_or_two_threads() -> None:
    one = simulate(RuleSet(), shoes=25_000, seed=31, threads=1)
    two = simulate(RuleSet(), shoes=25_000, seed=31, threads=2)
    assert one.coups == two.coups
    assert np.array_equal(one.totals.hist, two.totals.hist)
    assert np.array_equal(one.totals.shoe_sums, two.totals.shoe_sums)  # bit for bit
    assert np.array_equal(one.totals.coups_per_shoe, two.totals.coups_per_shoe)
    assert bet_statistics(one) == bet_statistics(two)


def test_S1_another_seed_plays_other_shoes() -> None:
    one = simulate(RuleSet(), shoes=2_000, seed=1, threads=1)
    other = simulate(RuleSet(), shoes=2_000, seed=2, threads=1)
    assert not np.array_equal(one.totals.hist, other.totals.hist)


def test_chunks_depend_on_shoes_not_on_workers() -> None:
    assert chunk_plan(10_000) == [(0, 10_000)]
    assert chunk_plan(10_001) == [(0, 10_000), (1, 1)]
    with pytest.raises(PuntoBancoError, match="at least one shoe"):
        chunk_plan(0)


@pytest.mark.parametrize(("rules", "shoes"), [
    (RuleSet(), 150_000),
    (RuleSet(decks=8, lion_paytable=DRAGON_PAYTABLE, tie_pays=9), 100_000),
    (RuleSet(decks=1, banco_payout=BancoPayout.COMMISSION, commission=Fraction(1, 20)), 300_000),
], ids=["6-decks", "8-decks-dragon-tie-9", "1-deck-commission"])
def test_R1_B1_B3_L5_simulated_means_within_4_standard_errors_of_exact_ev(
        rules: RuleSet, shoes: int) -> None:
    """Every bet's mean return per coup lies within 4 standard errors of the full shoe's EV."""
    run = simulate(rules, shoes=shoes, seed=2024)
    exact = exact_evs(run)
    sheet = analyse(full_composition(rules.decks), rules)
    for stats in bet_statistics(run, exact):
        assert stats.exact_ev == pytest.approx(float(sheet.bets[stats.name].ev), abs=1e-15)
        assert stats.z is not None and abs(stats.z) < 4, (stats.name, stats.mean, stats.exact_ev)
        assert stats.ci95[0] < stats.mean < stats.ci95[1]
        # the per-coup standard deviation agrees with the exact one to a few parts in a thousand
        assert stats.std_dev == pytest.approx(sheet.bets[stats.name].std_dev, rel=0.01)


def test_standard_error_matches_the_spread_of_independent_runs() -> None:
    """The reported standard error (shoes as the unit) is the real spread of the mean."""
    runs = [simulate(RuleSet(decks=1), shoes=3_000, seed=seed, threads=1) for seed in range(40)]
    for k in (0, 3):  # Punto and the Lion Bonus on Punto
        means = [bet_statistics(run)[k].mean for run in runs]
        reported = statistics.mean(bet_statistics(run)[k].std_error for run in runs)
        assert 0.7 < statistics.stdev(means) / reported < 1.4


def test_S3_coups_per_shoe() -> None:
    run = simulate(RuleSet(), shoes=5_000, seed=8, threads=1)
    per_shoe = coups_per_shoe(run)
    assert 55 < per_shoe["mean"] < 66
    assert per_shoe["min"] <= per_shoe["mean"] <= per_shoe["max"] <= ShoeSpec.build(
        RuleSet()).max_coups


def test_S3_cut_card_deeper_means_fewer_coups() -> None:
    shallow = simulate(RuleSet(cut_card=14), shoes=2_000, seed=8, threads=1)
    deep = simulate(RuleSet(cut_card=100), shoes=2_000, seed=8, threads=1)
    assert coups_per_shoe(deep)["mean"] < coups_per_shoe(shallow)["mean"] - 15


def test_hit_frequencies_agree_with_exact_analysis() -> None:
    rules = RuleSet()
    run = simulate(rules, shoes=50_000, seed=99)
    sheet = analyse(full_composition(6), rules)
    for stats in bet_statistics(run):
        assert stats.win_frequency == pytest.approx(sheet.bets[stats.name].hit_frequency,
                                                    abs=0.003)


def test_a_tiny_shoe_with_a_deep_cut_card_is_refused() -> None:
    with pytest.raises(PuntoBancoError, match="too small"):
        ShoeSpec.build(RuleSet(decks=1, cut_card=40))
