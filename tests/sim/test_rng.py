"""The random stream (S1): seeded, split by chunk, exactly uniform draws, uniform shuffles."""

from __future__ import annotations

import itertools
import math

import numpy as np

from puntobanco.sim.rng import bounded_draws, chunk_state, shuffle_prefix


def _chi_square(observed: np.ndarray, expected: float) -> float:
    return float(((observed - expected) ** 2 / expected).sum())


def test_S1_same_seed_same_stream_other_chunk_other_stream() -> None:
    first = bounded_draws(chunk_state(123, 4), 1000, 50)
    again = bounded_draws(chunk_state(123, 4), 1000, 50)
    other_chunk = bounded_draws(chunk_state(123, 5), 1000, 50)
    other_seed = bounded_draws(chunk_state(124, 4), 1000, 50)
    assert (first == again).all()
    assert not (first == other_chunk).all()
    assert not (first == other_seed).all()


def test_S1_chunk_state_is_seed_sequence_spawn() -> None:
    """Chunk i's stream is the i-th child that ``SeedSequence(seed).spawn`` would give."""
    children = np.random.SeedSequence(42).spawn(3)
    for i, child in enumerate(children):
        assert (chunk_state(42, i) == child.generate_state(4, dtype=np.uint64)).all()


def test_S1_bounded_draws_are_uniform() -> None:
    """Chi-square over 312 values (311 degrees of freedom): far from the 99.99 % point."""
    draws = bounded_draws(chunk_state(1, 0), 312, 312 * 2000)
    counts = np.bincount(draws, minlength=312)
    assert counts.shape == (312,) and draws.min() >= 0
    # 311 degrees of freedom: mean 311, sd ~24.9; 311 + 6 sd is beyond the 99.99 % point.
    assert _chi_square(counts, 2000) < 311 + 6 * math.sqrt(2 * 311)


def test_S1_shuffle_gives_every_permutation_equally_often() -> None:
    """Four cards, 24 permutations, 240,000 shuffles of a carried-over array."""
    cards = np.array([0, 1, 2, 3, 0, 0, 0, 0, 0, 0], dtype=np.uint8)
    state = chunk_state(7, 0)
    index = {perm: i for i, perm in enumerate(itertools.permutations(range(4)))}
    counts = np.zeros(24)
    for _ in range(240_000 // 1000):
        for _ in range(1000):
            shuffle_prefix(cards, 4, 3, state)
            counts[index[tuple(int(c) for c in cards[:4])]] += 1
    # 23 degrees of freedom: the 99.99 % point is about 56.
    assert _chi_square(counts, 10_000) < 56
    assert (cards[4:] == 0).all()


def test_S1_partial_shuffle_prefix_is_uniform_by_position() -> None:
    """Fixing only the first m positions still puts every card in each of them equally often."""
    n, m = 12, 5
    cards = np.arange(n + 6, dtype=np.uint8) % 250
    cards[n:] = 255
    state = chunk_state(8, 0)
    tally = np.zeros((m, n))
    for _ in range(60_000):
        shuffle_prefix(cards, n, m, state)
        tally[np.arange(m), cards[:m]] += 1
    for position in range(m):
        assert _chi_square(tally[position], 60_000 / n) < 45  # 11 d.o.f.: 99.99 % is ~ 35
    assert (cards[n:] == 255).all()
