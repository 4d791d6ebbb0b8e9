"""Issue 20 on the command line: ``risk``'s session view (``--behind``, ``--drawdown``,
``--stop-loss``, ``--stop-win``, ``--side``) and the simulated figures' labels and bounds."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from puntobanco.analysis.risk import coup_distribution
from puntobanco.analysis.sessionrisk import (
    Walk,
    prob_drawdown_at_least,
    prob_ever_behind,
    stop_session,
)
from puntobanco.cards import full_composition
from puntobanco.rules import RuleSet

from .test_cli import run_main


def _walk(bet: str, side: str) -> Walk:
    return Walk.of(coup_distribution(full_composition(6), RuleSet(), {bet: Fraction(1)}),
                   side=side)


def test_issue20_risk_session_view_exact(monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    """Amounts are money at --stake: 300 at a stake of 10 is 30 stakes."""
    code, out, err = run_main(monkeypatch, capsys, "risk", "--bet", "lion-punto", "--coups",
                              "300", "--stake", "10", "--behind", "300", "--drawdown", "400",
                              "--stop-loss", "250", "--stop-win", "150", "--json")
    assert code == 0, err
    view = json.loads(out)["session_view"]
    walk = _walk("lion-punto", "player")
    assert view["side"] == "player" and view["method"].startswith("exact-markov-chain")
    assert view["exact"]["ever_behind"]["300"] == pytest.approx(
        prob_ever_behind(walk, 30, 300).probability, abs=1e-13)
    assert view["exact"]["drawdown_at_least"]["400"] == pytest.approx(
        prob_drawdown_at_least(walk, 40, 300).probability, abs=1e-13)
    stops = stop_session(walk, loss=25, win=15, coups=300)
    assert view["exact"]["stop_session"]["ends_by_loss"] == pytest.approx(stops.prob_loss)
    assert view["exact"]["stop_session"]["expected_result"] == pytest.approx(
        10 * stops.expected_result)
    assert set(view["exact"]["drawdown_quantiles"]) == {"p50", "p90", "p99"}


def test_issue20_risk_session_view_house_side_text(monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_main(monkeypatch, capsys, "risk", "--bet", "banco", "--coups", "200",
                              "--side", "house", "--behind", "20")
    assert code == 0, err
    walk = _walk("banco", "house")
    expected = prob_ever_behind(walk, 20, 200).probability
    line = next(line for line in out.splitlines() if "P(ever behind by 20.00)" in line)
    assert f"{expected:.4%}" in line and "the house's float" in out
    assert max(len(line) for line in out.splitlines()) <= 80


def test_issue20_simulated_session_view_is_labelled_with_errors_and_bounds(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Simulated figures carry their standard error; one no session saw gives its 95 % upper
    bound (about 3/n), never 0 ± 0; the exact chain's figure stands beside it."""
    code, out, err = run_main(monkeypatch, capsys, "risk", "--bet", "lion-punto", "--coups",
                              "100", "--behind", "10,95", "--stop-loss", "20", "--stop-win",
                              "20", "--method", "simulate", "--sessions", "2000", "--json")
    assert code == 0, err
    view = json.loads(out)["session_view"]
    assert view["method"].startswith("simulation-whole-shoes")
    seen = view["simulated"]["ever_behind"]["10"]
    assert 0 < seen["value"] < 1 and seen["std_error"] > 0
    unseen = view["simulated"]["ever_behind"]["95"]
    assert unseen["value"] == 0 and unseen["upper_bound_95"] == pytest.approx(3 / 2000, rel=0.01)
    exact = prob_ever_behind(_walk("lion-punto", "player"), 10, 100).probability
    assert view["exact"]["ever_behind"]["10"] == pytest.approx(exact, abs=1e-13)
    assert abs(seen["value"] - exact) < 4 * seen["std_error"]
    stops = view["simulated"]["stop_session"]
    assert stops["coup_limit"] == 100 and stops["expected_coups"]["std_error"] > 0


@pytest.mark.parametrize(("args", "mentions"), [
    (["--behind", "-5"], "--behind takes positive amounts"),
    (["--drawdown", "nan"], "--drawdown takes positive amounts"),
    (["--stop-loss", "0"], "--stop-loss is a positive amount"),
    (["--side", "dealer"], "not a side"),
    (["--side", "house"], "give it with --behind"),
    (["--stop-loss", "5", "--coups", "100000000", "--method", "exact"], "use --method simulate"),
])
def test_issue20_bad_session_view_options_are_one_sentence(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], args: list[str],
        mentions: str) -> None:
    code, _, err = run_main(monkeypatch, capsys, "risk", "--bet", "punto", *args)
    assert code == 2 and mentions in err and "Traceback" not in err


def test_issue20_simulated_risk_bounds_a_zero_and_labels_every_figure(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """8,000 coups of the Lion Bonus on Punto (exact P(behind) 2.3e-7): no simulated session
    leaves the house behind, so P(behind) is its 95 % upper bound (≈ 3/n), not 0 ± 0; the SD
    shown is the simulated one (session SD / √N) with the exact beside it; the crossings are
    the exact 817 and 1,673, with the simulation's own P(behind) there and the bracket its
    check points see."""
    code, out, err = run_main(monkeypatch, capsys, "risk", "--bet", "lion-punto", "--coups",
                              "8000", "--method", "simulate", "--sessions", "2000", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["prob_house_behind"] == 0
    assert data["prob_house_behind_upper_bound_95"] == pytest.approx(3 / 2000, rel=0.01)
    exact_sd = coup_distribution(full_composition(6), RuleSet(),
                                 {"lion-punto": Fraction(1)}).std_dev
    assert data["sd_per_unit_exact"] == pytest.approx(exact_sd)
    assert data["sd_per_unit"] != data["sd_per_unit_exact"]
    assert abs(data["sd_per_unit"] - exact_sd) < 4 * data["sd_per_unit_std_error"]
    assert data["sd_per_unit_method"].startswith("simulated")
    assert data["coups_until_behind_below"] == {"5%": 817, "1%": 1673}
    at = data["prob_house_behind_at_exact_crossings_simulated"]
    assert at["5%"]["coups"] == 817 and abs(at["5%"]["prob_house_behind"] - 0.05) < 0.03
    bracket = data["coups_until_behind_below_simulated_bracket"]["5%"]
    assert set(bracket) == {"after", "by"}
    code, out, err = run_main(monkeypatch, capsys, "risk", "--bet", "lion-punto", "--coups",
                              "8000", "--method", "simulate", "--sessions", "2000")
    assert code == 0, err
    assert "± 0.0000%" not in out and "95 % upper bound" in out
    lines = out.splitlines()
    crossing = next(i for i, line in enumerate(lines) if "817 coups (exact)" in line)
    assert "simulated P(behind) there" in lines[crossing + 1]
    assert "simulated" in next(line for line in lines if "SD per unit" in line)
    assert max(len(line) for line in lines) <= 80
