"""The counting study: the exact EV of every bet at every coup of simulated shoes.

For each coup of every shoe the kernel records the cards left (:func:`kernel.record_chunk`); the
exact analysis turns each composition into the five bets' exact EVs
(:func:`puntobanco.analysis.expected_values`). From those:

* **the ceiling** — a bettor who knows the exact EV and stakes one unit only when it is positive
  wins, in expectation, the sum of the positive EVs: no count can do better;
* **simple counts** — integer tags proportional to the bet's effects of removal
  (:func:`puntobanco.analysis.effects_of_removal`) at several levels; the running count is the
  tags of the cards the player has seen (dealt cards and the turned burn card, not the burned
  cards dealt face down), less what those cards would tag on average, and the true count divides
  it by the decks left. The best tags and threshold are chosen on the first half of the shoes
  and reported on the second half, so the choice is not fitted to the shoes it is judged on.

For the count-against-EV plot each chunk also keeps a sample of its coups spread over its shoes
and, for every bet and candidate count, the coups with the highest true counts (the *tail*, see
:data:`TAIL_COUPS`): the coups at or above a betting threshold are rare and would all but never
turn up in a sample, yet they are the ones the count bets on.

Each chunk is reduced to fixed-size sums and histograms on the worker (:class:`CountChunk`) and
chunks are folded in chunk order, so a million shoes fit in memory and the result for a seed is
the same wherever chunks run.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from puntobanco.cards import Composition
from puntobanco.errors import PuntoBancoError
from puntobanco.rules import RuleSet
from puntobanco.sim import engine, kernel
from puntobanco.sim.executors import Progress, fold_chunks
from puntobanco.sim.rng import chunk_state
from puntobanco.sim.tables import BET_NAMES

#: Shoes per chunk of the counting study (fixed: the result for a seed depends on it).
COUNT_CHUNK_SHOES = 500
#: Tag levels tried: the largest tag, in absolute value, of each candidate count.
LEVELS: tuple[int, ...] = (1, 2, 3, 4, 6)
#: EV histograms: bins even in ``asinh(EV / EV_SCALE)`` up to ±EV_LIMIT, so each bin is about 4 %
#: of its EV wide (finer than 0.01 % near zero) and a bin edge lies at exactly zero.
EV_SCALE, EV_LIMIT, EV_BINS = 1e-4, 20.0, 600
EV_EDGES = EV_SCALE * np.sinh(np.linspace(-np.arcsinh(EV_LIMIT / EV_SCALE),
                                          np.arcsinh(EV_LIMIT / EV_SCALE), EV_BINS + 1))
#: Shoe depth (share of the shoe's cards gone) in 20 bins.
DEPTH_BINS = 20
#: True-count bins: ``TC_STEP * level`` wide, centred on zero.
TC_BINS, TC_STEP = 600, 0.1
#: Coups kept per chunk for the count-against-EV scatter plot (evenly spaced over the chunk).
SAMPLE_COUPS = 150
#: Most sample coups kept in all.
SAMPLE_LIMIT = 30_000
#: Per bet and candidate count: the coups with the highest true counts kept for the plot, per
#: chunk and in all. Whenever no more than this many coups lie at or above the threshold, the
#: tail holds every one of them.
TAIL_COUPS = 1_000
CARDS_PER_DECK = 52


def count_chunk_plan(shoes: int) -> list[tuple[int, int]]:
    """``(chunk index, shoes)`` of a counting study of ``shoes`` shoes."""
    return engine.chunk_plan(shoes, chunk_shoes=COUNT_CHUNK_SHOES)


def candidate_tags(effects: tuple[float, ...] | tuple[Fraction, ...]) -> list[tuple[int, ...]]:
    """Integer tags proportional to a bet's effects of removal, one set per level in LEVELS.

    A card whose removal raises the EV gets a positive tag. Duplicates and the all-zero set are
    dropped.

    >>> for tags in candidate_tags((0.0, 0.3, 0.1, -0.2, -0.4, 0.0, 0.0, 0.0, 0.1, 0.1)):
    ...     print(tags)
    (0, 1, 0, 0, -1, 0, 0, 0, 0, 0)
    (0, 1, 0, -1, -2, 0, 0, 0, 0, 0)
    (0, 2, 1, -2, -3, 0, 0, 0, 1, 1)
    (0, 3, 1, -2, -4, 0, 0, 0, 1, 1)
    (0, 4, 2, -3, -6, 0, 0, 0, 2, 2)
    """
    values = np.array([float(e) for e in effects])
    largest = float(np.abs(values).max())
    found: list[tuple[int, ...]] = []
    if largest == 0:
        return found
    for level in LEVELS:
        tags = tuple(int(t) for t in np.round(values / largest * level))
        if any(tags) and tags not in found:
            found.append(tags)
    return found


@dataclass(frozen=True, kw_only=True, eq=False)
class CountSetup:
    """What every chunk of a study needs (sent to workers)."""

    spec: engine.ShoeSpec
    #: ``tags[k][c]``: candidate ``c``'s ten tags for bet ``k`` (padded with zero rows).
    tags: npt.NDArray[np.int64]
    #: ``steps[k, c]``: candidate ``c``'s true-count bin width (0 for padding).
    steps: npt.NDArray[np.float64]
    train_shoes: int

    @property
    def candidates(self) -> int:
        return int(self.tags.shape[1])


@dataclass(frozen=True, kw_only=True, eq=False)
class CountChunk:
    """A chunk of the study reduced to sums and histograms (all arrays add up across chunks)."""

    shoes: int
    coups: int
    train_shoes: int
    ev_seconds: float
    ev_sum: npt.NDArray[np.float64]  # (5,)
    #: ``[k, half]`` (half 0 trains the count, half 1 judges it): coups with a positive EV, the
    #: sum of those EVs, and what betting one unit on each of them actually returned.
    positive: npt.NDArray[np.int64]
    positive_ev: npt.NDArray[np.float64]
    positive_realised: npt.NDArray[np.float64]
    depth_hist: npt.NDArray[np.int64]  # (5, DEPTH_BINS, EV_BINS)
    depth_ev: npt.NDArray[np.float64]  # (5, DEPTH_BINS) sum of the EVs
    #: (5, candidates, 2 halves, TC_BINS, 3): coups, sum of EV, sum of realised return.
    tc_stats: npt.NDArray[np.float64]
    sample_seen: npt.NDArray[np.int16] = field(repr=False)  # (m, 10) cards seen by the player
    sample_left: npt.NDArray[np.int16] = field(repr=False)  # (m,) cards left in the shoe
    sample_ev: npt.NDArray[np.float64] = field(repr=False)  # (m, 5)
    #: (5, candidates, TAIL_COUPS): the highest true counts of each candidate (``-inf`` pads the
    #: unused places) and the bet's exact EV at those coups, in coup order.
    tail_tc: npt.NDArray[np.float64] = field(repr=False)
    tail_ev: npt.NDArray[np.float64] = field(repr=False)

    def __add__(self, other: CountChunk) -> CountChunk:
        room = max(SAMPLE_LIMIT - self.sample_left.shape[0], 0)
        tail_tc, tail_ev = _merge_tails(self, other)
        return CountChunk(
            shoes=self.shoes + other.shoes, coups=self.coups + other.coups,
            train_shoes=self.train_shoes + other.train_shoes,
            ev_seconds=self.ev_seconds + other.ev_seconds,
            ev_sum=self.ev_sum + other.ev_sum, positive=self.positive + other.positive,
            positive_ev=self.positive_ev + other.positive_ev,
            positive_realised=self.positive_realised + other.positive_realised,
            depth_hist=self.depth_hist + other.depth_hist,
            depth_ev=self.depth_ev + other.depth_ev, tc_stats=self.tc_stats + other.tc_stats,
            sample_seen=np.concatenate([self.sample_seen, other.sample_seen[:room]]),
            sample_left=np.concatenate([self.sample_left, other.sample_left[:room]]),
            sample_ev=np.concatenate([self.sample_ev, other.sample_ev[:room]]),
            tail_tc=tail_tc, tail_ev=tail_ev,
        )


def top_indices(values: npt.NDArray[np.float64], limit: int) -> npt.NDArray[np.int64]:
    """Positions of the ``limit`` largest values, in position order; ties go to the first.

    The choice depends on the values alone (not on a sort's algorithm), so chunks give the same
    tail wherever they run.

    >>> [int(i) for i in top_indices(np.array([3.0, 9.0, 5.0, 9.0, 5.0, 1.0]), 3)]
    [1, 2, 3]
    """
    n = values.shape[0]
    if n <= limit:
        return np.arange(n, dtype=np.int64)
    kth = np.partition(values, n - limit)[n - limit]  # the limit-th largest value
    above = np.flatnonzero(values > kth)
    ties = np.flatnonzero(values == kth)[:limit - above.shape[0]]
    chosen: npt.NDArray[np.int64] = np.sort(np.concatenate([above, ties])).astype(np.int64)
    return chosen


def _merge_tails(first: CountChunk, second: CountChunk
                 ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """The two chunks' tails together, cut back to the TAIL_COUPS highest true counts each."""
    tc = np.concatenate([first.tail_tc, second.tail_tc], axis=2)
    ev = np.concatenate([first.tail_ev, second.tail_ev], axis=2)
    out_tc = np.full(first.tail_tc.shape, -np.inf)
    out_ev = np.zeros(first.tail_ev.shape)
    for k in range(tc.shape[0]):
        for c in range(tc.shape[1]):
            keep = top_indices(tc[k, c], TAIL_COUPS)
            out_tc[k, c, :keep.shape[0]] = tc[k, c, keep]
            out_ev[k, c, :keep.shape[0]] = ev[k, c, keep]
    return out_tc, out_ev


def _empty(setup: CountSetup) -> CountChunk:
    bets = len(BET_NAMES)
    return CountChunk(
        shoes=0, coups=0, train_shoes=0, ev_seconds=0.0, ev_sum=np.zeros(bets),
        positive=np.zeros((bets, 2), dtype=np.int64), positive_ev=np.zeros((bets, 2)),
        positive_realised=np.zeros((bets, 2)),
        depth_hist=np.zeros((bets, DEPTH_BINS, EV_BINS), dtype=np.int64),
        depth_ev=np.zeros((bets, DEPTH_BINS)),
        tc_stats=np.zeros((bets, setup.candidates, 2, TC_BINS, 3)),
        sample_seen=np.zeros((0, 10), dtype=np.int16), sample_left=np.zeros(0, dtype=np.int16),
        sample_ev=np.zeros((0, bets)),
        tail_tc=np.full((bets, setup.candidates, TAIL_COUPS), -np.inf),
        tail_ev=np.zeros((bets, setup.candidates, TAIL_COUPS)))


def ev_bin(ev: npt.NDArray[np.float64]) -> npt.NDArray[np.int64]:
    """Bin of each EV in the EV histograms (see :data:`EV_EDGES`; clipped to the end bins).

    >>> [int(b) for b in ev_bin(np.array([-0.5, -1e-9, 0.0, 1e-9, 0.5]))]
    [85, 299, 300, 300, 514]
    """
    half = EV_BINS // 2
    scaled = np.arcsinh(ev / EV_SCALE) / np.arcsinh(EV_LIMIT / EV_SCALE) * half
    bins: npt.NDArray[np.int64] = np.clip(np.floor(scaled) + half, 0, EV_BINS - 1).astype(np.int64)
    return bins


def true_counts(seen: npt.NDArray[np.integer], left: npt.NDArray[np.integer],
                tags: npt.NDArray[np.int64], full: Composition) -> npt.NDArray[np.float64]:
    """True counts: (tags of the cards seen − their average tags) / decks left.

    ``seen`` is ``(n, 10)``, ``left`` the cards left in the shoe ``(n,)``, ``tags`` ``(t, 10)``;
    the result is ``(n, t)``. With balanced tags the correction is zero.

    >>> full = (16, 4, 4, 4, 4, 4, 4, 4, 4, 4)
    >>> seen = np.array([[0, 0, 0, 0, 0, 2, 0, 0, 0, 0]]); tags = np.array([[0] * 5 + [1] + [0] * 4])
    >>> true_counts(seen, np.array([26]), tags, full)       # two fives seen, half a deck left
    array([[3.69230769]])
    """
    full_array = np.asarray(full, dtype=np.float64)
    average = tags @ full_array / full_array.sum()  # (t,)
    seen_f = seen.astype(np.float64)
    running = seen_f @ tags.T.astype(np.float64) - np.outer(seen_f.sum(axis=1), average)
    decks_left = left.astype(np.float64) / CARDS_PER_DECK
    result: npt.NDArray[np.float64] = running / decks_left[:, None]
    return result


def tc_bin(counts: npt.NDArray[np.float64], step: float) -> npt.NDArray[np.int64]:
    """Bin of each true count for a candidate with bin width ``step`` (clipped)."""
    bins: npt.NDArray[np.int64] = np.clip(np.floor(counts / step) + TC_BINS // 2, 0,
                                          TC_BINS - 1).astype(np.int64)
    return bins


def threshold_of(bin_index: int, step: float) -> float:
    """The true count at the lower edge of a bin: bet when the true count is at least this."""
    return round((bin_index - TC_BINS // 2) * step, 6)


def count_chunk(chunk: int, first_shoe: int, shoes: int, *, setup: CountSetup,
                seed: int) -> CountChunk:
    """Play and reduce one chunk of the study (runs on a worker)."""
    from puntobanco.analysis import expected_values

    spec = setup.spec
    codes, comps, offsets, hidden = kernel.record_chunk(
        shoes, chunk_state(seed, chunk), spec.start, spec.codes, spec.used, spec.burns,
        spec.rules.burn, spec.cut_index, spec.extra, spec.max_coups)
    began = time.perf_counter()
    # one thread: the chunks are the parallelism (threads here, processes on Dask)
    evs = np.asarray(expected_values(comps.astype(np.int64), spec.rules, parallel=False),
                     dtype=np.float64)
    ev_seconds = time.perf_counter() - began
    realised = spec.pays[codes.astype(np.int64)]  # (n, 5) return per unit of each coup
    coups_in_shoe = np.diff(offsets)
    shoe_of_coup = np.repeat(np.arange(shoes), coups_in_shoe)
    full = np.asarray(spec.composition, dtype=np.int64)
    left = comps.sum(axis=1)
    seen = full[None, :] - comps - hidden[shoe_of_coup]
    half = (first_shoe + shoe_of_coup >= setup.train_shoes).astype(np.int64)  # 0 train, 1 test
    depth = np.minimum((1.0 - left / full.sum()) * DEPTH_BINS, DEPTH_BINS - 1).astype(np.int64)
    out = _empty(setup)
    positive = evs > 0
    bets = len(BET_NAMES)
    for k in range(bets):
        ev_k = evs[:, k]
        for h in (0, 1):
            mask = positive[:, k] & (half == h)
            out.positive[k, h] = int(mask.sum())
            out.positive_ev[k, h] = float(ev_k[mask].sum())
            out.positive_realised[k, h] = float(realised[mask, k].sum())
        cells = depth * EV_BINS + ev_bin(ev_k)
        out.depth_hist[k] += np.bincount(cells, minlength=DEPTH_BINS * EV_BINS).reshape(
            DEPTH_BINS, EV_BINS)
        out.depth_ev[k] += np.bincount(depth, weights=ev_k, minlength=DEPTH_BINS)
        counts = true_counts(seen, left, setup.tags[k], spec.composition)
        for c in range(setup.candidates):
            step = float(setup.steps[k, c])
            if step == 0:
                continue
            flat = half * TC_BINS + tc_bin(counts[:, c], step)
            top = top_indices(counts[:, c], TAIL_COUPS)
            out.tail_tc[k, c, :top.shape[0]] = counts[top, c]
            out.tail_ev[k, c, :top.shape[0]] = ev_k[top]
            stats = out.tc_stats[k, c].reshape(2 * TC_BINS, 3)
            stats[:, 0] += np.bincount(flat, minlength=2 * TC_BINS)
            stats[:, 1] += np.bincount(flat, weights=ev_k, minlength=2 * TC_BINS)
            stats[:, 2] += np.bincount(flat, weights=realised[:, k], minlength=2 * TC_BINS)
    n_coups = int(comps.shape[0])
    kept = min(SAMPLE_COUPS, n_coups)
    sample = np.arange(kept) * n_coups // max(kept, 1)  # spread over the chunk's shoes
    return CountChunk(
        shoes=shoes, coups=int(comps.shape[0]),
        train_shoes=int(np.clip(setup.train_shoes - first_shoe, 0, shoes)),
        ev_seconds=ev_seconds, ev_sum=evs.sum(axis=0), positive=out.positive,
        positive_ev=out.positive_ev, positive_realised=out.positive_realised,
        depth_hist=out.depth_hist, depth_ev=out.depth_ev, tc_stats=out.tc_stats,
        sample_seen=seen[sample].astype(np.int16), sample_left=left[sample].astype(np.int16),
        sample_ev=evs[sample], tail_tc=out.tail_tc, tail_ev=out.tail_ev)


@dataclass(frozen=True, kw_only=True)
class CountChoice:
    """The best simple count for one bet, chosen on the training half, judged on the other."""

    tags: tuple[int, ...]
    level: int
    step: float
    #: Bet when the true count is at least this; ``None``: no count found a profitable threshold.
    threshold: float | None
    threshold_bin: int | None
    train_units_per_shoe: float
    units_per_shoe: float  # expected (sum of exact EVs of the bets made) per test shoe
    realised_units_per_shoe: float
    bets_per_shoe: float
    edge: float | None  # expected return per unit bet

    def to_dict(self) -> dict[str, object]:
        return {"tags": list(self.tags), "level": self.level, "threshold": self.threshold,
                "units_per_shoe": self.units_per_shoe,
                "realised_units_per_shoe": self.realised_units_per_shoe,
                "bets_per_shoe": self.bets_per_shoe, "edge_when_betting": self.edge,
                "train_units_per_shoe": self.train_units_per_shoe}


@dataclass(frozen=True, kw_only=True, eq=False)
class CountStudy:
    """A finished counting study."""

    setup: CountSetup
    seed: int
    seconds: float
    placement: str
    totals: CountChunk
    choices: dict[str, CountChoice]
    effects: dict[str, tuple[float, ...]]

    @property
    def rules(self) -> RuleSet:
        return self.setup.spec.rules

    @property
    def test_shoes(self) -> int:
        return self.totals.shoes - self.totals.train_shoes


def choose_count(totals: CountChunk, setup: CountSetup, bet: int) -> CountChoice:
    """Pick the tags and threshold with the most expected units on the training half.

    If no candidate has a threshold above which the training half's EVs add up to a gain, the
    count never bets (``threshold`` is ``None``) and the lowest-level tags are reported.
    """
    best_units, best_candidate, best_bin = 0.0, 0, -1
    for c in range(setup.candidates):
        if setup.steps[bet, c] == 0:
            continue
        from_bin = np.cumsum(totals.tc_stats[bet, c, 0, ::-1, 1])[::-1]  # EV at counts >= bin
        j = int(np.argmax(from_bin))
        if from_bin[j] > best_units:
            best_units, best_candidate, best_bin = float(from_bin[j]), c, j
    tags = tuple(int(t) for t in setup.tags[bet, best_candidate])
    step = float(setup.steps[bet, best_candidate])
    level = max(abs(t) for t in tags)
    if best_bin < 0:
        return CountChoice(tags=tags, level=level, step=step, threshold=None, threshold_bin=None,
                           train_units_per_shoe=0.0, units_per_shoe=0.0,
                           realised_units_per_shoe=0.0, bets_per_shoe=0.0, edge=None)
    test = totals.tc_stats[bet, best_candidate, 1, best_bin:]
    test_shoes = max(totals.shoes - totals.train_shoes, 1)
    bets, expected, realised = (float(x) for x in test.sum(axis=0))
    return CountChoice(
        tags=tags, level=level, step=step, threshold=threshold_of(best_bin, step),
        threshold_bin=best_bin, train_units_per_shoe=best_units / max(totals.train_shoes, 1),
        units_per_shoe=expected / test_shoes, realised_units_per_shoe=realised / test_shoes,
        bets_per_shoe=bets / test_shoes, edge=expected / bets if bets else None)


def build_setup(spec: engine.ShoeSpec, shoes: int,
                tags_by_bet: Mapping[str, Sequence[Sequence[int]]] | None = None
                ) -> tuple[CountSetup, dict[str, tuple[float, ...]]]:
    """The candidate counts from the full shoe's effects of removal, and the training half.

    ``tags_by_bet`` replaces the candidates of the bets it names (e.g. to judge a published
    count by the same yardstick).
    """
    from puntobanco.analysis import effects_of_removal

    exact = effects_of_removal(spec.composition, spec.rules)
    effects = {name: tuple(float(e) for e in exact[name]) for name in BET_NAMES}
    given = dict(tags_by_bet or {})
    for name, candidates in given.items():
        if name not in BET_NAMES or not candidates or any(
                len(c) != 10 or not any(c) for c in candidates):
            raise PuntoBancoError(f"Tags for {name!r} must be sets of ten whole numbers, not all "
                                  "zero, for a bet among " + ", ".join(BET_NAMES) + ".",
                                  code="bad-tags")
    per_bet = [[tuple(int(t) for t in c) for c in given[name]] if name in given
               else candidate_tags(effects[name]) for name in BET_NAMES]
    width = max(1, *(len(c) for c in per_bet))
    tags = np.zeros((len(BET_NAMES), width, 10), dtype=np.int64)
    steps = np.zeros((len(BET_NAMES), width))
    for k, candidates in enumerate(per_bet):
        for c, candidate in enumerate(candidates):
            tags[k, c] = candidate
            steps[k, c] = TC_STEP * max(abs(t) for t in candidate)
    return CountSetup(spec=spec, tags=tags, steps=steps, train_shoes=shoes // 2), effects


def study(rules: RuleSet, *, shoes: int, seed: int, composition: Composition | None = None,
          threads: int | None = None, workers: int | None = None, scheduler: str | None = None,
          progress: Progress | None = None,
          tags_by_bet: Mapping[str, Sequence[Sequence[int]]] | None = None) -> CountStudy:
    """Run the counting study on ``shoes`` shoes from ``seed`` (same result wherever it runs).

    ``tags_by_bet`` gives the candidate tag sets of some bets instead of those derived from the
    effects of removal.
    """
    from puntobanco.sim.executors import Placement

    placement = Placement(threads=threads, workers=workers, scheduler=scheduler)
    setup, effects = build_setup(engine.ShoeSpec.build(rules, composition), shoes, tags_by_bet)
    plan = count_chunk_plan(shoes)
    tasks = [(chunk, chunk * COUNT_CHUNK_SHOES, size) for chunk, size in plan]
    warm_up(setup)  # numba compiles (or loads its cache) here, not inside the timed study
    began = time.perf_counter()
    totals = fold_chunks(count_chunk, tasks, _add, _empty(setup), threads=threads,
                         workers=workers, scheduler=scheduler, progress=progress,
                         kwargs={"setup": setup, "seed": seed})
    seconds = time.perf_counter() - began
    choices = {name: choose_count(totals, setup, k) for k, name in enumerate(BET_NAMES)}
    return CountStudy(setup=setup, seed=seed, seconds=seconds, placement=placement.describe(),
                      totals=totals, choices=choices, effects=effects)


def warm_up(setup: CountSetup) -> None:
    """Study one shoe, so the compiled kernels (the shoe's and the exact EVs') are ready before a
    study is timed: compiled on the first run only, then loaded from numba's cache."""
    count_chunk(0, 0, 1, setup=setup, seed=0)


def _add(total: CountChunk, chunk: CountChunk) -> CountChunk:
    return total + chunk
