"""The reports' 95 % band at shoe level, four ways: the normal approximation the reports used to
give, the convolution (``server/holdband.py``), the saddlepoint forced on the same coups, and an
independent Monte Carlo (cards dealt and settled by the core, ``tests/server/test_holdband.py``).

The shoe is the test's: 72 coups of Punto, Banco, Égalité and Lion Bonus stakes. The tail is
that of a house win 2.6 standard deviations above its expectation. Then, for four random sets
of 200 Lion-heavy coups, how far the 2,048-point coarse lattice and the saddlepoint put the band
from a 131,072-point convolution (in parts of the band's width).

Run: ``.venv/bin/python bench/band_check.py [--shoes 200000]`` (from the project's root).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.server.test_holdband import RULES, _monte_carlo, _normal, _shoe_stakes

from puntobanco.server import holdband


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shoes", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=3)
    options = parser.parse_args()
    stakes = _shoe_stakes()
    handle = sum(n * sum(v) for v, n in stakes.items())
    mean, sd = _normal(stakes, RULES)
    observed = mean + 2.6 * sd
    print(f"{sum(stakes.values())} coups, handle {handle / 100:,.2f} €")
    print(f"normal       [{(mean - 1.959964 * sd) / handle:+.4%}, "
          f"{(mean + 1.959964 * sd) / handle:+.4%}]  tail {math.erfc(2.6 / math.sqrt(2)) / 2:.5f}")
    began = time.process_time()
    band = holdband.win_band([(RULES, stakes)], observed=observed)
    spent = time.process_time() - began
    assert band is not None and band.tail is not None
    print(f"{band.method:12} [{band.low / handle:+.4%}, {band.high / handle:+.4%}]  "
          f"tail {band.tail:.5f}  ({spent * 1000:.0f} ms CPU)")
    holdband.CONVOLUTION_COUPS = 0
    saddle = holdband.win_band([(RULES, stakes)], observed=observed)
    assert saddle is not None and saddle.tail is not None
    print(f"{saddle.method:12} [{saddle.low / handle:+.4%}, {saddle.high / handle:+.4%}]  "
          f"tail {saddle.tail:.5f}")
    sample = _monte_carlo(stakes, RULES, runs=options.shoes, seed=options.seed)
    found = float((sample >= observed).mean())
    print(f"Monte Carlo  [{np.quantile(sample, 0.025) / handle:+.4%}, "
          f"{np.quantile(sample, 0.975) / handle:+.4%}]  tail {found:.5f} "
          f"± {math.sqrt(found * (1 - found) / len(sample)):.5f} ({options.shoes:,} shoes)")
    accuracy()


def accuracy() -> None:
    rng = np.random.default_rng(1)
    for _ in range(4):
        stakes: dict[tuple[int, ...], int] = {}
        for _ in range(200):
            vector = (int(rng.choice([0, 1000, 5000])), int(rng.choice([0, 2000, 10000])),
                      int(rng.choice([0, 0, 500])), 0, int(rng.choice([0, 1000, 2500, 10000])))
            stakes[vector] = stakes.get(vector, 0) + 1
        holdband.CONVOLUTION_COUPS, holdband.MAX_POINTS = 200, 1 << 11
        coarse = holdband.win_band([(RULES, stakes)])
        holdband.MAX_POINTS = 1 << 17
        fine = holdband.win_band([(RULES, stakes)])
        holdband.CONVOLUTION_COUPS = 0
        saddle = holdband.win_band([(RULES, stakes)])
        holdband.CONVOLUTION_COUPS, holdband.MAX_POINTS = 200, 1 << 11
        assert coarse is not None and fine is not None and saddle is not None
        width = fine.high - fine.low
        print(f"200 coups: {coarse.method} − {fine.method}: "
              f"{(coarse.low - fine.low) / width:+.4%}, {(coarse.high - fine.high) / width:+.4%}; "
              f"saddlepoint − {fine.method}: {(saddle.low - fine.low) / width:+.4%}, "
              f"{(saddle.high - fine.high) / width:+.4%}")


if __name__ == "__main__":
    main()
