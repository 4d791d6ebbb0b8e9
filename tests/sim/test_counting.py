"""The counting study: exact EVs per coup, the ceiling, the best simple count, the plots."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from puntobanco import data as published_data
from puntobanco.analysis import analyse, expected_values
from puntobanco.errors import PuntoBancoError
from puntobanco.rules import DRAGON_PAYTABLE, RuleSet
from puntobanco.sim import counting, countreport, kernel
from puntobanco.sim.countplots import draw_plots, plot_count_vs_ev
from puntobanco.sim.engine import ShoeSpec
from puntobanco.sim.rng import chunk_state
from puntobanco.sim.tables import BET_NAMES

from .support import as_values, play_with_core

DATA = Path(str(published_data.path("published_counts.json")))


@pytest.fixture(scope="module")
def small_study() -> counting.CountStudy:
    return counting.study(RuleSet(decks=2), shoes=1_200, seed=17, threads=2)


def test_S1_same_seed_same_study_on_one_or_two_threads(small_study: counting.CountStudy) -> None:
    again = counting.study(RuleSet(decks=2), shoes=1_200, seed=17, threads=1)
    assert countreport.to_json(again)["bets"] == countreport.to_json(small_study)["bets"]
    assert np.array_equal(again.totals.tc_stats, small_study.totals.tc_stats)
    assert np.array_equal(again.totals.tail_tc, small_study.totals.tail_tc)
    assert np.array_equal(again.totals.tail_ev, small_study.totals.tail_ev)


def test_ceiling_is_the_sum_of_the_positive_exact_evs() -> None:
    """Recompute one chunk by hand: the core's compositions, analyse() on each, positive sum."""
    rules = RuleSet(decks=1)
    study = counting.study(rules, shoes=30, seed=5, threads=1)
    spec = ShoeSpec.build(rules)
    orders = kernel.shuffled_orders(30, chunk_state(5, 0), spec.start, spec.cut_index)
    positive = np.zeros(5)
    for order in orders:
        for coup in play_with_core(as_values(order), rules)[0]:
            sheet = analyse(coup.composition, rules)
            evs = np.array([float(sheet.bets[name].ev) for name in BET_NAMES])
            positive += np.where(evs > 0, evs, 0.0)
    np.testing.assert_allclose(study.totals.positive_ev.sum(axis=1), positive, atol=1e-9)


def test_expected_values_agree_with_analyse_on_recorded_compositions() -> None:
    spec = ShoeSpec.build(RuleSet(decks=8, lion_paytable=DRAGON_PAYTABLE))
    _, comps, _, _ = kernel.record_chunk(3, chunk_state(1, 0), spec.start, spec.codes, spec.used,
                                         spec.burns, True, spec.cut_index, spec.extra,
                                         spec.max_coups)
    rows = comps[::37].astype(np.int64)
    fast = expected_values(rows, spec.rules)
    for row, evs in zip(rows, fast, strict=True):
        sheet = analyse(tuple(int(x) for x in row), spec.rules)
        for k, name in enumerate(BET_NAMES):
            assert evs[k] == pytest.approx(float(sheet.bets[name].ev), abs=1e-12)


def test_the_ceiling_beats_the_count_on_the_same_shoes(small_study: counting.CountStudy) -> None:
    document = countreport.to_json(small_study)
    for bet in document["bets"].values():
        assert bet["ceiling_test_units_per_shoe"] >= bet["count"]["units_per_shoe"] - 1e-12
        assert 0 <= bet["positive_share"] < 0.5
        assert bet["ceiling_units_per_shoe"] >= 0


def test_true_count_tracks_the_lion_bonus_ev(small_study: counting.CountStudy) -> None:
    """Mean EV rises with the chosen count: low counts below the mean, high counts above it."""
    k = BET_NAMES.index("lion-punto")
    setup, totals = small_study.setup, small_study.totals
    choice = small_study.choices["lion-punto"]
    c = int(np.nonzero((setup.tags[k] == np.array(choice.tags)).all(axis=1))[0][0])
    stats = totals.tc_stats[k, c].sum(axis=0)
    centre = counting.TC_BINS // 2
    low, high = stats[: centre - 20].sum(axis=0), stats[centre + 20:].sum(axis=0)
    assert low[1] / low[0] < totals.ev_sum[k] / totals.coups < high[1] / high[0]


