"""The one Typer application; each command lives in its own module and registers itself here.

``--help`` shows a flag as a flag (``--json``), not as ``--json <bool>``: Typer 0.29 prints a
type beside every option, and :func:`_flags_without_a_type` removes it where no value follows.
"""

from __future__ import annotations

from importlib import metadata
from typing import Annotated, Any

import typer
from typer.core import TyperOption


def _flags_without_a_type() -> None:
    shown = TyperOption.display_type_rich

    def display_type_rich(self: TyperOption, ctx: Any) -> str | None:
        return None if self.is_flag else shown(self, ctx)

    TyperOption.display_type_rich = display_type_rich  # type: ignore[method-assign]


_flags_without_a_type()


def version() -> str:
    """The installed package's version (``puntobanco --version``)."""
    try:
        return metadata.version("puntobanco")
    except metadata.PackageNotFoundError:  # pragma: no cover - running from an unbuilt tree
        return "unknown"


app = typer.Typer(
    name="puntobanco",
    help="Punto Banco 2000 with the Lion Bonus: play it, deal it, prove its math.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    # Markdown: a docstring's paragraphs are re-wrapped to the terminal, not cut where the source
    # line ends.
    rich_markup_mode="markdown",
)


def _print_version(wanted: bool) -> None:
    if wanted:
        typer.echo(f"puntobanco {version()}")
        raise typer.Exit


@app.callback()
def _main(
    show_version: Annotated[bool, typer.Option(
        "--version", help="Print the version and exit.", callback=_print_version,
        is_eager=True)] = False,
) -> None:
    """Punto Banco 2000 with the Lion Bonus: play it, deal it, prove its math."""
