"""The house's result over a session: exact distributions of N coups of a bet or a mix of bets.

One coup's result for the house, per unit staked, has an exact distribution: the exact engine's
class counts (:func:`~puntobanco.analysis.exact.class_counts`) times each class's settlement
(:func:`~puntobanco.analysis.tables.settlement_table`). A *mix* stakes a share of every unit on
several bets at once (``punto=0.9,lion-punto=0.1``); its result in a class is the weighted sum of
the bets' results, so a mix is one distribution, not several.

Every result lies on a grid of step ``1/L`` (``L`` the least common denominator of the results:
2 for the half pay on a Banco 6, 20 for a 5 % commission), so the result of ``N`` independent
coups is an integer lattice distribution: the ``N``-th convolution power, computed by one real
FFT of ``p`` (length ≥ ``N·width + 1``) raised to the ``N``-th power. The float64 round-off is
measured on every run (negative mass and the mass's distance from 1) and reported as
``numerical_error``; the tests compare the FFT with exact ``Fraction`` convolutions.

The coups are taken as independent draws from the full shoe (the off-the-top distribution). In
a real shoe the coups are dependent; :mod:`puntobanco.sim.sessions` plays whole shoes for that.

>>> from puntobanco.cards import full_composition
>>> dist = coup_distribution(full_composition(8), RuleSet(), {"egalite": Fraction(1)})
>>> dist.scale, dist.values, dist.weights
(1, (-8, 1), (475627426473216, 4522770849030144))
>>> f"{float(dist.mean):.6f}"
'0.143596'
>>> session = session_distribution(dist, 100)
>>> round(session.prob_house_behind, 4), session.quantile(0.5)
(0.2415, Fraction(19, 1))
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from puntobanco.analysis.exact import check_composition, class_counts
from puntobanco.analysis.multisets import MAX_CARDS, falling
from puntobanco.analysis.tables import BET_NAMES, settlement_table
from puntobanco.errors import PuntoBancoError
from puntobanco.rules import RuleSet

__all__ = [
    "QUANTILES",
    "VOLATILITY_Z",
    "CoupDistribution",
    "RiskSummary",
    "SessionDistribution",
    "behind_curve",
    "bet_key",
    "coup_distribution",
    "coups_until_safe",
    "exact_session_fractions",
    "mix_label",
    "parse_mix",
    "risk_summary",
    "safe_crossings",
    "session_distribution",
    "tilted_prob_behind",
]

FloatArray = npt.NDArray[np.float64]

#: The quantiles of the house result every report gives: 1 %, 5 %, 50 %, 95 %, 99 %.
QUANTILES: tuple[tuple[str, float], ...] = (
    ("p01", 0.01), ("p05", 0.05), ("p50", 0.50), ("p95", 0.95), ("p99", 0.99))
#: Volatility index = z · standard deviation per unit, z of a two-sided 90 % interval (the slot
#: industry's convention, as in Wizard of Odds' and Jacobson's volatility tables).
VOLATILITY_Z = 1.6448536269514722
#: Largest FFT the exact path takes (points); larger sessions go to simulation.
MAX_GRID = 1 << 24
#: The house's targets for "behind with less than ...".
SAFE_LEVELS: tuple[float, ...] = (0.05, 0.01)
#: Below this P(behind), the report recomputes it by exponential tilting (:func:`tilted_prob_behind`).
TILT_BELOW = 1e-6
#: How many coups after a crossing the threshold search checks for a rebound (lattice effects).
REBOUND_WINDOW = 20


def bet_key(name: str) -> str | None:
    """The analysis' spelling of a bet name written either way (``lion-punto``, ``lion_punto``).

    >>> bet_key("Lion_Punto") in BET_NAMES, bet_key("craps")
    (True, None)
    """
    wanted = name.strip().lower().replace("_", "-")
    return next((n for n in BET_NAMES if n.replace("_", "-") == wanted), None)


def parse_mix(text: str) -> dict[str, Fraction]:
    """Read ``lion-punto`` or ``punto=0.9,lion-punto=0.1``: bets and their shares of the handle.

    Shares are exact (decimals, ``%`` or ``p/q``), positive, and scaled to add up to 1; either
    spelling of the Lion Bonus names is read (``lion-punto``, ``lion_punto``).

    >>> list(parse_mix("lion_punto").values())
    [Fraction(1, 1)]
    >>> list(parse_mix("punto=3, lion-punto=1").values())
    [Fraction(3, 4), Fraction(1, 4)]
    """
    shares: dict[str, Fraction] = {}
    parts = [part.strip() for part in text.split(",") if part.strip()]
    if not parts:
        raise PuntoBancoError("Name a bet: punto, banco, egalite, lion-punto or lion-banco.",
                              code="bad-bet")
    for part in parts:
        name, _, share_text = part.partition("=")
        key = bet_key(name)
        if key is None:
            raise PuntoBancoError(
                f"{name.strip()!r} is not a bet: choose punto, banco, egalite, lion-punto or "
                "lion-banco.", code="bad-bet")
        if key in shares:
            raise PuntoBancoError(f"{key} appears twice in the mix.", code="bad-bet")
        share = Fraction(1)
        if share_text.strip():
            raw = share_text.strip()
            try:
                share = Fraction(raw.rstrip("%")) / (100 if raw.endswith("%") else 1)
            except (ValueError, ZeroDivisionError):
                share = Fraction(-1)
            if share <= 0:
                raise PuntoBancoError(
                    f"{raw!r} is not a share of the handle: give a positive number such as 0.25, "
                    "25% or 1/4.", code="bad-bet")
        shares[key] = share
    total = sum(shares.values())
    return {name: share / total for name, share in shares.items()}


def mix_label(shares: Mapping[str, Fraction]) -> str:
    """``lion-punto`` for one bet, ``punto=9/10+lion-punto=1/10`` for a mix."""
    if len(shares) == 1:
        return next(iter(shares))
    return "+".join(f"{name}={share}" for name, share in shares.items())


@dataclass(frozen=True, slots=True)
class CoupDistribution:
    """One coup's result for the house per unit staked: ``values[i] / scale`` with weight ``i``.

    ``weights`` are exact numbers of ordered six-card sequences; ``total`` their sum.
    """

    values: tuple[int, ...]
    weights: tuple[int, ...]
    total: int
    scale: int

    def probabilities(self) -> tuple[Fraction, ...]:
        return tuple(Fraction(w, self.total) for w in self.weights)

    @property
    def mean(self) -> Fraction:
        """The house's expected result per unit staked (the house edge of the bet or mix)."""
        return Fraction(sum(v * w for v, w in zip(self.values, self.weights, strict=True)),
                        self.total * self.scale)

    @property
    def variance(self) -> Fraction:
        second = Fraction(sum(v * v * w for v, w in zip(self.values, self.weights, strict=True)),
                          self.total * self.scale**2)
        return second - self.mean**2

    @property
    def std_dev(self) -> float:
        return math.sqrt(self.variance)

    @property
    def low(self) -> int:
        return self.values[0]

    @property
    def width(self) -> int:
        """Grid points between the lowest and the highest result, both included."""
        return self.values[-1] - self.values[0] + 1

    def dense(self) -> FloatArray:
        """Probabilities on the grid from ``low`` to the highest result, as float64."""
        out = np.zeros(self.width)
        for value, weight in zip(self.values, self.weights, strict=True):
            out[value - self.low] = weight / self.total
        return out


