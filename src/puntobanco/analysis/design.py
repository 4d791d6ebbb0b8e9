"""Pay-table design: search the Lion Bonus, Banco and Égalité pays for a target house edge, exactly.

A bet's EV is linear in its pays: ``EV = Σ_row P(row) · pays(row)``. So the per-outcome
probabilities are computed once — exact counts for a full shoe (the off-the-top figure,
:func:`~puntobanco.analysis.exact.analyse`), or averaged over the shoe states a cut card leaves
(:func:`shoe_average_rows`) — and every candidate pay table is one dot product. The candidates are
generated and scored as numpy arrays (a few million a second); the ones shown are then recomputed
exactly with ``Fraction`` from the integer counts.

Lion Bonus rows (L5): natural win, natural tie, win by 9 … win by 4, and loss (−1). A candidate
is a natural-win pay, a natural-tie pay (0: returned, as L5b; −1: lost) and six pays for the
margins 9 … 4 on a grid of whole or half units, non-increasing in the margin unless asked
otherwise.

>>> from puntobanco.cards import full_composition
>>> rows = lion_rows(full_composition(6), RuleSet(), side="punto")
>>> rows.names[:3], rows.total
(('natural-win', 'natural-tie', 'win-by-9'), 878869206895680)
>>> result = search_lion(rows, target=(0.10, 0.10), max_pay=20, step=Fraction(1))
>>> result.candidates > 100_000, f"{result.best[0].house_edge:.4%}"
(True, '9.9999%')
>>> result.spec_place is not None
True
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from puntobanco.analysis.exact import analyse, class_counts
from puntobanco.analysis.multisets import MAX_CARDS, falling
from puntobanco.analysis.risk import bet_key
from puntobanco.analysis.tables import CLASS_COUNT, class_parts
from puntobanco.errors import PuntoBancoError, RuleSetError
from puntobanco.rules import LION_PAYTABLE, BancoPayout, RuleSet, pay_ratio
from puntobanco.rules_json import PAYOUT_KEYS, rules_to_json

__all__ = [
    "Candidate",
    "OutcomeRows",
    "SearchResult",
    "banco_rows",
    "egalite_rows",
    "lion_rows",
    "mixed_rows",
    "monotone_tables",
    "proposed_rules",
    "search_banco",
    "search_egalite",
    "search_lion",
    "verify_expressible",
    "with_other_side",
    "with_side_edges",
]

FloatArray = npt.NDArray[np.float64]
#: The most candidates one search scores (memory: about 100 bytes each).
MAX_CANDIDATES = 50_000_000
LION_ROWS: tuple[str, ...] = ("natural-win", "natural-tie", *(f"win-by-{m}" for m in range(9, 3, -1)),
                              "lose")


@dataclass(frozen=True, kw_only=True)
class OutcomeRows:
    """A bet's outcome rows and their weights: exact counts over ``total``, or probabilities.

    ``counts`` are exact integers for a full shoe (``method == "exact"``); for a shoe average
    they are floats summing to 1 (``total == 1``) with standard errors ``errors``.
    """

    names: tuple[str, ...]
    counts: tuple[int, ...] | tuple[float, ...]
    total: int
    method: str
    errors: tuple[float, ...] | None = None
    #: Shoe averages only: the covariance matrix of the row estimates (for a pay table's SE).
    covariance: tuple[tuple[float, ...], ...] | None = None

    def edge_std_error(self, pays: Sequence[Fraction]) -> float | None:
        """Standard error of a pay table's house edge (shoe averages; ``None`` when exact)."""
        if self.covariance is None:
            return None
        vector = np.array([float(p) for p in pays])
        return math.sqrt(max(float(vector @ np.array(self.covariance) @ vector), 0.0))

    @property
    def probabilities(self) -> FloatArray:
        return np.array([float(Fraction(c) / self.total) if isinstance(c, int) else c
                         for c in self.counts], dtype=np.float64)

    def exact(self, pays: Sequence[Fraction]) -> tuple[Fraction, Fraction] | None:
        """Exact (EV, second moment) of a pay vector, when the counts are exact."""
        if not all(isinstance(c, int) for c in self.counts):
            return None
        first = sum((Fraction(int(c)) * p for c, p in zip(self.counts, pays, strict=True)),
                    Fraction(0)) / self.total
        second = sum((Fraction(int(c)) * p * p for c, p in zip(self.counts, pays, strict=True)),
                     Fraction(0)) / self.total
        return first, second


