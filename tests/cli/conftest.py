"""Run the real ``puntobanco`` entry point (``cli.main``) in-process, as a user would see it."""

from __future__ import annotations

import pytest

from .support import Cli, Run, run_in_process


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Cli:
    """``cli("replay", "4H", ..., stdin="...")`` runs ``puntobanco`` with those arguments (at
    110 columns unless the test sets ``COLUMNS``)."""
    monkeypatch.setenv("COLUMNS", "110")

    def run(*args: str, stdin: str = "") -> Run:
        return run_in_process(monkeypatch, capsys, *args, stdin=stdin)

    return run
