"""Expected values of the five bets for many shoes at once, in float64, in microseconds.

The exact engine's counts are a sum over multiset nodes of ``(composition-free integer) ×
(falling-factorial weight of the node)``. Here the composition-free part of every bet is folded
into one coefficient row per coup node (:class:`KernelTables`, built once per rule set from the
same tables as :func:`~puntobanco.analysis.exact.analyse`), and a compiled kernel evaluates the
weighted sum for 64 compositions at a time, one per SIMD lane, on every core.

>>> import numpy as np
>>> from puntobanco.cards import full_composition
>>> ev = expected_values(np.array(full_composition(6)))
>>> ev.shape, [f"{-x:.4%}" for x in ev[0]]
((1, 5), ['1.2374%', '1.4548%', '14.4382%', '11.2931%', '16.7751%'])
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from puntobanco.analysis.multisets import MAX_CARDS, multiset_trie
from puntobanco.analysis.tables import BET_NAMES, Shape, payout_key, settlement_table
from puntobanco.errors import PuntoBancoError
from puntobanco.rules import RuleSet

FloatArray = npt.NDArray[np.float64]
IndexArray = npt.NDArray[np.int64]

#: Below this many rows, the scalar kernel (one composition at a time) is faster than 64 lanes.
SMALL_BATCH = 16
_TAIL_COLUMN = {4: 60, 5: 61}


@dataclass(frozen=True, eq=False)
class KernelTables:
    """The composition-free tables the kernels walk (see :mod:`._kernels` for the layout)."""

    #: Phase 1, multisets of one to five values by size: parent's row and factor row.
    parents: IndexArray
    columns: IndexArray
    #: Phase 2, one item per coup node (padded to an even count with a zero item).
    item_rows: IndexArray
    item_columns: IndexArray
    #: Net result per unit of each bet, summed over the node's value orderings: (items, 5).
    coefficients: FloatArray

    def arrays(self) -> tuple[IndexArray, IndexArray, IndexArray, IndexArray, FloatArray]:
        return (self.parents, self.columns, self.item_rows, self.item_columns, self.coefficients)


_TABLES: dict[tuple[object, ...], KernelTables] = {}
_PARALLEL = threading.Lock()
_DEFAULT: list[KernelTables] = []


def kernel_tables(rules: RuleSet | None = None) -> KernelTables:
    """The kernel's tables for a rule set (built once per distinct pay table and drawing rule)."""
    if rules is None:
        if not _DEFAULT:
            _DEFAULT.append(kernel_tables(RuleSet()))
        return _DEFAULT[0]
    key = payout_key(rules)
    tables = _TABLES.get(key)
    if tables is None:
        if len(_TABLES) >= 64:
            _TABLES.clear()
        tables = _TABLES[key] = _build_kernel_tables(rules)
    return tables


