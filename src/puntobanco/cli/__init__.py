"""The ``puntobanco`` command line. A user's mistake ends in one sentence and exit status 2."""

from __future__ import annotations

import sys

# Each command module registers itself on `app` when imported (one line each, sorted):
from puntobanco.cli import par as par
from puntobanco.cli import play as play
from puntobanco.cli import replay as replay
from puntobanco.cli import serve as serve
from puntobanco.cli import simulate as simulate
from puntobanco.cli._app import app
from puntobanco.errors import PuntoBancoError


def main() -> None:
    """Entry point of the ``puntobanco`` script."""
    try:
        app()
    except PuntoBancoError as error:
        print(f"puntobanco: {error}", file=sys.stderr)
        sys.exit(2)


__all__ = ["app", "main"]
