"""The session view from whole shoes: ever behind, drawdown and stop sessions, simulated.

:mod:`puntobanco.analysis.sessionrisk` computes these exactly for independent coups off the top.
Here the compiled kernel plays real shoes (S1–S3, coup by coup through the same inlined step
as :mod:`puntobanco.sim.sessions`, :func:`~puntobanco.sim.kernel._next_coup`), sessions back to
back, and records each session's path figures: its final result, its lowest running result, its
largest fall from a running peak, its length and how it ended (coup limit, stop-loss or
stop-win). Every figure it reports is a proportion or
a mean of sessions, with its standard error; a proportion seen in no session is reported as its
95 % upper bound (:func:`~puntobanco.analysis.sessionrisk.zero_count_upper_bound`), never
"0 ± 0".

>>> from fractions import Fraction
>>> from puntobanco.rules import RuleSet
>>> run = simulate_paths(RuleSet(decks=1), {"punto": Fraction(1)}, side="player", coups=50,
...                      sessions=400, seed=5, stop_loss=None, stop_win=None)
>>> run.paths.shape, bool((run.paths[:, LOWEST] <= 0).all())
((400, 5), True)
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import numpy.typing as npt
from numba import njit

from puntobanco.analysis.sessionrisk import zero_count_upper_bound
from puntobanco.cards import Composition
from puntobanco.errors import PuntoBancoError
from puntobanco.rules import RuleSet
from puntobanco.sim.engine import ShoeSpec
from puntobanco.sim.kernel import _next_coup, shoe_buffer
from puntobanco.sim.rng import chunk_state
from puntobanco.sim.sessions import CHUNK_SESSIONS, house_by_code

#: Columns of :attr:`PathRun.paths`.
FINAL, LOWEST, DRAWDOWN, LENGTH, END = range(5)
#: :data:`END` values: the coup limit, the stop-loss, the stop-win.
BY_TIME, BY_LOSS, BY_WIN = 0, 1, 2


@njit(cache=True, nogil=True)
def path_chunk(n_sessions: int, coups: int, state: npt.NDArray[np.uint64],
               start: npt.NDArray[np.uint8], codes: npt.NDArray[np.int16],
               used: npt.NDArray[np.uint8], burns: npt.NDArray[np.int64], burn: bool,
               cut_index: int, extra: int, gain: npt.NDArray[np.int64], stop_low: int,
               stop_high: int, out: npt.NDArray[np.int64]) -> None:
    """Play ``n_sessions`` sessions of at most ``coups`` coups; ``gain[code]`` is the side's
    result in grid units. A session stops at ``≤ stop_low`` or ``≥ stop_high``."""
    cards, n, m = shoe_buffer(start, cut_index)
    left = 0
    pos = 0
    for s in range(n_sessions):
        total = 0
        lowest = 0
        peak = 0
        fall = 0
        end = 0
        length = coups
        for c in range(coups):
            code, pos, left = _next_coup(cards, n, m, state, pos, left, codes, used, burns, burn,
                                         cut_index, extra)
            total += gain[code]
            lowest = min(lowest, total)
            peak = max(peak, total)
            fall = max(fall, peak - total)
            if total <= stop_low or total >= stop_high:
                end = 1 if total <= stop_low else 2
                length = c + 1
                break
        out[s, 0] = total
        out[s, 1] = lowest
        out[s, 2] = fall
        out[s, 3] = length
        out[s, 4] = end


@dataclass(frozen=True, kw_only=True, eq=False)
class Estimate:
    """A simulated proportion or mean: its value, standard error, and for a proportion seen in
    no session (or in every one) the 95 % bound that replaces "± 0"."""

    value: float
    std_error: float
    upper_bound: float | None = None
    lower_bound: float | None = None

    @classmethod
    def proportion(cls, hits: int, trials: int) -> Estimate:
        p = hits / trials
        if hits == 0:
            return cls(value=0.0, std_error=0.0, upper_bound=zero_count_upper_bound(trials))
        if hits == trials:
            return cls(value=1.0, std_error=0.0, lower_bound=1 - zero_count_upper_bound(trials))
        return cls(value=p, std_error=math.sqrt(p * (1 - p) / trials))

    @classmethod
    def mean(cls, sample: npt.NDArray[np.float64]) -> Estimate:
        return cls(value=float(sample.mean()),
                   std_error=float(sample.std(ddof=1)) / math.sqrt(sample.size))

    def to_dict(self) -> dict[str, float | None]:
        data: dict[str, float | None] = {"value": self.value, "std_error": self.std_error}
        if self.upper_bound is not None:
            data["upper_bound_95"] = self.upper_bound
        if self.lower_bound is not None:
            data["lower_bound_95"] = self.lower_bound
        return data

    def text(self, percent: bool = True) -> str:
        """``< 0.0150% (none of the sessions; …)`` or ``12.3400% ± 0.2300%``."""
        def shown(x: float) -> str:
            return f"{x:.4%}" if percent else f"{x:,.2f}"

        if self.upper_bound is not None:
            return f"< {shown(self.upper_bound)} (none of the sessions; 95 % upper bound)"
        if self.lower_bound is not None:
            return f"> {shown(self.lower_bound)} (every session; 95 % lower bound)"
        return f"{shown(self.value)} ± {shown(self.std_error)}"


@dataclass(frozen=True, kw_only=True, eq=False)
class PathRun:
    """Simulated sessions' path figures; amounts in grid units of ``1/scale`` stake."""

    side: str
    coups: int
    sessions: int
    seed: int
    scale: int
    stop_loss: float | None
    stop_win: float | None
    paths: npt.NDArray[np.int64]

    def ever_behind(self, amount: float) -> Estimate:
        """P(the running result ever reached ``−amount`` stakes)."""
        hits = int((self.paths[:, LOWEST] <= -_grid(amount, self.scale)).sum())
        return Estimate.proportion(hits, self.sessions)

    def drawdown_at_least(self, amount: float) -> Estimate:
        hits = int((self.paths[:, DRAWDOWN] >= _grid(amount, self.scale)).sum())
        return Estimate.proportion(hits, self.sessions)

    def drawdown_quantile(self, q: float) -> Fraction:
        ordered = np.sort(self.paths[:, DRAWDOWN])
        index = min(max(math.ceil(q * self.sessions) - 1, 0), self.sessions - 1)
        return Fraction(int(ordered[index]), self.scale)

    def ends(self) -> dict[str, Estimate]:
        return {name: Estimate.proportion(int((self.paths[:, END] == code).sum()), self.sessions)
                for name, code in (("loss", BY_LOSS), ("win", BY_WIN), ("time", BY_TIME))}

    def length(self) -> Estimate:
        return Estimate.mean(self.paths[:, LENGTH].astype(np.float64))

    def length_if(self, end: int) -> Estimate | None:
        chosen = self.paths[self.paths[:, END] == end, LENGTH].astype(np.float64)
        return Estimate.mean(chosen) if chosen.size >= 2 else None

    def result(self) -> Estimate:
        return Estimate.mean(self.paths[:, FINAL].astype(np.float64) / self.scale)


