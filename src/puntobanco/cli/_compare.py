"""``puntobanco par --compare``: this game beside commission baccarat, EZ Baccarat and the Dragon
Bonus, exactly, for 6 and 8 decks (or the ``--decks`` given), checked against published figures.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from puntobanco.errors import PuntoBancoError


def compare_command(*, decks: int | None, fmt: str, out: Path | None, rules: str,
                    emit: Any, lion_paytable: str | None = None) -> None:
    """Render the comparison in ``fmt`` (table, json, md or html) through ``emit(fmt, out, rich,
    text)`` (the ``par`` command's writer). ``--lion-paytable`` sets the Lion Bonus line's table;
    the other pay options do not apply (each game has its own pays)."""
    from puntobanco.analysis import variants
    from puntobanco.cli.ruleopts import parse_drawing
    from puntobanco.rules import LION_PAYTABLE, parse_paytable

    if fmt == "csv":
        raise PuntoBancoError("par --compare writes table, json, md or html, not csv.",
                              code="bad-format")
    if decks is not None and not 1 <= decks <= 8:
        raise PuntoBancoError(f"--decks takes 1 to 8 decks, not {decks}.", code="bad-decks")
    table = LION_PAYTABLE if lion_paytable is None else parse_paytable(lion_paytable)
    lines = variants.compare((6, 8) if decks is None else (decks,), parse_drawing(rules),
                             lion_paytable=table)
    checks = variants.published_checks(lines)

    def rich() -> Any:
        return compare_rich(lines, checks)

    writers = {"json": variants.compare_json, "md": variants.compare_markdown,
               "html": variants.compare_html}
    emit(fmt, out, rich, lambda: writers[fmt](lines, checks))


def compare_rich(lines: Sequence[Any], checks: Sequence[dict[str, Any]]) -> Any:
    """The terminal's tables, whole at 80 columns: one table per number of decks (the decks in
    its title, not in a column), names wrapped between words, figures on one line, and the
    sources of the published figures as numbered notes below their table (a URL is folded,
    never cut)."""
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    from puntobanco.analysis import variants
    from puntobanco.analysis.report import fit_columns

    rows = variants.compare_rows(lines)
    head = [name for name in variants.COMPARE_HEAD if name != "Decks"]
    parts: list[Any] = []
    for decks in dict.fromkeys(line.decks for line in lines):
        table = Table(*head, title=f"Baccarat variants side by side — {decks} decks (exact, "
                      "full shoe)", title_justify="left")
        chosen = [[cell for index, cell in enumerate(row) if index != 2]
                  for line, row in zip(lines, rows, strict=True) if line.decks == decks]
        fit_columns(table, chosen, labels=2)
        previous = None
        for row in chosen:
            if previous is not None and row[0] != previous:
                table.add_section()
            table.add_row(row[0] if row[0] != previous else "", *row[1:])
            previous = row[0]
        parts.append(table)
    parts.append(Text(variants.COMPARE_NOTE, style="dim"))
    if checks:
        sources = list(dict.fromkeys(c["source"] for c in checks))
        check = Table("Figure", "Published", "This engine", "", "Source",
                      title="Checked against published figures", title_justify="left")
        cells = [[c["what"], c["published"], c["computed"], "ok" if c["matches"] else "DIFFERS",
                  f"[{sources.index(c['source']) + 1}]"] for c in checks]
        fit_columns(check, cells, labels=1)
        for row in cells:
            check.add_row(*row)
        parts.append(check)
        parts.append(Text("\n".join(f"[{n}] {source}" for n, source in enumerate(sources, 1)),
                          overflow="fold"))
    return Group(*parts)

