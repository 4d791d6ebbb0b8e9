"""Run the real ``puntobanco`` entry point (``cli.main``) in-process, as a user would see it."""

from __future__ import annotations

import io
import sys

import pytest

from puntobanco.cli import main

from .support import Cli, Run


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Cli:
    """``cli("replay", "4H", ..., stdin="...")`` runs ``puntobanco`` with those arguments."""
    monkeypatch.setenv("COLUMNS", "110")
    monkeypatch.delenv("FORCE_COLOR", raising=False)

    def run(*args: str, stdin: str = "") -> Run:
        capsys.readouterr()
        monkeypatch.setattr(sys, "argv", ["puntobanco", *args])
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
        code = 0
        try:
            main()
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else 1
        captured = capsys.readouterr()
        return Run(code, captured.out, captured.err)

    return run
