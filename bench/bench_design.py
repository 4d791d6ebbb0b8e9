"""Speed of ``puntobanco design``: candidate Lion Bonus pay tables scored per second.

Run: ``.venv/bin/python bench/bench_design.py [--repeats 3]``.

Target (issue 13): a search over at least 10⁵ candidate pay tables in under 10 s, the outcome
counts computed once and each candidate a dot product. Times are the best of several repeats
(the machine is shared; the load average is printed).
"""

from __future__ import annotations

import argparse
import os
import time
from fractions import Fraction

from puntobanco.analysis.design import lion_rows, search_lion
from puntobanco.cards import full_composition
from puntobanco.rules import RuleSet

SEARCHES = [
    ("whole pays 1-20, monotone", {"max_pay": 20}),
    ("whole pays 1-30, monotone", {"max_pay": 30}),
    ("whole pays 1-30, natural win 1/1.5/2, tie push/lose",
     {"max_pay": 30, "natural_win": (Fraction(1), Fraction(3, 2), Fraction(2)),
      "natural_tie": (Fraction(0), Fraction(-1))}),
    ("half pays 1-25, monotone", {"max_pay": 25, "step": Fraction(1, 2)}),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    began = time.perf_counter()
    rows = lion_rows(full_composition(8), RuleSet(), side="punto")
    print(f"outcome counts (exact, once): {time.perf_counter() - began:.3f} s")
    for label, options in SEARCHES:
        best = cpu = float("inf")
        for _ in range(args.repeats):
            began = time.process_time()
            result = search_lion(rows, target=(0.10, 0.10), min_hit=0.25, top=20,
                                 **options)  # type: ignore[arg-type]
            cpu = min(cpu, time.process_time() - began)
            best = min(best, result.seconds)
        print(f"{label:<52} {result.candidates:>12,} candidates in {best:6.2f} s wall, "
              f"{cpu:6.2f} s CPU ({result.candidates / best / 1e6:5.1f} million/s); SPEC ranks "
              f"{result.spec_place}")


if __name__ == "__main__":
    main()
