"""Sessions of N coups played from whole shoes: the house's result where the cards' dependence counts.

The exact session distribution (:mod:`puntobanco.analysis.risk`) treats coups as independent
draws from a full shoe. Here the compiled kernel plays real shoes (S1–S3: shuffle, burn, cut card,
one more coup; coup by coup through :func:`puntobanco.sim.kernel._next_coup`) back to back, and
cuts the stream of coups into sessions of ``coups`` coups. A session starts where the previous one
ended, mid-shoe, as a night at a table does. Results are summed exactly on the integer grid of
the bet or mix (:class:`~puntobanco.analysis.risk.CoupDistribution`'s ``scale``), and recorded
at a few check points for the P(behind)-against-N curve.

Chunk ``i`` of a run plays from ``SeedSequence(seed, spawn_key=(i,))`` (a fresh shoe at each
chunk's start), so a seed gives the same sessions on any number of threads.

>>> from fractions import Fraction
>>> from puntobanco.rules import RuleSet
>>> run = simulate_sessions(RuleSet(decks=1), {"punto": Fraction(1)}, coups=50, sessions=400,
...                         seed=5, checkpoints=(10, 50))
>>> run.results.shape, run.scale, bool((abs(run.results[:, 1]) <= 50).all())
((400, 2), 1, True)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
from numba import njit

from puntobanco.cards import Composition
from puntobanco.errors import PuntoBancoError
from puntobanco.rules import RuleSet
from puntobanco.sim import tables
from puntobanco.sim.engine import ShoeSpec
from puntobanco.sim.kernel import _next_coup, shoe_buffer
from puntobanco.sim.rng import chunk_state

if TYPE_CHECKING:
    from puntobanco.analysis.risk import RiskSummary

#: Sessions per seeded chunk (fixed: a run's result for a seed depends on it).
CHUNK_SESSIONS = 1_000


@njit(cache=True, nogil=True)
def session_chunk(n_sessions: int, coups: int, checkpoints: npt.NDArray[np.int64],
                  state: npt.NDArray[np.uint64], start: npt.NDArray[np.uint8],
                  codes: npt.NDArray[np.int16], used: npt.NDArray[np.uint8],
                  burns: npt.NDArray[np.int64], burn: bool, cut_index: int, extra: int,
                  house: npt.NDArray[np.int64], out: npt.NDArray[np.int64]) -> None:
    """Play ``n_sessions`` sessions of ``coups`` coups; ``out[s, j]``: result after checkpoint j.

    ``house[code]`` is the house's result of a coup with that outcome code, in grid units.
    """
    cards, n, m = shoe_buffer(start, cut_index)
    left = 0
    pos = 0
    for s in range(n_sessions):
        total = 0
        j = 0
        for c in range(coups):
            code, pos, left = _next_coup(cards, n, m, state, pos, left, codes, used, burns, burn,
                                         cut_index, extra)
            total += house[code]
            if c + 1 == checkpoints[j]:
                out[s, j] = total
                j += 1


def house_by_code(rules: RuleSet, shares: Mapping[str, Fraction]) -> tuple[npt.NDArray[np.int64], int]:
    """The house's result per outcome code on a mix, as integers on a grid of step ``1/scale``."""
    pays = tables.exact_payoffs(rules)
    from puntobanco.analysis.risk import bet_key

    columns = {name: k for k, name in enumerate(tables.BET_NAMES)}
    index = {name: columns[str(bet_key(name))] for name in shares}
    reachable = tables.reachable_codes(rules.drawing)
    values = {code: -sum((share * pays[code][index[name]] for name, share in shares.items()),
                         Fraction(0)) for code in reachable}
    scale = math.lcm(*(v.denominator for v in values.values()))
    house = np.zeros(tables.N_CODES, dtype=np.int64)
    for code, value in values.items():
        house[code] = int(value * scale)
    return house, scale


@dataclass(frozen=True, kw_only=True, eq=False)
class SessionRun:
    """Simulated sessions: ``results[s, j] / scale`` is session s's house result after
    ``checkpoints[j]`` coups of one unit."""

    coups: int
    sessions: int
    seed: int
    scale: int
    checkpoints: tuple[int, ...]
    results: npt.NDArray[np.int64]

    def final(self) -> npt.NDArray[np.int64]:
        return self.results[:, -1]

    def prob_behind(self) -> tuple[list[float], list[float]]:
        """P(house behind) at each checkpoint and its standard error (binomial)."""
        behind = (self.results < 0).mean(axis=0)
        error = np.sqrt(behind * (1 - behind) / self.sessions)
        return [float(x) for x in behind], [float(x) for x in error]

    def quantile(self, q: float) -> Fraction:
        """The empirical quantile (lower) of the final results, on the grid."""
        ordered = np.sort(self.final())
        index = min(max(math.ceil(q * self.sessions) - 1, 0), self.sessions - 1)
        return Fraction(int(ordered[index]), self.scale)


