"""Issue 13 on the command line: ``risk``, ``design`` and ``par --compare`` — JSON shapes, files,
formats and one-sentence refusals (in-process through ``cli.main``, as ``test_cli`` does)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from puntobanco.analysis.risk import bet_key

from .test_cli import run_main

LION_PUNTO, LION_BANCO = str(bet_key("lion-punto")), str(bet_key("lion-banco"))


def test_issue13_risk_json_carries_the_issue_fields(monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_main(monkeypatch, capsys, "risk", "--bet", "lion-banco", "--coups",
                              "1000", "--decks", "8", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert {"bet", "coups", "ev_per_unit", "sd_per_unit", "volatility_index", "quantiles",
            "prob_house_behind", "method"} <= set(data)
    assert data["bet"] == LION_BANCO and data["coups"] == 1000
    assert set(data["quantiles"]) == {"p01", "p05", "p50", "p95", "p99"}
    assert data["method"] == "exact-convolution"
    assert round(data["ev_per_unit"] * 100, 4) == 16.7664
    assert data["coups_until_behind_below"]["5%"] < data["coups_until_behind_below"]["1%"]


def test_issue13_risk_handle_mix_plot_and_simulation(monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str],
                                                     tmp_path: Path) -> None:
    plot = tmp_path / "risk.png"
    code, out, err = run_main(monkeypatch, capsys, "risk", "--bet", "banco=1,lion_banco=1",
                              "--handle", "5000", "--stake", "25", "--method", "simulate",
                              "--sessions", "400", "--seed", "7", "--plot", str(plot), "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["coups"] == 200 and data["method"] == "simulation-whole-shoes"
    assert data["sessions"] == 400 and data["seed"] == 7
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    code, out, err = run_main(monkeypatch, capsys, "risk", "--bet", "egalite", "--coups", "50")
    assert code == 0 and "P(house behind)" in out and "exact-convolution" in out


@pytest.mark.parametrize(("args", "words"), [
    (["risk", "--bet", "craps"], "is not a bet"),
    (["risk", "--coups", "0"], "at least one coup"),
    (["risk", "--method", "guess"], "is not a method"),
    (["risk", "--coups", "10", "--handle", "10"], "not both"),
    (["design", "--target", "abc"], "is not a number"),
    (["design", "--target", "2"], "2% is written with the sign"),
    (["design", "--target", "12%:8%"], "from the lower edge to the higher"),
    (["design", "--bet", "keno"], "is not a bet to design"),
    (["design", "--max-pay", "200", "--half-pays"], "more than"),
    (["par", "--compare", "--format", "csv"], "not csv"),
])
def test_issue13_refusals_are_one_sentence(monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str], args: list[str],
                                           words: str) -> None:
    code, out, err = run_main(monkeypatch, capsys, *args)
    assert code == 2 and out == ""
    assert words in err and err.count("\n") == 1 and err.startswith("puntobanco: ")


def test_issue13_design_formats(monkeypatch: pytest.MonkeyPatch,
                                capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run_main(monkeypatch, capsys, "design", "--target", "8%:9%", "--max-pay",
                              "25", "--top", "4", "--side", "punto", "-f", "json")
    assert code == 0, err
    data = json.loads(out)
    assert data["bet"] == "lion" and len(data["best"]) == 4 and data["row_method"] == "exact"
    assert all(0.08 <= b["house_edge"] <= 0.09 for b in data["best"])
    assert data["reference"]["pays"]["win-by-9"] == "20"
    page = tmp_path / "design.html"
    code, _, err = run_main(monkeypatch, capsys, "design", "--bet", "banco", "--target", "1.2%",
                            "-f", "html", "-o", str(page))
    assert code == 0, err and "<table>" in page.read_text(encoding="utf-8")
    code, out, _ = run_main(monkeypatch, capsys, "design", "--bet", "egalite", "-f", "md")
    assert code == 0 and out.startswith("# Égalité pay design") and "| 8:1 |" in out


def test_issue13_par_compare(monkeypatch: pytest.MonkeyPatch,
                             capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_main(monkeypatch, capsys, "par", "--compare", "-f", "json")
    assert code == 0, err
    data = json.loads(out)
    assert {line["decks"] for line in data["lines"]} == {6, 8}
    assert data["published_checks"] and all(c["matches"] for c in data["published_checks"])
    code, out, _ = run_main(monkeypatch, capsys, "par", "--compare", "--decks", "8")
    assert code == 0 and "Dragon 7" in out and "Panda 8" in out and "DIFFERS" not in out
    code, out, _ = run_main(monkeypatch, capsys, "par", "--compare", "--decks", "6",
                            "--lion-paytable", "30,10,6,4,2,1", "-f", "json")
    lion = [line for line in json.loads(out)["lines"] if line["game"] == "lion_bonus"]
    dragon = [line for line in json.loads(out)["lines"] if line["game"] == "dragon_bonus"]
    assert code == 0 and [x["ev"] for x in lion] == [x["ev"] for x in dragon]  # same table