def lion_rows(composition: Sequence[int], rules: RuleSet, *, side: str) -> OutcomeRows:
    """The Lion Bonus rows of one side (``punto`` or ``banco``), exact counts, full shoe."""
    sheet = analyse(composition, rules)
    bet = sheet.bets[str(bet_key(f"lion-{side}"))]
    counts = {row.name: row.combinations for row in bet.outcomes}
    return OutcomeRows(names=LION_ROWS, counts=tuple(counts[name] for name in LION_ROWS),
                       total=bet.total_combinations, method="exact")


def banco_rows(composition: Sequence[int], rules: RuleSet) -> OutcomeRows:
    """Banco rows by winning total (``win-with-1`` … ``win-with-9``), ``tie`` and ``lose``,
    exact counts from the class counts (every class fixes both totals)."""
    counts = class_counts(composition, rules.drawing)
    rows = {f"win-with-{t}": 0 for t in range(1, 10)} | {"tie": 0, "lose": 0}
    for index in range(CLASS_COUNT):
        if counts[index]:
            _, punto, banco = class_parts(index)
            key = f"win-with-{banco}" if banco > punto else "tie" if banco == punto else "lose"
            rows[key] += counts[index]
    total = falling(sum(composition), MAX_CARDS)
    return OutcomeRows(names=tuple(rows), counts=tuple(rows.values()), total=total,
                       method="exact")


def monotone_tables(values: int, length: int = 6) -> npt.NDArray[np.int16]:
    """Every non-increasing sequence of ``length`` indices below ``values``, as rows.

    >>> monotone_tables(3, 2).tolist()
    [[0, 0], [1, 0], [1, 1], [2, 0], [2, 1], [2, 2]]
    >>> len(monotone_tables(31)) == math.comb(31 + 5, 6)
    True
    """
    rows = np.arange(values, dtype=np.int64)[:, None]
    for _ in range(length - 1):
        counts = rows[:, -1] + 1
        repeated = np.repeat(rows, counts, axis=0)
        offsets = np.repeat(np.cumsum(counts) - counts, counts)
        new = np.arange(repeated.shape[0], dtype=np.int64) - offsets
        rows = np.hstack([repeated, new[:, None]])
    return rows.astype(np.int16)


@dataclass(frozen=True, kw_only=True)
class Candidate:
    """One pay table and its figures (exact where the rows are exact counts)."""

    pays: dict[str, Fraction]
    house_edge: float
    house_edge_exact: Fraction | None
    std_dev: float
    hit_frequency: float
    distance: float
    rank: int
    #: A short description (Banco and Égalité searches: "commission 5.0000%", "8:1").
    name: str = ""
    #: Monte Carlo standard error of the edge (shoe-average rows only).
    house_edge_std_error: float | None = None
    #: Lion Bonus: the same pay table's house edge on the other side (see :func:`with_other_side`).
    other_side_edge: float | None = None
    #: The table settings that deal this candidate: :func:`proposed_rules` applies them to the
    #: base rule set (``RuleSet`` keyword arguments), so par, risk, the simulator and a live
    #: table take exactly what the search scored.
    settings: dict[str, Any] | None = None
    #: Lion Bonus: the table's house edge on Punto and on Banco (see :func:`with_side_edges`).
    side_edges: tuple[float, float] | None = None

    def label(self) -> str:
        return ",".join(_pay_text(p) for p in self.pays.values())

    def to_dict(self) -> dict[str, Any]:
        return {"rank": self.rank, "name": self.name, "pays": {k: _pay_text(v) for k, v in self.pays.items()},
                "house_edge": self.house_edge,
                "house_edge_exact": None if self.house_edge_exact is None
                else str(self.house_edge_exact),
                "house_edge_std_error": self.house_edge_std_error,
                "other_side_house_edge": self.other_side_edge,
                "std_dev": self.std_dev, "hit_frequency": self.hit_frequency,
                "distance": self.distance} | ({} if self.side_edges is None else {
                    "punto_house_edge": self.side_edges[0],
                    "banco_house_edge": self.side_edges[1]})


