"""Issue 20: the session view — ever behind by X, drawdown, stop-loss / stop-win — against an
independent path enumeration (every sequence of coup results, exact fractions) and an
independent Monte Carlo (numpy draws of the one-coup law), plus Wald's identity."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from fractions import Fraction

import numpy as np
import pytest

from puntobanco.analysis.risk import CoupDistribution, coup_distribution
from puntobanco.analysis.sessionrisk import (
    MAX_WORK,
    Walk,
    drawdown_quantile,
    prob_drawdown_at_least,
    prob_ever_behind,
    stop_session,
    zero_count_upper_bound,
)
from puntobanco.cards import full_composition
from puntobanco.errors import PuntoBancoError
from puntobanco.rules import RuleSet

SHOE = full_composition(8)


def dist(bet: str) -> CoupDistribution:
    return coup_distribution(SHOE, RuleSet(), {bet: Fraction(1)})


def paths(d: CoupDistribution, side: str, coups: int
          ) -> Iterator[tuple[Fraction, tuple[Fraction, ...]]]:
    """Every sequence of ``coups`` results of the side, in stakes, with its exact probability."""
    sign = -1 if side == "player" else 1
    outcomes = [(Fraction(sign * v, d.scale), Fraction(w, d.total))
                for v, w in zip(d.values, d.weights, strict=True)]
    for sequence in itertools.product(outcomes, repeat=coups):
        probability = Fraction(1)
        for _, p in sequence:
            probability *= p
        yield probability, tuple(v for v, _ in sequence)


def running(results: tuple[Fraction, ...]) -> list[Fraction]:
    total, out = Fraction(0), []
    for value in results:
        total += value
        out.append(total)
    return out


CASES = [("banco", "player", 6), ("lion-punto", "player", 4), ("lion-banco", "house", 4),
         ("egalite", "player", 6)]


@pytest.mark.parametrize(("bet", "side", "coups"), CASES)
def test_issue20_ever_behind_matches_every_path(bet: str, side: str, coups: int) -> None:
    d = dist(bet)
    walk = Walk.of(d, side=side)
    for amount in (Fraction(3, 2), Fraction(3), Fraction(10)):
        expected = sum((p for p, results in paths(d, side, coups)
                        if min(running(results)) <= -amount), Fraction(0))
        got = prob_ever_behind(walk, float(amount), coups)
        assert got.probability == pytest.approx(float(expected), abs=1e-12)
        assert got.numerical_error < 1e-12


@pytest.mark.parametrize(("bet", "side", "coups"), CASES)
def test_issue20_drawdown_matches_every_path(bet: str, side: str, coups: int) -> None:
    d = dist(bet)
    walk = Walk.of(d, side=side)
    for amount in (Fraction(1), Fraction(5, 2), Fraction(4)):
        expected = Fraction(0)
        for p, results in paths(d, side, coups):
            peak, worst = Fraction(0), Fraction(0)
            for total in running(results):
                peak = max(peak, total)
                worst = max(worst, peak - total)
            if worst >= amount:
                expected += p
        got = prob_drawdown_at_least(walk, float(amount), coups).probability
        assert got == pytest.approx(float(expected), abs=1e-12)


@pytest.mark.parametrize(("bet", "side", "coups"), CASES)
def test_issue20_stop_sessions_match_every_path(bet: str, side: str, coups: int) -> None:
    d = dist(bet)
    walk = Walk.of(d, side=side)
    loss, win = Fraction(2), Fraction(3)
    ends = {"loss": Fraction(0), "win": Fraction(0), "time": Fraction(0)}
    length = result = Fraction(0)
    for p, results in paths(d, side, coups):
        end, stopped_at, final = "time", coups, running(results)[-1]
        for k, total in enumerate(running(results), start=1):
            if total <= -loss or total >= win:
                end, stopped_at, final = ("loss" if total <= -loss else "win"), k, total
                break
        ends[end] += p
        length += p * stopped_at
        result += p * final
    got = stop_session(walk, loss=float(loss), win=float(win), coups=coups)
    assert got.prob_loss == pytest.approx(float(ends["loss"]), abs=1e-12)
    assert got.prob_win == pytest.approx(float(ends["win"]), abs=1e-12)
    assert got.prob_time == pytest.approx(float(ends["time"]), abs=1e-12)
    assert got.expected_length == pytest.approx(float(length), abs=1e-10)
    assert got.expected_result == pytest.approx(float(result), abs=1e-10)


def _monte_carlo(d: CoupDistribution, side: str, coups: int, sessions: int, seed: int
                 ) -> np.ndarray:
    """Running results (stakes) of independent sessions drawn with numpy from the coup law."""
    rng = np.random.default_rng(seed)
    sign = -1 if side == "player" else 1
    values = sign * np.array(d.values, dtype=np.float64) / d.scale
    draws = rng.choice(values, size=(sessions, coups),
                       p=np.array(d.weights, dtype=np.float64) / d.total)
    return np.cumsum(draws, axis=1)


def test_issue20_long_sessions_agree_with_monte_carlo() -> None:
    """500 coups of the Lion Bonus: P(ever 30 behind), P(drawdown ≥ 40), a 25/25 stop session
    — within 4 standard errors of 20,000 simulated sessions."""
    d = dist("lion-punto")
    walk = Walk.of(d, side="player")
    paths_ = _monte_carlo(d, "player", 500, 20_000, seed=11)

    def near(exact: float, sample: np.ndarray) -> None:
        error = max(float(sample.std(ddof=1)) / np.sqrt(sample.size), 1e-9)
        assert abs(float(sample.mean()) - exact) < 4 * error, (exact, float(sample.mean()))

    near(prob_ever_behind(walk, 30, 500).probability, (paths_.min(axis=1) <= -30).astype(float))
    peaks = np.maximum.accumulate(np.maximum(paths_, 0.0), axis=1)
    near(prob_drawdown_at_least(walk, 40, 500).probability,
         ((peaks - paths_).max(axis=1) >= 40).astype(float))
    stops = stop_session(walk, loss=25, win=25, coups=500)
    hit_loss = paths_ <= -25
    hit_win = paths_ >= 25
    first_loss = np.where(hit_loss.any(axis=1), hit_loss.argmax(axis=1), 10**9)
    first_win = np.where(hit_win.any(axis=1), hit_win.argmax(axis=1), 10**9)
    ended_loss = (first_loss < first_win) & (first_loss < 10**9)
    ended_win = (first_win < first_loss) & (first_win < 10**9)
    near(stops.prob_loss, ended_loss.astype(float))
    near(stops.prob_win, ended_win.astype(float))
    lengths = np.minimum(np.minimum(first_loss, first_win) + 1, 500)
    near(stops.expected_length, lengths.astype(float))


@pytest.mark.parametrize("bet", ["punto", "banco", "lion-punto"])
def test_issue20_stop_session_obeys_walds_identity(bet: str) -> None:
    """E[result at the stop] = EV per coup × E[length] (optional stopping, bounded increments)."""
    walk = Walk.of(dist(bet), side="player")
    stops = stop_session(walk, loss=20, win=10, coups=None)
    assert stops.prob_loss + stops.prob_win == pytest.approx(1.0, abs=1e-9)
    assert stops.expected_result == pytest.approx(float(walk.mean) * stops.expected_length,
                                                  rel=1e-8)
    assert stops.length_if_loss is not None and stops.length_if_win is not None


def test_issue20_drawdown_quantile_is_the_smallest_level_with_that_mass() -> None:
    walk = Walk.of(dist("lion-punto"), side="player")
    median = drawdown_quantile(walk, 0.5, 200)
    step = Fraction(1, walk.scale)
    assert prob_drawdown_at_least(walk, float(median + step), 200).probability <= 0.5
    assert prob_drawdown_at_least(walk, float(median), 200).probability > 0.5


def test_issue20_a_zero_count_gives_its_95_percent_upper_bound() -> None:
    """None seen in n trials: the bound b with (1 − b)^n = 5 %, about 3/n (1.5e-4 at 20,000)."""
    bound = zero_count_upper_bound(20_000)
    assert (1 - bound) ** 20_000 == pytest.approx(0.05)
    assert bound == pytest.approx(3 / 20_000, rel=0.01)


def test_issue20_a_chain_too_large_is_one_sentence() -> None:
    walk = Walk.of(dist("lion-punto"), side="house")
    with pytest.raises(PuntoBancoError, match="use --method simulate") as refused:
        prob_ever_behind(walk, 10, 10 * int(MAX_WORK ** 0.5))
    assert refused.value.code == "grid-too-large"
