"""``puntobanco par`` (the exact PAR sheet) and ``puntobanco eor`` (effects of removal).

Both take the shared shoe and rule options of :mod:`puntobanco.cli.ruleopts`, ``--format`` and
``--out``. The analysis package (numpy) is imported inside the commands so ``--help`` stays fast.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from puntobanco.cli._app import app, given_options
from puntobanco.cli._paths import output_file
from puntobanco.cli.ruleopts import RuleOptions, rule_options
from puntobanco.errors import PuntoBancoError

FORMATS = ("table", "json", "md", "html", "csv")

FormatOption = Annotated[
    str, typer.Option("--format", "-f", help="Output: table (terminal), json, md, html or csv.")
]
OutOption = Annotated[
    Path | None,
    typer.Option("--out", "-o", help="Write to this file instead of the terminal.",
                 show_default=False, dir_okay=False),
]


def _check_format(text: str) -> str:
    key = text.strip().lower()
    if key == "markdown":
        key = "md"
    if key not in FORMATS:
        raise PuntoBancoError(
            f"{text!r} is not an output format: choose table, json, md, html or csv.",
            code="bad-format",
        )
    return key


def _emit(text: str | None, renderable: Any, out: Path | None) -> None:
    """Print to the terminal (Rich for tables) or write the file."""
    if text is None:
        from rich.console import Console

        if out is None:
            Console().print(renderable)
            return
        buffer = io.StringIO()
        Console(file=buffer, width=110, color_system=None, legacy_windows=False).print(renderable)
        text = buffer.getvalue()
    if out is None:
        sys.stdout.write(text)
        return
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as error:
        raise PuntoBancoError(f"Cannot write {out}: {error.strerror}.", code="bad-out") from None


def _emit_format(fmt: str, out: Path | None, rich: Callable[[], Any],
                 text: Callable[[], str]) -> None:
    """The Rich table for ``table``, else the text of the chosen format."""
    if fmt == "table":
        _emit(None, rich(), out)
    else:
        _emit(text(), None, out)


@app.command()
@rule_options(rules_file=True)
def par(
    *,
    rules: RuleOptions,
    output_format: FormatOption = "table",
    out: OutOption = None,
    compare: Annotated[bool, typer.Option(
        "--compare", help="Set this game beside commission baccarat, EZ Baccarat (Dragon 7, "
        "Panda 8) and the Dragon Bonus, for 6 and 8 decks (or --decks); --lion-paytable sets "
        "the Lion Bonus line's table.")] = False,
) -> None:
    """Print the exact PAR sheet: every bet's outcomes, combinations, pays, RTP and edge."""
    fmt = _check_format(output_format)
    if out is not None:
        output_file(out, option="--out")
    if compare:
        if rules.rules_file is not None:  # issue 20: an option is honoured or refused
            raise PuntoBancoError("par --compare sets the published variants side by side; "
                                  "price a --rules-file with par alone.", code="bad-rules")
        from puntobanco.cli._compare import compare_command

        # one sentence, never the standard figures under options they do not honour
        refused = given_options("composition", "banco", "commission", "tie_pays")
        if refused:
            verb = "does" if len(refused) == 1 else "do"
            raise PuntoBancoError(
                f"par --compare sets each game with its own pays over full shoes: "
                f"{', '.join(refused)} {verb} not apply to it (--decks, --drawing and "
                "--lion-paytable do).", code="option-not-applied")

        compare_command(decks=rules.decks, fmt=fmt, out=out, rules=rules.drawing,
                        emit=_emit_format, lion_paytable=rules.lion_paytable)
        return
    shoe, ruleset = rules.shoe_and_rules()
    from puntobanco.analysis import analyse, report

    sheet = analyse(shoe, ruleset)
    writers = {"json": report.par_json, "md": report.par_markdown, "html": report.par_html,
               "csv": report.par_csv}
    _emit_format(fmt, out, lambda: report.par_rich(sheet), lambda: writers[fmt](sheet))


@app.command()
@rule_options()
def eor(
    *,
    rules: RuleOptions,
    output_format: FormatOption = "table",
    out: OutOption = None,
) -> None:
    """Print the effects of removal: each bet's exact change in EV per card of each value removed."""
    fmt = _check_format(output_format)
    if out is not None:
        output_file(out, option="--out")
    shoe, ruleset = rules.shoe_and_rules()
    from puntobanco.analysis import effects_of_removal, report

    effects = effects_of_removal(shoe, ruleset)
    writers = {"json": report.eor_json, "md": report.eor_markdown, "html": report.eor_html,
               "csv": report.eor_csv}
    _emit_format(fmt, out, lambda: report.eor_rich(shoe, ruleset, effects),
                 lambda: writers[fmt](shoe, ruleset, effects))
