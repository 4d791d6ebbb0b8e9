"""The counting study's speed: the exact EV at every coup of 10,000 six-deck shoes, and the whole
study in this process and on a local Dask cluster.

Run: ``.venv/bin/python bench/bench_count.py [--shoes 10000] [--dask-shoes 20000] [--no-dask]``.
The target is the exact EV of every coup of 10,000 six-deck shoes in under 10 seconds.
"""

from __future__ import annotations

import argparse
import logging
import os
import platform
import time

import numpy as np

from puntobanco.analysis import expected_values
from puntobanco.rules import RuleSet
from puntobanco.sim import counting, kernel
from puntobanco.sim.engine import ShoeSpec, chunk_plan
from puntobanco.sim.rng import chunk_state


def compositions(spec: ShoeSpec, shoes: int, seed: int) -> np.ndarray:
    """The cards left before every coup of ``shoes`` shoes, as the study's kernel records them."""
    parts = []
    for chunk, size in chunk_plan(shoes, chunk_shoes=counting.COUNT_CHUNK_SHOES):
        _, comps, _, _ = kernel.record_chunk(size, chunk_state(seed, chunk), spec.start,
                                             spec.codes, spec.used, spec.burns, spec.rules.burn,
                                             spec.cut_index, spec.extra, spec.max_coups)
        parts.append(comps)
    return np.concatenate(parts).astype(np.int64)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--shoes", type=int, default=10_000)
    parser.add_argument("--dask-shoes", type=int, default=20_000)
    parser.add_argument("--no-dask", action="store_true")
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores; Python "
          f"{platform.python_version()}, numpy {np.__version__}")
    rules = RuleSet()
    spec = ShoeSpec.build(rules)
    expected_values(compositions(spec, 2, 0), rules)  # compile / warm the tables
    began = time.perf_counter()
    comps = compositions(spec, args.shoes, 1)
    dealt = time.perf_counter() - began
    print(f"{args.shoes:,} six-deck shoes: {comps.shape[0]:,} coups recorded in {dealt:.2f} s")
    for parallel in (False, True):
        began = time.perf_counter()
        evs = expected_values(comps, rules, parallel=parallel)
        exact = time.perf_counter() - began
        assert evs.shape == (comps.shape[0], 5)
        where = f"{os.cpu_count()} cores" if parallel else "one thread"
        print(f"exact EV of all five bets at every coup ({where}): {exact:.2f} s, "
              f"{comps.shape[0] / exact:,.0f} compositions/s — target < 10 s: "
              f"{'met' if exact < 10 else 'NOT met'}")
    began = time.perf_counter()
    result = counting.study(rules, shoes=args.shoes, seed=1)
    whole = time.perf_counter() - began
    print(f"whole study of {args.shoes:,} shoes in this process ({result.placement}): "
          f"{whole:.2f} s, {result.totals.coups / whole:,.0f} coups/s")
    if args.no_dask:
        return
    from distributed import LocalCluster

    workers = os.cpu_count() or 1
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                      dashboard_address=None, silence_logs=logging.ERROR) as cluster:
        address = cluster.scheduler_address
        counting.study(rules, shoes=2 * counting.COUNT_CHUNK_SHOES, seed=0, scheduler=address)
        began = time.perf_counter()
        remote = counting.study(rules, shoes=args.dask_shoes, seed=2, scheduler=address)
        seconds = time.perf_counter() - began
    rate = remote.totals.shoes / seconds
    print(f"study of {args.dask_shoes:,} shoes on a local Dask cluster of {workers} workers: "
          f"{seconds:.1f} s, {rate:,.0f} shoes/s — a million shoes: about "
          f"{1e6 / rate / 60:.0f} min here, or that divided by the cluster's cores / {workers}")


if __name__ == "__main__":
    main()