def proposed_rules(candidate: Candidate, base: RuleSet) -> RuleSet:
    """The rule set that deals ``candidate``: ``base`` with the candidate's pays.

    >>> from puntobanco.cards import full_composition
    >>> rows = banco_rows(full_composition(6), RuleSet())
    >>> best = search_banco(rows, target=(0.02, 0.02), commissions=[], half_totals=[5],
    ...                     half_pays=[Fraction(1, 4)]).best[0]
    >>> proposed_rules(best, RuleSet()).banco_reduced_pays
    ((5, Fraction(1, 4)),)
    """
    if candidate.settings is None:
        raise PuntoBancoError("This candidate carries no table settings.", code="bad-design")
    return base.replace(**candidate.settings)


def verify_expressible(base: RuleSet, what: str, settings: Sequence[dict[str, Any]]) -> None:
    """Refuse, in one sentence, a search value no table could deal (``RuleSet`` refuses it).

    ``design`` proposes only tables that ``par``, ``risk``, the simulator and a live table can
    take: every value it will try is checked here, before the search, against ``base``.

    >>> third = {"banco_reduced_pays": ((6, Fraction(1, 3)),)}
    >>> try:
    ...     verify_expressible(RuleSet(), "--half-pay", [third])
    ... except PuntoBancoError as refused:
    ...     print(refused.message[:53])
    --half-pay would propose a table no rule set can deal
    """
    for changes in settings:
        try:
            base.replace(**changes)
        except RuleSetError as refused:
            raise PuntoBancoError(f"{what} would propose a table no rule set can deal "
                                  f"({refused.message.rstrip('.')}).", code="bad-design") from None


def _pay_text(pay: Fraction) -> str:
    return str(pay.numerator) if pay.denominator == 1 else str(float(pay))


@dataclass(frozen=True, kw_only=True)
class SearchResult:
    """The best candidates, how many were scored and passed, and the reference table's place."""

    bet: str
    rows: OutcomeRows
    target: tuple[float, float]
    candidates: int
    passed: int
    best: list[Candidate]
    spec: Candidate | None
    spec_place: int | None
    spec_passes: bool
    seconds: float = 0.0
    notes: tuple[str, ...] = ()
    #: How the reference table is named in the output ("SPEC" for SPEC's own settings).
    reference_name: str = "SPEC"
    #: The rule set the candidates change (shoe procedure, limits, the bets not designed).
    base: RuleSet | None = None
    #: What the distance measures (one side, the worse of two sides, a handle-weighted mix).
    objective: str = "the bet's house edge"
    #: The least hit frequency asked, and the lowest and highest any scored candidate has.
    min_hit: float = 0.0
    hit_range: tuple[float, float] | None = None

    @property
    def shortfall(self) -> float | None:
        """How far the nearest passing table is from the target (0: reached; ``None``: no
        table passed the constraints)."""
        return self.best[0].distance if self.best else None

    @property
    def reached(self) -> bool:
        return self.shortfall is not None and self.shortfall <= 1e-12

    @property
    def findings(self) -> tuple[str, ...]:
        """Sentences on what the search could not do: a target no table reaches (and by how
        far), a minimum hit frequency that cannot bind or that no table meets."""
        out = []
        low, high = self.target
        target = f"{low:.4%}" if low == high else f"{low:.4%} to {high:.4%}"
        if self.shortfall is None:
            out.append("No table meets the constraints, so none is proposed.")
        elif not self.reached:
            reach = "gives exactly" if low == high else "reaches"
            out.append(f"No table in this search {reach} the target {target} "
                       f"({self.objective}): the nearest misses it by {self.shortfall:.4%}"
                       + (" — widen the target or the pay grid." if self.shortfall >= 1e-4
                          else "."))
        if self.min_hit > 0 and self.hit_range is not None:
            least, most = self.hit_range
            if self.min_hit <= least:
                out.append(f"The minimum hit frequency {self.min_hit:.4%} cannot bind: every "
                           f"candidate hits at least {least:.4%}.")
            elif self.min_hit > most:
                out.append(f"No candidate meets the minimum hit frequency {self.min_hit:.4%}: "
                           f"the most any hits is {most:.4%}.")
        return tuple(out)

    def rules_json(self, candidate: Candidate) -> dict[str, Any] | None:
        """The payout settings (``rules`` JSON, as a live table takes them) of a candidate."""
        if self.base is None or candidate.settings is None:
            return None
        return rules_to_json(proposed_rules(candidate, self.base), only=PAYOUT_KEYS)

    def to_dict(self) -> dict[str, Any]:
        return {"bet": self.bet, "rows": list(self.rows.names), "row_method": self.rows.method,
                "target": {"low": self.target[0], "high": self.target[1]},
                "candidates": self.candidates, "passed": self.passed,
                "best": [c.to_dict() | {"rules": self.rules_json(c)} for c in self.best],
                "reference_name": self.reference_name,
                "reference": None if self.spec is None
                else self.spec.to_dict() | {"rules": self.rules_json(self.spec)},
                "reference_place": self.spec_place, "reference_meets_constraints":
                self.spec_passes, "seconds": self.seconds, "notes": list(self.notes),
                "objective": self.objective, "target_reached": self.reached,
                "shortfall": self.shortfall, "min_hit": self.min_hit,
                "hit_range": None if self.hit_range is None else list(self.hit_range),
                "findings": list(self.findings)}


