"""What a bankroll meets on the way: ever behind by X, the drawdown, stop-loss / stop-win sessions.

:mod:`puntobanco.analysis.risk` answers where the house (or a player) stands *after* N coups.
Here the path counts. The coups are independent draws of the exact one-coup distribution
(:class:`~puntobanco.analysis.risk.CoupDistribution`, the off-the-top law), so a bankroll's
result is a random walk on the integer lattice of step ``1/scale`` of a stake, and each question
is a Markov chain on that lattice, iterated coup by coup with the exact per-coup probabilities:

* **ever behind by X within N coups** — the walk started at 0 with an absorbing barrier at
  ``−X``; states so high that the coups left cannot bring them down to the barrier are safe
  and leave the chain, so it holds at most ``X + N·(largest loss)`` states;
* **drawdown** (the largest fall from a running peak, the peak including the start) — the chain
  of the current distance below the peak, reflected at 0 and absorbed at the level asked;
* **stop-loss / stop-win** — the walk between two absorbing barriers ``−L`` and ``+W`` for at
  most N coups: the chance it ends each way (or runs out of coups), the expected length, and the
  expected result (which Wald's identity ties to EV × expected length: a test checks it).

Each figure is exact up to float64 round-off (the mass lost or created is measured and
reported). A chain larger than :data:`MAX_WORK` state-updates is refused with a sentence, and
the command then simulates (:mod:`puntobanco.sim.sessions`). Amounts are in stakes; the side is
the player's (``-house``) or the house's.

>>> from fractions import Fraction
>>> from puntobanco.analysis.risk import coup_distribution
>>> from puntobanco.cards import full_composition
>>> from puntobanco.rules import RuleSet
>>> dist = coup_distribution(full_composition(8), RuleSet(), {"punto": Fraction(1)})
>>> walk = Walk.of(dist, side="player")
>>> round(prob_ever_behind(walk, 10, 100).probability, 4)
0.3358
>>> stops = stop_session(walk, loss=5, win=5, coups=None)
>>> round(stops.prob_loss + stops.prob_win, 10), round(stops.expected_length, 2)
(1.0, 27.59)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from puntobanco.analysis.risk import CoupDistribution
from puntobanco.errors import PuntoBancoError

__all__ = [
    "MAX_WORK",
    "SIDES",
    "BehindResult",
    "DrawdownResult",
    "StopResult",
    "Walk",
    "drawdown_quantile",
    "prob_drawdown_at_least",
    "prob_ever_behind",
    "stop_session",
    "zero_count_upper_bound",
]

FloatArray = npt.NDArray[np.float64]
SIDES: tuple[str, ...] = ("player", "house")
#: The most state-updates (states × coups × results) one exact chain takes: about 10 s of CPU.
MAX_WORK = 3_000_000_000
#: Without a coup limit, a stop-loss / stop-win chain runs until this little mass is left.
TAIL_MASS = 1e-12
#: ... or this many coups (the remaining mass is then reported as running on).
MAX_UNLIMITED_COUPS = 10_000_000


def zero_count_upper_bound(trials: int, confidence: float = 0.95) -> float:
    """The one-sided upper confidence bound of a probability seen 0 times in ``trials``.

    Exact (Clopper–Pearson with no successes): ``1 − (1 − confidence)^(1/n)``, about ``3/n`` at
    95 % — never "0 ± 0".

    >>> f"{zero_count_upper_bound(20_000):.2e}"
    '1.50e-04'
    """
    if trials < 1:
        raise PuntoBancoError("A bound needs at least one trial.", code="bad-sessions")
    return 1.0 - float((1.0 - confidence) ** (1.0 / trials))


@dataclass(frozen=True, slots=True)
class Walk:
    """One coup's result for a side, in grid units (``1/scale`` of a stake), and its law."""

    values: tuple[int, ...]
    probabilities: tuple[float, ...]
    scale: int
    mean: Fraction  # per stake, exact

    @classmethod
    def of(cls, dist: CoupDistribution, *, side: str) -> Walk:
        """The walk of ``side`` (``player``: the players' result, ``−house``; or ``house``)."""
        if side not in SIDES:
            raise PuntoBancoError(f"{side!r} is not a side: choose player or house.",
                                  code="bad-bet")
        sign = -1 if side == "player" else 1
        pairs = sorted((sign * v, w / dist.total) for v, w in zip(dist.values, dist.weights,
                                                                  strict=True))
        return cls(values=tuple(v for v, _ in pairs), probabilities=tuple(p for _, p in pairs),
                   scale=dist.scale, mean=sign * dist.mean)

    @property
    def largest_loss(self) -> int:
        """The most one coup can lose, in grid units (0 if no result is negative)."""
        return max(0, -self.values[0])

    @property
    def largest_gain(self) -> int:
        return max(0, self.values[-1])

    def grid(self, amount: float) -> int:
        """An amount in stakes as a whole number of grid units, rounded up (at least 1)."""
        if not math.isfinite(amount) or amount <= 0:
            raise PuntoBancoError(f"An amount is positive and finite, not {amount:g}.",
                                  code="bad-amount")
        return max(1, math.ceil(amount * self.scale - 1e-9))

    def check_work(self, states: int, coups: int, what: str) -> None:
        work = states * coups * len(self.values)
        if work > MAX_WORK:
            raise PuntoBancoError(
                f"The exact {what} needs {work:,} state updates, more than {MAX_WORK:,}: use "
                "--method simulate, fewer coups or a smaller amount.", code="grid-too-large")


