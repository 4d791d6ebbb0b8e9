"""Tables that read at 80 columns (issue 20): every line fits, every table keeps its right
border, and no name or figure is cut ("Commissi…", "13…")."""

from __future__ import annotations

import pytest

from .support import Cli

COMMANDS = [
    ("par",), ("par", "--decks", "8"), ("eor",), ("par", "--compare"),
    ("design",), ("design", "--side", "both"), ("design", "--bet", "banco"),
    ("design", "--bet", "egalite"),
    ("design", "--natural-win", "1,1.5", "--natural-tie", "push,lose", "--half-pays",
     "--max-pay", "12"),
]


@pytest.mark.parametrize("args", COMMANDS, ids=" ".join)
def test_tables_read_whole_at_80_columns(cli: Cli, monkeypatch: pytest.MonkeyPatch,
                                         args: tuple[str, ...]) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    run = cli(*args)
    assert run.code == 0, run.err
    lines = run.out.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert "…" not in run.out  # nothing cut
    for line in lines:
        if line.startswith(("┏", "┃", "┡", "│", "├", "└")):  # a table row: right border kept
            assert line.rstrip().endswith(("┓", "┃", "┩", "│", "┤", "┘")), line


def test_par_compare_names_every_game_whole_at_80_columns(cli: Cli,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    out = cli("par", "--compare").out
    words = set(out.replace("│", " ").split())
    for word in ("Commission", "three-card", "(30,10,6,4,2,1)", "20,8,4,4,2,1)", "Égalité",
                 "frequency"):
        assert word in words, word  # each word of a name whole, in its cell
    assert "https://wizardofodds.com/games/baccarat/basics/" in out  # a source's address


def test_design_shows_each_pay_whole_at_80_columns(cli: Cli,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    out = cli("design").out
    assert "natural win 1:1, natural tie push" in " ".join(out.split())
    assert "20 8 4 4 2 1" in out  # SPEC's table, its six margins' pays on one line