def _distance(edge: FloatArray, target: tuple[float, float]) -> FloatArray:
    low, high = target
    result: FloatArray = np.maximum(np.maximum(low - edge, edge - high), 0.0)
    return result


def _rank_order(distance: FloatArray, sd: FloatArray, prefer: str) -> npt.NDArray[np.int64]:
    # round the distance to 1e-12 so that equal edges (inside the target range) tie exactly
    key = -sd if prefer == "high" else sd
    order: npt.NDArray[np.int64] = np.lexsort((key, np.round(distance, 12)))
    return order


def _candidate(rows: OutcomeRows, names: Sequence[str], pays: Sequence[Fraction],
               target: tuple[float, float], rank: int,
               settings: dict[str, Any] | None = None) -> Candidate:
    vector = dict(zip(names, pays, strict=True))
    full = [vector.get(name, Fraction(-1)) for name in rows.names]
    exact = rows.exact(full)
    probabilities = rows.probabilities
    if exact is not None:
        ev, second = exact
        edge, edge_exact, variance = float(-ev), -ev, float(second - ev * ev)
    else:
        values = np.array([float(p) for p in full])
        ev_f = float(probabilities @ values)
        edge, edge_exact = -ev_f, None
        variance = float(probabilities @ (values * values)) - ev_f * ev_f
    hit = float(sum(p for p, pay in zip(probabilities, full, strict=True) if pay > 0))
    distance = float(_distance(np.array([edge]), target)[0])
    return Candidate(pays=vector, house_edge=edge, house_edge_exact=edge_exact,
                     std_dev=math.sqrt(max(variance, 0.0)), hit_frequency=hit,
                     distance=distance, rank=rank,
                     house_edge_std_error=rows.edge_std_error(full), settings=settings)


def _grid(low: Fraction, high: Fraction, step: Fraction) -> list[Fraction]:
    if step <= 0 or high < low:
        raise PuntoBancoError("The pay grid needs a positive step and a maximum pay at least the "
                              "minimum pay.", code="bad-design")
    count = int((high - low) / step) + 1
    return [low + i * step for i in range(count)]


def _tables_starting_with(first: int, values: int, monotone: bool) -> npt.NDArray[np.int16]:
    """The candidate index rows whose margin-9 pay is grid index ``first``."""
    if monotone:
        rest = monotone_tables(first + 1, 5)
    else:
        rest = np.indices((values,) * 5).reshape(5, -1).T.astype(np.int16)
    out = np.empty((rest.shape[0], 6), dtype=np.int16)
    out[:, 0] = first
    out[:, 1:] = rest
    return out


def _top(distance: FloatArray, sd: FloatArray, prefer: str, top: int) -> npt.NDArray[np.int64]:
    """Indices of the ``top`` best by (distance, sd) without sorting everything."""
    rounded = np.round(distance, 12)
    if rounded.shape[0] > top:
        cut = np.partition(rounded, top - 1)[top - 1]
        chosen = np.flatnonzero(rounded <= cut)
    else:
        chosen = np.arange(rounded.shape[0])
    key = -sd[chosen] if prefer == "high" else sd[chosen]
    order = np.lexsort((key, rounded[chosen]))[:top]
    result: npt.NDArray[np.int64] = chosen[order]
    return result


