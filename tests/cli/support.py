"""Helpers for the command tests: what a run left behind, and what a user's mistake looks like."""

from __future__ import annotations

import io
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass

import pytest

#: An amount as the terminal table shows it: ``1 000,00 €`` (fr), ``1.000,00 €`` (it, es),
#: ``€1,000.00`` (en), with an optional sign.
SHOWN_AMOUNT = re.compile(r"[+-]?(?:€\d{1,3}(?:,\d{3})*\.\d\d|\d{1,3}(?:[ .]\d{3})*,\d\d €)")


@dataclass(frozen=True)
class Run:
    """What a command left behind: its exit status and everything it printed."""

    code: int
    out: str
    err: str


Cli = Callable[..., Run]


def run_in_process(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                   *args: str, stdin: str = "", columns: int | None = None) -> Run:
    """Run ``puntobanco ARGS`` through the real entry point (``cli.main``) in this process, as
    a user would, with ``stdin`` as its input, at a ``columns``-wide terminal (``None``: the
    ``COLUMNS`` the test set)."""
    from puntobanco.cli import main

    if columns is not None:
        monkeypatch.setenv("COLUMNS", str(columns))
    monkeypatch.delenv("FORCE_COLOR", raising=False)
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


def assert_one_sentence_error(run: Run, *, mentions: str = "") -> None:
    """A user's mistake: non-zero exit, one line on stderr ending a sentence, no traceback."""
    assert run.code != 0
    lines = run.err.strip().splitlines()
    assert len(lines) == 1, run.err
    assert lines[0].startswith("puntobanco: ") and lines[0].endswith("."), lines[0]
    assert "Traceback" not in run.err + run.out
    assert mentions.lower() in lines[0].lower(), lines[0]


def shown_cents(text: str) -> int:
    """An amount as the table shows it, read back in cents, whatever its language.

    >>> shown_cents("1 000,50 €"), shown_cents("-1.234,00 €"), shown_cents("+€1,000.05")
    (100050, -123400, 100005)
    """
    text = text.strip()
    assert SHOWN_AMOUNT.fullmatch(text), text
    cents = int(re.sub(r"\D", "", text))
    return -cents if text.startswith("-") else cents
