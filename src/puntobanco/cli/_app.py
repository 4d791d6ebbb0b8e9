"""The one Typer application; each command lives in its own module and registers itself here.

``--help`` shows a flag as a flag (``--json``), not as ``--json <bool>``: Typer 0.29 prints a
type beside every option, and :func:`_flags_without_a_type` removes it where no value follows.
"""

from __future__ import annotations

from importlib import metadata
from typing import Annotated, Any

import typer
from typer.core import TyperOption

from puntobanco.errors import PuntoBancoError


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


def given_options(*names: str) -> list[str]:
    """The options among the parameters ``names`` that the command line gave (not defaults),
    as the user typed them (``--half-pays``): for refusing an option a command cannot apply."""
    try:  # Typer ≥ 0.29 carries its own copy of Click
        from typer._click.core import ParameterSource
        from typer._click.globals import get_current_context
    except ImportError:  # pragma: no cover - older Typer on Click
        from click import get_current_context  # type: ignore[no-redef]
        from click.core import ParameterSource  # type: ignore[assignment]
    context = get_current_context(silent=True)
    if context is None:
        return []
    return [parameter.opts[0] for parameter in context.command.params
            if parameter.name in names
            and context.get_parameter_source(parameter.name) is ParameterSource.COMMANDLINE]


def refuse_options(options: list[str], where: str) -> None:
    """One sentence for options given where they do not apply, e.g. ``--half-pays applies only
    to --bet lion.``; nothing when ``options`` is empty."""
    if options:
        verb = "applies" if len(options) == 1 else "apply"
        raise PuntoBancoError(f"{', '.join(options)} {verb} only {where}.",
                              code="option-not-applied")
