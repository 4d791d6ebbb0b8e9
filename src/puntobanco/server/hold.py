"""The casino's figures, pure: hold against the exact house edge, and a coup's exposure.

No database here: :mod:`puntobanco.server.db.reports` adds up the settled coups in SQL and hands
over :class:`Tally` values; this module turns them into what a games department reads
(``docs/operator.md`` gives every formula):

* **handle** H = Σ stakes, **house win** W = −Σ players' net results, **hold** = W / H;
* **theoretical edge** e = E[W] / H, E[W] = Σ_k H_k · edge_k, each bet's edge from the exact engine
  for the rules the shoe was dealt with (a full shoe of that many decks);
* **standard deviation** of W: the coups are independent, but the bets on one coup are not (a
  Punto and a Banco bet on the same coup move in opposite directions, two players' Banco bets
  together), so Var W = Σ_coups Tᵀ C T with T the coup's stake per bet kind and C the exact
  covariance of the five bets' net results per unit (:func:`theory`);
* **z** = (W − E[W]) / sd (a standard score, descriptive only);
* the **95 % band** of the hold and the observed win's **tail** from the distribution of W itself,
  not a normal approximation (:mod:`puntobanco.server.holdband`): a tally carries each distinct
  coup stake vector and how many coups had it.

>>> from puntobanco.rules import RuleSet
>>> t = theory(RuleSet())
>>> f"{float(t.edge['banco']):.4%}", f"{float(t.edge['lion-banco']):.4%}"
('1.4548%', '16.7751%')
>>> t.cov["punto", "banco"] < 0 < t.cov["punto", "punto"]
True
>>> one = Tally(coups=1, bets={"banco": 1}, handle={"banco": 1000}, win={"banco": -1000},
...             stakes={(0, 1000, 0, 0, 0): 1})
>>> figures = summarise([(one, RuleSet())])
>>> figures["handle"], figures["house_win"], figures["hold"], figures["band"]
(1000, -1000, -1.0, [-1.0, 1.0])
>>> round(figures["sd"], 2) == round(1000 * float(t.cov["banco", "banco"]) ** 0.5, 2)
True
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from fractions import Fraction
from functools import lru_cache
from typing import Any

from puntobanco.bets import BetKind
from puntobanco.cards import full_composition
from puntobanco.rules import RuleSet
from puntobanco.server.holdband import Band, Vector, cumulative_bands, win_band

#: the bet kinds, in the order of payment (L6), as the server spells them
KINDS: tuple[str, ...] = tuple(kind.value for kind in BetKind)
LION_KINDS: tuple[str, ...] = tuple(kind.value for kind in BetKind if kind.is_lion)
#: the pairs (j, k), j before k or equal, whose Σ T_j·T_k a tally carries
PAIRS: tuple[tuple[str, str], ...] = tuple(
    (KINDS[j], KINDS[k]) for j in range(len(KINDS)) for k in range(j, len(KINDS)))
_PAIR_INDICES = tuple(((j, KINDS[j]), (k, KINDS[k]))
                      for j in range(len(KINDS)) for k in range(j, len(KINDS)))


@dataclass(frozen=True, slots=True)
class Theory:
    """Exact figures of the five bets for one rule set, per unit staked, on a full shoe."""

    #: the house's edge of each bet (−EV)
    edge: dict[str, Fraction]
    #: covariance of the net results per unit of two bets settled on the same coup
    cov: dict[tuple[str, str], Fraction]


def theory(rules: RuleSet) -> Theory:
    """The house edge of each bet and the covariances, exact (cached per rules and decks)."""
    from puntobanco.analysis.tables import payout_key

    return _theory(payout_key(rules), rules.decks, rules)


@lru_cache(maxsize=64)
def _theory(_key: tuple[object, ...], decks: int, rules: RuleSet) -> Theory:
    from puntobanco.analysis.exact import class_counts
    from puntobanco.analysis.tables import settlement_table

    counts = class_counts(full_composition(decks), rules.drawing)
    table = settlement_table(rules)
    total = sum(counts)
    pays = {kind: bet for kind, bet in zip(KINDS, table.bets, strict=True)}
    occurring = [index for index, count in enumerate(counts) if count]
    unit = {kind: [bet.pays_of_class(index) for index in occurring] for kind, bet in pays.items()}
    weights = [counts[index] for index in occurring]
    ev = {kind: Fraction(sum(w * p for w, p in zip(weights, unit[kind], strict=True)), total)
          for kind in KINDS}
    cov: dict[tuple[str, str], Fraction] = {}
    for a, b in PAIRS:
        second = Fraction(sum(w * p * q for w, p, q in zip(weights, unit[a], unit[b], strict=True)),
                          total)
        cov[a, b] = cov[b, a] = second - ev[a] * ev[b]
    return Theory(edge={kind: -value for kind, value in ev.items()}, cov=cov)


@dataclass(frozen=True, slots=True)
class Tally:
    """Settled coups added up: per bet kind the number of bets, the handle and the house's win
    (cents), and the coups' stake vectors T (the coup's whole stake on each kind, in the order
    of :data:`KINDS`) with how many coups had each."""

    coups: int = 0
    bets: Mapping[str, int] = field(default_factory=dict)
    handle: Mapping[str, int] = field(default_factory=dict)
    win: Mapping[str, int] = field(default_factory=dict)
    stakes: Mapping[Vector, int] = field(default_factory=dict)


@dataclass(slots=True)
class _Sums:
    """Integer sums of the tallies dealt with one rule set (exact and fast to add)."""

    rules: RuleSet
    coups: int = 0
    bets: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KINDS, 0))
    handle: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KINDS, 0))
    win: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KINDS, 0))
    stakes: dict[Vector, int] = field(default_factory=dict)


def summarise(parts: Iterable[tuple[Tally, RuleSet]], *, bet_bands: bool = True
              ) -> dict[str, Any]:
    """The report's figures for tallies of disjoint sets of coups, each with the rules its coups
    were dealt with (see the module's docstring and ``docs/operator.md``).

    ``bet_bands=False`` leaves out each bet kind's band and tail (``by_bet``'s ``band``,
    ``band_win``, ``tail``, ``band_method`` are ``None``; every other figure stays): five of the
    six exact bands a line costs, for lines whose per-bet figures nobody is shown."""
    from puntobanco.analysis.tables import payout_key

    groups: dict[tuple[object, ...], _Sums] = {}
    for tally, rules in parts:
        if not tally.coups:
            continue
        key = (payout_key(rules), rules.decks)
        sums = groups.get(key)
        if sums is None:
            sums = groups[key] = _Sums(rules)
        sums.coups += tally.coups
        for kind in KINDS:
            sums.bets[kind] += tally.bets.get(kind, 0)
            sums.handle[kind] += tally.handle.get(kind, 0)
            sums.win[kind] += tally.win.get(kind, 0)
        for vector, count in tally.stakes.items():
            sums.stakes[vector] = sums.stakes.get(vector, 0) + count
    bets, handle, win = (dict.fromkeys(KINDS, 0) for _ in range(3))
    expected = dict.fromkeys(KINDS, Fraction())
    variance = dict.fromkeys(KINDS, Fraction())
    variance_total = Fraction()
    laws: list[tuple[RuleSet, Mapping[Vector, int]]] = []
    for sums in groups.values():
        exact = theory(sums.rules)
        laws.append((sums.rules, sums.stakes))
        cross = dict.fromkeys(PAIRS, 0)
        for vector, count in sums.stakes.items():
            for (j, a), (k, b) in _PAIR_INDICES:
                cross[a, b] += count * vector[j] * vector[k]
        for kind in KINDS:
            bets[kind] += sums.bets[kind]
            handle[kind] += sums.handle[kind]
            win[kind] += sums.win[kind]
            expected[kind] += sums.handle[kind] * exact.edge[kind]
            variance[kind] += exact.cov[kind, kind] * cross[kind, kind]
        for a, b in PAIRS:
            variance_total += exact.cov[a, b] * cross[a, b] * (1 if a == b else 2)
    per_kind = {kind: _figures(bets=bets[kind], handle=handle[kind], win=win[kind],
                               expected=expected[kind], variance=variance[kind],
                               band=(win_band(laws, win[kind], kind=index) if bet_bands
                                     else None))
                for index, kind in enumerate(KINDS)}
    total_handle, total_win = sum(handle.values()), sum(win.values())
    lion_handle = sum(handle[kind] for kind in LION_KINDS)
    lion_win = sum(win[kind] for kind in LION_KINDS)
    return {"coups": sum(sums.coups for sums in groups.values()),
            **_figures(bets=sum(bets.values()), handle=total_handle, win=total_win,
                       expected=sum(expected.values(), Fraction()), variance=variance_total,
                       band=win_band(laws, total_win)),
            "lion": {"handle": lion_handle, "house_win": lion_win,
                     "hold": _ratio(lion_win, lion_handle),
                     "handle_share": _ratio(lion_handle, total_handle),
                     # a share of the house's win only when there is a win to share: with the
                     # house behind, lion / total reads −1,000 / −1,000 as "100 %" however
                     # the Lion Bonus itself did
                     "win_share": _ratio(lion_win, total_win) if total_win > 0 else None},
            "by_bet": per_kind}


def summarise_series(lines: Sequence[Sequence[tuple[Tally, RuleSet]]], *,
                     bet_bands: bool = True) -> list[dict[str, Any]]:
    """:func:`summarise` of each line of a chart (shoes or days, in order), each with the
    ``cumulative_band`` of the hold over it and every line before it
    (:func:`puntobanco.server.holdband.cumulative_bands`)."""
    figures = [summarise(line, bet_bands=bet_bands) for line in lines]
    bands = cumulative_bands([[(rules, tally.stakes) for tally, rules in line if tally.coups]
                              for line in lines])
    handle = 0
    for one, band in zip(figures, bands, strict=True):
        handle += one["handle"]
        one["cumulative_band"] = (None if band is None or not handle
                                  else [band[0] / handle, band[1] / handle])
    return figures


def _ratio(part: float, whole: float) -> float | None:
    return None if not whole else part / whole


def _figures(*, bets: int, handle: int, win: int, expected: Fraction, variance: Fraction,
             band: Band | None) -> dict[str, Any]:
    sd = math.sqrt(max(variance, Fraction()))
    edge = None if not handle else float(expected / handle)
    found = band is not None and handle
    return {"bets": bets, "handle": handle, "house_win": win, "hold": _ratio(win, handle),
            "theoretical_edge": edge, "expected_win": float(expected), "sd": sd,
            "z": None if not sd else (win - float(expected)) / sd,
            "band": [band.low / handle, band.high / handle] if band and found else None,
            "band_win": [band.low, band.high] if band and found else None,
            "tail": band.tail if band and found else None,
            "band_method": band.method if band and found else None}


# --- exposure of the coup in progress ------------------------------------------------------


def exposure(totals: Mapping[str, int], composition: Sequence[int],
             rules: RuleSet) -> dict[str, Any]:
    """The house's result on the coup to be dealt, given the stakes on the felt (cents per kind)
    and the cards left in the shoe (counts by value, index 0 = tens and faces).

    ``worst`` and ``best`` are the lowest and highest house results over every coup the shoe can
    still deal (exact: the core's settlement of each coup class the composition can reach);
    ``expected`` is −Σ T_k · EV_k with the EVs of :func:`puntobanco.analysis.expected_values` of
    that composition. ``None`` throughout when fewer than six cards are left.

    >>> from puntobanco.cards import full_composition
    >>> found = exposure({"punto": 1000, "banco": 1000}, full_composition(6), RuleSet())
    >>> found["worst"], found["best"]
    (0, 500)
    """
    import numpy as np

    from puntobanco.analysis import expected_values
    from puntobanco.analysis.tables import settlement_table

    stakes = [int(totals.get(kind, 0)) for kind in KINDS]
    if sum(composition) < 6:
        return {"stakes": sum(stakes), "worst": None, "best": None, "expected": None}
    counts = _class_counts(tuple(int(c) for c in composition), rules.drawing)
    table = settlement_table(rules)
    results = []
    for index, count in enumerate(counts):
        if count:
            paid = sum((stake * bet.pays_of_class(index)
                        for stake, bet in zip(stakes, table.bets, strict=True) if stake),
                       Fraction())
            results.append(-paid)
    ev = expected_values(np.array(composition, dtype=np.int64), rules, parallel=False)[0]
    expected = -sum(stake * float(value) for stake, value in zip(stakes, ev, strict=True))
    return {"stakes": sum(stakes), "worst": math.floor(min(results)),
            "best": math.floor(max(results)), "expected": expected}


@lru_cache(maxsize=256)
def _class_counts(composition: tuple[int, ...], drawing: Any) -> list[int]:
    from puntobanco.analysis.exact import class_counts

    return class_counts(composition, drawing)


# --- per player ------------------------------------------------------------------------------

#: a longer pause between two of a player's coups at a table ends a sitting (for coups per hour)
SITTING_GAP = timedelta(minutes=10)


@dataclass(frozen=True, slots=True)
class PlayerShoe:
    """One player's bets in one shoe: the coups they bet on, their bets, their stakes per kind
    (order of :data:`KINDS`) and the house's win from them, cents."""

    player_id: int
    shoe_id: int
    coups: int
    bets: int
    stakes: Vector
    win: int


@dataclass(frozen=True, slots=True)
class PlayerCoup:
    """A coup a player bet on: where, when it opened and when it settled."""

    player_id: int
    table_id: int
    opened_at: datetime
    settled_at: datetime


def players(shoes: Iterable[PlayerShoe], coups: Iterable[PlayerCoup],
            rules: Callable[[int], RuleSet], drops: Mapping[int, int]) -> list[dict[str, Any]]:
    """Each player's figures (``rules``: a shoe's rules by its id; ``coups``: by player, then
    opening; ``drops``: the money each player brought in over the period, cents), the highest
    theoretical win first:

    * ``theoretical_win`` = Σ stake × edge of each bet under the rules its shoe was dealt with
      (the figure comps are based on), and ``theoretical_edge`` = it / handle;
    * ``average_bet`` = handle / coups (the stake per decision, all its bets on a coup together);
    * ``hours``: the player's sittings added up, a sitting running from the opening of its first
      coup to the settlement of its last, and ending at a pause longer than :data:`SITTING_GAP`
      or a change of table; ``coups_per_hour`` = coups / hours;
    * ``win_per_drop`` = the house's win from the player / their drop.

    >>> from datetime import datetime
    >>> at = [datetime(2026, 1, 1, 20, m) for m in (0, 1, 2, 30, 31)]  # two sittings: 2½ + 1½ min
    >>> times = [PlayerCoup(7, 1, t, t + timedelta(seconds=30)) for t in at]
    >>> shoe = PlayerShoe(7, 1, coups=5, bets=5, stakes=(0, 5000, 0, 0, 0), win=5000)
    >>> [one] = players([shoe], times, lambda _: RuleSet(), {7: 20_000})
    >>> one["coups"], one["hours"] * 60, one["average_bet"], one["win_per_drop"]
    (5, 4.0, 1000.0, 0.25)
    >>> round(one["theoretical_win"], 2)  # 5 Banco bets of 10 € at 1.4548 %
    72.74
    """
    found: dict[int, dict[str, Any]] = {}
    edges: dict[int, tuple[float, ...]] = {}
    for shoe in shoes:
        one = found.get(shoe.player_id)
        if one is None:
            one = found[shoe.player_id] = {"player_id": shoe.player_id, "coups": 0, "bets": 0,
                                           "handle": 0, "house_win": 0, "theo": 0.0,
                                           "seconds": 0.0}
        edge = edges.get(shoe.shoe_id)
        if edge is None:
            exact = theory(rules(shoe.shoe_id)).edge
            edge = edges[shoe.shoe_id] = tuple(float(exact[kind]) for kind in KINDS)
        one["coups"] += shoe.coups
        one["bets"] += shoe.bets
        one["handle"] += sum(shoe.stakes)
        one["house_win"] += shoe.win
        one["theo"] += sum(stake * e for stake, e in zip(shoe.stakes, edge, strict=True))
    before: PlayerCoup | None = None
    began = datetime.min
    for coup in coups:
        if (before is None or before.player_id != coup.player_id
                or before.table_id != coup.table_id
                or coup.opened_at - before.settled_at > SITTING_GAP):
            if before is not None and before.player_id in found:
                found[before.player_id]["seconds"] += (before.settled_at - began).total_seconds()
            began = coup.opened_at
        before = coup
    if before is not None and before.player_id in found:
        found[before.player_id]["seconds"] += (before.settled_at - began).total_seconds()
    out = []
    for player_id, one in found.items():
        hours = one.pop("seconds") / 3600
        theo = one.pop("theo")
        drop = drops.get(player_id, 0)
        out.append({**one, "hold": _ratio(one["house_win"], one["handle"]),
                    "theoretical_win": theo, "theoretical_edge": _ratio(theo, one["handle"]),
                    "average_bet": _ratio(one["handle"], one["coups"]), "hours": hours,
                    "coups_per_hour": _ratio(one["coups"], hours), "drop": drop,
                    "win_per_drop": _ratio(one["house_win"], drop)})
    return sorted(out, key=lambda one: (-one["theoretical_win"], one["player_id"]))