def coup_distribution(composition: Sequence[int], rules: RuleSet,
                      shares: Mapping[str, Fraction]) -> CoupDistribution:
    """The exact one-coup distribution of the house's result on a bet or mix (shares add to 1).

    >>> from puntobanco.cards import full_composition
    >>> d = coup_distribution(full_composition(6), RuleSet(), {"banco": Fraction(1)})
    >>> d.scale, d.values, f"{float(d.mean):.4%}"
    (2, (-2, -1, 0, 2), '1.4548%')
    """
    counts = check_composition(composition)
    keys = {name: bet_key(name) for name in shares}
    if not shares or None in keys.values():
        raise PuntoBancoError("A mix names bets among " + ", ".join(BET_NAMES) + ".",
                              code="bad-bet")
    settlement = settlement_table(rules)
    columns = {bet.name: bet for bet in settlement.bets}
    by_class = class_counts(counts, rules.drawing)
    results: dict[Fraction, int] = {}
    for index, weight in enumerate(by_class):
        if not weight:
            continue
        house = -sum((share * columns[str(keys[name])].pays_of_class(index)
                      for name, share in shares.items()), Fraction(0))
        results[house] = results.get(house, 0) + weight
    scale = math.lcm(*(value.denominator for value in results))
    values = sorted(results)
    return CoupDistribution(
        values=tuple(int(v * scale) for v in values),
        weights=tuple(results[v] for v in values),
        total=falling(sum(counts), MAX_CARDS),
        scale=scale,
    )


