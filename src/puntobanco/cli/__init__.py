"""The ``puntobanco`` command line. A user's mistake ends in one sentence and exit status 2."""

from __future__ import annotations

import sys

import typer

# Each command module registers itself on `app` when imported (one line each, sorted):
from puntobanco.cli import design as design
from puntobanco.cli import par as par
from puntobanco.cli import play as play
from puntobanco.cli import players as players
from puntobanco.cli import replay as replay
from puntobanco.cli import risk as risk
from puntobanco.cli import serve as serve
from puntobanco.cli import simulate as simulate
from puntobanco.cli._app import app
from puntobanco.errors import PuntoBancoError

try:  # Typer ≥ 0.29 carries its own copy of Click's exceptions
    from typer._click import exceptions as _usage
except ImportError:  # pragma: no cover - older Typer on Click
    from click import exceptions as _usage  # type: ignore[no-redef]


def main() -> None:
    """Entry point of the ``puntobanco`` script: user mistakes end in one sentence, exit 2."""
    try:
        status = app(standalone_mode=False)
    except PuntoBancoError as error:
        _fail(str(error))
    except _usage.NoArgsIsHelpError as error:
        print(error.format_message(), file=sys.stderr)
        sys.exit(2)
    except _usage.UsageError as error:
        where = f" (see `{error.ctx.command_path} --help`)" if error.ctx is not None else ""
        _fail(_sentence(error.format_message()) + where)
    except typer.Abort:
        print("Aborted.", file=sys.stderr)
        sys.exit(130)
    sys.exit(status if isinstance(status, int) else 0)


def _sentence(text: str) -> str:
    """A message ending in exactly one full stop, question or exclamation mark.

    >>> _sentence("Did you mean 'play', 'replay'?"), _sentence("No such option: --x")
    ("Did you mean 'play', 'replay'?", 'No such option: --x.')
    """
    text = text.rstrip()
    return text if text.endswith((".", "?", "!")) else text + "."


def _fail(sentence: str) -> None:
    print(f"puntobanco: {sentence}", file=sys.stderr)
    sys.exit(2)


__all__ = ["app", "main"]
