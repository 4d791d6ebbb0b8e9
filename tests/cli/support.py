"""Helpers for the command tests: what a run left behind, and what a user's mistake looks like."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Run:
    """What a command left behind: its exit status and everything it printed."""

    code: int
    out: str
    err: str


Cli = Callable[..., Run]


def assert_one_sentence_error(run: Run, *, mentions: str = "") -> None:
    """A user's mistake: non-zero exit, one line on stderr ending a sentence, no traceback."""
    assert run.code != 0
    lines = run.err.strip().splitlines()
    assert len(lines) == 1, run.err
    assert lines[0].startswith("puntobanco: ") and lines[0].endswith("."), lines[0]
    assert "Traceback" not in run.err + run.out
    assert mentions.lower() in lines[0].lower(), lines[0]