@dataclass(frozen=True, kw_only=True)
class BehindResult:
    """P(the side's result ever reaches ``−amount`` within ``coups`` coups), and by coup."""

    amount: float
    coups: int
    probability: float
    #: ``curve[k]``: the probability within ``k + 1`` coups.
    curve: FloatArray
    numerical_error: float


def _step_absorbing(mass: FloatArray, walk: Walk) -> tuple[FloatArray, float, float]:
    """One coup of a walk on states ``0 … len−1`` absorbed below 0 and above the top.

    Returns the new mass, the mass that fell below 0 and the mass that rose above the top.
    """
    size = mass.shape[0]
    new = np.zeros(size)
    below = above = 0.0
    for value, p in zip(walk.values, walk.probabilities, strict=True):
        if value >= 0:
            if value < size:
                new[value:] += p * mass[:size - value]
                above += p * float(mass[size - value:].sum())
            else:
                above += p * float(mass.sum())
        else:
            drop = -value
            if drop < size:
                new[:size - drop] += p * mass[drop:]
                below += p * float(mass[:drop].sum())
            else:
                below += p * float(mass.sum())
    return new, below, above


def prob_ever_behind(walk: Walk, amount: float, coups: int) -> BehindResult:
    """P(the side's running result ever reaches ``−amount`` stakes within ``coups`` coups).

    States are the results above the barrier, ``−b+1 … −b + coups·(largest loss)``: higher ones
    cannot come back down to the barrier in the coups left, and leave the chain as safe.
    """
    if coups < 1:
        raise PuntoBancoError(f"A session has at least one coup, not {coups}.",
                              code="bad-coups")
    barrier = walk.grid(amount)
    reach = coups * walk.largest_loss
    if reach < barrier:  # the side cannot lose that much in so few coups
        return BehindResult(amount=amount, coups=coups, probability=0.0,
                            curve=np.zeros(coups), numerical_error=0.0)
    size = reach  # states −b+1 … −b+reach; the start 0 is index b−1
    walk.check_work(size, coups, "P(ever behind)")
    mass = np.zeros(size)
    mass[barrier - 1] = 1.0
    curve = np.empty(coups)
    hit = safe = 0.0
    for k in range(coups):
        mass, below, above = _step_absorbing(mass, walk)
        hit += below
        safe += above
        curve[k] = hit
    error = abs(hit + safe + float(mass.sum()) - 1.0)
    return BehindResult(amount=amount, coups=coups, probability=hit, curve=curve,
                        numerical_error=error)


@dataclass(frozen=True, kw_only=True)
class DrawdownResult:
    """P(the largest fall from a running peak reaches ``amount`` stakes within ``coups``)."""

    amount: float
    coups: int
    probability: float
    numerical_error: float


def prob_drawdown_at_least(walk: Walk, amount: float, coups: int) -> DrawdownResult:
    """P(max drawdown ≥ ``amount`` stakes within ``coups`` coups), the peak including the start.

    The chain is the distance ``d`` below the running peak, ``0 … b−1`` in grid units: a coup of
    result ``v`` moves it to ``max(0, d − v)``; ``d ≥ b`` is absorbed.
    """
    if coups < 1:
        raise PuntoBancoError(f"A session has at least one coup, not {coups}.",
                              code="bad-coups")
    level = walk.grid(amount)
    if level > coups * walk.largest_loss:  # no run of so few coups can fall that far
        return DrawdownResult(amount=amount, coups=coups, probability=0.0, numerical_error=0.0)
    walk.check_work(level, coups, "drawdown")
    mass = np.zeros(level)
    mass[0] = 1.0
    hit = 0.0
    for _ in range(coups):
        new = np.zeros(level)
        for value, p in zip(walk.values, walk.probabilities, strict=True):
            if value > 0:  # a gain: closer to the peak, or a new peak (d = 0)
                if value < level:
                    new[:level - value] += p * mass[value:]
                    new[0] += p * float(mass[:value].sum())
                else:
                    new[0] += p * float(mass.sum())
            elif value == 0:
                new += p * mass
            else:  # a loss: further below the peak; at the level, absorbed
                drop = -value
                if drop < level:
                    new[drop:] += p * mass[:level - drop]
                    hit += p * float(mass[level - drop:].sum())
                else:
                    hit += p * float(mass.sum())
        mass = new
    error = abs(hit + float(mass.sum()) - 1.0)
    return DrawdownResult(amount=amount, coups=coups, probability=hit, numerical_error=error)


