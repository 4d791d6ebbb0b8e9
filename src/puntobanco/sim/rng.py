"""The simulator's random stream: xoshiro256++ seeded by numpy's ``SeedSequence`` (S1).

numpy's ``Generator`` cannot be inlined into a compiled loop, so the kernels carry the 256-bit
state of `xoshiro256++ <https://prng.di.unimi.it/>`_ in registers. Each chunk of shoes draws its
state from ``SeedSequence(seed, spawn_key=(chunk,))`` — the same stream the chunk's index would get
from ``SeedSequence(seed).spawn(...)`` — so a chunk's shoes depend on the seed and the chunk's
number only, never on which worker plays it.

Card positions are drawn by Lemire's multiply-and-shift method on 32-bit halves of each output,
with its rejection step, so every index is exactly uniform and a shuffle is a uniform permutation
(Fisher–Yates).

>>> state = chunk_state(7, 0)
>>> state.dtype, state.shape
(dtype('uint64'), (4,))
>>> bool((chunk_state(7, 0) == state).all()), bool((chunk_state(7, 1) == state).all())
(True, False)
>>> draws = bounded_draws(state.copy(), 6, 100_000)
>>> sorted(set(draws.tolist())), abs(float(draws.mean()) - 2.5) < 0.02
([0, 1, 2, 3, 4, 5], True)
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

MASK32 = np.uint64(0xFFFFFFFF)
TWO32 = np.uint64(1 << 32)
U32 = np.uint64(32)
_U17, _U23, _U45, _U64 = np.uint64(17), np.uint64(23), np.uint64(45), np.uint64(64)


def chunk_state(seed: int, chunk: int) -> npt.NDArray[np.uint64]:
    """The xoshiro256++ state of chunk ``chunk`` of a run seeded with ``seed``."""
    sequence = np.random.SeedSequence(seed, spawn_key=(chunk,))
    state: npt.NDArray[np.uint64] = sequence.generate_state(4, dtype=np.uint64)  # type: ignore[assignment]
    if not state.any():  # the all-zero state is the one xoshiro cannot leave
        state[0] = np.uint64(1)
    return state


@njit(inline="always", cache=True)
def rotl(x: np.uint64, k: np.uint64) -> np.uint64:
    return (x << k) | (x >> (_U64 - k))


@njit(inline="always", cache=True)
def next64(s0: np.uint64, s1: np.uint64, s2: np.uint64,
           s3: np.uint64) -> tuple[np.uint64, np.uint64, np.uint64, np.uint64, np.uint64]:
    """One xoshiro256++ output and the next state."""
    result = rotl(s0 + s3, _U23) + s0
    t = s1 << _U17
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = rotl(s3, _U45)
    return result, s0, s1, s2, s3


@njit(inline="always", cache=True)
def bounded(half: np.uint64, bound: np.uint64, s0: np.uint64, s1: np.uint64, s2: np.uint64,
            s3: np.uint64) -> tuple[np.uint64, np.uint64, np.uint64, np.uint64, np.uint64]:
    """A uniform integer below ``bound`` from the 32 random bits ``half`` (Lemire's method).

    Rarely (probability below ``bound / 2**32``) the draw is rejected and fresh bits are taken
    from the stream, which is why the state goes in and out.
    """
    product = half * bound
    low = product & MASK32
    if low < bound:
        threshold = (TWO32 - bound) % bound
        while low < threshold:
            fresh, s0, s1, s2, s3 = next64(s0, s1, s2, s3)
            product = (fresh & MASK32) * bound
            low = product & MASK32
    return product >> U32, s0, s1, s2, s3


@njit(cache=True)
def shuffle_prefix(cards: npt.NDArray[np.uint8], n: int, m: int, state: npt.NDArray[np.uint64]
                   ) -> None:
    """Fisher–Yates, front to back: fix positions ``0 … m−1`` of ``cards[:n]`` uniformly.

    With ``m = n − 1`` it is a full uniform shuffle; a smaller ``m`` leaves the cards that are
    never dealt unordered, which changes nothing that is dealt. ``state`` is advanced in place.
    """
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    i = 0
    while i < m:
        word, s0, s1, s2, s3 = next64(s0, s1, s2, s3)
        j, s0, s1, s2, s3 = bounded(word & MASK32, np.uint64(n - i), s0, s1, s2, s3)
        k = i + np.int64(j)
        tmp = cards[i]
        cards[i] = cards[k]
        cards[k] = tmp
        i += 1
        if i < m:
            j, s0, s1, s2, s3 = bounded(word >> U32, np.uint64(n - i), s0, s1, s2, s3)
            k = i + np.int64(j)
            tmp = cards[i]
            cards[i] = cards[k]
            cards[k] = tmp
            i += 1
    state[0], state[1], state[2], state[3] = s0, s1, s2, s3


@njit(cache=True)
def bounded_draws(state: npt.NDArray[np.uint64], bound: int, count: int) -> npt.NDArray[np.int64]:
    """``count`` uniform integers below ``bound`` (for tests of the stream)."""
    out = np.empty(count, dtype=np.int64)
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    for i in range(count):
        word, s0, s1, s2, s3 = next64(s0, s1, s2, s3)
        j, s0, s1, s2, s3 = bounded(word & MASK32, np.uint64(bound), s0, s1, s2, s3)
        out[i] = np.int64(j)
    state[0], state[1], state[2], state[3] = s0, s1, s2, s3
    return out
