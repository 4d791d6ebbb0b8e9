"""Issue 13, ``risk``: the house's result over N coups — exact FFT convolution against exact
``Fraction`` convolution, the per-unit figures against the PAR sheet, the P(behind) crossings,
and the whole-shoe session simulation against the exact distribution."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from puntobanco.analysis import BET_NAMES, analyse
from puntobanco.analysis.risk import (
    REBOUND_WINDOW,
    coup_distribution,
    coups_until_safe,
    exact_session_fractions,
    parse_mix,
    prob_behind,
    risk_summary,
    session_distribution,
    tilted_prob_behind,
)
from puntobanco.cards import full_composition
from puntobanco.errors import PuntoBancoError
from puntobanco.rules import BancoPayout, Drawing, RuleSet
from puntobanco.sim import tables
from puntobanco.sim.sessions import house_by_code, simulate_sessions

EIGHT = full_composition(8)
MIXES = [
    ("lion_punto", RuleSet()),
    ("punto=0.9,lion_punto=0.1", RuleSet()),
    ("banco", RuleSet(banco_payout=BancoPayout.COMMISSION)),  # grid of 1/20
    ("banco=1,egalite=1,lion_banco=2", RuleSet(tie_pays=9)),
]


@pytest.mark.parametrize(("mix", "rules"), MIXES)
def test_issue13_fft_power_equals_exact_fraction_convolution(mix: str, rules: RuleSet) -> None:
    """Item 1: the FFT distribution of N coups is the exact N-fold convolution (N = 1 … 5)."""
    dist = coup_distribution(full_composition(1), rules, parse_mix(mix))
    for coups in range(1, 6):
        exact = exact_session_fractions(dist, coups)
        session = session_distribution(dist, coups)
        dense = np.zeros_like(session.mass)
        for value, probability in exact.items():
            dense[value - session.low] = float(probability)
        assert np.abs(session.mass - dense).max() < 1e-13, coups
        behind = float(sum(p for v, p in exact.items() if v < 0))
        assert session.prob_house_behind == pytest.approx(behind, abs=1e-13)
        cumulative = Fraction(0)
        for value, probability in exact.items():  # the median, from the exact CDF
            cumulative += probability
            if cumulative >= Fraction(1, 2):
                assert session.quantile(0.5) == Fraction(value, dist.scale)
                break


@pytest.mark.parametrize("bet", BET_NAMES)
def test_issue13_ev_and_sd_per_unit_are_the_par_sheets(bet: str) -> None:
    """EV per unit (house side) and SD per unit equal the exact PAR sheet's, for every bet."""
    dist = coup_distribution(EIGHT, RuleSet(), {bet: Fraction(1)})
    sheet = analyse(EIGHT, RuleSet()).bets[bet]
    assert dist.mean == -sheet.ev
    assert dist.variance == sheet.variance


def test_issue13_long_session_keeps_its_moments() -> None:
    """Tail check at N = 2,000 on the skewed Lion Bonus: mass 1, mean N·μ, variance N·σ². The
    FFT's round-off (≈1e-16 a point) weighs most in the variance, by the square of the distance
    from the mean over the 40,000-point grid; it stays far below the quantiles' resolution."""
    dist = coup_distribution(EIGHT, RuleSet(), {"lion_banco": Fraction(1)})
    session = session_distribution(dist, 2000)
    x = session.grid / session.scale
    mean = float((session.mass * x).sum())
    variance = float((session.mass * (x - mean) ** 2).sum())
    assert session.mass.sum() == pytest.approx(1.0, abs=1e-12)
    assert mean == pytest.approx(2000 * float(dist.mean), rel=1e-10)
    assert variance == pytest.approx(2000 * float(dist.variance), rel=1e-6)
    assert session.numerical_error < 1e-10


def test_issue13_crossing_is_the_first_safe_session_length() -> None:
    """"Behind with < 5 % from N": P(N−1) ≥ 5 %, and P < 5 % from N over the checked window."""
    dist = coup_distribution(EIGHT, RuleSet(), {"lion_punto": Fraction(1)})
    n = coups_until_safe(dist, 0.05)
    assert n is not None
    assert prob_behind(dist, n - 1) >= 0.05
    assert all(prob_behind(dist, m) < 0.05 for m in range(n, n + REBOUND_WINDOW + 1))
    # R6 read literally gives Punto the edge: the house is never safe
    no_edge = coup_distribution(EIGHT, RuleSet(drawing=Drawing.SEED_LITERAL), {"punto": Fraction(1)})
    assert no_edge.mean < 0 and coups_until_safe(no_edge, 0.05) is None


