"""Every option of every command, thrown hostile values (issue 20): one sentence or a right answer.

The commands and their options are read from the Typer app itself, so a new command or option is
covered without a line here. Each value is given to one option at a time, on a *context*: the
other arguments that make the option apply (``risk --method simulate`` for ``--seed``) and keep
a command's success path short (``--shoes 2``). Where a success path would run for long
(``simulate``, ``count``, ``serve``), the context ends with a *brake*: a value refused by the
command's last check (an address that is no Dask scheduler, a port that is taken), so every
option's own check runs first and only the refusal is left.

Each run must end either with exit status 0 and no ``nan``/``inf`` in what it printed (a right
answer), or with a non-zero exit and one sentence on stderr, never a traceback; and no run may
create a missing folder.
"""

from __future__ import annotations

import contextlib
import re
import signal
import socket
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

import pytest
import typer

from puntobanco.cli import app

from .support import Cli, Run

#: Values every option is given (an option of a flag is only given, without a value).
HOSTILE = ("-7", "0", "nan", "inf", "-inf", "1e400", "99999999999999999999999", "", "x y",
           "1.5", "{}")
#: Options whose values are names, which the answer repeats as given (a seat called "nan").
NAMES = frozenset({"player"})
#: Seconds one run may take: a success path left long by mistake fails instead of hanging.
RUN_SECONDS = 60
#: The end of one sentence, maybe followed by where to read more: ``… (see `puntobanco x --help`)``
SENTENCE_END = re.compile(r"[.?!](?: \(see `[^`]+`\))?$")
FINITE = re.compile(r"(?<![\w-])[+-]?(nan|inf|Infinity|NaN)(?![\w-])")

_COMMAND = typer.main.get_command(app)
assert isinstance(_COMMAND, typer.core.TyperGroup)
COMMANDS = dict(sorted(_COMMAND.commands.items()))


@dataclass(frozen=True)
class Context:
    """Arguments given with the option tried, and the options they are the context of."""

    args: tuple[str, ...]
    options: frozenset[str] | None = None  # None: every option not in another context


def _contexts(tmp: Path, port: int) -> dict[str, list[Context]]:
    simulated = frozenset({"--sessions", "--seed", "--cut-card"})
    missing_db = f"sqlite:///{tmp / 'absent.sqlite3'}"
    return {
        "par": [Context(()), Context(("--compare",), frozenset({
            "--decks", "--composition", "--banco", "--commission", "--tie-pays",
            "--lion-paytable", "--drawing", "--format", "-f", "--out", "-o"}))],
        "risk": [Context(("--coups", "20")),
                 Context(("--method", "simulate", "--sessions", "2", "--coups", "5"),
                         simulated)],
        "design": [Context(()),
                   Context(("--cut-card-depth", "14", "--shoes", "2"),
                           frozenset({"--seed", "--shoes", "--cut-card-depth"})),
                   Context(("--bet", "banco"),
                           frozenset({"--commissions", "--half-totals", "--half-pay"})),
                   Context(("--bet", "egalite"), frozenset({"--tie-pays-grid"}))],
        "simulate": [Context(("--shoes", "2", "--scheduler", "no-scheduler")),
                     Context(("--shoes", "2"), frozenset({"--scheduler", "--workers"}))],
        "count": [Context(("--shoes", "2", "--scheduler", "no-scheduler")),
                  Context(("--shoes", "2"), frozenset({"--scheduler", "--workers"}))],
        "serve": [Context(("--port", str(port))), Context((), frozenset({"--port"}))],
        "operator-password": [Context(("--generate", "--database-url", missing_db)),
                              Context(("--generate",), frozenset({"--database-url"}))],
        "play": [Context(("--coups", "1", "--seed", "1", "--fast"))],
        "replay": [Context(("4H", "2S", "9S", "3D", "7C", "5C")),
                   Context((), frozenset({"--cards-file", "cards"}))],
    }