def search_lion(rows: OutcomeRows, *, target: tuple[float, float], max_pay: int = 30,
                min_pay: Fraction = Fraction(1), step: Fraction = Fraction(1),
                natural_win: Sequence[Fraction] = (Fraction(1),),
                natural_tie: Sequence[Fraction] = (Fraction(0),), min_hit: float = 0.0,
                monotone: bool = True, prefer: str = "low", top: int = 20,
                lose_margins: bool = False,
                reference: Sequence[Any] = LION_PAYTABLE,
                both_sides: OutcomeRows | None = None, base: RuleSet | None = None,
                objective: str | None = None,
                reference_natural: Sequence[Fraction] = (Fraction(1), Fraction(0))
                ) -> SearchResult:
    """Search Lion Bonus pay tables (margins 9 … 4) for a house edge in ``target`` (low, high).

    ``lose_margins``: a margin may also lose (pay −1), as a win by 1–3 does; with ``monotone``
    only the smallest margins can.

    Ranked by distance to the target, then by standard deviation (``prefer`` low or high).
    With ``both_sides`` (the other side's rows) a table's distance is the larger of its two
    sides' distances: one pay table, both edges in the target. Candidates are scored in blocks
    (one per margin-9 pay), so memory stays small.
    """
    import time

    began = time.perf_counter()
    grid = _grid(min_pay, Fraction(max_pay), step)
    if lose_margins:
        grid = [Fraction(-1), *grid]
    size = math.comb(len(grid) + 5, 6) if monotone else len(grid) ** 6
    size *= len(natural_win) * len(natural_tie)
    if size > MAX_CANDIDATES:
        raise PuntoBancoError(
            f"That search holds {size:,} pay tables, more than {MAX_CANDIDATES:,}: lower "
            "--max-pay, raise --min-pay, use whole pays or keep the tables monotone.",
            code="bad-design")
    values = np.array([float(g) for g in grid])
    p = rows.probabilities  # natural-win, natural-tie, 9..4, lose
    nw = np.array([float(x) for x in natural_win])
    nt = np.array([float(x) for x in natural_tie])
    by_pay = p[2:8, None] * values[None, :]  # [margin row, grid index]: P(margin) · pay
    by_pay_sq = p[2:8, None] * (values * values)[None, :]
    by_pay_hit = p[2:8, None] * (values > 0)[None, :]
    q = None if both_sides is None else both_sides.probabilities
    by_pay_other = None if q is None else q[2:8, None] * values[None, :]
    names = LION_ROWS[:8]

    def candidate(pays: list[Fraction], rank: int) -> Candidate:
        found = _candidate(rows, names, pays, target, rank, lion_settings(pays))
        if both_sides is None:
            return found
        other = _candidate(both_sides, names, pays, target, rank)
        return Candidate(**{**found.__dict__, "other_side_edge": other.house_edge,
                            "distance": max(found.distance, other.distance)})

    spec_pays = [*reference_natural, *(Fraction(x) for x in reference)]
    spec = candidate(spec_pays, 0)
    on_grid = set(grid)
    spec_passes = (spec.hit_frequency >= min_hit - 1e-15 and all(x in on_grid for x in reference)
                   and reference_natural[0] in natural_win and reference_natural[1] in natural_tie
                   and (not monotone or list(reference) == sorted(reference, reverse=True)))
    scored = passed_total = before_spec = 0
    least_hit, most_hit = math.inf, -math.inf
    pool: list[tuple[float, float, list[Fraction]]] = []
    for first in range(len(grid)):
        tables = _tables_starting_with(first, len(grid), monotone)
        margins_ev = np.zeros(tables.shape[0])
        margins_sq = np.zeros(tables.shape[0])
        hit_margins = np.zeros(tables.shape[0])
        for j in range(6):  # six gathers of per-(margin, pay) terms: 3x faster than matmul
            column = tables[:, j]
            margins_ev += by_pay[j][column]
            margins_sq += by_pay_sq[j][column]
            hit_margins += by_pay_hit[j][column]
        # candidates of the block: (table, natural win, natural tie), flattened in that order
        ev = (margins_ev[:, None, None] + nw[None, :, None] * p[0] + nt[None, None, :] * p[1]
              - p[8]).ravel()
        second = (margins_sq[:, None, None] + (nw**2)[None, :, None] * p[0]
                  + (nt**2)[None, None, :] * p[1] + p[8]).ravel()
        hit = (hit_margins[:, None, None] + (nw > 0)[None, :, None] * p[0]
               + (nt > 0)[None, None, :] * p[1]).ravel()
        sd = np.sqrt(np.maximum(second - ev * ev, 0.0))
        passed = hit >= min_hit - 1e-15
        least_hit, most_hit = min(least_hit, float(hit.min())), max(most_hit, float(hit.max()))
        distance = np.where(passed, _distance(-ev, target), np.inf)
        if q is not None and by_pay_other is not None:
            other_ev = np.zeros(tables.shape[0])
            for j in range(6):
                other_ev += by_pay_other[j][tables[:, j]]
            other_total = (other_ev[:, None, None] + nw[None, :, None] * q[0]
                           + nt[None, None, :] * q[1] - q[8]).ravel()
            distance = np.maximum(distance, _distance(-other_total, target))
        scored += ev.shape[0]
        passed_total += int(passed.sum())
        if spec_passes:
            before_spec += _place(distance, sd, spec, prefer, passed) - 1
        per_table = len(natural_win) * len(natural_tie)
        for flat in _top(distance, sd, prefer, top):
            if not passed[flat]:
                continue
            table, rest = divmod(int(flat), per_table)
            w, t = divmod(rest, len(natural_tie))
            pool.append((float(np.round(distance[flat], 12)), float(sd[flat]),
                         [natural_win[w], natural_tie[t], *(grid[int(i)] for i in tables[table])]))
    sign = -1.0 if prefer == "high" else 1.0
    pool.sort(key=lambda item: (item[0], sign * item[1]))
    best = [candidate(pays, rank + 1) for rank, (_, _, pays) in enumerate(pool[:top])]
    place = before_spec + 1 if spec_passes else None
    spec = Candidate(**{**spec.__dict__, "rank": place or 0})
    is_spec = tuple(reference) == LION_PAYTABLE and list(reference_natural) == [1, 0]
    return SearchResult(bet="lion", rows=rows, target=target, candidates=scored,
                        passed=passed_total, best=best, spec=spec, spec_place=place,
                        spec_passes=spec_passes, seconds=time.perf_counter() - began,
                        reference_name="SPEC" if is_spec else "ref.", base=base,
                        objective=objective or ("the worse side's distance (Punto and Banco)"
                                                if both_sides is not None
                                                else "the bet's house edge"),
                        min_hit=min_hit, hit_range=(least_hit, most_hit))