def test_issue13_summary_fields_and_order() -> None:
    dist = coup_distribution(EIGHT, RuleSet(), {"egalite": Fraction(1)})
    summary, _ = risk_summary(dist, 500, bet="egalite", stake=10)
    data = summary.to_dict()
    assert {"bet", "coups", "ev_per_unit", "sd_per_unit", "volatility_index", "quantiles",
            "prob_house_behind", "method"} <= set(data)
    q = data["quantiles"]
    assert list(q) == ["p01", "p05", "p50", "p95", "p99"]
    assert q["p01"] <= q["p05"] <= q["p50"] <= q["p95"] <= q["p99"]
    assert all(v % 10 == 0 for v in q.values())  # Égalité results are whole units × the stake
    assert data["volatility_index"] == pytest.approx(1.6448536 * data["sd_per_unit"])
    assert data["method"] == "exact-convolution"


@pytest.mark.parametrize("text", ["", "craps", "punto=0", "punto=-1", "punto,punto", "punto=x"])
def test_issue13_bad_mix_is_one_sentence(text: str) -> None:
    with pytest.raises(PuntoBancoError) as caught:
        parse_mix(text)
    assert str(caught.value).endswith(".") and "\n" not in str(caught.value)


def test_issue13_both_spellings_name_the_same_bet() -> None:
    """Bet names are read as ``lion-punto`` or ``lion_punto`` (issue 12's one spelling)."""
    assert parse_mix("lion-punto=1,punto=1") == parse_mix("LION_PUNTO=1, punto=1")


def test_issue13_simulated_sessions_agree_with_the_exact_distribution() -> None:
    """Whole shoes (S1–S3) against independent coups: P(behind) and the median after 200 coups
    of the Lion Bonus within 4.5 standard errors; the same seed gives the same sessions."""
    rules = RuleSet(decks=8)
    shares = {"lion_punto": Fraction(1)}
    run = simulate_sessions(rules, shares, coups=200, sessions=3000, seed=13, checkpoints=(50,))
    again = simulate_sessions(rules, shares, coups=200, sessions=3000, seed=13, checkpoints=(50,))
    assert np.array_equal(run.results, again.results)
    dist = coup_distribution(EIGHT, rules, shares)
    behind, errors = run.prob_behind()
    for point, p, error in zip(run.checkpoints, behind, errors, strict=True):
        assert abs(p - prob_behind(dist, point)) < 4.5 * max(error, 1e-3)
    final = run.final() / run.scale
    sd = math.sqrt(200 * float(dist.variance))
    assert abs(final.mean() - 200 * float(dist.mean)) < 4.5 * sd / math.sqrt(3000)


def test_issue13_simulation_grid_matches_the_exact_support() -> None:
    """The simulator's per-code results (from ``settle_bet``) are the exact engine's values."""
    rules = RuleSet(banco_payout=BancoPayout.COMMISSION)
    shares = parse_mix("banco=3,lion_banco=1")
    house, scale = house_by_code(rules, shares)
    dist = coup_distribution(EIGHT, rules, shares)
    reachable = tables.reachable_codes(rules.drawing)
    assert scale == dist.scale
    assert {int(house[c]) for c in reachable} == set(dist.values)


def _binomial_tail(n: int, p: float, least: int) -> float:
    logs = [math.lgamma(n + 1) - math.lgamma(t + 1) - math.lgamma(n - t + 1) + t * math.log(p)
            + (n - t) * math.log1p(-p) for t in range(least, n + 1)]
    top = max(logs)
    return math.exp(top) * sum(math.exp(x - top) for x in logs)


@pytest.mark.parametrize("coups", [100, 5000, 20000])
def test_issue13_tilted_tail_keeps_its_relative_precision(coups: int) -> None:
    """B3: the house is behind on Égalité exactly when more than N/9 coups tie, a binomial tail;
    the tilted FFT gives it to 1e-9 relative even at 1e-14, where the plain FFT's round-off
    (≈1e-11 there) is all it has."""
    dist = coup_distribution(EIGHT, RuleSet(), {"egalite": Fraction(1)})
    tie = dist.weights[0] / dist.total
    exact = _binomial_tail(coups, tie, coups // 9 + 1)
    assert tilted_prob_behind(dist, coups) == pytest.approx(exact, rel=1e-9)
    if coups == 20000:
        assert exact < 1e-13 and abs(prob_behind(dist, coups) - exact) > 100 * exact
        summary, _ = risk_summary(dist, coups, bet="egalite")
        assert summary.prob_house_behind == pytest.approx(exact, rel=1e-9)
        assert "tilting" in summary.method
