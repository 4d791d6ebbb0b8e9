"""Every command's ``--help`` as a new user reads it (issue 12): flags shown as flags, the seven
table-rule options declared once and shown alike, ``--version``, one full stop after a typo."""

from __future__ import annotations

import re

import pytest

from puntobanco.cli._app import app, version

from .support import Cli

COMMANDS = sorted(command.name or command.callback.__name__ for command in app.registered_commands
                  if command.callback is not None)
RULE_OPTIONS = ("--decks", "--composition", "--banco", "--commission", "--tie-pays",
                "--lion-paytable", "--drawing")


@pytest.mark.parametrize("command", ["", *COMMANDS])
def test_every_help_shows_flags_as_flags(cli: Cli, command: str) -> None:
    run = cli(*([command] if command else []), "--help")
    assert run.code == 0, run.err
    assert "<bool>" not in run.out
    assert re.search(r"--help\s+Show this message", run.out)


@pytest.mark.parametrize(("command", "options"), [
    ("par", RULE_OPTIONS), ("eor", RULE_OPTIONS), ("simulate", RULE_OPTIONS),
    ("count", RULE_OPTIONS), ("play", tuple(o for o in RULE_OPTIONS if o != "--composition")),
    ("replay", tuple(o for o in RULE_OPTIONS if o not in ("--decks", "--composition"))),
])
def test_the_rule_options_are_one_set_under_one_heading(cli: Cli, command: str,
                                                          options: tuple[str, ...]) -> None:
    out = cli(command, "--help").out
    panel = out[out.index("Table rules"):]
    shown = [option for option in RULE_OPTIONS if re.search(rf"│ {option}\s", panel)]
    assert tuple(shown) == options
    assert "--rules " not in out  # `--rules seed-literal` is `--drawing` now
    assert "standard (R6) or seed-literal" in " ".join(panel.split())


def test_version(cli: Cli) -> None:
    run = cli("--version")
    assert run.code == 0 and run.out.strip() == f"puntobanco {version()}"
    assert re.fullmatch(r"\d+\.\d+\.\d+.*", version())


def test_a_typo_s_suggestion_ends_in_one_mark(cli: Cli) -> None:
    run = cli("plya")
    assert run.code == 2
    assert run.err.startswith("puntobanco: No such command 'plya'. Did you mean 'play', "
                              "'replay'? (see `")
    assert "?." not in run.err