def drawdown_quantile(walk: Walk, q: float, coups: int) -> Fraction:
    """The ``q`` quantile of the max drawdown over ``coups`` coups, in stakes (a grid value).

    The smallest grid amount ``x`` with ``P(drawdown ≤ x) ≥ q``, i.e. ``P(drawdown ≥ x + 1/scale)
    ≤ 1 − q``, found by bisection over exact chains.
    """
    if not 0 < q < 1:
        raise PuntoBancoError(f"A quantile lies strictly between 0 and 1, not {q}.",
                              code="bad-amount")

    def tail(units: int) -> float:  # P(drawdown ≥ units + 1 grid steps)
        return prob_drawdown_at_least(walk, (units + 1) / walk.scale, coups).probability

    low, high = -1, max(1, walk.largest_loss)
    while tail(high) > 1 - q:
        low, high = high, high * 2
        if high > coups * walk.largest_loss:
            high = coups * walk.largest_loss
            break
    while high - low > 1:
        middle = (low + high) // 2
        if tail(middle) > 1 - q:
            low = middle
        else:
            high = middle
    return Fraction(max(high, 0), walk.scale)


@dataclass(frozen=True, kw_only=True)
class StopResult:
    """A stop-loss / stop-win session: how it ends, how long it lasts, what it brings."""

    loss: float
    win: float
    coups: int | None
    prob_loss: float
    prob_win: float
    #: Ended by the coup limit (or, with no limit, still running after MAX_UNLIMITED_COUPS).
    prob_time: float
    expected_length: float
    #: Expected length of the sessions that end each way (``None`` where that end has no mass).
    length_if_loss: float | None
    length_if_win: float | None
    #: Expected result per stake (overshoot past a stop included).
    expected_result: float
    numerical_error: float


def stop_session(walk: Walk, *, loss: float | None, win: float | None, coups: int | None
                 ) -> StopResult:
    """Play until the side is ``loss`` stakes down, ``win`` stakes up, or ``coups`` coups.

    Either stop may be ``None`` (no stop on that side), but not both without a coup limit. States
    are the results strictly between the stops, ``−L+1 … W−1`` in grid units; a stop reached is
    absorbed with the result it ends on (overshoot counted in the expected result).
    """
    if loss is None and win is None and coups is None:
        raise PuntoBancoError("A session needs a stop-loss, a stop-win or a number of coups.",
                              code="bad-coups")
    if coups is not None and coups < 1:
        raise PuntoBancoError(f"A session has at least one coup, not {coups}.",
                              code="bad-coups")
    if coups is None and (loss is None or win is None):
        raise PuntoBancoError("A session with one stop only needs a number of coups too.",
                              code="bad-coups")
    limit = coups if coups is not None else MAX_UNLIMITED_COUPS
    reach = limit * max(walk.largest_loss, walk.largest_gain)
    low = walk.grid(loss) if loss is not None else reach + 1
    high = walk.grid(win) if win is not None else reach + 1
    size = low + high - 1  # −L+1 … W−1; the start 0 is index L−1
    walk.check_work(size, min(limit, 100_000) if coups is None else limit, "stop session")
    values = np.array(walk.values)
    probabilities = np.array(walk.probabilities)
    mass = np.zeros(size)
    mass[low - 1] = 1.0
    p_loss = p_win = length_loss = length_win = result_sum = 0.0
    alive_sum = 0.0  # Σ_k P(alive after k coups), k = 0 … : the expected length
    k = 0
    positions = np.arange(size, dtype=np.float64) - (low - 1)  # result of each state
    while k < limit:
        alive = float(mass.sum())
        if coups is None and alive < TAIL_MASS:
            break
        alive_sum += alive
        k += 1
        new = np.zeros(size)
        for value, p in zip(values, probabilities, strict=True):
            value = int(value)
            p = float(p)
            if value >= 0:
                stay = size - value
                if stay > 0:
                    new[value:] += p * mass[:stay]
                ended = mass[max(stay, 0):]
                if ended.size:
                    m = p * float(ended.sum())
                    p_win += m
                    length_win += k * m
                    result_sum += p * float((ended * (positions[max(stay, 0):] + value)).sum())
            else:
                drop = -value
                stay = size - drop
                if stay > 0:
                    new[:stay] += p * mass[drop:]
                ended = mass[:min(drop, size)]
                if ended.size:
                    m = p * float(ended.sum())
                    p_loss += m
                    length_loss += k * m
                    result_sum += p * float((ended * (positions[:min(drop, size)] + value)).sum())
        mass = new
    left = float(mass.sum())
    result_sum += float((mass * positions).sum())
    error = abs(p_loss + p_win + left - 1.0)
    return StopResult(
        loss=loss if loss is not None else math.inf, win=win if win is not None else math.inf,
        coups=coups, prob_loss=p_loss, prob_win=p_win, prob_time=left,
        expected_length=alive_sum, length_if_loss=length_loss / p_loss if p_loss > 0 else None,
        length_if_win=length_win / p_win if p_win > 0 else None,
        expected_result=result_sum / walk.scale, numerical_error=error)
