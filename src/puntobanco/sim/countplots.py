"""Plots of the counting study (matplotlib, PNG): EV by shoe depth, EV distribution, count vs EV.

Each figure puts the five bets in a grid of two rows of three panels (about 1,400 × 900 pixels,
readable on an ordinary screen); the sixth cell holds the legend and the notes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from puntobanco.sim.counting import (
    DEPTH_BINS,
    EV_EDGES,
    TC_BINS,
    CountStudy,
    tc_bin,
    threshold_of,
    true_counts,
)
from puntobanco.sim.tables import BET_NAMES

TITLES = {"punto": "Punto", "banco": "Banco", "egalite": "Égalité",
          "lion-punto": "Lion Bonus on Punto", "lion-banco": "Lion Bonus on Banco"}
#: Card values in the order of the tags, as the plots name them.
CARD_NAMES = ("10-K", "A", "2", "3", "4", "5", "6", "7", "8", "9")
FIGURE_SIZE, DPI = (14.0, 9.0), 100
EV_CENTRES = (EV_EDGES[1:] + EV_EDGES[:-1]) / 2
EV_WIDTHS = np.diff(EV_EDGES)


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _panels(plt: Any) -> tuple[Any, list[Any], Any]:
    """A figure with five panels in two rows of three, and the sixth cell for the notes."""
    fig, grid = plt.subplots(2, 3, figsize=FIGURE_SIZE)
    cells = list(grid.flat)
    notes = cells[5]
    notes.axis("off")
    return fig, cells[:5], notes


def tags_label(tags: tuple[int, ...]) -> str:
    """The tags by card name, on two lines: ``10-K +0 · A -1 · …``.

    >>> print(tags_label((0, -1, -1, -1, -2, 1, 2, 1, 1, 0)))
    10-K 0 · A −1 · 2 −1 · 3 −1 · 4 −2
    5 +1 · 6 +2 · 7 +1 · 8 +1 · 9 0
    """
    parts = [f"{name} {'0' if tag == 0 else f'{tag:+d}'.replace('-', '−')}"
             for name, tag in zip(CARD_NAMES, tags, strict=True)]
    return " · ".join(parts[:5]) + "\n" + " · ".join(parts[5:])


def _finish(fig: Any, notes: Any, result: CountStudy, title: str, path: Path, *,
            handles: Any = None, text: str = "") -> Path:
    if handles:
        notes.legend(*handles, loc="upper left", fontsize=10, frameon=False)
    if text:
        notes.text(0.0, 0.0, text, fontsize=9.5, va="bottom", wrap=True,
                   transform=notes.transAxes)
    fig.suptitle(_caption(result, title), fontsize=13)
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    return path


def _quantiles(hist: npt.NDArray[np.int64], qs: tuple[float, ...]) -> npt.NDArray[np.float64]:
    """Quantiles of a binned distribution per row: ``(rows, len(qs))`` (NaN for empty rows)."""
    out = np.full((hist.shape[0], len(qs)), np.nan)
    for r, row in enumerate(hist):
        total = row.sum()
        if total == 0:
            continue
        cumulative = np.cumsum(row) / total
        for i, q in enumerate(qs):
            out[r, i] = EV_CENTRES[int(np.searchsorted(cumulative, q))]
    return out


def _occupied(hist: npt.NDArray[np.int64]) -> slice:
    """The bins from the first to the last with any coup."""
    occupied = np.nonzero(hist)[0]
    return slice(int(occupied.min()), int(occupied.max()) + 1)


def plot_ev_by_depth(result: CountStudy, path: Path) -> Path:
    """Each bet's exact EV against the share of the shoe dealt: median, 50 % and 90 % bands."""
    plt = _pyplot()
    fig, axes, notes = _panels(plt)
    depth = (np.arange(DEPTH_BINS) + 0.5) / DEPTH_BINS * 100
    for k, name in enumerate(BET_NAMES):
        ax = axes[k]
        hist = result.totals.depth_hist[k]
        weights = hist.sum(axis=1)
        mean = np.where(weights > 0, result.totals.depth_ev[k] / np.maximum(weights, 1), np.nan)
        q = _quantiles(hist, (0.05, 0.25, 0.5, 0.75, 0.95))
        ax.fill_between(depth, q[:, 0] * 100, q[:, 4] * 100, color="tab:blue", alpha=0.18,
                        label="5–95 %")
        ax.fill_between(depth, q[:, 1] * 100, q[:, 3] * 100, color="tab:blue", alpha=0.35,
                        label="25–75 %")
        ax.plot(depth, mean * 100, color="tab:blue", lw=2, label="mean")
        ax.axhline(0, color="black", lw=0.8)
        ax.set_title(TITLES[name])
        ax.set_xlabel("shoe dealt (%)")
        ax.set_ylabel("exact EV of the cards left (%)")
        ax.grid(alpha=0.3)
    _finish(fig, notes, result, "Exact EV against shoe depth", path,
            handles=axes[0].get_legend_handles_labels(),
            text="Each bet's exact EV for the cards left\nbefore every coup: the mean, and the\n"
                 "bands holding 50 % and 90 % of coups.")
    plt.close(fig)
    return path