def _values(parameter: Any, tmp: Path) -> list[str | None]:
    """The hostile values of one option: ``None`` alone for a flag; missing and unwritable
    paths for a path or a database URL."""
    if getattr(parameter, "is_flag", False):
        return [None]
    values: list[str | None] = list(HOSTILE)
    absent = tmp / "absent-folder"
    under_a_file = tmp / "a-file.txt"
    under_a_file.write_text("not a folder\n", encoding="utf-8")
    if parameter.type_descriptor.annotation is Path:
        values += [str(absent / "x.png"), str(under_a_file / "x.png"), "/proc/x.png", str(tmp)]
    if parameter.name == "database_url":
        values += [f"sqlite:///{absent / 'x.sqlite3'}", f"sqlite:///{under_a_file / 'x.sqlite3'}",
                   "sqlite:////proc/x.sqlite3", "postgresql+psycopg://nobody@127.0.0.1:1/none"]
    return values


def _context_for(contexts: list[Context], option: str) -> Context:
    for context in contexts:
        if context.options is not None and option in context.options:
            return context
    return next(context for context in contexts if context.options is None)


def _arguments(parameter: Any, value: str | None, context: Context) -> list[str]:
    if parameter.param_type_name == "argument":
        return [] if value is None else [value]
    name = parameter.opts[0]
    return [name] if value is None else [f"{name}={value}"]


class TookTooLong(Exception):
    pass


@contextlib.contextmanager
def _time_limit(seconds: int) -> Iterator[None]:
    def alarm(_signum: int, _frame: FrameType | None) -> None:
        raise TookTooLong

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _judge(run: Run, *, names: bool = False) -> str | None:
    """What is wrong with a run, or None: a right answer or one sentence. With ``names``, the
    value is a name the answer repeats (a seat called ``nan``), not a number."""
    everything = run.out + run.err
    if "Traceback" in everything:
        return "a traceback: " + run.err.strip().splitlines()[-1]
    if run.code == 0:
        shown = None if names else FINITE.search(run.out)
        return None if shown is None else f"exit 0 with {shown.group(0)!r} in its answer"
    lines = run.err.strip().splitlines()
    if len(lines) != 1 or not lines[0].startswith("puntobanco: ") or \
            not SENTENCE_END.search(lines[0]):
        return f"exit {run.code} without one sentence: {run.err.strip()[:300]!r}"
    return None


@pytest.fixture
def held_port() -> Iterator[int]:
    """A port this test listens on, so ``serve`` refuses it after checking everything else."""
    with socket.socket() as listener:
        listener.bind(("0.0.0.0", 0))
        listener.listen()
        yield listener.getsockname()[1]


@pytest.mark.parametrize("command", list(COMMANDS))
def test_every_option_takes_hostile_values_without_a_traceback(
        cli: Cli, command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        held_port: int) -> None:
    monkeypatch.chdir(tmp_path)  # ./var/ and relative outputs land here, never in the project
    monkeypatch.delenv("PUNTOBANCO_OPERATOR_PASSWORD", raising=False)
    contexts = _contexts(tmp_path, held_port).get(command, [Context(())])
    wrong: list[str] = []
    for parameter in COMMANDS[command].params:
        if parameter.name == "help" or getattr(parameter, "hidden", False):
            continue
        option = parameter.opts[0] if parameter.param_type_name == "option" else parameter.name
        context = _context_for(contexts, option)
        for value in _values(parameter, tmp_path):
            args = [command, *context.args, *_arguments(parameter, value, context)]
            try:
                with _time_limit(RUN_SECONDS):
                    verdict = _judge(cli(*args), names=parameter.name in NAMES)
            except TookTooLong:
                verdict = f"still running after {RUN_SECONDS} s"
            except Exception as error:  # what a user would see as a traceback
                verdict = f"a traceback: {type(error).__name__}: {str(error)[:200]}"
            if (tmp_path / "absent-folder").exists() or Path("/proc/x.png").exists():
                verdict = (verdict or "") + " created a missing folder"
                with contextlib.suppress(OSError):
                    (tmp_path / "absent-folder").rename(tmp_path / f"created-{len(wrong)}")
            if verdict is not None:
                wrong.append(f"puntobanco {' '.join(args)}: {verdict}")
    assert not wrong, "\n".join(wrong)