def lion_settings(pays: Sequence[Fraction]) -> dict[str, Any]:
    """The RuleSet settings of a Lion Bonus candidate: natural win, natural tie, margins 9…4."""
    return {"lion_natural_pays": pays[0], "lion_natural_tie_pays": pays[1],
            "lion_paytable": tuple(pays[2:])}


def _table_edge(rows: OutcomeRows, candidate: Candidate) -> float:
    """The house edge of ``candidate``'s pay table on ``rows`` (a row it does not name loses):
    exact when the rows are exact counts."""
    full = [candidate.pays.get(name, Fraction(-1)) for name in rows.names]
    exact = rows.exact(full)
    if exact is not None:
        return float(-exact[0])
    return -float(rows.probabilities @ np.array([float(p) for p in full]))


def _each_shown(result: SearchResult, extend: Callable[[Candidate], Candidate]) -> SearchResult:
    """The result with ``extend`` applied to each candidate it shows (the best and the SPEC's)."""
    return SearchResult(**{**result.__dict__, "best": [extend(c) for c in result.best],
                           "spec": None if result.spec is None else extend(result.spec)})


def with_other_side(result: SearchResult, other: OutcomeRows) -> SearchResult:
    """The Lion Bonus result with each shown table's house edge on the other side too.

    A casino offers one pay table on both sides; the search aims at one side's edge, and this
    shows what the same table gives on the other (exactly, when the rows are exact counts).
    """
    def extend(candidate: Candidate) -> Candidate:
        return Candidate(**{**candidate.__dict__,
                            "other_side_edge": _table_edge(other, candidate)})

    return _each_shown(result, extend)


