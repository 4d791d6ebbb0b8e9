"""Issue 20 (reports): the 95 % band of the house's win and the observed win's tail, right for
the skewed bets (``server/holdband.py``), checked against

* an exact convolution by hand (``Fraction`` dictionaries, coup by coup) for a few coups;
* an **independent Monte Carlo** of the same stakes: six cards drawn without replacement from a
  full shoe, dealt by the core's drawing tables (``sim.tables.coup_tables``: every case dealt by
  ``coup.deal_coup``) and settled by the core (``sim.tables.exact_payoffs``: ``settle_bet``) —
  neither the class counts nor the settlement table the band is computed from;
* the normal band it replaces, which the Monte Carlo rejects at shoe level.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puntobanco.analysis.exact import class_counts
from puntobanco.analysis.tables import settlement_table
from puntobanco.cards import full_composition
from puntobanco.rules import RuleSet
from puntobanco.server import hold, holdband
from puntobanco.sim.tables import coup_tables, exact_payoffs, index

RULES = RuleSet()
Z95 = 1.959964


def _monte_carlo(stakes: Mapping[tuple[int, ...], int], rules: RuleSet, runs: int,
                 seed: int) -> npt.NDArray[np.float64]:
    """``runs`` draws of the house's win over the coups of ``stakes`` (cents), each coup six
    cards off the top of a fresh full shoe."""
    rng = np.random.default_rng(seed)
    vectors = np.array([v for v, n in stakes.items() for _ in range(n)], dtype=np.float64)
    coups = len(vectors)
    shoe = np.array(full_composition(rules.decks), dtype=np.int32)
    lookup = coup_tables(rules).codes
    assert index(1, 2, 3, 4) == 1234  # the lookup's layout, as used below
    pays = -np.array([[float(p) for p in row] for row in exact_payoffs(rules)]) @ vectors.T
    wins = []
    chunk = max(1, 400_000 // coups)
    for first in range(0, runs, chunk):
        rows = min(chunk, runs - first) * coups
        left = np.tile(shoe, (rows, 1))
        cards = np.empty((rows, 6), dtype=np.int64)
        for position in range(6):
            cumulative = np.cumsum(left, axis=1)
            pick = (rng.random(rows) * cumulative[:, -1]).astype(np.int32)
            value = (cumulative <= pick[:, None]).sum(axis=1)
            cards[:, position] = value
            left[np.arange(rows), value] -= 1
        punto = (cards[:, 0] + cards[:, 2]) % 10
        banco = (cards[:, 1] + cards[:, 3]) % 10
        codes = lookup[1000 * punto + 100 * banco + 10 * cards[:, 4] + cards[:, 5]]
        # coup i of a run has the stakes of vectors[i]: its win is pays[code, i]
        per_coup = pays[codes, np.tile(np.arange(coups), rows // coups)]
        wins.append(per_coup.reshape(-1, coups).sum(axis=1))
    return np.concatenate(wins)


def _bracket(sample: npt.NDArray[np.float64], q: float) -> tuple[float, float]:
    """A 99.9 % confidence interval of the q-quantile from the order statistics."""
    ordered = np.sort(sample)
    n = len(ordered)
    spread = 3.3 * math.sqrt(n * q * (1 - q))
    return (float(ordered[max(0, math.floor(n * q - spread))]),
            float(ordered[min(n - 1, math.ceil(n * q + spread))]))


def _shoe_stakes() -> dict[tuple[int, ...], int]:
    """A shoe of 72 coups as a busy table bets it: Banco and Punto, a Lion Bonus on most
    coups, an Égalité now and then (stakes in cents, 1 € chips)."""
    rng = np.random.default_rng(5)
    stakes: dict[tuple[int, ...], int] = {}
    for _ in range(72):
        vector = [int(rng.choice([0, 2000, 5000])), int(rng.choice([2000, 5000, 10000])),
                  int(rng.choice([0, 0, 0, 1000])), 0, 0]
        vector[3 + int(rng.integers(2))] = int(rng.choice([0, 1000, 2500]))
        stakes[tuple(vector)] = stakes.get(tuple(vector), 0) + 1
    return stakes


def _normal(stakes: Mapping[tuple[int, ...], int], rules: RuleSet) -> tuple[float, float]:
    exact = hold.theory(rules)
    mean = sum(n * sum(v[k] * float(exact.edge[kind]) for k, kind in enumerate(hold.KINDS))
               for v, n in stakes.items())
    var = sum(n * sum(v[j] * v[k] * float(exact.cov[a, b]) for j, a in enumerate(hold.KINDS)
                      for k, b in enumerate(hold.KINDS)) for v, n in stakes.items())
    return mean, math.sqrt(var)


def test_issue20_shoe_band_and_tail_agree_with_an_independent_monte_carlo() -> None:
    stakes = _shoe_stakes()
    sample = _monte_carlo(stakes, RULES, runs=30_000, seed=20)
    mean, sd = _normal(stakes, RULES)
    observed = mean + 2.6 * sd  # a good shoe for the house: the normal tail says 0.0047
    band = holdband.win_band([(RULES, stakes)], observed=observed)
    assert band is not None and band.method == "exact"
    low, high = _bracket(sample, 0.025), _bracket(sample, 0.975)
    assert low[0] <= band.low <= low[1] and high[0] <= band.high <= high[1]
    # the normal band is not: the win is skewed (rare big losses to the Lion Bonus)
    assert not high[0] <= mean + Z95 * sd <= high[1] or not low[0] <= mean - Z95 * sd <= low[1]
    found = float((sample >= observed).mean())
    error = math.sqrt(found * (1 - found) / len(sample))
    assert band.tail is not None and abs(band.tail - found) <= 4 * error
    normal_tail = 0.5 * math.erfc(2.6 / math.sqrt(2))
    assert abs(normal_tail - found) > 4 * error


def test_issue20_per_bet_band_of_the_lion_bonus_matches_the_monte_carlo() -> None:
    stakes = {(0, 0, 0, 0, 2500): 60}  # Lion Bonus on Banco alone, 25 € a coup: 20:1 on a 9
    band = holdband.win_band([(RULES, stakes)], observed=-30_000, kind=4)
    sample = _monte_carlo(stakes, RULES, runs=30_000, seed=7)
    low, high = _bracket(sample, 0.025), _bracket(sample, 0.975)
    assert band is not None and low[0] <= band.low <= low[1] and high[0] <= band.high <= high[1]
    found = float((sample <= -30_000).mean())
    assert band.tail is not None
    assert abs(band.tail - found) <= 4 * math.sqrt(found * (1 - found) / len(sample))


def _by_hand(stakes: Mapping[tuple[int, ...], int], rules: RuleSet) -> dict[Fraction, Fraction]:
    """The exact distribution of the house's win, convolving coup by coup in Fractions."""
    counts = class_counts(full_composition(rules.decks), rules.drawing)
    bets = settlement_table(rules).bets
    total = sum(counts)
    law: dict[tuple[int, ...], dict[Fraction, Fraction]] = {}
    for vector in stakes:
        one: dict[Fraction, Fraction] = {}
        for c, count in enumerate(counts):
            if count:
                win = -sum((s * bet.pays_of_class(c) for s, bet in zip(vector, bets, strict=True)),
                           Fraction())
                one[win] = one.get(win, Fraction()) + Fraction(count, total)
        law[vector] = one
    dist = {Fraction(): Fraction(1)}
    for vector, n in stakes.items():
        for _ in range(n):
            step: dict[Fraction, Fraction] = {}
            for a, p in dist.items():
                for b, q in law[vector].items():
                    step[a + b] = step.get(a + b, Fraction()) + p * q
            dist = step
    return dist