@dataclass(frozen=True, eq=False)
class SessionDistribution:
    """The house's total result over ``coups`` coups of one unit: ``(low + i) / scale`` w.p. ``mass[i]``."""

    coups: int
    low: int
    scale: int
    mass: FloatArray
    #: Round-off measured on this FFT: negative mass clipped plus the total's distance from 1.
    numerical_error: float

    @property
    def grid(self) -> npt.NDArray[np.int64]:
        return np.arange(self.low, self.low + self.mass.shape[0], dtype=np.int64)

    @property
    def prob_house_behind(self) -> float:
        """P(house result < 0): the players, together, are ahead."""
        below = -self.low  # mass indices 0 .. below-1 hold negative results
        return float(self.mass[:max(below, 0)].sum()) if below > 0 else 0.0

    def quantile(self, q: float) -> Fraction:
        """The smallest grid result ``x`` with ``P(result ≤ x) ≥ q`` (exact grid value)."""
        cumulative = np.cumsum(self.mass)
        index = int(np.searchsorted(cumulative, q * cumulative[-1] - 1e-13))
        index = min(index, self.mass.shape[0] - 1)
        return Fraction(self.low + index, self.scale)


def _fft_power(p: FloatArray, coups: int) -> tuple[FloatArray, float]:
    size = coups * (p.shape[0] - 1) + 1
    # a power of two: pocketfft's radix-2 path keeps the round-off lowest (mixed radix
    # lengths measured 10x more error on the mass, for at most 2x the speed)
    length = 1 << max(1, (size - 1).bit_length())
    spectrum = np.fft.rfft(p, length)
    mass = np.fft.irfft(spectrum**coups, length)[:size]
    error = float(-mass[mass < 0].sum()) + abs(float(mass.sum()) - 1.0)
    np.clip(mass, 0.0, None, out=mass)
    return mass, error


def session_distribution(dist: CoupDistribution, coups: int) -> SessionDistribution:
    """The distribution of the house's total over ``coups`` independent coups (FFT power)."""
    if coups < 1:
        raise PuntoBancoError(f"A session has at least one coup, not {coups}.", code="bad-coups")
    if coups * (dist.width - 1) + 1 > MAX_GRID:
        raise PuntoBancoError(
            f"{coups:,} coups on a grid of {dist.width} points need more than {MAX_GRID:,} "
            "points for the exact path; use --method simulate or fewer coups.",
            code="grid-too-large")
    p = dist.dense()
    if coups == 1:
        return SessionDistribution(coups=1, low=dist.low, scale=dist.scale, mass=p,
                                   numerical_error=0.0)
    mass, error = _fft_power(p, coups)
    return SessionDistribution(coups=coups, low=coups * dist.low, scale=dist.scale, mass=mass,
                               numerical_error=error)


def _tilt(dist: CoupDistribution) -> float | None:
    """θ ≤ 0 with Σ k·p_k·e^{θk} = 0 (the saddle point at a result of 0), or ``None`` when no
    result is negative (the house can never be behind)."""
    k = np.arange(dist.low, dist.low + dist.width, dtype=np.float64)
    p = dist.dense()
    if dist.low >= 0:
        return None

    def mean(theta: float) -> float:
        w = p * np.exp(theta * (k - k.max()))  # shifted: the common factor cancels
        return float((k * w).sum() / w.sum())

    if mean(0.0) <= 0:
        return 0.0
    low = -1.0
    while mean(low) > 0:
        low *= 2
    high = 0.0
    for _ in range(200):
        middle = (low + high) / 2
        if mean(middle) > 0:
            high = middle
        else:
            low = middle
    return (low + high) / 2


