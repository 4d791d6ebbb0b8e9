"""Speed of ``puntobanco risk``: the exact distribution of N coups, the crossings, simulated shoes.

Run: ``.venv/bin/python bench/bench_risk.py [--coups 1000] [--repeats 5]``.

Target (issue 13): the exact distribution of N = 1,000 coups of one bet in under a second. The
machine is shared, so times are the best of several repeats, and the load average is printed.
"""

from __future__ import annotations

import argparse
import os
import time
from fractions import Fraction

from puntobanco.analysis.risk import (
    coup_distribution,
    parse_mix,
    safe_crossings,
    session_distribution,
)
from puntobanco.cards import full_composition
from puntobanco.rules import RuleSet
from puntobanco.sim.paths import simulate_paths
from puntobanco.sim.sessions import simulate_sessions


def best_of(repeats: int, work: object, clock: object = time.perf_counter) -> float:
    assert callable(work) and callable(clock)
    times = []
    for _ in range(repeats):
        began = clock()
        work()
        times.append(clock() - began)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--coups", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    shoe, rules = full_composition(8), RuleSet(decks=8)
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    began = time.perf_counter()
    coup_distribution(shoe, rules, {"lion_punto": Fraction(1)})
    print(f"one-coup distribution (exact class counts, first call): "
          f"{time.perf_counter() - began:.3f} s")
    for mix in ("punto", "banco", "egalite", "lion_punto", "punto=0.9,lion_punto=0.1"):
        dist = coup_distribution(shoe, rules, parse_mix(mix))
        seconds = best_of(args.repeats, lambda d=dist: session_distribution(d, args.coups))
        session = session_distribution(dist, args.coups)
        points = session.mass.shape[0]
        crossing = best_of(1, lambda d=dist: safe_crossings(d), time.process_time)
        big = best_of(args.repeats, lambda d=dist: session_distribution(d, 10 * args.coups))
        print(f"{mix:<26} N={args.coups:,}: {seconds * 1000:7.2f} ms ({points:,} grid points, "
              f"round-off {session.numerical_error:.1e}); N={10 * args.coups:,}: "
              f"{big * 1000:7.2f} ms; both crossings {crossing:.2f} s CPU")
    shares = {"lion_punto": Fraction(1)}
    simulate_sessions(rules, shares, coups=10, sessions=2, seed=0)  # compile / load the kernels
    simulate_paths(rules, shares, side="player", coups=10, sessions=2, seed=0, stop_loss=None,
                   stop_win=None)
    coups = 20_000 * args.coups
    for name, work in (
            ("sessions (P(behind) at N)",
             lambda: simulate_sessions(rules, shares, coups=args.coups, sessions=20_000, seed=1)),
            ("paths (ever behind, drawdown)",
             lambda: simulate_paths(rules, shares, side="player", coups=args.coups,
                                    sessions=20_000, seed=1, stop_loss=None, stop_win=None))):
        cpu = best_of(args.repeats, work, time.process_time)
        print(f"simulated whole shoes, {name}: 20,000 sessions of {args.coups:,} coups in "
              f"{cpu:.2f} s of CPU, best of {args.repeats} ({coups / cpu / 1e6:.1f} million "
              f"coups/s, one thread)")

if __name__ == "__main__":
    main()
