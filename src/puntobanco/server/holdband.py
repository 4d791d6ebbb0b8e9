"""The 95 % band of the house's win over a set of coups, right for skewed bets.

A normal band (E[W] ± 1.96 sd) is wrong for a shoe: the Lion Bonus pays up to 20:1 and Égalité
8:1, so the house's win over a few dozen coups is skewed to the left (rare large losses, many
small wins) and its 2.5 % and 97.5 % points are not symmetric about E[W]. This module gives the
band and the observed win's tail from the distribution of W itself:

* **One coup** with the stakes T_k (cents, per bet kind) has an exact distribution: in each coup
  class c (probability from the exact class counts of a full shoe, as the PAR sheet) the house
  wins −Σ_k T_k · pays_k(c), pays from the core's settlement of that class
  (:func:`puntobanco.analysis.tables.settlement_table`). The bets on one coup move together,
  so a coup, not a bet, is the independent unit.
* **W** is the sum over the coups, independent draws from a full shoe as the theoretical edge
  assumes. Coups with the same stakes are grouped (the SQL gives each distinct stake vector
  and how many coups had it).
* **Few coups** (≤ :data:`CONVOLUTION_COUPS`): the convolution of the coups' distributions, by
  FFT, on the lattice of the greatest common divisor of every possible result (the chip unit,
  or half of it where a Banco 6 pays half). Where W's whole range has more than
  :data:`MAX_POINTS` lattice points, the FFT covers a window outside which a Chernoff bound
  (exact cumulant generating function) leaves at most 1e-9 of the mass, and, if the window is
  still too wide, a coarser lattice whose results are split between their two neighbours so
  that each coup's mean stays exact (``method`` says ``lattice`` then; the splitting widens
  the sd by less than 0.1 % at these sizes, ``tests/server/test_holdband.py``).
* **Many coups**: the Lugannani–Rice saddlepoint approximation with the exact cumulant
  generating function K(θ) = Σ_coups log E[e^{θ X}] (relative error O(1/n) in the tails;
  the tests check it against the convolution and an independent Monte Carlo).

The band is [q(2.5 %), q(97.5 %)] of W (lattice quantiles: the smallest result x with
P(W ≤ x) ≥ q); the **tail** of an observed win w is the probability of a win at least as far
out on its side: P(W ≥ w) when w ≥ E[W], else P(W ≤ w). A win outside the band has a tail
below 2.5 %.

>>> from puntobanco.rules import RuleSet
>>> one = win_band([(RuleSet(), {(0, 1000, 0, 0, 0): 1})], observed=1000)
>>> one.low, one.high, one.method  # one Banco bet of 10 €: it loses it all or wins 5 € or 10 €
(-1000.0, 1000.0, 'exact')
>>> round(one.tail, 4)  # P(house wins the whole stake) = P(Punto wins)
0.4463
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from puntobanco.bets import BetKind
from puntobanco.cards import full_composition
from puntobanco.rules import RuleSet

#: A coup's whole stake on each bet kind, cents, in the order of :class:`BetKind`.
Vector = tuple[int, ...]
FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

#: Coups up to which the band is the convolution (beyond: the saddlepoint approximation).
CONVOLUTION_COUPS = 200
#: Largest FFT of the convolution (points); a wider window is taken on a coarser lattice.
MAX_POINTS = 1 << 11
#: Mass the convolution's window may leave outside on each side (Chernoff bound).
WINDOW_MASS = 1e-9
LOW_Q, HIGH_Q = 0.025, 0.975
Z95 = 1.959964
_KINDS = len(BetKind)


@dataclass(frozen=True, slots=True)
class Band:
    """The band of W (cents: ``low`` and ``high`` its 2.5 % and 97.5 % points), the observed
    win's one-sided tail, and how they were computed (``exact``, ``lattice``, ``saddlepoint``)."""

    low: float
    high: float
    tail: float | None
    method: str


@dataclass(frozen=True, slots=True)
class _Law:
    """One coup under one rule set: class probabilities and pays per unit × ``scale`` (ints)."""

    probs: FloatArray
    pays: IntArray  # classes × kinds
    scale: int


