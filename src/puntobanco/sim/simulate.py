"""Run a seeded shoe simulation anywhere and summarise it against the exact analysis.

>>> from puntobanco.rules import RuleSet
>>> run = simulate(RuleSet(decks=1), shoes=300, seed=11, threads=1)
>>> run.shoes, run.coups == int(run.totals.hist.sum())
(300, True)
>>> stats = bet_statistics(run)
>>> [s.name for s in stats]
['punto', 'banco', 'egalite', 'lion_punto', 'lion_banco']
>>> stats[0].ci95[0] < stats[0].mean < stats[0].ci95[1]
True
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from puntobanco.cards import Composition
from puntobanco.rules import RuleSet
from puntobanco.sim import engine, tables
from puntobanco.sim.executors import Placement, Progress, run_chunks

#: The normal quantile of a two-sided 95 % interval.
Z95 = 1.959963984540054


@dataclass(frozen=True, kw_only=True, eq=False)
class SimulationRun:
    """A finished simulation: what was asked, where it ran, and the combined statistics."""

    spec: engine.ShoeSpec
    seed: int
    shoes: int
    seconds: float
    placement: str
    totals: engine.SimChunk

    @property
    def coups(self) -> int:
        return self.totals.coups

    @property
    def coups_per_second(self) -> float:
        return self.coups / self.seconds if self.seconds > 0 else math.inf


def simulate(rules: RuleSet, *, shoes: int, seed: int, composition: Composition | None = None,
             threads: int | None = None, workers: int | None = None,
             scheduler: str | None = None, progress: Progress | None = None,
             chunk_shoes: int = engine.CHUNK_SHOES) -> SimulationRun:
    """Play ``shoes`` shoes under ``rules`` (S1–S3) from ``seed``, in chunks run where asked.

    The result is the same for a seed whatever ``threads``, ``workers`` or ``scheduler`` say.
    """
    placement = Placement(threads=threads, workers=workers, scheduler=scheduler)
    spec = engine.ShoeSpec.build(rules, composition)
    plan = engine.chunk_plan(shoes, chunk_shoes=chunk_shoes)
    began = time.perf_counter()
    chunks = run_chunks(_chunk_task, plan, threads=threads, workers=workers, scheduler=scheduler,
                        progress=progress, kwargs={"spec": spec, "seed": seed})
    seconds = time.perf_counter() - began
    return SimulationRun(spec=spec, seed=seed, shoes=shoes, seconds=seconds,
                         placement=placement.describe(), totals=engine.combine(spec, chunks))


def _chunk_task(chunk: int, shoes: int, *, spec: engine.ShoeSpec, seed: int) -> engine.SimChunk:
    return engine.simulate_chunk(spec, seed=seed, chunk=chunk, shoes=shoes)


@dataclass(frozen=True, kw_only=True)
class BetStatistics:
    """One bet's simulated return per unit staked on every coup, and the exact comparison."""

    name: str
    mean: float
    exact_mean: Fraction  # the same mean, exactly, from the outcome counts
    std_error: float
    ci95: tuple[float, float]
    std_dev: float  # per coup
    win_frequency: float
    push_frequency: float
    exact_ev: float | None = None
    z: float | None = None

    def to_dict(self) -> dict[str, object]:
        return {"mean": self.mean, "ci95": list(self.ci95), "std_error": self.std_error,
                "std_dev": self.std_dev, "win_frequency": self.win_frequency,
                "push_frequency": self.push_frequency, "exact_ev": self.exact_ev, "z": self.z}


def bet_statistics(run: SimulationRun, exact: Mapping[str, float] | None = None
                   ) -> list[BetStatistics]:
    """Mean, standard error (shoes as the independent unit), 95 % interval, hit frequencies.

    The mean is the total return over all coups divided by the coups; its standard error is that
    of a ratio of per-shoe sums, since the coups of one shoe are not independent. ``exact`` maps
    bet names to exact EVs for the z-scores.
    """
    totals, spec = run.totals, run.spec
    coups, shoes = totals.coups, totals.shoes
    counts = np.arange(totals.coups_per_shoe.shape[0], dtype=np.float64)
    sum_c2 = float((totals.coups_per_shoe * counts * counts).sum())
    mean_coups = coups / shoes
    wins, pushes = tables.outcome_tables(spec.rules)
    pays = spec.exact_pays
    reachable = [code for code in range(tables.N_CODES) if totals.hist[code]]
    out = []
    for k, name in enumerate(tables.BET_NAMES):
        exact_mean = sum((Fraction(int(totals.hist[c])) * pays[c][k] for c in reachable),
                         Fraction(0)) / coups
        square = sum((Fraction(int(totals.hist[c])) * pays[c][k] ** 2 for c in reachable),
                     Fraction(0)) / coups
        mean = float(exact_mean)
        sum_r2, sum_rc = float(totals.shoe_sums[k, 1]), float(totals.shoe_sums[k, 2])
        spread = max(sum_r2 - 2 * mean * sum_rc + mean * mean * sum_c2, 0.0)
        std_error = (math.sqrt(spread / (shoes * (shoes - 1))) / mean_coups if shoes > 1
                     else math.nan)
        exact_ev = None if exact is None else float(exact[name])
        z = None
        if exact_ev is not None and std_error > 0 and math.isfinite(std_error):
            z = (mean - exact_ev) / std_error
        out.append(BetStatistics(
            name=name, mean=mean, exact_mean=exact_mean, std_error=std_error,
            ci95=(mean - Z95 * std_error, mean + Z95 * std_error),
            std_dev=math.sqrt(max(float(square - exact_mean ** 2), 0.0)),
            win_frequency=float(totals.hist[wins[:, k]].sum()) / coups,
            push_frequency=float(totals.hist[pushes[:, k]].sum()) / coups,
            exact_ev=exact_ev, z=z))
    return out


def coups_per_shoe(run: SimulationRun) -> dict[str, float]:
    """Mean, least and most coups per shoe."""
    per_shoe = run.totals.coups_per_shoe
    played = np.nonzero(per_shoe)[0]
    return {"mean": run.coups / run.shoes, "min": int(played.min()), "max": int(played.max())}


def exact_evs(run: SimulationRun) -> dict[str, float]:
    """The exact EV of each bet for the full shoe, from :func:`puntobanco.analysis.analyse`."""
    from puntobanco.analysis import analyse

    sheet = analyse(run.spec.composition, run.spec.rules)
    return {name: float(sheet.bets[name].ev) for name in tables.BET_NAMES}
