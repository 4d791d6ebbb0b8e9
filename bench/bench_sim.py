"""Settled coups per second: the rules core in pure Python, a straightforward numba kernel, and
the simulator's kernel on one thread, on every core, and on a local Dask cluster.

Run: ``.venv/bin/python bench/bench_sim.py [--shoes N] [--repeat R] [--no-dask]``. Every figure
counts coups dealt *and* settled on all five bets. The best of ``--repeat`` runs is printed
(other processes on the machine only ever slow a run down).
"""

from __future__ import annotations

import argparse
import logging
import os
import platform
import random
import time
from collections.abc import Callable

import numba
import numpy as np
from numba import njit

from puntobanco.bets import BetKind, settle_bet
from puntobanco.rules import PUNTO_DRAWS, RuleSet, banco_draw_table
from puntobanco.shoe import Shoe
from puntobanco.sim import simulate

KINDS = tuple(BetKind)


def pure_python(shoes: int, seed: int) -> int:
    """The rules core as the game uses it: Shoe (S1–S3), deal_coup, settle_bet on every bet."""
    rules = RuleSet()
    rng = random.Random(seed)
    coups = 0
    total = [0] * len(KINDS)
    for _ in range(shoes):
        shoe = Shoe.shuffled(rules, rng=rng)
        while not shoe.finished:
            coup = shoe.deal_coup()
            for i, kind in enumerate(KINDS):
                total[i] += settle_bet(kind, 100, coup, rules).net
            coups += 1
    return coups


@njit(cache=True)
def _straightforward(shoes: int, seed: int, punto_draws: np.ndarray, banco_table: np.ndarray,
                     pays: np.ndarray) -> int:
    """A first numba kernel: full Fisher–Yates by np.random.shuffle, branches as written."""
    np.random.seed(seed)
    cards = np.empty(312, dtype=np.int64)
    for i in range(312):
        cards[i] = 0 if i % 13 >= 9 else i % 13 + 1
    totals = np.zeros(5)
    coups = 0
    for _ in range(shoes):
        np.random.shuffle(cards)
        first = cards[0]
        pos = 1 + (10 if first == 0 else first)
        cut_coup = -1
        played = 0
        while True:
            p = (cards[pos] + cards[pos + 2]) % 10
            b = (cards[pos + 1] + cards[pos + 3]) % 10
            pos += 4
            drawn = False
            if p < 8 and b < 8:
                third = 10
                if punto_draws[p]:
                    third = cards[pos]
                    p = (p + third) % 10
                    pos += 1
                    drawn = True
                if banco_table[b, third]:
                    b = (b + cards[pos]) % 10
                    pos += 1
                    drawn = True
                kind = 2 if drawn else 1
            else:
                kind = 0
            code = kind * 100 + p * 10 + b
            for k in range(5):
                totals[k] += pays[code, k]
            played += 1
            coups += 1
            if cut_coup < 0 and pos > 312 - 14:
                cut_coup = played
            elif cut_coup >= 0:
                break
    return coups


def straightforward(shoes: int, seed: int) -> int:
    from puntobanco.sim.tables import payoff_array

    rules = RuleSet()
    punto = np.array((*PUNTO_DRAWS, False, False), dtype=np.bool_)
    banco = np.zeros((10, 11), dtype=np.bool_)
    banco[:8] = np.array(banco_draw_table(rules.drawing), dtype=np.bool_)
    return int(_straightforward(shoes, seed, punto, banco, payoff_array(rules)))


def best_rate(label: str, job: Callable[[], int], repeat: int) -> float:
    best = 0.0
    for _ in range(repeat):
        began = time.perf_counter()
        coups = job()
        seconds = time.perf_counter() - began
        best = max(best, coups / seconds)
    print(f"{label:<52}{best / 1e6:>10.3f} million coups/s", flush=True)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--shoes", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-dask", action="store_true")
    args = parser.parse_args()
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores; "
          f"Python {platform.python_version()}, numpy {np.__version__}, numba {numba.__version__}")
    print(f"six decks, cut card 14, one more coup; {args.shoes:,} shoes a run, best of "
          f"{args.repeat}")
    rules = RuleSet()
    simulate(rules, shoes=100, seed=0, threads=1)  # compile (or load the cache)
    straightforward(10, 0)
    python = best_rate("pure Python, rules core (Shoe + settle_bet)",
                       lambda: pure_python(300, 1), 1)
    plain = best_rate("numba, straightforward kernel, 1 thread",
                      lambda: straightforward(args.shoes // 4, 1), args.repeat)
    one = best_rate("puntobanco.sim kernel, 1 thread",
                    lambda: simulate(rules, shoes=args.shoes, seed=1, threads=1).coups,
                    args.repeat)
    every = best_rate(f"puntobanco.sim kernel, {os.cpu_count()} threads",
                      lambda: simulate(rules, shoes=args.shoes, seed=1).coups, args.repeat)
    if not args.no_dask:
        from distributed import LocalCluster

        workers = os.cpu_count() or 1
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                          dashboard_address=None, silence_logs=logging.ERROR) as cluster:
            address = cluster.scheduler_address
            simulate(rules, shoes=20_000, seed=0, scheduler=address)  # warm the workers
            best_rate(f"puntobanco.sim on a local Dask cluster, {workers} workers",
                      lambda: simulate(rules, shoes=args.shoes * 2, seed=1,
                                       scheduler=address).coups, args.repeat)
    print(f"speed-up over pure Python: {every / python:,.0f}x on every core, "
          f"{one / python:,.0f}x on one; over the straightforward kernel: {one / plain:.1f}x "
          "per thread")
    print(f"target 50 million coups/s: {'met' if every >= 50e6 else 'NOT met'} "
          f"({every / 1e6:.1f} million)")


if __name__ == "__main__":
    main()