def plot_ev_distribution(result: CountStudy, path: Path) -> Path:
    """Histogram of the exact EV over all coups, per bet (log scale), with the share above 0."""
    plt = _pyplot()
    fig, axes, notes = _panels(plt)
    totals = result.totals
    for k, name in enumerate(BET_NAMES):
        ax = axes[k]
        hist = totals.depth_hist[k].sum(axis=0)
        shown = _occupied(hist)
        density = hist / hist.sum() / (EV_WIDTHS * 1000)  # share of coups per 0.1 % of EV
        edges = EV_EDGES[shown.start:shown.stop + 1] * 100
        values = density[shown]
        middle = len(EV_CENTRES) // 2 - shown.start  # the bin edge at EV = 0
        if middle > 0:
            ax.stairs(values[:middle], edges[:middle + 1], fill=True, color="tab:gray")
        if middle < len(values):
            ax.stairs(values[max(middle, 0):], edges[max(middle, 0):], fill=True,
                      color="tab:red", label="EV > 0")
        ax.set_yscale("log")
        ax.axvline(0, color="black", lw=0.8)
        positive = int(totals.positive[k].sum()) / totals.coups
        ax.set_title(f"{TITLES[name]}\nEV > 0 on {positive:.2%} of coups")
        ax.set_xlabel("exact EV (%)")
        ax.set_ylabel("share of coups per 0.1 % of EV")
        ax.grid(alpha=0.3)
    _finish(fig, notes, result, "Distribution of the exact EV", path,
            handles=axes[0].get_legend_handles_labels(),
            text="Share of coups at each exact EV\n(log scale); red: the coups where the\n"
                 "bet has the edge (EV > 0).")
    plt.close(fig)
    return path


