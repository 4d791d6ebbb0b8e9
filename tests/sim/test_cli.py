"""``puntobanco simulate`` and ``puntobanco count`` run as a user runs them (a real process)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from puntobanco.sim.tables import BET_NAMES

SCRIPT = str(Path(sys.executable).parent / "puntobanco")


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([SCRIPT, *args], capture_output=True, text=True, timeout=300,
                          check=False, env={"PATH": "/usr/bin:/bin", "COLUMNS": "120"})


def assert_one_sentence(result: subprocess.CompletedProcess[str], mentions: str) -> None:
    """A user's mistake: exit status 2, one sentence on stderr, no traceback."""
    assert result.returncode == 2, (result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("puntobanco: ") and lines[0].endswith("."), lines[0]
    assert mentions in lines[0], lines[0]
    assert "Traceback" not in result.stderr + result.stdout


def test_simulate_json_has_the_promised_shape() -> None:
    result = run("simulate", "--shoes", "3000", "--seed", "12", "--json")
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["shoes"] == 3000 and document["seed"] == 12
    assert isinstance(document["coups"], int) and 55 * 3000 < document["coups"] < 66 * 3000
    assert isinstance(document["seconds"], float)
    assert set(document["bets"]) == set(BET_NAMES)
    for bet in document["bets"].values():
        low, high = bet["ci95"]
        assert low < bet["mean"] < high
        assert isinstance(bet["exact_ev"], float) and isinstance(bet["z"], float)
    assert document["bets"]["lion-banco"]["exact_ev"] == pytest.approx(-0.167751, abs=1e-6)
    assert document["warning"] is None


def test_simulate_warns_that_few_shoes_give_rough_intervals() -> None:
    """10 one-deck shoes: an interval that covers the exact EV, and a warning in both forms."""
    document = json.loads(run("simulate", "--shoes", "10", "--seed", "1", "--decks", "1",
                              "--json").stdout)
    assert "only 10 shoes" in document["warning"] and "100" in document["warning"]
    punto = document["bets"]["punto"]
    assert punto["ci95"][0] < punto["exact_ev"] < punto["ci95"][1]
    assert abs(punto["z"]) < 2.5
    text = run("simulate", "--shoes", "10", "--seed", "1", "--decks", "1")
    assert text.returncode == 0, text.stderr
    warnings = [line for line in text.stdout.splitlines() if line.startswith("Warning: ")]
    assert warnings == [f"Warning: {document['warning']}"]


def test_simulate_same_seed_same_figures_and_text_report() -> None:
    first = json.loads(run("simulate", "--shoes", "2500", "--seed", "4", "--json").stdout)
    again = json.loads(run("simulate", "--shoes", "2500", "--seed", "4", "--json").stdout)
    assert first["bets"] == again["bets"] and first["coups"] == again["coups"]
    text = run("simulate", "--shoes", "2500", "--seed", "4", "--decks", "8",
               "--lion-paytable", "30,10,6,4,2,1")
    assert text.returncode == 0, text.stderr
    for name in BET_NAMES:
        assert name in text.stdout
    assert "Seed 4; 8 deck(s), cut card 14 cards from the end" in text.stdout
    assert "full shoe" in text.stdout


def test_simulate_without_seed_reports_the_fresh_seed_it_used() -> None:
    document = json.loads(run("simulate", "--shoes", "2000", "--json").stdout)
    again = json.loads(run("simulate", "--shoes", "2000", "--json", "--seed",
                           str(document["seed"])).stdout)
    assert again["bets"] == document["bets"]


@pytest.mark.parametrize(("args", "mentions"), [
    (("simulate", "--shoes", "0"), "--shoes"),
    (("simulate", "--shoes", "1"), "--shoes takes 2 to"),
    (("simulate", "--cut-card", "5"), "cut card"),
    (("simulate", "--decks", "9"), "--decks"),
    (("simulate", "--workers", "0"), "--workers"),
    (("simulate", "--workers", "2", "--scheduler", "tcp://127.0.0.1:8786"), "not both"),
    (("simulate", "--scheduler", "localhost"), "scheduler address"),
    (("simulate", "--seed", "-3"), "--seed"),
    (("simulate", "--lion-paytable", "1,2"), "pay table"),
    (("simulate", "--composition", "1,1,1,1,1,1,1,1,1,1"), "too small"),
    (("count", "--shoes", "1"), "--shoes takes 2 to"),
    (("count", "--tie-pays", "0"), "Égalité"),
    (("count", "--banco", "sometimes"), "Banco payout"),
])
def test_bad_options_end_in_one_sentence(args: tuple[str, ...], mentions: str) -> None:
    assert_one_sentence(run(*args), mentions)


def test_count_out_must_be_a_folder(tmp_path: Path) -> None:
    file = tmp_path / "plots"
    file.write_text("not a folder")
    assert_one_sentence(run("count", "--shoes", "10", "--out", str(file)), "is a file")


@pytest.mark.slow
def test_unreachable_scheduler_is_one_sentence() -> None:
    assert_one_sentence(run("simulate", "--shoes", "10", "--scheduler", "tcp://127.0.0.1:9"),
                        "Cannot reach the Dask scheduler")


def test_count_json_and_plots(tmp_path: Path) -> None:
    result = run("count", "--shoes", "800", "--decks", "2", "--seed", "3", "--json",
                 "--lion-paytable", "30,10,6,4,2,1", "--out", str(tmp_path / "plots"))
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["shoes"] == 800 and document["lion_paytable"] == [30, 10, 6, 4, 2, 1]
    assert isinstance(document["coups"], int)
    for name in BET_NAMES:
        bet = document["bets"][name]
        assert 0 <= bet["positive_share"] <= 1 and bet["ceiling_units_per_shoe"] >= 0
        assert len(bet["count"]["tags"]) == 10
    assert sorted(Path(p).name for p in document["plots"]) == [
        "count_vs_ev.png", "ev_by_depth.png", "ev_distribution.png"]
    text = run("count", "--shoes", "800", "--decks", "2", "--seed", "3")
    assert text.returncode == 0, text.stderr
    assert "Counting study: 800 shoes" in text.stdout and "best count" in text.stdout
