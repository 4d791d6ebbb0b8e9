"""``puntobanco par --compare``: this game beside commission baccarat, EZ Baccarat and the Dragon
Bonus, exactly, for 6 and 8 decks (or the ``--decks`` given), checked against published figures.
"""

from __future__ import annotations

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
        from rich.console import Group
        from rich.table import Table

        table = Table(*variants.COMPARE_HEAD, title="Baccarat variants side by side (exact, "
                      "full shoes)", title_justify="left")
        for column in table.columns[2:]:
            column.justify = "right"
        previous = None
        for line, row in zip(lines, variants.compare_rows(lines), strict=True):
            table.add_row(*row, end_section=previous is not None and previous != line.decks)
            previous = line.decks
        parts: list[Any] = [table]
        if checks:
            check = Table("Figure", "Published", "This engine", "", "Source",
                          title="Checked against published figures", title_justify="left")
            for c in checks:
                check.add_row(c["what"], c["published"], c["computed"],
                              "ok" if c["matches"] else "DIFFERS", c["source"])
            parts.append(check)
        return Group(*parts)

    writers = {"json": variants.compare_json, "md": variants.compare_markdown,
               "html": variants.compare_html}
    emit(fmt, out, rich, lambda: writers[fmt](lines, checks))