def simulate_sessions(rules: RuleSet, shares: Mapping[str, Fraction], *, coups: int,
                      sessions: int, seed: int, composition: Composition | None = None,
                      checkpoints: Sequence[int] = ()) -> SessionRun:
    """Play ``sessions`` sessions of ``coups`` coups from whole shoes (S1–S3) under ``rules``."""
    if coups < 1:
        raise PuntoBancoError(f"A session has at least one coup, not {coups}.", code="bad-coups")
    if sessions < 2:
        raise PuntoBancoError(f"Simulate at least 2 sessions, not {sessions}.",
                              code="bad-sessions")
    spec = ShoeSpec.build(rules, composition)
    house, scale = house_by_code(rules, shares)
    points = sorted({int(c) for c in checkpoints if 1 <= c < coups} | {coups})
    marks = np.array(points, dtype=np.int64)
    out = np.zeros((sessions, len(points)), dtype=np.int64)
    for chunk, first in enumerate(range(0, sessions, CHUNK_SESSIONS)):
        count = min(CHUNK_SESSIONS, sessions - first)
        session_chunk(count, coups, marks, chunk_state(seed, chunk), spec.start, spec.codes,
                      spec.used, spec.burns, rules.burn, spec.cut_index, spec.extra, house,
                      out[first:first + count])
    return SessionRun(coups=coups, sessions=sessions, seed=seed, scale=scale,
                      checkpoints=tuple(points), results=out)


def simulated_summary(run: SessionRun, *, bet: str, ev: Fraction, sd: float,
                      exact_crossings: Mapping[str, int | None], stake: float = 1.0
                      ) -> RiskSummary:
    """The ``risk`` report of simulated sessions: every figure the simulation's own, labelled,
    with its standard error, and the exact off-the-top figure beside it.

    * EV per unit: the mean session result / N; SD per unit: the sessions' SD / √N (the shoe's
      dependence would show here), its standard error from the sample's fourth moment;
    * P(behind): the share of sessions behind; seen in none (or all) of them, its 95 % bound
      (about 3/n) instead of "0 ± 0";
    * the crossings ("behind with < 5 % from N") are the exact ones; the simulation reports its
      P(behind) *at* those N (when the session reaches them) and, from its check points, the
      bracket it can see (:func:`crossings`).
    """
    from puntobanco.analysis.risk import QUANTILES, VOLATILITY_Z, RiskSummary
    from puntobanco.analysis.sessionrisk import zero_count_upper_bound

    behind, errors = run.prob_behind()
    totals = run.final().astype(np.float64) / run.scale
    per_unit = totals / run.coups
    ev_sim = float(per_unit.mean())
    ev_error = float(per_unit.std(ddof=1)) / math.sqrt(run.sessions)
    sd_sim, sd_error = _sd_and_error(totals)
    sd_sim, sd_error = sd_sim / math.sqrt(run.coups), sd_error / math.sqrt(run.coups)
    seen = int((run.final() < 0).sum())
    bound = zero_count_upper_bound(run.sessions)
    at_exact = {}
    for level, crossing in exact_crossings.items():
        if crossing is not None and crossing in run.checkpoints:
            column = run.checkpoints.index(crossing)
            at_exact[level] = {"coups": crossing, "prob_house_behind": behind[column],
                               "std_error": errors[column]}
    return RiskSummary(
        bet=bet, coups=run.coups, stake=stake, ev_per_unit=ev_sim, ev_exact=ev,
        sd_per_unit=sd_sim, volatility_index=VOLATILITY_Z * sd_sim,
        quantiles={key: float(run.quantile(q)) * stake for key, q in QUANTILES},
        prob_house_behind=behind[-1],
        coups_until_safe=dict(exact_crossings),
        method="simulation-whole-shoes", sessions=run.sessions, seed=run.seed,
        prob_house_behind_std_error=errors[-1], simulated_crossings=crossings(run),
        ev_std_error=ev_error, sd_exact=sd, sd_std_error=sd_error,
        prob_house_behind_bound=(bound if seen == 0 else 1 - bound if seen == run.sessions
                                 else None),
        simulated_at_exact_crossings=at_exact,
    )


def _sd_and_error(sample: npt.NDArray[np.float64]) -> tuple[float, float]:
    """The sample SD and its standard error, ``SE(s²) / 2s`` with ``Var(s²) ≈ (μ₄ − s⁴) / n``
    (no normality assumed: these sessions are skewed)."""
    n = sample.size
    centred = sample - sample.mean()
    variance = float((centred**2).sum()) / (n - 1)
    fourth = float((centred**4).mean())
    sd = math.sqrt(variance)
    if sd == 0:
        return 0.0, 0.0
    return sd, math.sqrt(max(fourth - variance**2, 0.0) / n) / (2 * sd)


def crossings(run: SessionRun) -> dict[str, dict[str, int | None]]:
    """For 5 % and 1 %, what the check points show of the crossing: the last check point where
    the simulated P(behind) was at or above the level (``after``; 0 if none was) and the first
    after it (``by``; ``None`` if it never fell below within the session). The crossing lies
    in ``(after, by]`` — a bracket, not a figure: the simulation sees its check points only."""
    behind, _ = run.prob_behind()
    out: dict[str, dict[str, int | None]] = {}
    for level in (0.05, 0.01):
        after = 0
        for point, p in zip(run.checkpoints, behind, strict=True):
            if p >= level:
                after = point
        later = [point for point in run.checkpoints if point > after]
        out[f"{level:.0%}"] = {"after": after, "by": later[0] if later else None}
    return out