def _law(rules: RuleSet) -> _Law:
    from puntobanco.analysis.tables import payout_key

    return _cached_law(payout_key(rules), rules.decks, rules)


@lru_cache(maxsize=64)
def _cached_law(_key: tuple[object, ...], decks: int, rules: RuleSet) -> _Law:
    from puntobanco.analysis.exact import class_counts
    from puntobanco.analysis.tables import settlement_table

    counts = class_counts(full_composition(decks), rules.drawing)
    table = settlement_table(rules)
    outcomes: dict[tuple[Fraction, ...], int] = {}  # classes that pay every bet alike, merged
    for index, count in enumerate(counts):
        if count:
            row = tuple(bet.pays_of_class(index) for bet in table.bets)
            outcomes[row] = outcomes.get(row, 0) + count
    scale = math.lcm(*(p.denominator for row in outcomes for p in row))
    total = sum(counts)
    return _Law(probs=np.array([count / total for count in outcomes.values()]),
                pays=np.array([[int(p * scale) for p in row] for row in outcomes],
                              dtype=np.int64),
                scale=scale)


@dataclass(slots=True)
class _Sets:
    """The distinct coups (rows): the results of each outcome (lattice units), its probability
    (a row shorter than the widest is padded with its last result at probability 0), and
    how many coups had these stakes."""

    values: IntArray
    probs: FloatArray
    counts: IntArray


def win_band(parts: Sequence[tuple[RuleSet, Mapping[Vector, int]]], observed: float | None = None,
             *, kind: int | None = None) -> Band | None:
    """The band of the house's win W over the coups of ``parts`` (each: the rules and, per
    stake vector, how many coups had it), and the tail of ``observed`` (cents); ``kind``: the
    bets of that kind alone (an index into :class:`BetKind`). ``None`` when nothing was staked."""
    built = _build(parts, kind)
    if built is None:
        return None
    sets, unit = built
    target = None if observed is None else observed / unit
    if (sets.values.min(axis=1) == sets.values.max(axis=1)).all():  # one possible result
        fixed = float(sets.counts @ sets.values[:, 0]) * unit
        return Band(fixed, fixed, None if observed is None else 1.0, "exact")
    if int(sets.counts.sum()) <= CONVOLUTION_COUPS:
        low, high, tail, method = _convolution(sets, target)
    else:
        low, high, tail, method = _saddlepoint(sets, target)
    return Band(low * unit, high * unit, tail, method)


def cumulative_bands(groups: Sequence[Sequence[tuple[RuleSet, Mapping[Vector, int]]]]
                     ) -> list[tuple[float, float] | None]:
    """The band of W over the coups of the first 1, 2, … groups (a chart's points: shoes or
    days in order), cents: the convolution while they hold at most :data:`CONVOLUTION_COUPS`
    coups, then the Cornish–Fisher expansion with W's exact first four cumulants (added group
    by group, so a year of points costs one pass; within 0.3 % of the band's width of the
    saddlepoint at 250 Lion-heavy coups, ``tests/server/test_holdband.py``)."""
    out: list[tuple[float, float] | None] = []
    so_far: list[tuple[RuleSet, Mapping[Vector, int]]] = []
    total = np.zeros(4)
    coups = 0
    for group in groups:
        so_far.extend(group)
        built = _build(group, None)
        if built is not None:
            sets, unit = built
            coups += int(sets.counts.sum())
            total += np.array(_Cgf(sets).cumulants()) * unit ** np.arange(1, 5)
        if not coups:
            out.append(None)
        elif coups <= CONVOLUTION_COUPS:
            band = win_band(so_far)
            out.append(None if band is None else (band.low, band.high))
        else:
            out.append(_cornish_fisher(*(float(k) for k in total)))
    return out


def _cornish_fisher(mean: float, var: float, k3: float, k4: float) -> tuple[float, float]:
    sd = math.sqrt(var)
    skew, excess = k3 / (sd * var), k4 / (var * var)
    ends = []
    for z in (-Z95, Z95):
        w = (z + (z * z - 1) * skew / 6 + (z**3 - 3 * z) * excess / 24
             - (2 * z**3 - 5 * z) * skew * skew / 36)
        ends.append(mean + sd * w)
    return ends[0], ends[1]


