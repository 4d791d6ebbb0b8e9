"""Run a seeded shoe simulation anywhere and summarise it against the exact analysis.

>>> from puntobanco.rules import RuleSet
>>> run = simulate(RuleSet(decks=1), shoes=300, seed=11, threads=1)
>>> run.shoes, run.coups == int(run.totals.hist.sum())
(300, True)
>>> stats = bet_statistics(run)
>>> [s.name for s in stats]
['punto', 'banco', 'egalite', 'lion-punto', 'lion-banco']
>>> stats[0].ci95[0] < stats[0].mean < stats[0].ci95[1]
True
>>> small_run_warning(300) is None, small_run_warning(10) is not None
(True, True)
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

#: The normal quantile of a two-sided 95 % interval (the limit of :func:`t_quantile`).
Z95 = 1.959963984540054
#: Fewer shoes than this and the report warns that its intervals and z-scores are not to be
#: trusted: the standard error rests on so few independent shoes that it is itself uncertain.
MIN_TRUSTED_SHOES = 100
#: From this many degrees of freedom on, :func:`t_quantile` uses the Cornish–Fisher series.
_T_SERIES_FROM = 100


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
    warm_up(spec)  # numba compiles (or loads its cache) here, not inside the timed run
    began = time.perf_counter()
    chunks = run_chunks(_chunk_task, plan, threads=threads, workers=workers, scheduler=scheduler,
                        progress=progress, kwargs={"spec": spec, "seed": seed})
    seconds = time.perf_counter() - began
    return SimulationRun(spec=spec, seed=seed, shoes=shoes, seconds=seconds,
                         placement=placement.describe(), totals=engine.combine(spec, chunks))


def warm_up(spec: engine.ShoeSpec) -> None:
    """Play one shoe, so the compiled kernel is ready (compiled on the first run only, then
    loaded from numba's cache) before a run is timed."""
    engine.simulate_chunk(spec, seed=0, chunk=0, shoes=1)


def _chunk_task(chunk: int, shoes: int, *, spec: engine.ShoeSpec, seed: int) -> engine.SimChunk:
    return engine.simulate_chunk(spec, seed=seed, chunk=chunk, shoes=shoes)


def _t_within(t: float, df: int) -> float:
    """``P(|T| < t)`` for Student's t with ``df`` (a whole number) degrees of freedom.

    The closed form for whole ``df`` (Abramowitz & Stegun 26.7.3–26.7.4).
    """
    theta = math.atan(t / math.sqrt(df))
    sine, cosine = math.sin(theta), math.cos(theta)
    if df % 2:
        term, total = cosine, 0.0
        for j in range((df - 1) // 2):  # cos θ + (2/3) cos³θ + (2·4)/(3·5) cos⁵θ + …
            total += term
            term *= cosine * cosine * (2 * j + 2) / (2 * j + 3)
        return 2 / math.pi * (theta + sine * total)
    term, total = 1.0, 0.0
    for j in range(df // 2):  # 1 + (1/2) cos²θ + (1·3)/(2·4) cos⁴θ + …
        total += term
        term *= cosine * cosine * (2 * j + 1) / (2 * j + 2)
    return sine * total


def t_quantile(df: int) -> float:
    """The quantile of a two-sided 95 % interval under Student's t with ``df`` degrees of freedom.

    Bisection on the closed-form distribution below :data:`_T_SERIES_FROM` degrees of freedom,
    the Cornish–Fisher series (Abramowitz & Stegun 26.7.5, error below 1e-9 there) above.

    >>> [round(t_quantile(df), 4) for df in (1, 2, 9, 30, 10**9)]
    [12.7062, 4.3027, 2.2622, 2.0423, 1.96]
    """
    if df < 1:
        raise ValueError(f"Student's t needs at least one degree of freedom, not {df}.")
    if df >= _T_SERIES_FROM:
        z, z2 = Z95, Z95 * Z95
        return z + (z * (z2 + 1) / 4 / df
                    + z * ((5 * z2 + 16) * z2 + 3) / 96 / df ** 2
                    + z * (((3 * z2 + 19) * z2 + 17) * z2 - 15) / 384 / df ** 3
                    + z * ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) / 92160
                    / df ** 4)
    low, high = 0.0, math.pi / 2  # bisect on θ = atan(t / √df), where P(|T| < t) is monotone
    for _ in range(80):
        middle = (low + high) / 2
        if _t_within(math.sqrt(df) * math.tan(middle), df) < 0.95:
            low = middle
        else:
            high = middle
    return math.sqrt(df) * math.tan((low + high) / 2)


def small_run_warning(shoes: int) -> str | None:
    """A sentence saying why the intervals of a run of ``shoes`` shoes are not to be trusted.

    ``None`` from :data:`MIN_TRUSTED_SHOES` shoes on.
    """
    if shoes >= MIN_TRUSTED_SHOES:
        return None
    return (f"only {shoes} shoes: the standard errors rest on {shoes - 1} degree(s) of freedom, "
            "so the 95 % intervals and z-scores are rough (widened as far as is sound, but not "
            f"to be trusted); play at least {MIN_TRUSTED_SHOES:,} shoes.")


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


def bet_statistics(run: SimulationRun, exact: Mapping[str, float] | None = None, *,
                   exact_std_dev: Mapping[str, float] | None = None) -> list[BetStatistics]:
    """Mean, standard error (shoes as the independent unit), 95 % interval, hit frequencies.

    The mean is the total return over all coups divided by the coups. Its standard error is that
    of a ratio of per-shoe sums, since the coups of one shoe are not independent, but never less
    than ``σ / √coups``, as if every coup were independent, with ``σ`` the larger of the
    per-coup standard deviation in the sample and ``exact_std_dev`` (the exact analysis', if
    given). With few shoes the per-shoe spread is itself a rough estimate and can come out far
    too small, and a few coups of a long-shot bet understate its ``σ``; coups within a shoe are
    nearly independent, so on large runs the two standard errors agree to within about 0.5 %.
    The interval is the mean ± Student's t quantile with ``shoes − 1`` degrees of freedom times
    the standard error. ``exact`` maps bet names to exact EVs for the z-scores.
    """
    totals, spec = run.totals, run.spec
    coups, shoes = totals.coups, totals.shoes
    counts = np.arange(totals.coups_per_shoe.shape[0], dtype=np.float64)
    sum_c2 = float((totals.coups_per_shoe * counts * counts).sum())
    mean_coups = coups / shoes
    quantile = t_quantile(shoes - 1) if shoes > 1 else math.nan
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
        std_dev = math.sqrt(max(float(square - exact_mean ** 2), 0.0))
        std_error = math.nan
        if shoes > 1:
            by_shoes = math.sqrt(spread / (shoes * (shoes - 1))) / mean_coups
            sigma = max(std_dev * math.sqrt(coups / (coups - 1)) if coups > 1 else math.inf,
                        0.0 if exact_std_dev is None else float(exact_std_dev[name]))
            by_coups = sigma / math.sqrt(coups)
            std_error = max(by_shoes, by_coups)
        exact_ev = None if exact is None else float(exact[name])
        z = None
        if exact_ev is not None and std_error > 0 and math.isfinite(std_error):
            z = (mean - exact_ev) / std_error
        out.append(BetStatistics(
            name=name, mean=mean, exact_mean=exact_mean, std_error=std_error,
            ci95=(mean - quantile * std_error, mean + quantile * std_error),
            std_dev=std_dev,
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


def exact_std_devs(run: SimulationRun) -> dict[str, float]:
    """The exact standard deviation of one coup's return on each bet, for the full shoe."""
    from puntobanco.analysis import analyse

    sheet = analyse(run.spec.composition, run.spec.rules)
    return {name: float(sheet.bets[name].std_dev) for name in tables.BET_NAMES}