def _drawn_count_plot(study: counting.CountStudy, path: Path,
                      monkeypatch: pytest.MonkeyPatch) -> Any:
    """Draw count_vs_ev.png and hand back the matplotlib figure instead of closing it."""
    import matplotlib.pyplot as plt

    figures: list[Any] = []
    monkeypatch.setattr(plt, "close", figures.append)
    plot_count_vs_ev(study, path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and len(figures) == 1
    return figures[0]


def _candidate(study: counting.CountStudy, k: int) -> int:
    tags = np.array(study.choices[BET_NAMES[k]].tags)
    return int(np.nonzero((study.setup.tags[k] == tags).all(axis=1))[0][0])


def test_count_plot_draws_every_coup_at_or_above_the_threshold(
        small_study: counting.CountStudy, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The threshold sat beyond every plotted point: a sample of 150 coups a chunk all but never
    holds the few per thousand the count bets on. Every one of them is drawn now, in view."""
    figure = _drawn_count_plot(small_study, tmp_path / "count_vs_ev.png", monkeypatch)
    betting_bets = 0
    for k, name in enumerate(BET_NAMES):
        choice, ax = small_study.choices[name], figure.axes[k]
        if choice.threshold_bin is None:
            continue
        betting_bets += 1
        every = int(small_study.totals.tc_stats[k, _candidate(small_study, k), :,
                                                 choice.threshold_bin:, 0].sum())
        assert every > 0, name
        xs = np.concatenate([c.get_offsets()[:, 0] for c in ax.collections])
        drawn = counting.tc_bin(np.asarray(xs, dtype=np.float64), choice.step)
        assert int((drawn >= choice.threshold_bin).sum()) == every, name  # each drawn once
        assert every <= counting.TAIL_COUPS
        low, high = ax.get_xlim()
        assert low < choice.threshold < high and xs.max() < high, name
        labels = ax.get_legend_handles_labels()[1]
        assert f"every coup at ≥ threshold: {every:,}" in labels, labels
    assert betting_bets >= 3


def test_the_tail_holds_the_highest_true_counts_of_every_candidate(
        small_study: counting.CountStudy) -> None:
    """Binned like the study's histograms, the tail has every coup of the top bins, up to its
    size: the plot and the threshold use one true-count scale."""
    totals, setup = small_study.totals, small_study.setup
    for k in range(len(BET_NAMES)):
        for c in range(setup.candidates):
            step = float(setup.steps[k, c])
            if step == 0:
                continue
            kept = totals.tail_tc[k, c][np.isfinite(totals.tail_tc[k, c])]
            assert kept.shape[0] == min(counting.TAIL_COUPS, totals.coups)
            in_tail = np.bincount(counting.tc_bin(kept, step), minlength=counting.TC_BINS)
            in_all = totals.tc_stats[k, c, :, :, 0].sum(axis=0).astype(np.int64)
            complete = np.cumsum(in_all[::-1])[::-1] <= counting.TAIL_COUPS
            assert np.array_equal(in_tail[complete], in_all[complete]), (k, c)
            assert (in_tail <= in_all).all()


def test_count_plot_says_when_it_shows_the_highest_coups_and_a_sample(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(counting, "TAIL_COUPS", 4)
    study = counting.study(RuleSet(decks=1, lion_paytable=DRAGON_PAYTABLE), shoes=600, seed=3,
                           threads=1)
    figure = _drawn_count_plot(study, tmp_path / "count_vs_ev.png", monkeypatch)
    k = BET_NAMES.index("lion-punto")
    choice = study.choices["lion-punto"]
    assert choice.threshold_bin is not None
    every = int(study.totals.tc_stats[k, _candidate(study, k), :, choice.threshold_bin:, 0].sum())
    assert every > 4
    labels = figure.axes[k].get_legend_handles_labels()[1]
    assert any(label.startswith(f"{every:,} coups at ≥ threshold: the\n4 highest and a sample of")
               for label in labels), labels
    kept = study.totals.tail_tc[k, _candidate(study, k)]
    assert kept.shape == (4,) and (counting.tc_bin(kept, choice.step) >= choice.threshold_bin).all()


def test_candidate_tags_follow_the_effects_of_removal() -> None:
    effects = (-0.002, 0.001, 0.003, 0.0031, 0.0015, 0.001, 0.0, -0.001, -0.002, -0.0025)
    tags = counting.candidate_tags(effects)
    assert tags[0] == (-1, 0, 1, 1, 0, 0, 0, 0, -1, -1)
    for candidate in tags:
        assert all(np.sign(t) in (0, np.sign(e)) for t, e in zip(candidate, effects, strict=True))


def test_json_and_text_report_have_the_promised_fields(small_study: counting.CountStudy,
                                                       tmp_path: Path) -> None:
    plots = [str(p) for p in draw_plots(small_study, tmp_path)]
    document = countreport.to_json(small_study, plots=plots)
    json.dumps(document)  # serialisable
    assert document["shoes"] == 1_200 and document["coups"] == small_study.totals.coups
    for name in ("lion-punto", "lion-banco", "egalite", "banco"):
        bet = document["bets"][name]
        for key in ("positive_share", "ceiling_units_per_shoe", "ceiling_bets_per_shoe"):
            assert isinstance(bet[key], float)
        count = bet["count"]
        assert len(count["tags"]) == 10 and all(isinstance(t, int) for t in count["tags"])
        assert isinstance(count["units_per_shoe"], float)
        assert isinstance(count["bets_per_shoe"], float)
        assert count["threshold"] is None or isinstance(count["threshold"], float)
    for path in plots:
        assert Path(path).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert Path(path).stat().st_size > 20_000
    text = countreport.to_text(small_study, plots=plots)
    assert "ceiling:" in text and "best count:" in text and "lion-banco" in text


@pytest.mark.slow
def test_dragon_bonus_ceiling_above_published_counts_and_best_count_near_them() -> None:
    """Dragon Bonus on Punto, 8 decks, cut card 14: Jacobson 0.1231, How 0.112 units per shoe."""
    published = json.loads(DATA.read_text())
    figures = [published[key]["units_per_shoe"] for key in
               ("dragon_bonus_punto_jacobson", "dragon_bonus_punto_how")]
    rules = RuleSet(decks=8, lion_paytable=DRAGON_PAYTABLE, cut_card=14)
    result = counting.study(rules, shoes=8_000, seed=2011)
    bet = countreport.to_json(result)["bets"]["lion-punto"]
    assert bet["ceiling_units_per_shoe"] > max(figures)
    assert 0.6 * min(figures) < bet["count"]["units_per_shoe"] < 1.4 * max(figures)
    assert bet["count"]["bets_per_shoe"] > 1


@pytest.mark.slow
def test_published_dragon_tags_judged_by_the_same_yardstick_reach_the_published_result() -> None:
    """S. How's Player Dragon tags, with the best true-count threshold: about his 0.112."""
    published = json.loads(DATA.read_text())["dragon_bonus_punto_how"]
    order = ("T/J/Q/K", "A", "2", "3", "4", "5", "6", "7", "8", "9")
    tags = [published["tags"][value] for value in order]
    rules = RuleSet(decks=8, lion_paytable=DRAGON_PAYTABLE, cut_card=published["cut_card"])
    result = counting.study(rules, shoes=8_000, seed=2012, tags_by_bet={"lion-punto": [tags]})
    count = countreport.to_json(result)["bets"]["lion-punto"]["count"]
    assert count["tags"] == tags
    assert 0.7 * published["units_per_shoe"] < count["units_per_shoe"] < 1.5 * published[
        "units_per_shoe"]


def test_given_tags_are_checked() -> None:
    with pytest.raises(PuntoBancoError, match="ten whole numbers"):
        counting.study(RuleSet(decks=1), shoes=2, seed=1, tags_by_bet={"lion-punto": [[1, 2]]})


def test_plots_are_a_readable_grid_with_tags_named_by_card(small_study: counting.CountStudy,
                                                           tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 12: five panels in a 2200 × 484 strip were unreadable; tags were bare numbers."""
    figure = _drawn_count_plot(small_study, tmp_path / "count_vs_ev.png", monkeypatch)
    png = (tmp_path / "count_vs_ev.png").read_bytes()
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    assert (width, height) == (1400, 900)  # two rows of three panels
    rows = {round(ax.get_position().y0, 2) for ax in figure.axes[:5]}
    assert len(rows) == 2
    title = figure.axes[BET_NAMES.index("lion-punto")].get_title()
    assert "10-K" in title and " · A " in title and " · 9 " in title
    assert "per deck left" in figure.axes[0].get_xlabel()


def test_the_threshold_reads_as_a_true_count_per_deck(small_study: counting.CountStudy) -> None:
    text = countreport.to_text(small_study)
    assert "true count = the tags of the cards seen less their average, per deck left" in text
    betting = [line for line in text.splitlines() if "bet at a true count of" in line]
    assert betting and all("cards left, as at the cut card: a running count of" in line
                           for line in betting)


def test_the_study_is_timed_after_the_kernels_are_compiled(monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    """Issue 12: the first run timed numba's compilation (0.3 M coups/s reported)."""
    import importlib
    import time

    simulation = importlib.import_module("puntobanco.sim.simulate")
    slow_simulate, slow_count = simulation.warm_up, counting.warm_up

    def compile_slowly(warm: Any) -> Any:
        def slow(*args: Any) -> None:
            warm(*args)
            time.sleep(1.0)  # as long as a first compilation may take
        return slow

    monkeypatch.setattr(simulation, "warm_up", compile_slowly(slow_simulate))
    monkeypatch.setattr(counting, "warm_up", compile_slowly(slow_count))
    run = simulation.simulate(RuleSet(decks=1), shoes=50, seed=1, threads=1)
    assert run.seconds < 0.9
    study = counting.study(RuleSet(decks=1), shoes=4, seed=1, threads=1)
    assert study.seconds < 0.9
