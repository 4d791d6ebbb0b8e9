"""The one Typer application; each command lives in its own module and registers itself here."""

from __future__ import annotations

import typer

app = typer.Typer(
    name="puntobanco",
    help="Punto Banco 2000 with the Lion Bonus: play it, deal it, prove its math.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
