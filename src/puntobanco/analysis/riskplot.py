"""The ``risk`` plot (matplotlib, PNG): the house's result after N coups, and P(behind) against N."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from puntobanco.analysis.risk import (
    CoupDistribution,
    RiskSummary,
    SessionDistribution,
    behind_curve,
)

if TYPE_CHECKING:
    from puntobanco.sim.sessions import SessionRun


def curve_points(coups: int, summary: RiskSummary, *, points: int = 48) -> list[int]:
    """Numbers of coups for the P(behind) curve: 1 to past the 1 % crossing (or ``coups``), log-spaced."""
    reach = max([coups, *(n for n in summary.coups_until_safe.values() if n is not None)])
    end = int(reach * 1.25) + 1
    grid = np.unique(np.geomspace(1, end, points).astype(np.int64))
    return sorted({int(n) for n in grid} | {coups})


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def draw_risk_plot(path: Path, *, summary: RiskSummary, dist: CoupDistribution,
                   session: SessionDistribution | None = None, run: SessionRun | None = None,
                   curve: Sequence[int] | None = None) -> Path:
    """Left: the distribution of the house's result after ``summary.coups`` coups (exact mass or
    simulated histogram), with its quantiles. Right: P(house behind) against the number of coups
    (exact; simulated check points with 95 % bars when there are any)."""
    plt = _pyplot()
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 5.2))
    stake = summary.stake
    if run is not None:
        finals = run.final()
        width = max(1, -(-int(finals.max() - finals.min() + 1) // 120))  # whole grid steps
        edges = np.arange(finals.min() - 0.5, finals.max() + width, width) / run.scale * stake
        left.hist(finals / run.scale * stake, bins=edges, density=True, alpha=0.45,
                  color="tab:orange", label=f"simulated whole shoes ({run.sessions:,} sessions)")
        left.set_ylabel("density")
    if session is not None:
        shown = np.flatnonzero(session.mass > session.mass.max() * 1e-5)
        part = slice(int(shown[0]), int(shown[-1]) + 1)
        x = session.grid[part] / session.scale * stake
        # probability per grid point, or per unit of the axis beside a histogram's density
        y = session.mass[part] * (session.scale / stake if run is not None else 1.0)
        if run is None:
            left.fill_between(x, y, step="mid", alpha=0.35, color="tab:blue")
            left.set_ylabel("probability")
        left.plot(x, y, drawstyle="steps-mid", lw=0.8, color="tab:blue",
                  label="exact (convolution, independent coups)")
    for key, value in summary.quantiles.items():
        left.axvline(value, color="0.35", lw=0.8, ls=":")
        left.annotate(key, (value, 1.0), xycoords=("data", "axes fraction"), rotation=90,
                      va="top", ha="right", fontsize=8, color="0.25")
    left.axvline(0, color="tab:red", lw=1.2, label=f"break-even (P behind {summary.prob_house_behind:.2%})")
    left.set_xlabel(f"house result after {summary.coups:,} coups (units of {stake:g})")
    left.set_title(f"{summary.bet}: house result after {summary.coups:,} coups")
    left.legend(loc="upper left", fontsize=8)

    points = list(curve) if curve is not None else curve_points(summary.coups, summary)
    right.plot(points, behind_curve(dist, points), color="tab:blue", lw=1.5,
               label="exact, independent coups")
    if run is not None and len(run.checkpoints) > 1:
        behind, errors = run.prob_behind()
        right.errorbar(run.checkpoints, behind, yerr=[1.96 * e for e in errors], fmt="o",
                       color="tab:orange", ms=4, capsize=2, label="simulated whole shoes")
    for level, colour in ((0.05, "tab:olive"), (0.01, "tab:green")):
        key = f"{level:.0%}"
        right.axhline(level, color=colour, lw=0.9, ls="--")
        crossing = summary.coups_until_safe.get(key)
        if crossing is not None:
            right.axvline(crossing, color=colour, lw=0.9, ls=":")
            right.annotate(f"< {key} from N = {crossing:,}", (crossing, level),
                           xytext=(4, 6), textcoords="offset points", fontsize=8, color=colour)
    right.axvline(summary.coups, color="0.5", lw=0.8)
    right.set_xscale("log")
    right.set_ylim(0, max(0.55, right.get_ylim()[1]))
    right.set_xlabel("coups N (log scale)")
    right.set_ylabel("P(house behind after N coups)")
    right.set_title("probability the house is behind")
    right.grid(alpha=0.3)
    right.legend(loc="upper right", fontsize=8)
    sim = "" if summary.sessions is None else " (simulated)"
    fig.suptitle(f"method: {summary.method}; EV{sim} {summary.ev_per_unit:+.4%} per unit, "
                 f"SD{sim} {summary.sd_per_unit:.3f}, volatility index "
                 f"{summary.volatility_index:.3f}", fontsize=10)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