def with_side_edges(result: SearchResult, punto: OutcomeRows, banco: OutcomeRows) -> SearchResult:
    """The Lion Bonus result with each shown table's house edge on Punto and on Banco."""
    def extend(candidate: Candidate) -> Candidate:
        edges = (_table_edge(punto, candidate), _table_edge(banco, candidate))
        return Candidate(**{**candidate.__dict__, "side_edges": edges})

    return _each_shown(result, extend)


def _place(distance: FloatArray, sd: FloatArray, reference: Candidate, prefer: str,
           passed: npt.NDArray[np.bool_]) -> int:
    """1 + how many passing candidates rank strictly before the reference."""
    ref_distance = round(reference.distance, 12)
    rounded = np.round(distance, 12)
    better_sd = sd > reference.std_dev + 1e-12 if prefer == "high" else sd < reference.std_dev - 1e-12
    before = passed & ((rounded < ref_distance) | ((rounded == ref_distance) & better_sd))
    return int(before.sum()) + 1


Option = tuple[str, dict[str, Fraction], dict[str, Any]]


def _small_search(bet: str, rows: OutcomeRows, options: list[Option],
                  target: tuple[float, float], *, prefer: str, top: int, reference: str,
                  reference_name: str = "SPEC", min_hit: float = 0.0,
                  base: RuleSet | None = None) -> SearchResult:
    """Score a short list of named pay vectors exactly (rows absent from a vector lose)."""
    import time

    began = time.perf_counter()
    scored = []
    for label, vector, settings in options:
        names = list(vector)
        candidate = _candidate(rows, names, [vector[n] for n in names], target, 0, settings)
        scored.append((label, Candidate(**{**candidate.__dict__, "name": label})))
    passing = [(label, c) for label, c in scored if c.hit_frequency >= min_hit - 1e-15]
    hits = [c.hit_frequency for _, c in scored]
    sign = -1 if prefer == "high" else 1
    passing.sort(key=lambda item: (round(item[1].distance, 12), sign * item[1].std_dev))
    ranked = [Candidate(**{**c.__dict__, "rank": i + 1}) for i, (_, c) in enumerate(passing)]
    labels = [label for label, _ in passing]
    spec = next((c for label, c in zip(labels, ranked, strict=True) if label == reference), None)
    return SearchResult(bet=bet, rows=rows, target=target, candidates=len(options),
                        passed=len(passing), best=ranked[:top], spec=spec,
                        spec_place=None if spec is None else spec.rank,
                        spec_passes=spec is not None, seconds=time.perf_counter() - began,
                        notes=tuple(labels[:top]), reference_name=reference_name, base=base,
                        min_hit=min_hit, hit_range=(min(hits), max(hits)) if hits else None)


def search_banco(rows: OutcomeRows, *, target: tuple[float, float],
                 commissions: Sequence[Fraction], half_totals: Sequence[int] = tuple(range(1, 10)),
                 half_pays: Sequence[Fraction] = (Fraction(1, 2),), prefer: str = "low",
                 top: int = 20, reference_commission: Fraction | None = None,
                 base: RuleSet | None = None, min_hit: float = 0.0) -> SearchResult:
    """Banco payouts: 1:1 less each commission, or 1:1 except a win with total ``t`` paying
    ``half_pays`` (the "2000" rule is t = 6 at 1:2). Rows: win-with-1 … 9, tie (push), lose.

    The reference placed among them is B2's half pay on a 6 (SPEC), or the table's commission
    ``reference_commission`` (added to the candidates if missing).
    """
    wins = [name for name in rows.names if name.startswith("win")]
    options: list[Option] = []
    rates = list(commissions)
    totals, pays = list(half_totals), list(half_pays)
    if reference_commission is not None and reference_commission not in rates:
        rates.append(reference_commission)
    if reference_commission is None:
        totals += [] if 6 in totals else [6]
        pays += [] if Fraction(1, 2) in pays else [Fraction(1, 2)]
    for rate in rates:
        options.append((f"commission {float(rate):.4%}",
                        {**dict.fromkeys(wins, 1 - rate), "tie": Fraction(0)},
                        {"banco_payout": BancoPayout.COMMISSION, "commission": rate}))
    for total in totals:
        if f"win-with-{total}" not in wins:
            continue  # a total Banco cannot win with
        for pay in pays:
            vector = {**dict.fromkeys(wins, Fraction(1)), "tie": Fraction(0)}
            vector[f"win-with-{total}"] = pay
            options.append((f"win with {total} pays {pay_ratio(pay)}", vector,
                            {"banco_payout": BancoPayout.HALF_ON_SIX,
                             "banco_reduced_pays": ((total, pay),)}))
    if reference_commission is None:
        reference, name = "win with 6 pays 1:2", "SPEC"
    else:
        reference, name = f"commission {float(reference_commission):.4%}", "ref."
    return _small_search("banco", rows, options, target, prefer=prefer, top=top,
                         reference=reference, reference_name=name, base=base, min_hit=min_hit)