def _grid(amount: float, scale: int) -> int:
    return max(1, math.ceil(amount * scale - 1e-9))


def simulate_paths(rules: RuleSet, shares: Mapping[str, Fraction], *, side: str, coups: int,
                   sessions: int, seed: int, stop_loss: float | None, stop_win: float | None,
                   composition: Composition | None = None) -> PathRun:
    """Play ``sessions`` sessions of at most ``coups`` coups from whole shoes under ``rules``."""
    if coups < 1:
        raise PuntoBancoError(f"A session has at least one coup, not {coups}.", code="bad-coups")
    if sessions < 2:
        raise PuntoBancoError(f"Simulate at least 2 sessions, not {sessions}.",
                              code="bad-sessions")
    if side not in ("player", "house"):
        raise PuntoBancoError(f"{side!r} is not a side: choose player or house.", code="bad-bet")
    spec = ShoeSpec.build(rules, composition)
    house, scale = house_by_code(rules, shares)
    gain = -house if side == "player" else house
    low = -_grid(stop_loss, scale) if stop_loss is not None else np.iinfo(np.int64).min
    high = _grid(stop_win, scale) if stop_win is not None else np.iinfo(np.int64).max
    out = np.zeros((sessions, 5), dtype=np.int64)
    for chunk, first in enumerate(range(0, sessions, CHUNK_SESSIONS)):
        count = min(CHUNK_SESSIONS, sessions - first)
        path_chunk(count, coups, chunk_state(seed, chunk), spec.start, spec.codes, spec.used,
                   spec.burns, rules.burn, spec.cut_index, spec.extra, gain, int(low), int(high),
                   out[first:first + count])
    return PathRun(side=side, coups=coups, sessions=sessions, seed=seed, scale=scale,
                   stop_loss=stop_loss, stop_win=stop_win, paths=out)
