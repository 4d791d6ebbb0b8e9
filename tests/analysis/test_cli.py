"""``puntobanco par`` and ``puntobanco eor``: formats, files, and one-sentence refusals.

The refusals run the installed script in a subprocess, exactly as a user would; the good paths
run ``cli.main`` in-process (same code, quicker).
"""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from tests.cli.support import run_in_process

SCRIPT = Path(sys.executable).with_name("puntobanco")


def run_main(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
             *args: str) -> tuple[int, str, str]:
    """``puntobanco ARGS`` in this process at a 120-column terminal: exit status, out, err."""
    return run_main_at(monkeypatch, capsys, 120, *args)


def run_main_at(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                columns: int, *args: str) -> tuple[int, str, str]:
    run = run_in_process(monkeypatch, capsys, *args, columns=columns)
    return run.code, run.out, run.err


def test_par_json_has_exact_counts_and_fractions(monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """R1: ``--format json`` — total and row combinations as integers, EV in lowest terms."""
    code, out, err = run_main(monkeypatch, capsys, "par", "--decks", "8", "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert data["total_combinations"] == 4998398275503360
    assert list(data["bets"]) == ["punto", "banco", "egalite", "lion-punto", "lion-banco"]
    for bet in data["bets"].values():
        ev = Fraction(bet["ev"])
        assert str(ev) == bet["ev"] and ev < 0
        assert bet["house_edge"] == pytest.approx(-float(ev), abs=1e-15)
        assert {"std_dev", "hit_frequency", "outcomes"} <= set(bet)
        assert sum(row["combinations"] for row in bet["outcomes"]) == data["total_combinations"]
        for row in bet["outcomes"]:
            assert set(row) >= {"outcome", "combinations", "probability", "pays"}
            assert isinstance(row["combinations"], int) and isinstance(row["pays"], str)
    punto = {row["outcome"]: row["combinations"] for row in data["bets"]["punto"]["outcomes"]}
    assert punto["win"] == 2230518282592256


def test_par_options_reach_the_rules(monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    """B2 commission, B3 9:1, L5 pay table, R6 variant and a composition, all from options."""
    code, out, err = run_main(
        monkeypatch, capsys, "par", "--composition", "32,8,8,8,8,8,8,8,8,8", "--banco",
        "commission", "--commission", "0.04", "--tie-pays", "9", "--lion-paytable",
        "30,10,6,4,2,1", "--drawing", "seed-literal", "-f", "json")
    assert code == 0, err
    data = json.loads(out)
    # issue 12: the PAR report spells its rules as the server does (one RuleSet <-> JSON mapping)
    assert data["rules"] == {"drawing": "seed-literal", "banco_payout": "commission",
                             "commission": "0.04", "tie_pays": 9,
                             "banco_reduced_pays": {"6": "0.5"},
                             "lion_paytable": [30, 10, 6, 4, 2, 1], "lion_natural_pays": 1,
                             "lion_natural_tie_pays": 0}
    pays = {row["outcome"]: row["pays"] for row in data["bets"]["banco"]["outcomes"]}
    assert pays == {"win": "24/25", "push": "0", "lose": "-1"}
    assert data["bets"]["egalite"]["outcomes"][0]["pays"] == "9"
    assert data["bets"]["lion-punto"]["outcomes"][2]["pays"] == "30"


def test_par_csv_md_html_and_out_file(monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = run_main(monkeypatch, capsys, "par", "--decks", "1", "-f", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 0 and len(rows) == 3 + 5 + 2 + 9 + 9
    assert {row["bet"] for row in rows} == {"punto", "banco", "egalite", "lion-punto", "lion-banco"}
    code, out, _ = run_main(monkeypatch, capsys, "par", "-f", "md")
    assert code == 0 and out.startswith("# PAR sheet — 6 decks (312 cards)")
    assert "| Lose | 403,095,751,234,560 |" in out
    target = tmp_path / "par.html"
    code, out, _ = run_main(monkeypatch, capsys, "par", "-f", "html", "--out", str(target))
    assert code == 0 and out == ""
    page = target.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "@media print" in page and "16.7751%" in page
    code, out, _ = run_main(monkeypatch, capsys, "par", "--decks", "2")
    assert code == 0 and "House edge" in out and "Lion Bonus Banco" in out


def test_eor_formats(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                     tmp_path: Path) -> None:
    code, out, err = run_main(monkeypatch, capsys, "eor", "--decks", "8", "-f", "json")
    assert code == 0, err
    data = json.loads(out)
    punto = [Fraction(x) for x in data["effects"]["punto"]["exact"]]
    assert sum(n * e for n, e in zip(data["composition"], punto, strict=True)) == 0
    code, out, _ = run_main(monkeypatch, capsys, "eor", "--composition", "0,0,0,0,0,0,0,0,3,4",
                            "-f", "md")
    assert code == 0 and "| 10/J/Q/K | — | — |" in out
    target = tmp_path / "eor.csv"
    code, _, _ = run_main(monkeypatch, capsys, "eor", "--decks", "1", "-f", "csv", "-o",
                          str(target))
    assert code == 0 and len(target.read_text().splitlines()) == 11
    code, out, _ = run_main(monkeypatch, capsys, "eor")
    assert code == 0 and "Effects of removal" in out


@pytest.mark.parametrize(("args", "mentions"), [
    (["par", "--composition", "1,2,3"], "not a composition"),
    (["par", "--composition", "1,2,3,4,5,6,7,8,9,-1"], "not a composition"),
    (["par", "--composition", "1,1,1,1,1,0,0,0,0,0"], "at least 6 cards"),
    (["par", "--lion-paytable", "20,8,4,4,2"], "not a lion bonus pay table"),
    (["par", "--banco", "commission", "--commission", "-0.05"], "commission lies between"),
    (["par", "--commission", "five"], "not a commission"),
    (["par", "--decks", "0"], "1 to 8 decks"),
    (["par", "--decks", "6", "--composition", "96,24,24,24,24,24,24,24,24,24"], "not both"),
    (["par", "--format", "xml"], "not an output format"),
    (["par", "--drawing", "house"], "not a drawing table"),
    (["par", "--banco", "free"], "not a banco payout"),
    (["par", "--tie-pays", "0"], "8:1 or 9:1"),
    (["par", "--tie-pays", "100"], "8:1 or 9:1"),
    (["eor", "--composition", "6,0,0,0,0,0,0,0,0,0"], "at least 7 cards"),
])
def test_bad_options_end_in_one_sentence(args: list[str], mentions: str) -> None:
    """A user's mistake: exit 2, one sentence on stderr, no traceback (the real script)."""
    result = subprocess.run([str(SCRIPT), *args], capture_output=True, text=True, timeout=120,
                            check=False)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("puntobanco: ") and lines[0].endswith(".")
    assert mentions in lines[0].lower()
    assert "Traceback" not in result.stderr + result.stdout



@pytest.mark.parametrize("columns", [80, 64])
def test_par_table_never_cuts_an_exact_count(monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str],
                                             columns: int) -> None:
    """The terminal PAR sheet keeps every digit on a narrow terminal (or a pipe: 80 columns)."""
    code, out, _ = run_main_at(monkeypatch, capsys, columns, "par", "--decks", "8")
    assert code == 0 and "…" not in out
    assert "4,998,398,275,503,360" in out.replace("\n", "").replace(" ", "").replace("│", "")


def test_par_at_80_columns_keeps_each_figure_on_one_line_and_shows_both_edges(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 12: no count cut across lines at 80 columns, the Banco table included; the edge
    with ties excluded and the element of risk beside the house edge."""
    _, out, _ = run_main_at(monkeypatch, capsys, 80, "par", "--decks", "8", "--banco",
                            "commission")
    for count in ("4,998,398,275,503,360", "2,230,518,282,592,256"):  # total; Banco loses
        assert count in out
    lines = out.splitlines()
    assert all(len(line) <= 80 for line in lines)
    banco = next(line for line in lines if line.startswith("│Banco"))
    # Published (8 decks, 5 % commission): Banco 1.06 %, or 1.17 % with ties excluded.
    assert [cell.strip() for cell in banco.split("│")[3:6]] == ["1.0579%", "1.1692%", "1.0579%"]
    punto = next(line for line in lines if line.startswith("│Punto"))
    assert "1.2351%" in punto and "1.3650%" in punto  # Punto 1.24 %, ties excluded 1.36 %

