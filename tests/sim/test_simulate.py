"""Seeded runs: reproducible whatever the threads, and in agreement with the exact analysis."""

from __future__ import annotations

import math
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
        # the small-run floor (coups as if independent) does not widen a large run's interval
        assert stats.std_error < 1.01 * stats.std_dev / math.sqrt(run.coups)
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


def test_few_shoes_give_an_interval_no_narrower_than_independent_coups() -> None:
    """10 one-deck shoes, 77 coups: the per-shoe spread (9 degrees of freedom) came out at a
    quarter of the real one, and Punto read +20.8 % in [+15.3 %, +26.3 %], z = +7.8."""
    run = simulate(RuleSet(decks=1), shoes=10, seed=1, threads=1)
    assert run.coups == 77
    exact = exact_evs(run)
    stats = bet_statistics(run, exact)
    punto = stats[0]
    assert punto.ci95[0] < exact["punto"] < punto.ci95[1]
    assert punto.z is not None and abs(punto.z) < 2.5
    from puntobanco.sim.simulate import t_quantile

    for bet in stats:
        independent = bet.std_dev * math.sqrt(run.coups / (run.coups - 1)) / math.sqrt(run.coups)
        assert bet.std_error >= independent * (1 - 1e-12), bet.name
        assert (bet.ci95[1] - bet.ci95[0]) / 2 == pytest.approx(t_quantile(9) * bet.std_error)


def test_few_shoes_with_the_exact_spread_use_it_as_the_floor() -> None:
    """A handful of coups understates a long shot's spread; the exact σ bounds it from below."""
    from puntobanco.sim.simulate import exact_std_devs

    run = simulate(RuleSet(decks=1), shoes=10, seed=1, threads=1)
    sigma = exact_std_devs(run)
    assert sigma["lion-banco"] == pytest.approx(
        analyse(full_composition(1), RuleSet(decks=1)).bets["lion-banco"].std_dev)
    for bet in bet_statistics(run, exact_evs(run), exact_std_dev=sigma):
        assert bet.std_error >= sigma[bet.name] / math.sqrt(run.coups) * (1 - 1e-12)


def test_intervals_of_ten_shoe_runs_cover_the_exact_ev_at_least_93_percent_of_the_time() -> None:
    """200 runs of 10 one-deck shoes: the normal interval on 9 degrees of freedom covered
    86–90 % of the time; Student's t with the independent-coups floor covers 96 %."""
    rules = RuleSet(decks=1)
    exact = exact_evs(simulate(rules, shoes=2, seed=0, threads=1))
    covered = np.zeros(5)
    for seed in range(200):
        run = simulate(rules, shoes=10, seed=seed, threads=1)
        for k, bet in enumerate(bet_statistics(run, exact)):
            covered[k] += bet.ci95[0] <= exact[bet.name] <= bet.ci95[1]
    assert (covered / 200 >= 0.93).all(), covered / 200


def test_student_t_quantiles() -> None:
    from puntobanco.sim.simulate import Z95, t_quantile

    table = {1: 12.706205, 2: 4.302653, 5: 2.570582, 9: 2.262157, 29: 2.045230, 99: 1.984217,
             100: 1.983972, 1000: 1.962339}
    for df, quantile in table.items():
        assert t_quantile(df) == pytest.approx(quantile, abs=2e-6), df
    assert t_quantile(10**9) == pytest.approx(Z95, abs=1e-8)
    assert all(t_quantile(df) > t_quantile(df + 1) for df in range(1, 200))  # no seam at 100