def plot_count_vs_ev(result: CountStudy, path: Path) -> Path:
    """Each bet's best count against the exact EV: coups, the mean EV per count, the threshold.

    The coups at or above the betting threshold are rare (a few per thousand), so a sample would
    all but miss them: every one of them is drawn, in red, with a sample of the other coups in
    grey. If there are more than :data:`~puntobanco.sim.counting.TAIL_COUPS` (then they are
    common enough to turn up in the sample), the red ones are the highest that many and the
    sample's others, and the legend says so. All use the true count that chose the threshold.
    """
    plt = _pyplot()
    fig, axes, notes = _panels(plt)
    totals, setup = result.totals, result.setup
    for k, name in enumerate(BET_NAMES):
        ax = axes[k]
        choice = result.choices[name]
        tags = np.array([choice.tags], dtype=np.int64)
        candidate = int(np.nonzero((setup.tags[k] == tags[0]).all(axis=1))[0][0])
        counts = true_counts(totals.sample_seen, totals.sample_left, tags,
                             setup.spec.composition)[:, 0]
        sample_ev = totals.sample_ev[:, k] * 100
        if choice.threshold_bin is None:
            ax.scatter(counts, sample_ev, s=3, alpha=0.25, color="tab:gray",
                       label=f"coups (sample of {counts.shape[0]:,})")
            tail = np.zeros(0)
        else:
            below = tc_bin(counts, choice.step) < choice.threshold_bin
            ax.scatter(counts[below], sample_ev[below], s=3, alpha=0.25, color="tab:gray",
                       label=f"other coups (sample of {int(below.sum()):,})")
            tail_tc, tail_ev = totals.tail_tc[k, candidate], totals.tail_ev[k, candidate]
            betting = np.isfinite(tail_tc) & (tc_bin(tail_tc, choice.step)
                                              >= choice.threshold_bin)
            tail, ev = tail_tc[betting], tail_ev[betting] * 100
            every = int(totals.tc_stats[k, candidate, :, choice.threshold_bin:, 0].sum())
            shown = f"every coup at ≥ threshold: {every:,}"
            if tail.shape[0] < every:  # the tail is full: add the sample's betting coups below it
                extra = ~below & (counts < tail.min())
                tail = np.concatenate([counts[extra], tail])
                ev = np.concatenate([sample_ev[extra], ev])
                shown = (f"{every:,} coups at ≥ threshold: the\n{tail.shape[0] - extra.sum():,} "
                         f"highest and a sample of {int(extra.sum()):,}")
            ax.scatter(tail, ev, s=6, alpha=0.6, color="tab:red", label=shown)
        stats = totals.tc_stats[k, candidate].sum(axis=0)  # both halves
        enough = stats[:, 0] >= max(30.0, stats[:, 0].sum() / 5_000)
        centres = np.array([threshold_of(j, choice.step) + choice.step / 2
                            for j in range(TC_BINS)])
        ax.plot(centres[enough], stats[enough, 1] / stats[enough, 0] * 100, color="tab:blue",
                lw=2, label="mean EV (bins of 30+ coups)")
        ax.axhline(0, color="black", lw=0.8)
        if choice.threshold is not None:
            ax.axvline(choice.threshold, color="tab:red", ls="--",
                       label=f"bet at true count ≥ {choice.threshold:+.1f}")
        if enough.sum() > 1:
            low, high = float(centres[enough].min()), float(centres[enough].max())
            if choice.threshold is not None:  # keep the betting line and its coups in view
                low = min(low, choice.threshold - 2 * choice.step)
                high = max(high, choice.threshold + 2 * choice.step)
                if tail.shape[0]:
                    high = max(high, float(tail.max()) + max(choice.step, (high - low) / 30))
            ax.set_xlim(low, high)
        ax.set_title(f"{TITLES[name]} — tags\n{tags_label(choice.tags)}", fontsize=10)
        ax.set_xlabel("true count (running count per deck left)")
        ax.set_ylabel("exact EV (%)")
        ax.grid(alpha=0.3)
        ax.legend(loc="upper left", fontsize=8)
    _finish(fig, notes, result, "Best simple count against the exact EV", path,
            text="Red: the coups at or above the betting\nthreshold, from all shoes (see each\n"
                 "legend); grey: a sample of the others.\nBlue: the mean exact EV at each true\n"
                 "count. The true count is the tags of\nthe cards seen, less their average,\n"
                 "per deck left in the shoe.")
    plt.close(fig)
    return path


def _caption(result: CountStudy, title: str) -> str:
    rules = result.rules
    return (f"{title} — {result.totals.shoes:,} shoes, {rules.decks} deck(s), cut card "
            f"{rules.cut_card}, Lion pays {','.join(map(str, rules.lion_paytable))}")


def draw_plots(result: CountStudy, out: Path) -> list[Path]:
    """Write the three PNGs into ``out`` (created if missing) and return their paths."""
    out.mkdir(parents=True, exist_ok=True)
    return [plot_ev_by_depth(result, out / "ev_by_depth.png"),
            plot_ev_distribution(result, out / "ev_distribution.png"),
            plot_count_vs_ev(result, out / "count_vs_ev.png")]