def _quantile(dist: Mapping[Fraction, Fraction], q: float) -> float:
    running = Fraction()
    for value in sorted(dist):
        running += dist[value]
        if running >= Fraction(q):
            return float(value)
    raise AssertionError


@pytest.mark.parametrize("rules", [RULES, RuleSet(tie_pays=9)])
def test_issue20_convolution_equals_the_exact_distribution_of_a_few_coups(rules: RuleSet) -> None:
    stakes = {(1000, 0, 0, 500, 0): 2, (0, 2000, 500, 0, 300): 1, (0, 300, 0, 0, 0): 1}
    dist = _by_hand(stakes, rules)
    band = holdband.win_band([(rules, stakes)], observed=4100)
    assert band is not None and band.method == "exact"
    assert (band.low, band.high) == (_quantile(dist, 0.025), _quantile(dist, 0.975))
    assert band.tail == pytest.approx(float(sum(p for v, p in dist.items() if v >= 4100)),
                                      abs=1e-12)
    below = holdband.win_band([(rules, stakes)], observed=-1000)
    assert below is not None and below.tail == pytest.approx(
        float(sum(p for v, p in dist.items() if v <= -1000)), abs=1e-12)


def test_issue20_window_coarse_lattice_and_saddlepoint_agree_with_the_monte_carlo(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Many coups with odd stakes (1 cent chips): the convolution takes a Chernoff window and a
    coarser lattice, the saddlepoint takes over beyond CONVOLUTION_COUPS; both match."""
    stakes = {(1001, 2003, 0, 0, 0): 150, (0, 5007, 101, 0, 233): 150,
              (2501, 0, 0, 999, 0): 150}
    saddle = holdband.win_band([(RULES, stakes)], observed=0)
    assert saddle is not None and saddle.method == "saddlepoint"
    sample = _monte_carlo(stakes, RULES, runs=6_000, seed=11)
    low, high = _bracket(sample, 0.025), _bracket(sample, 0.975)
    assert low[0] <= saddle.low <= low[1] and high[0] <= saddle.high <= high[1]
    found = float((sample <= 0).mean())
    assert saddle.tail is not None
    assert abs(saddle.tail - found) <= 4 * math.sqrt(found * (1 - found) / len(sample))
    # the same 450 coups convolved (a window and a coarser lattice): within 0.5 % of the width
    monkeypatch.setattr(holdband, "CONVOLUTION_COUPS", 450)
    conv = holdband.win_band([(RULES, stakes)], observed=0)
    assert conv is not None and conv.method == "lattice"
    assert low[0] <= conv.low <= low[1] and high[0] <= conv.high <= high[1]
    width = conv.high - conv.low
    assert abs(saddle.low - conv.low) < 0.005 * width
    assert abs(saddle.high - conv.high) < 0.005 * width
    assert saddle.tail == pytest.approx(conv.tail, abs=2e-3)


def test_issue20_nothing_staked_has_no_band() -> None:
    assert holdband.win_band([(RULES, {(0, 0, 0, 0, 0): 3})]) is None
    assert holdband.win_band([(RULES, {(1000, 0, 0, 0, 0): 3})], kind=1) is None


def test_issue20_cumulative_bands_convolve_then_follow_the_saddlepoint() -> None:
    """A chart's cumulative band: the prefix's own convolution up to CONVOLUTION_COUPS coups,
    then Cornish–Fisher with the exact cumulants, within 0.5 % of the band's width of the
    saddlepoint of the same prefix (Lion-heavy shoes of 72 coups)."""
    rng = np.random.default_rng(4)
    shoes = []
    for _ in range(6):
        stakes: dict[tuple[int, ...], int] = {}
        for _ in range(72):
            vector = (int(rng.choice([0, 1000, 5000])), int(rng.choice([0, 2000, 10000])),
                      int(rng.choice([0, 0, 500])), 0, int(rng.choice([0, 1000, 2500, 10000])))
            stakes[vector] = stakes.get(vector, 0) + 1
        shoes.append([(RULES, stakes)])
    bands = holdband.cumulative_bands(shoes)
    for count, band in enumerate(bands, start=1):
        prefix = [part for shoe in shoes[:count] for part in shoe]
        alone = holdband.win_band(prefix)
        assert band is not None and alone is not None
        if 72 * count <= holdband.CONVOLUTION_COUPS:
            assert band == (alone.low, alone.high)
        else:
            assert alone.method == "saddlepoint"
            width = alone.high - alone.low
            assert abs(band[0] - alone.low) < 0.005 * width, count
            assert abs(band[1] - alone.high) < 0.005 * width, count
    assert holdband.cumulative_bands([[(RULES, {(0, 0, 0, 0, 0): 2})]]) == [None]


@settings(max_examples=40, deadline=None)
@given(st.dictionaries(st.tuples(*(st.sampled_from([0, 0, 100, 500, 2000, 123_456_700])
                                   for _ in range(5))),
                       st.integers(1, 150), min_size=1, max_size=6),
       st.integers(-10**9, 10**9), st.booleans(), st.booleans())
def test_issue20_any_stakes_give_an_ordered_band_inside_the_range_and_a_probability(
        stakes: dict[tuple[int, ...], int], observed: int, saddle: bool, two_rules: bool) -> None:
    """Any stakes, either method, one or two rule sets (Égalité 8:1 and 9:1 in one period)."""
    parts = [(RULES, stakes), (RuleSet(tie_pays=9), stakes)] if two_rules else [(RULES, stakes)]
    forced = holdband.CONVOLUTION_COUPS
    try:
        if saddle:
            holdband.CONVOLUTION_COUPS = 0
        band = holdband.win_band(parts, observed=observed)
    finally:
        holdband.CONVOLUTION_COUPS = forced
    if not any(any(v) for v in stakes):
        assert band is None
        return
    assert band is not None and band.tail is not None
    worst = -len(parts) * sum(n * (20 * v[3] + 20 * v[4] + 9 * v[2] + v[0] + v[1])
                              for v, n in stakes.items())
    best = len(parts) * sum(n * sum(v) for v, n in stakes.items())
    assert worst <= band.low <= band.high <= best
    assert 0.0 <= band.tail <= 1.0
