"""Outcome probabilities averaged over the coups a cut card lets be dealt (pay-table design).

Off the top of a full shoe, the exact engine gives every outcome's probability. With a cut card
the coups actually dealt come from depleted shoes, and which ones are dealt depends on the cards
(the cut-card effect). Here whole shoes are played by the simulator's recording kernel
(:func:`puntobanco.sim.kernel.record_chunk`: shuffle, burn, cut card, one more coup), and at every
coup the *exact* probability of each outcome row for the cards left is taken from the float64
engine (:func:`puntobanco.analysis.expected_values`) and averaged — a Monte Carlo over shoe
states, but with the exact conditional probabilities instead of the coup's one result, so its
noise is far smaller than the simulator's histogram's. Standard errors treat the shoe as the
independent unit (a ratio estimator over shoes).

Row probabilities are read from EVs: the EV is linear in the pays, so a rule set that pays 1 on
one row and 0 on the others (loss still −1) gives that row's probability plus a known offset.

>>> from puntobanco.rules import RuleSet
>>> rows = lion_rows_by_depth(RuleSet(decks=1, cut_card=14), side="punto", shoes=20, seed=1)
>>> rows.names[0], rows.method.split(";")[0], abs(sum(rows.counts) - 1) < 1e-12
('natural-win', 'shoe-average over 20 shoes', True)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from puntobanco.analysis import expected_values
from puntobanco.analysis.design import LION_ROWS, OutcomeRows
from puntobanco.rules import BancoPayout, RuleSet
from puntobanco.sim.engine import ShoeSpec
from puntobanco.sim.kernel import record_chunk
from puntobanco.sim.rng import chunk_state

FloatArray = npt.NDArray[np.float64]
_PUNTO, _BANCO, _EGALITE, _LION_PUNTO, _LION_BANCO = range(5)


@dataclass(frozen=True, eq=False)
class ShoeStates:
    """The composition before every coup dealt in ``shoes`` shoes, and each coup's shoe."""

    compositions: npt.NDArray[np.int64]
    offsets: npt.NDArray[np.int64]

    @property
    def shoes(self) -> int:
        return int(self.offsets.shape[0] - 1)

    def average(self, per_coup: FloatArray) -> tuple[FloatArray, FloatArray]:
        """Mean over all coups of each column, and the covariance matrix of those means with
        shoes as the independent units (a ratio estimator: per-shoe sums over coups)."""
        sums = np.add.reduceat(per_coup, self.offsets[:-1], axis=0)
        coups = np.diff(self.offsets).astype(np.float64)
        mean = sums.sum(axis=0) / coups.sum()
        n = self.shoes
        residual = sums - mean[None, :] * coups[:, None]
        covariance = residual.T @ residual / max(n * (n - 1), 1) / coups.mean() ** 2
        return mean, covariance


def shoe_states(rules: RuleSet, *, shoes: int, seed: int) -> ShoeStates:
    """Play ``shoes`` shoes under ``rules`` (its cut card) and keep the cards left at each coup."""
    spec = ShoeSpec.build(rules)
    _, comps, offsets, _ = record_chunk(shoes, chunk_state(seed, 0), spec.start, spec.codes,
                                        spec.used, spec.burns, rules.burn, spec.cut_index,
                                        spec.extra, spec.max_coups)
    return ShoeStates(compositions=comps.astype(np.int64), offsets=offsets)


def _ev(states: ShoeStates, rules: RuleSet) -> FloatArray:
    return expected_values(states.compositions, rules)


def _method(states: ShoeStates, rules: RuleSet) -> str:
    return (f"shoe-average over {states.shoes} shoes; {rules.decks} decks, cut card "
            f"{rules.cut_card} cards from the end, exact probabilities of the cards left at "
            "each coup dealt")


def lion_rows_by_depth(rules: RuleSet, *, side: str, shoes: int, seed: int) -> OutcomeRows:
    """The Lion Bonus rows of ``side`` averaged over the coups dealt to ``rules.cut_card``."""
    return lion_rows_of_states(shoe_states(rules, shoes=shoes, seed=seed), rules, side=side)


def lion_rows_of_states(states: ShoeStates, rules: RuleSet, *, side: str) -> OutcomeRows:
    """The Lion Bonus rows of ``side`` averaged over the given shoe states."""
    column = _LION_PUNTO if side == "punto" else _LION_BANCO
    zero = rules.replace(lion_paytable=(0,) * 6, lion_natural_pays=0)
    base = _ev(states, zero)[:, column]  # −P(lose)
    rows = [_ev(states, zero.replace(lion_natural_pays=1))[:, column] - base]
    margins = []
    for m in range(9, 3, -1):
        table = [0] * 6
        table[9 - m] = 1
        margins.append(_ev(states, zero.replace(lion_paytable=tuple(table)))[:, column] - base)
    lose = -base
    tie = 1.0 - lose - rows[0] - np.sum(margins, axis=0)
    per_coup = np.column_stack([rows[0], tie, *margins, lose])
    return _rows(LION_ROWS, states, per_coup, rules)


def _rows(names: tuple[str, ...], states: ShoeStates, per_coup: FloatArray,
          rules: RuleSet) -> OutcomeRows:
    mean, covariance = states.average(per_coup)
    return OutcomeRows(names=names, counts=tuple(float(x) for x in mean), total=1,
                       method=_method(states, rules),
                       errors=tuple(float(x) for x in np.sqrt(np.diag(covariance))),
                       covariance=tuple(tuple(float(x) for x in row) for row in covariance))


def banco_rows_by_depth(rules: RuleSet, *, shoes: int, seed: int) -> OutcomeRows:
    """Banco rows ``win-with-1`` … ``win-with-9``, ``tie``, ``lose`` averaged over the coups
    dealt (the same rows as the off-the-top :func:`~puntobanco.analysis.design.banco_rows`)."""
    return banco_rows_of_states(shoe_states(rules, shoes=shoes, seed=seed), rules)


def banco_rows_of_states(states: ShoeStates, rules: RuleSet) -> OutcomeRows:
    """Banco rows averaged over the given shoe states.

    Each row is read from exact EVs of rule sets that differ in one pay: a win with ``t`` paid 0
    instead of 1 (``banco_reduced_pays``) takes ``P(win with t)`` off the Banco EV.
    """
    no_commission = rules.replace(banco_payout=BancoPayout.HALF_ON_SIX)
    plain = _ev(states, no_commission.replace(banco_reduced_pays=()))[:, _BANCO]
    wins = [plain - _ev(states, no_commission.replace(
        banco_reduced_pays=((total, 0),)))[:, _BANCO] for total in range(1, 10)]
    banco_wins = np.sum(wins, axis=0)
    punto_wins = banco_wins - plain
    tie = 1.0 - banco_wins - punto_wins
    per_coup = np.column_stack([*wins, tie, punto_wins])
    names = (*(f"win-with-{total}" for total in range(1, 10)), "tie", "lose")
    return _rows(names, states, per_coup, rules)
