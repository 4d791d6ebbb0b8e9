"""What a chunk of simulated shoes needs and returns: :class:`ShoeSpec`, :class:`SimChunk`.

A run of ``shoes`` shoes with seed ``seed`` is cut into chunks of :data:`CHUNK_SHOES` shoes (the
last one shorter) by :func:`chunk_plan`. Chunk ``i`` plays its shoes from the random stream
``SeedSequence(seed, spawn_key=(i,))``, and chunks are combined in chunk order, so a run's result
depends on the seed and the number of shoes alone — not on how many workers played it.

>>> from puntobanco.rules import RuleSet
>>> spec = ShoeSpec.build(RuleSet(decks=1))
>>> chunk_plan(25_000, chunk_shoes=10_000)
[(0, 10000), (1, 10000), (2, 5000)]
>>> one = simulate_chunk(spec, seed=3, chunk=0, shoes=200)
>>> two = simulate_chunk(spec, seed=3, chunk=0, shoes=200)
>>> one.shoes, int(one.hist.sum()) == one.coups, bool((one.hist == two.hist).all())
(200, True, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from puntobanco.cards import Composition, full_composition
from puntobanco.errors import PuntoBancoError
from puntobanco.rules import LastCoup, RuleSet
from puntobanco.sim import kernel, tables
from puntobanco.sim.rng import chunk_state

#: Shoes per chunk of a simulation run (fixed: the result for a seed depends on it).
CHUNK_SHOES = 10_000


@dataclass(frozen=True, kw_only=True, eq=False)
class ShoeSpec:
    """The shoe and the rules as the kernels take them; small and picklable (sent to workers).

    Build it with :meth:`build`: every array comes from the rules core through
    :mod:`puntobanco.sim.tables`.
    """

    rules: RuleSet
    composition: Composition
    start: npt.NDArray[np.uint8]
    codes: npt.NDArray[np.int16]
    used: npt.NDArray[np.uint8]
    burns: npt.NDArray[np.int64]
    pays: npt.NDArray[np.float64]
    cut_index: int
    extra: int

    @classmethod
    def build(cls, rules: RuleSet, composition: Composition | None = None) -> ShoeSpec:
        """The spec of ``rules`` for a shoe of ``composition`` (default: ``rules.decks`` decks).

        The cut card lies ``rules.cut_card`` cards from the end (S3); a shoe must hold at least
        12 cards behind it and enough in front of it for the burn and a coup.
        """
        shoe = full_composition(rules.decks) if composition is None else composition
        n = sum(shoe)
        if n - rules.cut_card < 17:  # up to 11 cards turned and burned, then a six-card coup
            raise PuntoBancoError(
                f"A shoe of {n} cards is too small for a cut card {rules.cut_card} cards from "
                "the end: leave at least 17 cards in front of it.", code="bad-cut-card")
        coup_tables = tables.coup_tables(rules)
        return cls(
            rules=rules,
            composition=shoe,
            start=tables.shoe_values(shoe),
            codes=coup_tables.codes,
            used=coup_tables.used,
            burns=tables.burn_counts(),
            pays=tables.payoff_array(rules),
            cut_index=max(n - rules.cut_card, 0),
            extra=1 if rules.last_coup is LastCoup.ONE_MORE else 0,
        )

    @property
    def cards(self) -> int:
        return int(self.start.shape[0])

    @property
    def max_coups(self) -> int:
        """More coups than any shoe can hold (each uses at least four cards)."""
        return self.cards // 4 + 2

    @property
    def exact_pays(self) -> tuple[tuple[Fraction, ...], ...]:
        return tables.exact_payoffs(self.rules)


@dataclass(frozen=True, kw_only=True, eq=False)
class SimChunk:
    """The sufficient statistics of some simulated shoes.

    ``hist[code]``: coups per outcome code; ``shoe_sums[k]``: for bet ``k``, the sums over shoes
    of ``R``, ``R²`` and ``R·c`` (``R`` the shoe's return per unit on every coup, ``c`` its coups);
    ``coups_per_shoe[c]``: shoes with ``c`` coups.
    """

    shoes: int
    hist: npt.NDArray[np.int64]
    shoe_sums: npt.NDArray[np.float64]
    coups_per_shoe: npt.NDArray[np.int64]

    @property
    def coups(self) -> int:
        return int(self.hist.sum())

    @classmethod
    def empty(cls, spec: ShoeSpec) -> SimChunk:
        return cls(shoes=0, hist=np.zeros(tables.N_CODES, dtype=np.int64),
                   shoe_sums=np.zeros((len(tables.BET_NAMES), 3)),
                   coups_per_shoe=np.zeros(spec.max_coups, dtype=np.int64))

    def __add__(self, other: SimChunk) -> SimChunk:
        return SimChunk(shoes=self.shoes + other.shoes, hist=self.hist + other.hist,
                        shoe_sums=self.shoe_sums + other.shoe_sums,
                        coups_per_shoe=self.coups_per_shoe + other.coups_per_shoe)


def chunk_plan(shoes: int, *, chunk_shoes: int = CHUNK_SHOES) -> list[tuple[int, int]]:
    """``(chunk index, shoes in it)`` for a run of ``shoes`` shoes."""
    if shoes < 1:
        raise PuntoBancoError(f"Simulate at least one shoe, not {shoes}.", code="bad-shoes")
    full, rest = divmod(shoes, chunk_shoes)
    plan = [(i, chunk_shoes) for i in range(full)]
    if rest:
        plan.append((full, rest))
    return plan


def simulate_chunk(spec: ShoeSpec, *, seed: int, chunk: int, shoes: int) -> SimChunk:
    """Play chunk ``chunk`` of a run seeded with ``seed``: ``shoes`` shoes."""
    out = SimChunk.empty(spec)
    kernel.simulate_chunk(shoes, chunk_state(seed, chunk), spec.start, spec.codes, spec.used,
                          spec.burns, spec.rules.burn, spec.cut_index, spec.extra, spec.pays,
                          out.hist, out.shoe_sums, out.coups_per_shoe)
    return SimChunk(shoes=shoes, hist=out.hist, shoe_sums=out.shoe_sums,
                    coups_per_shoe=out.coups_per_shoe)


def combine(spec: ShoeSpec, chunks: Sequence[SimChunk]) -> SimChunk:
    """Add chunks up in the order given (chunk order: floating sums are then reproducible)."""
    total = SimChunk.empty(spec)
    for chunk in chunks:
        total = total + chunk
    return total
