"""The compiled kernels of :mod:`puntobanco.analysis.fast` (numba, cached on disk).

Layout (see :class:`~puntobanco.analysis.fast.KernelTables`):

* ``factors[f, lane]``: row ``6·v + r`` holds ``n[v] − r`` for a composition; row 60 holds
  ``(N−4)(N−5)`` and row 61 ``N−5`` — the unused cards of four- and five-card coups.
* phase 1: ``weights[i + 1] = weights[parents[i]] × factors[columns[i]]`` walks the multisets of at
  most five values in order of size (row 0 is the empty multiset, weight 1);
* phase 2: each *item* (a coup node of four, five or six values) adds
  ``coefficients[item] × weights[item_rows[item]] × factors[item_columns[item]]`` to the five
  accumulators; items go two at a time so that each accumulator is loaded and stored once per pair.

Compositions are processed ``LANES`` at a time, one per SIMD lane (the lane loop is the innermost
loop, and its length is a compile-time constant so that LLVM vectorises it without a remainder).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

#: Compositions handled together by one pass over the tables.
LANES = 64
#: Factor rows: ``n[v] − r`` for v in 0..9, r in 0..5, then the two tail rows.
FACTOR_ROWS = 62
TAIL4_ROW = 60
TAIL5_ROW = 61
BETS = 5


@njit(cache=True, fastmath=True, nogil=True, inline="always")
def _load_lanes(comps, start, count, factors, totals):  # type: ignore[no-untyped-def]
    """Fill ``factors`` and ``totals`` (the number of ordered six-card sequences) for a block."""
    for lane in range(LANES):
        row = start + lane if lane < count else start
        cards = 0.0
        for v in range(10):
            n = float(comps[row, v])
            cards += n
            for r in range(6):
                factors[6 * v + r, lane] = n - r
        factors[TAIL4_ROW, lane] = (cards - 4.0) * (cards - 5.0)
        factors[TAIL5_ROW, lane] = cards - 5.0
        totals[lane] = cards * (cards - 1.0) * (cards - 2.0) * (cards - 3.0) * (cards - 4.0) * (
            cards - 5.0)


@njit(cache=True, fastmath=True, nogil=True, inline="always")
def _block(factors, weights, acc, parents, columns, item_rows, item_columns, coefficients):  # type: ignore[no-untyped-def]
    for lane in range(LANES):
        weights[0, lane] = 1.0
    for i in range(parents.shape[0]):
        p = parents[i]
        f = columns[i]
        for lane in range(LANES):
            weights[i + 1, lane] = weights[p, lane] * factors[f, lane]
    for k in range(BETS):
        for lane in range(LANES):
            acc[k, lane] = 0.0
    for j in range(0, item_rows.shape[0], 2):
        p0 = item_rows[j]
        f0 = item_columns[j]
        p1 = item_rows[j + 1]
        f1 = item_columns[j + 1]
        a0 = coefficients[j, 0]
        a1 = coefficients[j, 1]
        a2 = coefficients[j, 2]
        a3 = coefficients[j, 3]
        a4 = coefficients[j, 4]
        b0 = coefficients[j + 1, 0]
        b1 = coefficients[j + 1, 1]
        b2 = coefficients[j + 1, 2]
        b3 = coefficients[j + 1, 3]
        b4 = coefficients[j + 1, 4]
        for lane in range(LANES):
            y0 = weights[p0, lane] * factors[f0, lane]
            y1 = weights[p1, lane] * factors[f1, lane]
            acc[0, lane] += a0 * y0 + b0 * y1
            acc[1, lane] += a1 * y0 + b1 * y1
            acc[2, lane] += a2 * y0 + b2 * y1
            acc[3, lane] += a3 * y0 + b3 * y1
            acc[4, lane] += a4 * y0 + b4 * y1


@njit(cache=True, fastmath=True, nogil=True, inline="always")
def _store(acc, totals, start, count, out):  # type: ignore[no-untyped-def]
    for lane in range(count):
        total = totals[lane]
        for k in range(BETS):
            out[start + lane, k] = acc[k, lane] / total if total > 0.0 else np.nan


@njit(cache=True, fastmath=True, nogil=True)
def _blocks(comps, first, last, parents, columns, item_rows, item_columns, coefficients, out):  # type: ignore[no-untyped-def]
    factors = np.empty((FACTOR_ROWS, LANES))
    weights = np.empty((parents.shape[0] + 1, LANES))
    acc = np.empty((BETS, LANES))
    totals = np.empty(LANES)
    n = comps.shape[0]
    for block in range(first, last):
        start = block * LANES
        count = min(LANES, n - start)
        _load_lanes(comps, start, count, factors, totals)
        _block(factors, weights, acc, parents, columns, item_rows, item_columns, coefficients)
        _store(acc, totals, start, count, out)


@njit(cache=True, nogil=True, parallel=True)
def ev_parallel(comps, parents, columns, item_rows, item_columns, coefficients, out, chunks):  # type: ignore[no-untyped-def]
    """All rows of ``comps`` (int64, (n, 10)) into ``out`` ((n, 5)), in ``chunks`` parallel tasks."""
    blocks = (comps.shape[0] + LANES - 1) // LANES
    chunks = max(1, min(blocks, chunks))
    for chunk in prange(chunks):
        _blocks(comps, chunk * blocks // chunks, (chunk + 1) * blocks // chunks, parents, columns,
                item_rows, item_columns, coefficients, out)


@njit(cache=True, nogil=True)
def ev_serial(comps, parents, columns, item_rows, item_columns, coefficients, out):  # type: ignore[no-untyped-def]
    """As :func:`ev_parallel`, on the calling thread only."""
    _blocks(comps, 0, (comps.shape[0] + LANES - 1) // LANES, parents, columns, item_rows,
            item_columns, coefficients, out)


@njit(cache=True, fastmath=True, nogil=True)
def ev_rows(comps, parents, columns, item_rows, item_columns, coefficients, out):  # type: ignore[no-untyped-def]
    """One composition at a time (scalar code): the fast path for a handful of rows."""
    factors = np.empty(FACTOR_ROWS)
    weights = np.empty(parents.shape[0] + 1)
    for row in range(comps.shape[0]):
        cards = 0.0
        for v in range(10):
            n = float(comps[row, v])
            cards += n
            for r in range(6):
                factors[6 * v + r] = n - r
        factors[TAIL4_ROW] = (cards - 4.0) * (cards - 5.0)
        factors[TAIL5_ROW] = cards - 5.0
        total = cards * (cards - 1.0) * (cards - 2.0) * (cards - 3.0) * factors[TAIL4_ROW]
        weights[0] = 1.0
        for i in range(parents.shape[0]):
            weights[i + 1] = weights[parents[i]] * factors[columns[i]]
        s0 = s1 = s2 = s3 = s4 = 0.0
        for j in range(item_rows.shape[0]):
            y = weights[item_rows[j]] * factors[item_columns[j]]
            s0 += coefficients[j, 0] * y
            s1 += coefficients[j, 1] * y
            s2 += coefficients[j, 2] * y
            s3 += coefficients[j, 3] * y
            s4 += coefficients[j, 4] * y
        if total > 0.0:
            out[row, 0] = s0 / total
            out[row, 1] = s1 / total
            out[row, 2] = s2 / total
            out[row, 3] = s3 / total
            out[row, 4] = s4 / total
        else:
            for k in range(BETS):
                out[row, k] = np.nan