def _build(parts: Sequence[tuple[RuleSet, Mapping[Vector, int]]],
           kind: int | None) -> tuple[_Sets, float] | None:
    """The distinct coups of ``parts`` on their common lattice, and its step in cents."""
    scale = math.lcm(1, *(_law(rules).scale for rules, _ in parts))
    blocks: list[tuple[IntArray, FloatArray, IntArray]] = []
    for rules, stakes in parts:
        law = _law(rules)
        merged: dict[Vector, int] = {}
        for vector, count in stakes.items():
            if kind is not None:
                vector = tuple(v if k == kind else 0 for k, v in enumerate(vector))
            if count and any(vector):
                merged[vector] = merged.get(vector, 0) + count
        if merged:
            vectors = np.array(list(merged), dtype=np.int64)
            values = -(vectors @ law.pays.T) * (scale // law.scale)
            blocks.append((values, np.tile(law.probs, (len(values), 1)),
                           np.array(list(merged.values()), dtype=np.int64)))
    if not blocks:
        return None
    if len(blocks) == 1:
        values, probs = blocks[0][0], blocks[0][1]
    else:
        width = max(values.shape[1] for values, _, _ in blocks)
        values = np.concatenate([np.pad(v, ((0, 0), (0, width - v.shape[1])), mode="edge")
                                 for v, _, _ in blocks])
        probs = np.concatenate([np.pad(p, ((0, 0), (0, width - p.shape[1])))
                                for _, p, _ in blocks])
    step = int(np.gcd.reduce(np.abs(values), axis=None)) or 1
    return _Sets(values // step, probs, np.concatenate([c for _, _, c in blocks])), step / scale


# --- the cumulant generating function ------------------------------------------------------


class _Cgf:
    """K(θ) = Σ_sets count · log Σ p e^{θ v} and its derivatives, vectorised over the sets."""

    def __init__(self, sets: _Sets) -> None:
        self.p = sets.probs
        self.m = sets.counts.astype(np.float64)
        self.means = (sets.values * self.p).sum(axis=1)
        self.d = sets.values - self.means[:, None]
        self.mean = float(self.m @ self.means)
        self.low = float(self.m @ sets.values.min(axis=1))
        self.high = float(self.m @ sets.values.max(axis=1))
        self.var = float(self.m @ (self.p * self.d**2).sum(axis=1))
        self.k3 = float(self.m @ (self.p * self.d**3).sum(axis=1))
        second = (self.p * self.d**2).sum(axis=1)
        self.k4 = float(self.m @ ((self.p * self.d**4).sum(axis=1) - 3 * second * second))

    def cumulants(self) -> tuple[float, float, float, float]:
        """W's first four cumulants (lattice units): each adds up over independent coups."""
        return self.mean, self.var, self.k3, self.k4

    def at(self, theta: float) -> tuple[float, float, float]:
        """K(θ), K'(θ), K''(θ)."""
        exponent = theta * self.d
        top = exponent.max(axis=1)
        w = self.p * np.exp(exponent - top[:, None])
        z = w.sum(axis=1)
        wd = w * self.d
        first = wd.sum(axis=1) / z
        second = (wd * self.d).sum(axis=1) / z
        k = float(self.m @ (theta * self.means + top + np.log(z)))
        return k, self.mean + float(self.m @ first), float(self.m @ (second - first * first))

    def solve(self, x: float) -> float:
        """The saddlepoint θ with K'(θ) = x (x strictly inside the range)."""
        return _root(lambda theta: self.at(theta)[1] - x, (x - self.mean) / self.var,
                     increasing=True)

    def chernoff_edge(self, sign: float, mass: float) -> float:
        """The win beyond which (above for sign +1, below for −1) the Chernoff bound
        inf_θ exp(K(θ) − θx) leaves at most ``mass``; the range's end if it never does.
        (K(θ) − θK'(θ) falls from 0 as |θ| grows, and the bound at x = K'(θ) is its exp.)"""
        edge = self.high if sign > 0 else self.low
        log_mass = math.log(mass)
        theta = sign / math.sqrt(self.var)
        for _ in range(200):  # the first θ whose bound is small enough, or the range's end
            k, k1, _ = self.at(theta)
            if (k1 - edge) * sign >= -0.5:
                return edge
            if k - theta * k1 <= log_mass:
                break
            theta *= 2
        else:
            return edge
        found = _root(lambda t: self.at(t)[0] - t * self.at(t)[1] - log_mass, theta,
                      increasing=sign < 0, tolerance=1e-2, side=1.0)
        return self.at(found)[1]


def _root(f: Callable[[float], float], guess: float, *, increasing: bool,
          tolerance: float = 1e-12, side: float = 0.0) -> float:
    """A root of a monotone ``f`` (the Illinois method, in a bracket found by doubling out
    from ``guess``); with ``side`` the bracket's end where f ≤ 0 (for a bound that must hold),
    without it the estimate."""
    sign = 1.0 if increasing else -1.0
    a = b = guess if guess else 1e-12
    fa = fb = f(a) * sign
    step = abs(guess) or 1e-12
    for _ in range(200):  # f·sign is increasing: widen until it changes sign
        if fa > 0:
            a -= step
            fa_new = f(a) * sign
            b, fb = a + step, fa
            fa = fa_new
        elif fb < 0:
            b += step
            fb_new = f(b) * sign
            a, fa = b - step, fb
            fb = fb_new
        if fa <= 0 <= fb:
            break
        step *= 2
    kept = 0
    for _ in range(200):
        if fb == fa or abs(b - a) <= tolerance * max(abs(a), abs(b)):
            break
        x = b - fb * (b - a) / (fb - fa)
        fx = f(x) * sign
        if fx == 0:
            return x
        if fx < 0:
            a, fa = x, fx
            if kept == -1:
                fb /= 2
            kept = -1
        else:
            b, fb = x, fx
            if kept == 1:
                fa /= 2
            kept = 1
    if side:
        return a if sign > 0 else b
    return (a + b) / 2 if fb == fa else b - fb * (b - a) / (fb - fa)


# --- few coups: the convolution --------------------------------------------------------------


def _convolution(sets: _Sets, target: float | None) -> tuple[float, float, float | None, str]:
    cgf = _Cgf(sets)
    low, high = cgf.low, cgf.high
    if high - low + 1 > MAX_POINTS and cgf.var > 0:
        low = max(low, math.floor(cgf.chernoff_edge(-1.0, WINDOW_MASS)))
        high = min(high, math.ceil(cgf.chernoff_edge(1.0, WINDOW_MASS)))
    coarse = max(1, math.ceil((high - low + 1) / (MAX_POINTS - 2)))
    size = 1 << max(1, math.ceil(math.log2((high - low) / coarse + 3)))
    spectrum = np.ones(size // 2 + 1, dtype=np.complex128)
    bases = sets.values.min(axis=1) // coarse
    shift = int(sets.counts @ bases)
    for begin in range(0, len(sets.values), 64):  # 64 kinds of coup per batch of FFTs
        rows = slice(begin, begin + 64)
        values, probs, base = sets.values[rows], sets.probs[rows], bases[rows, None]
        offset = (np.arange(len(values)) * size)[:, None]
        if coarse == 1:
            cells, weights = (values - base) % size + offset, probs
        else:  # split each result between its two neighbours, keeping its mean
            position = values / coarse
            floor = np.floor(position)
            upper = position - floor
            index = floor.astype(np.int64) - base
            cells = np.concatenate([index % size + offset, (index + 1) % size + offset])
            weights = np.concatenate([probs * (1 - upper), probs * upper])
        place = np.bincount(cells.ravel(), weights=weights.ravel(),
                            minlength=len(values) * size).reshape(len(values), size)
        spectra = np.fft.rfft(place, axis=1)
        counts = sets.counts[rows]
        if (counts == 1).all():
            spectrum *= spectra.prod(axis=0)
        else:
            spectrum *= (spectra ** counts[:, None]).prod(axis=0)
    mass = np.fft.irfft(spectrum, size)
    np.clip(mass, 0.0, None, out=mass)
    mass /= mass.sum()
    # index j holds the results shift + j (mod size); lay them out from the window's low end
    first = math.floor(low / coarse)
    start = (first - shift) % size
    mass = np.roll(mass, -start)
    cumulative = np.cumsum(mass)

    def quantile(q: float) -> float:  # a coarse point may lie past the range's end: not W's
        point = (first + int(np.searchsorted(cumulative, q - 1e-12))) * coarse
        return float(min(max(point, cgf.low), cgf.high))

    tail = None
    if target is not None:
        at = target / coarse - first
        if target >= cgf.mean:  # P(W ≥ w)
            below = math.ceil(at - 1e-9) - 1
            tail = 1.0 - (float(cumulative[min(below, size - 1)]) if below >= 0 else 0.0)
        else:  # P(W ≤ w)
            upto = math.floor(at + 1e-9)
            tail = float(cumulative[min(upto, size - 1)]) if upto >= 0 else 0.0
        tail = min(1.0, max(0.0, tail))
    return (quantile(LOW_Q), quantile(HIGH_Q), tail, "exact" if coarse == 1 else "lattice")


# --- many coups: the saddlepoint -------------------------------------------------------------


def _normal_upper(x: float) -> float:
    return 0.5 * math.erfc(x / math.sqrt(2))


def _lr_upper(cgf: _Cgf, theta: float) -> float:
    """Lugannani–Rice: P(W ≥ K'(θ)) for a continuous W."""
    k, k1, k2 = cgf.at(theta)
    w2 = 2 * (theta * k1 - k)
    if abs(theta) * math.sqrt(cgf.var) < 1e-4 or w2 <= 0:
        return 0.5 - cgf.k3 / (6 * math.sqrt(2 * math.pi) * cgf.var * math.sqrt(cgf.var))
    r = math.copysign(math.sqrt(w2), theta)
    if k2 <= 0:  # θ so far out that the tilted law sits on the range's end
        return 0.0 if theta > 0 else 1.0
    u = theta * math.sqrt(k2)
    density = math.exp(-r * r / 2) / math.sqrt(2 * math.pi)
    return min(1.0, max(0.0, _normal_upper(r) + density * (1 / u - 1 / r)))


def _upper_at(cgf: _Cgf, x: float) -> float:
    """P(W ≥ x), continuous x."""
    if x <= cgf.low:
        return 1.0
    if x > cgf.high:
        return 0.0
    return _lr_upper(cgf, cgf.solve(x)) if abs(x - cgf.mean) > 1e-9 else _lr_upper(cgf, 0.0)


def _point(cgf: _Cgf, upper: float) -> float:
    """The x with P(W ≥ x) = ``upper`` (the tail falls as θ grows)."""
    guess = (2.0 if upper < 0.5 else -2.0) / math.sqrt(cgf.var)
    theta = _root(lambda t: _lr_upper(cgf, t) - upper, guess, increasing=False,
                  tolerance=1e-10)
    return float(cgf.at(theta)[1])


def _saddlepoint(sets: _Sets, target: float | None) -> tuple[float, float, float | None, str]:
    cgf = _Cgf(sets)
    # lattice results: P(W ≤ x) ≥ q ⇔ P(W ≥ x + 1) ≤ 1 − q, continuity-corrected at x + ½
    low = math.ceil(_point(cgf, 1 - LOW_Q) - 0.5)
    high = math.ceil(_point(cgf, 1 - HIGH_Q) - 0.5)
    tail = None
    if target is not None:
        if target >= cgf.mean:
            tail = _upper_at(cgf, math.ceil(target - 1e-9) - 0.5)
        else:
            tail = 1.0 - _upper_at(cgf, math.floor(target + 1e-9) + 0.5)
    return float(low), float(high), tail, "saddlepoint"
