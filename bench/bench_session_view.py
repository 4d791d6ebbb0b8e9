"""Figures and speed of ``risk``'s session view (issue 20): exact chains for every bet.

Run: ``.venv/bin/python bench/bench_session_view.py [--coups 1000] [--loss 20] [--win 20]``.

Prints, for a player's bankroll on six full decks, P(ever 20 and 50 behind within N coups),
P(drawdown ≥ 30), the drawdown's p50 / p90 / p99, and a stop-loss / stop-win session with no coup
limit (how it ends, its expected length), with the CPU time of each bet's chains (CPU time, not
wall time: the machine is shared). The table in docs/analysis.md is this script's output.
"""

from __future__ import annotations

import argparse
import os
import time
from fractions import Fraction

from puntobanco.analysis.risk import coup_distribution
from puntobanco.analysis.sessionrisk import (
    Walk,
    drawdown_quantile,
    prob_drawdown_at_least,
    prob_ever_behind,
    stop_session,
)
from puntobanco.analysis.tables import BET_NAMES
from puntobanco.cards import full_composition
from puntobanco.rules import RuleSet


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--coups", type=int, default=1000)
    parser.add_argument("--loss", type=float, default=20)
    parser.add_argument("--win", type=float, default=20)
    args = parser.parse_args()
    n = args.coups
    print(f"load average {os.getloadavg()[0]:.2f}; {n:,} coups, stops {args.loss:g}/{args.win:g}")
    print("| Bet | P(ever 20 behind) | P(ever 50 behind) | P(drawdown ≥ 30) | Drawdown p50 / p90 / "
          "p99 | Stop: ends at loss / win | Expected length | CPU s |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for bet in BET_NAMES:
        walk = Walk.of(coup_distribution(full_composition(6), RuleSet(), {bet: Fraction(1)}),
                       side="player")
        began = time.process_time()
        behind = [prob_ever_behind(walk, x, n).probability for x in (20, 50)]
        fall = prob_drawdown_at_least(walk, 30, n).probability
        quantiles = [float(drawdown_quantile(walk, q, n)) for q in (0.5, 0.9, 0.99)]
        stops = stop_session(walk, loss=args.loss, win=args.win, coups=None)
        cpu = time.process_time() - began
        print(f"| {bet} | {behind[0]:.4%} | {behind[1]:.4%} | {fall:.4%} | "
              f"{quantiles[0]:g} / {quantiles[1]:g} / {quantiles[2]:g} | "
              f"{stops.prob_loss:.2%} / {stops.prob_win:.2%} | {stops.expected_length:,.1f} | "
              f"{cpu:.2f} |")


if __name__ == "__main__":
    main()