def tilted_prob_behind(dist: CoupDistribution, coups: int) -> float:
    """P(house behind after ``coups`` coups) with full *relative* precision in the far tail.

    Exponential tilting: the one-coup law is re-weighted by ``e^{θk}`` so that its mean is 0,
    the FFT power is taken of that (its mass near 0 is large, so round-off is small beside it),
    and each negative result's probability is untilted in the log domain:
    ``log P_N(k) = log Q_N(k) + N·log M(θ) − θk``. The plain FFT's absolute round-off (≈1e-13)
    swamps probabilities below about 1e-11; this does not.
    """
    theta = _tilt(dist)
    if theta is None:
        return 0.0
    k = np.arange(dist.low, dist.low + dist.width, dtype=np.float64)
    shift = float(k.max())
    weights = dist.dense() * np.exp(theta * (k - shift))
    log_m = math.log(float(weights.sum())) + theta * shift  # log Σ p_k e^{θk}
    q = weights / weights.sum()
    mass, _ = _fft_power(q, coups) if coups > 1 else (q, 0.0)
    grid = np.arange(coups * dist.low, coups * dist.low + mass.shape[0], dtype=np.float64)
    keep = (grid < 0) & (mass > mass.max() * 1e-15)
    if not keep.any():
        return 0.0
    logs = np.log(mass[keep]) + coups * log_m - theta * grid[keep]
    top = float(logs.max())
    return math.exp(top) * float(np.exp(logs - top).sum())


def exact_session_fractions(dist: CoupDistribution, coups: int) -> dict[int, Fraction]:
    """The same distribution by exact convolution (integer weights; for tests and small N).

    >>> from puntobanco.cards import full_composition
    >>> d = coup_distribution(full_composition(1), RuleSet(), {"punto": Fraction(1)})
    >>> two = exact_session_fractions(d, 2)
    >>> sum(two.values()), sorted(two)
    (Fraction(1, 1), [-2, -1, 0, 1, 2])
    """
    current = {0: 1}
    for _ in range(coups):
        nxt: dict[int, int] = {}
        for total, count in current.items():
            for value, weight in zip(dist.values, dist.weights, strict=True):
                nxt[total + value] = nxt.get(total + value, 0) + count * weight
        current = nxt
    denominator = dist.total**coups
    return {k: Fraction(v, denominator) for k, v in sorted(current.items())}


def prob_behind(dist: CoupDistribution, coups: int) -> float:
    """P(house behind after ``coups`` coups), exactly up to float64 round-off."""
    return session_distribution(dist, coups).prob_house_behind


def behind_curve(dist: CoupDistribution, coups: Sequence[int]) -> list[float]:
    """P(house behind) at each number of coups given."""
    return [prob_behind(dist, n) for n in coups]


def _rebound(dist: CoupDistribution, start: int, level: float, stop: int) -> int | None:
    """The first ``n`` in ``start+1 … stop`` with P(behind) ≥ ``level``, else ``None``.

    One FFT for ``start``, then one coup at a time by direct convolution with the coup's few
    results (a handful of shifted adds, far cheaper than an FFT per ``n``).
    """
    session = session_distribution(dist, start)
    mass, low = session.mass, session.low
    probabilities = [w / dist.total for w in dist.weights]
    for n in range(start + 1, stop + 1):
        grown = np.zeros(mass.shape[0] + dist.width - 1)
        for value, probability in zip(dist.values, probabilities, strict=True):
            offset = value - dist.low
            grown[offset:offset + mass.shape[0]] += probability * mass
        mass, low = grown, low + dist.low
        if low < 0 and float(mass[:-low].sum()) >= level:
            return n
    return None


