"""The trie of value multisets behind every exact count.

A coup uses four to six cards. Drawn without replacement from a shoe holding ``n[v]`` cards of
value ``v``, an ordered sequence of values has ``∏ n[v]·(n[v]−1)···(n[v]−k_v+1)`` card sequences,
``k_v`` being how often ``v`` occurs: the count depends only on the *multiset* of values. There are
``C(16, 6) = 8,008`` multisets of at most six values (with the empty one), and every analysis
works on them.

They are stored as a trie in depth-first pre-order: a node is a multiset, its parent the multiset
without its largest value, and ``(value, repeat)`` says which value it adds and how many of that
value the parent already holds. Walking the nodes in order, ``weight[node] = weight[parent] ×
(n[value] − repeat)``: one multiplication per node gives every multiset's number of card sequences.

>>> trie = multiset_trie()
>>> trie.size, [int((trie.depth == d).sum()) for d in range(7)]
(8008, [1, 10, 55, 220, 715, 2002, 5005])
>>> trie.node_of((9, 0, 0, 9))   # the multiset {0, 0, 9, 9}
1000
>>> trie.values_of(1000)
(0, 0, 9, 9)
>>> exact_weights((2, 0, 0, 0, 0, 0, 0, 0, 0, 3))[1000]   # 2·1 zero-value cards, 3·2 nines
12
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np
import numpy.typing as npt

#: The most cards a coup can use, and so the trie's depth.
MAX_CARDS = 6
#: Multiplicities are encoded in base 7 (a value occurs 0–6 times).
_BASE = MAX_CARDS + 1
_POWERS = np.array([_BASE**v for v in range(10)], dtype=np.int64)

IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True, eq=False)
class MultisetTrie:
    """Every multiset of at most six card values, as a depth-first trie (see the module text)."""

    #: Index of each node's parent (the root, node 0, is its own parent).
    parent: IntArray
    #: Number of values in the multiset (0–6).
    depth: IntArray
    #: The value the node adds to its parent's multiset.
    value: IntArray
    #: How many cards of ``value`` the parent's multiset already holds.
    repeat: IntArray
    #: ``Σ k_v · 7**v``: a key that identifies the multiset.
    key: IntArray
    _order: IntArray
    _sorted_keys: IntArray

    @property
    def size(self) -> int:
        return int(self.depth.shape[0])

    def nodes_of_keys(self, keys: IntArray) -> IntArray:
        """The node index of each multiset key (every key must be one of the trie's)."""
        return self._order[np.searchsorted(self._sorted_keys, keys)]

    def node_of(self, values: Sequence[int]) -> int:
        """The node of the multiset of ``values`` (in any order)."""
        key = int(sum(_BASE**v for v in values))
        return int(self.nodes_of_keys(np.array([key], dtype=np.int64))[0])

    def values_of(self, node: int) -> tuple[int, ...]:
        """The multiset of a node, as sorted values."""
        values: list[int] = []
        while node != 0:
            values.append(int(self.value[node]))
            node = int(self.parent[node])
        return tuple(sorted(values))


@cache
def multiset_trie() -> MultisetTrie:
    """Build (once) the trie of all multisets of at most six values."""
    parent: list[int] = [0]
    depth: list[int] = [0]
    value: list[int] = [0]
    repeat: list[int] = [0]
    key: list[int] = [0]

    def grow(node: int, lowest: int, counts: list[int]) -> None:
        if depth[node] == MAX_CARDS:
            return
        for v in range(lowest, 10):
            child = len(depth)
            parent.append(node)
            depth.append(depth[node] + 1)
            value.append(v)
            repeat.append(counts[v])
            key.append(key[node] + _BASE**v)
            counts[v] += 1
            grow(child, v, counts)
            counts[v] -= 1

    grow(0, 0, [0] * 10)
    keys = np.array(key, dtype=np.int64)
    order = np.argsort(keys).astype(np.int64)
    return MultisetTrie(
        parent=np.array(parent, dtype=np.int64),
        depth=np.array(depth, dtype=np.int64),
        value=np.array(value, dtype=np.int64),
        repeat=np.array(repeat, dtype=np.int64),
        key=keys,
        _order=order,
        _sorted_keys=keys[order],
    )


def multiset_keys(sequences: npt.NDArray[np.integer], lengths: IntArray) -> IntArray:
    """The multiset key of the first ``lengths[i]`` values of each row of ``sequences``."""
    used = np.arange(sequences.shape[1])[None, :] < lengths[:, None]
    keys: IntArray = np.where(used, _POWERS[sequences.astype(np.int64)], 0).sum(axis=1)
    return keys


def exact_weights(composition: Sequence[int]) -> list[int]:
    """Every node's number of ordered card sequences, as exact integers.

    ``weights[node] = ∏_v n[v]·(n[v]−1)···(n[v]−k_v+1)`` (zero when the shoe cannot supply it).
    """
    trie = multiset_trie()
    counts = [int(c) for c in composition]
    parents = trie.parent.tolist()
    values = trie.value.tolist()
    repeats = trie.repeat.tolist()
    weights = [1] * trie.size
    for node in range(1, trie.size):
        factor = counts[values[node]] - repeats[node]
        weights[node] = weights[parents[node]] * factor if factor > 0 else 0
    return weights


def falling(n: int, k: int) -> int:
    """``n·(n−1)···(n−k+1)``: ordered ways to draw ``k`` of ``n`` cards.

    >>> falling(416, 6)
    4998398275503360
    """
    result = 1
    for i in range(k):
        result *= n - i
    return result