def search_egalite(rows: OutcomeRows, *, target: tuple[float, float],
                   pays: Sequence[Fraction], prefer: str = "low", top: int = 20,
                   reference: Fraction = Fraction(8), base: RuleSet | None = None,
                   min_hit: float = 0.0) -> SearchResult:
    """Égalité pays ``k``:1 for each ``k``; rows: tie, other (lose). The reference (B3's 8:1,
    or the table's 9:1) is placed among them, added if missing."""
    grid = sorted({*pays, reference})
    options: list[Option] = [(pay_ratio(k), {"tie": k}, {"tie_pays": k}) for k in grid]
    return _small_search("egalite", rows, options, target, prefer=prefer, top=top,
                         reference=pay_ratio(reference),
                         reference_name="SPEC" if reference == 8 else "ref.", base=base,
                         min_hit=min_hit)


def mixed_rows(punto: OutcomeRows, banco: OutcomeRows, punto_share: Fraction) -> OutcomeRows:
    """The Lion Bonus as played on both sides: the rows of a bet on Punto with probability
    ``punto_share`` and on Banco otherwise. One pay table serves both sides (L1) and a bet's EV
    is linear in the row probabilities, so a table's edge on these rows is the handle-weighted
    edge ``share · edge(Punto) + (1 − share) · edge(Banco)`` — exactly, from integer counts.

    >>> from puntobanco.cards import full_composition
    >>> shoe = full_composition(6)
    >>> punto, banco = lion_rows(shoe, RuleSet(), side="punto"), lion_rows(shoe, RuleSet(), side="banco")
    >>> mixed = mixed_rows(punto, banco, Fraction(1, 2))
    >>> spec = [Fraction(1), Fraction(0), *map(Fraction, LION_PAYTABLE), Fraction(-1)]
    >>> edge = -mixed.exact(spec)[0]
    >>> edge == (-punto.exact(spec)[0] - banco.exact(spec)[0]) / 2, f"{float(edge):.4%}"
    (True, '14.0341%')
    """
    if not 0 <= punto_share <= 1:
        raise PuntoBancoError(f"The Punto share of the Lion Bonus handle lies between 0 and 1, "
                              f"not {punto_share}.", code="bad-design")
    if punto.names != banco.names:
        raise PuntoBancoError("The two sides' rows differ.", code="bad-design")
    if punto.method == banco.method == "exact" and punto.total == banco.total:
        a, b = punto_share.numerator, punto_share.denominator
        counts = tuple(a * int(p) + (b - a) * int(q)
                       for p, q in zip(punto.counts, banco.counts, strict=True))
        return OutcomeRows(names=punto.names, counts=counts, total=b * punto.total,
                           method="exact")
    raise PuntoBancoError("A handle-weighted Lion Bonus needs exact rows (off the top); "
                          "with --cut-card-depth, use --side both.", code="bad-design")


def egalite_rows(banco: OutcomeRows) -> OutcomeRows:
    """Égalité's rows (tie, lose) from Banco's."""
    tie = banco.counts[banco.names.index("tie")]
    total = banco.total
    rest = (total - tie) if isinstance(tie, int) else 1.0 - tie
    return OutcomeRows(names=("tie", "lose"), counts=(tie, rest),
                       total=total, method=banco.method)