def coups_until_safe(dist: CoupDistribution, level: float, *, limit: int | None = None
                     ) -> int | None:
    """The number of coups from which on the house is behind with probability below ``level``.

    Found by bisection on the exact probabilities (bracketed around the normal approximation),
    then checked over the next :data:`REBOUND_WINDOW` coups: the lattice makes P(behind) wobble
    from one N to the next, and a rebound above ``level`` moves the answer past it. ``None``
    when the house has no edge, or past ``limit`` coups (the grid's reach).
    """
    mean = float(dist.mean)
    if mean <= 0:
        return None
    if limit is None:
        limit = max(1, (MAX_GRID - 1) // max(dist.width - 1, 1))
    z = {0.05: 1.6448536269514722, 0.01: 2.3263478740408408}.get(level, 2.0)
    guess = max(1, int((z * dist.std_dev / mean) ** 2))
    low, high = max(0, int(guess * 0.8)), min(max(1, int(guess * 1.25)), limit)
    if low and prob_behind(dist, low) < level:
        low = 0
    while prob_behind(dist, high) >= level:
        if high >= limit:
            return None
        low, high = high, min(2 * high, limit)
    while True:
        # invariant: P(high) < level; low is 0 or a point with P >= level
        while high - low > 1:
            middle = (low + high) // 2
            if prob_behind(dist, middle) >= level:
                low = middle
            else:
                high = middle
        rebound = _rebound(dist, high, level, min(high + REBOUND_WINDOW, limit))
        if rebound is None:
            return high
        low, high = rebound, rebound + 1
        while prob_behind(dist, high) >= level:
            if high >= limit:
                return None
            low, high = high, min(high + REBOUND_WINDOW, limit)


def safe_crossings(dist: CoupDistribution) -> dict[str, int | None]:
    """:func:`coups_until_safe` at 5 % and 1 %, keyed ``"5%"`` and ``"1%"``."""
    return {f"{level:.0%}": coups_until_safe(dist, level) for level in SAFE_LEVELS}


@dataclass(frozen=True, kw_only=True)
class RiskSummary:
    """What ``puntobanco risk`` reports, from the house's side, per unit staked per coup."""

    bet: str
    coups: int
    stake: float
    ev_per_unit: float
    ev_exact: Fraction | None
    sd_per_unit: float
    volatility_index: float
    quantiles: dict[str, float]
    prob_house_behind: float
    coups_until_safe: dict[str, int | None]
    method: str
    numerical_error: float | None = None
    sessions: int | None = None
    seed: int | None = None
    prob_house_behind_std_error: float | None = None
    #: Simulation only: what the check points show of each crossing, ``{"after", "by"}``.
    simulated_crossings: dict[str, dict[str, int | None]] | None = None
    #: Simulation only: the standard errors of the simulated EV and SD, the exact SD beside the
    #: simulated one, the 95 % bound of a P(behind) seen in no (or every) session, and the
    #: simulated P(behind) at the exact crossings.
    ev_std_error: float | None = None
    sd_exact: float | None = None
    sd_std_error: float | None = None
    prob_house_behind_bound: float | None = None
    simulated_at_exact_crossings: dict[str, dict[str, float]] | None = None

    def to_dict(self) -> dict[str, object]:
        data: dict[str, object] = {
            "bet": self.bet, "coups": self.coups, "stake": self.stake,
            "ev_per_unit": self.ev_per_unit,
            "ev_exact": None if self.ev_exact is None else str(self.ev_exact),
            "sd_per_unit": self.sd_per_unit, "volatility_index": self.volatility_index,
            "quantiles": dict(self.quantiles), "prob_house_behind": self.prob_house_behind,
            "coups_until_behind_below": dict(self.coups_until_safe), "method": self.method,
        }
        if self.numerical_error is not None:
            data["numerical_error"] = self.numerical_error
        if self.sessions is not None:
            data.update(sessions=self.sessions, seed=self.seed,
                        ev_per_unit_method="simulated: mean session result / N",
                        ev_per_unit_std_error=self.ev_std_error,
                        sd_per_unit_method="simulated: SD of the session results / √N",
                        sd_per_unit_std_error=self.sd_std_error,
                        sd_per_unit_exact=self.sd_exact,
                        prob_house_behind_std_error=self.prob_house_behind_std_error,
                        coups_until_behind_below_method="exact-convolution",
                        coups_until_behind_below_simulated_bracket=self.simulated_crossings,
                        prob_house_behind_at_exact_crossings_simulated=(
                            self.simulated_at_exact_crossings))
            if self.prob_house_behind_bound is not None:
                key = ("prob_house_behind_upper_bound_95" if self.prob_house_behind == 0
                       else "prob_house_behind_lower_bound_95")
                data[key] = self.prob_house_behind_bound
        return data


def risk_summary(dist: CoupDistribution, coups: int, *, bet: str, stake: float = 1.0
                 ) -> tuple[RiskSummary, SessionDistribution]:
    """The exact report for ``coups`` coups of ``stake`` each (quantiles in money units)."""
    session = session_distribution(dist, coups)
    sd = dist.std_dev
    behind = session.prob_house_behind
    method = "exact-convolution"
    if behind < TILT_BELOW:  # below the plain FFT's relative precision: the tilted tail
        behind = tilted_prob_behind(dist, coups)
        method = "exact-convolution (P(behind) by exponential tilting)"
    summary = RiskSummary(
        bet=bet, coups=coups, stake=stake, ev_per_unit=float(dist.mean), ev_exact=dist.mean,
        sd_per_unit=sd, volatility_index=VOLATILITY_Z * sd,
        quantiles={key: float(session.quantile(q)) * stake for key, q in QUANTILES},
        prob_house_behind=behind,
        coups_until_safe=safe_crossings(dist),
        method=method, numerical_error=session.numerical_error,
    )
    return summary, session