def _build_kernel_tables(rules: RuleSet) -> KernelTables:
    trie = multiset_trie()
    settlement = settlement_table(rules)
    table = settlement.classes
    # Exact integer coefficients over a common denominator, then one rounding to float.
    denominator = math.lcm(*(p.denominator for bet in settlement.bets for p in bet.row_pays))
    class_pays = np.zeros((len(Shape) * 100, len(BET_NAMES)), dtype=np.int64)
    for column, bet in enumerate(settlement.bets):
        for index, row in enumerate(bet.class_row):
            if row >= 0:
                pays = bet.row_pays[row] * denominator
                class_pays[index, column] = int(pays)
    node_coefficients = np.zeros((trie.size, len(BET_NAMES)), dtype=np.int64)
    np.add.at(node_coefficients, table.nodes,
              table.node_counts[:, None] * class_pays[table.classes])

    depth = trie.depth
    inner = np.flatnonzero(depth < MAX_CARDS)
    inner = inner[np.argsort(depth[inner], kind="stable")]  # by size: parents come first
    row_of = np.full(trie.size, -1, dtype=np.int64)
    row_of[inner] = np.arange(inner.size)
    factor_column = 6 * trie.value + trie.repeat

    items = np.flatnonzero(depth >= 4)
    leaf = depth[items] == MAX_CARDS
    item_rows = np.where(leaf, row_of[trie.parent[items]], row_of[items])
    tail = np.where(depth[items] == 4, _TAIL_COLUMN[4], _TAIL_COLUMN[5])
    item_columns = np.where(leaf, factor_column[items], tail)
    order = np.argsort(item_rows, kind="stable")
    coefficients = node_coefficients[items[order]] / denominator
    item_rows, item_columns = item_rows[order], item_columns[order]
    if item_rows.size % 2:
        item_rows = np.append(item_rows, 0)
        item_columns = np.append(item_columns, _TAIL_COLUMN[4])
        coefficients = np.vstack([coefficients, np.zeros((1, len(BET_NAMES)))])
    return KernelTables(
        parents=np.ascontiguousarray(row_of[trie.parent[inner[1:]]]),
        columns=np.ascontiguousarray(factor_column[inner[1:]]),
        item_rows=np.ascontiguousarray(item_rows, dtype=np.int64),
        item_columns=np.ascontiguousarray(item_columns, dtype=np.int64),
        coefficients=np.ascontiguousarray(coefficients, dtype=np.float64),
    )


def expected_values(
    compositions: npt.ArrayLike, rules: RuleSet | None = None, *, parallel: bool = True
) -> FloatArray:
    """EV per unit staked of each bet, for each composition: ``(n, 10)`` ints → ``(n, 5)`` floats.

    Columns follow :data:`BET_NAMES` (punto, banco, egalite, lion-punto, lion-banco); a single
    ``(10,)`` row gives a ``(1, 5)`` array. The values agree with the exact engine to about 1e-16.
    A row holding fewer than six cards has no defined EV and gives NaN; a negative count raises
    :class:`~puntobanco.errors.PuntoBancoError`. ``parallel=False`` keeps to the calling thread
    (for callers that run their own workers).

    The first call in a process builds the tables (about 0.2 s) and loads the compiled kernels
    from numba's disk cache (compiled once per machine, about 10 s).

    >>> expected_values([[16, 4, 4, 4, 4, 4, 4, 4, 4, 4], [0, 0, 0, 0, 0, 0, 0, 0, 0, 5]])[1]
    array([nan, nan, nan, nan, nan])
    """
    from puntobanco.analysis import _kernels

    comps = np.asarray(compositions)
    if comps.ndim == 1:
        comps = comps[None, :]
    if comps.ndim != 2 or comps.shape[1] != 10:
        raise PuntoBancoError(
            f"Compositions are rows of ten counts; got an array of shape {comps.shape}.",
            code="bad-composition",
        )
    if comps.dtype.kind not in "iu":
        try:
            whole = comps.astype(np.int64)
        except (TypeError, ValueError):
            whole = None
        if whole is None or not np.array_equal(whole, comps):
            raise PuntoBancoError("A composition counts whole cards: ten whole numbers per row.",
                                  code="bad-composition")
        comps = whole
    comps = np.ascontiguousarray(comps, dtype=np.int64)
    if comps.size and int(comps.min()) < 0:
        raise PuntoBancoError("A composition cannot hold a negative number of cards.",
                              code="bad-composition")
    out = np.empty((comps.shape[0], len(BET_NAMES)), dtype=np.float64)
    if comps.shape[0] == 0:
        return out
    arrays = kernel_tables(rules).arrays()
    if comps.shape[0] < SMALL_BATCH:
        _kernels.ev_rows(comps, *arrays, out)
    elif parallel and _PARALLEL.acquire(blocking=False):
        # One parallel launch at a time (numba's workqueue layer cannot take two); a thread that
        # finds the cores busy computes on its own thread instead of waiting.
        try:
            import numba

            _kernels.ev_parallel(comps, *arrays, out, 4 * numba.get_num_threads())
        finally:
            _PARALLEL.release()
    else:
        _kernels.ev_serial(comps, *arrays, out)
    return out
