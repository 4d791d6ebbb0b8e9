"""PAR sheets and effects-of-removal tables in every output format: JSON, CSV, Markdown, HTML, Rich.

>>> from puntobanco.analysis import analyse
>>> from puntobanco.cards import full_composition
>>> sheet = analyse(full_composition(8))
>>> data = par_to_dict(sheet)
>>> data["total_combinations"], data["bets"]["punto"]["outcomes"][0]["combinations"]
(4998398275503360, 2230518282592256)
>>> print(par_markdown(sheet).splitlines()[0])
# PAR sheet — 8 decks (416 cards)
"""

from __future__ import annotations

import csv
import html
import io
import json
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from puntobanco.analysis.exact import BetAnalysis, ParSheet
from puntobanco.analysis.tables import BET_NAMES
from puntobanco.cards import DECK_SIZE, Composition, full_composition
from puntobanco.rules import BancoPayout, Pay, RuleSet, pay_ratio
from puntobanco.rules_json import PAYOUT_KEYS, rules_to_json

__all__ = [
    "FORMATS",
    "eor_csv",
    "eor_html",
    "eor_json",
    "eor_markdown",
    "eor_rich",
    "eor_to_dict",
    "par_csv",
    "par_html",
    "par_json",
    "par_markdown",
    "par_rich",
    "par_to_dict",
]

FORMATS: tuple[str, ...] = ("table", "json", "md", "html", "csv")

BET_LABELS: dict[str, str] = {
    "punto": "Punto", "banco": "Banco", "egalite": "Égalité",
    "lion-punto": "Lion Bonus Punto", "lion-banco": "Lion Bonus Banco",
}
_OUTCOME_LABELS: dict[str, str] = {
    "win": "Win", "push": "Push (Égalité)", "lose": "Lose",
    **{f"win-with-{t}-{n}-cards": f"Win with {t}, {n} cards" for t in range(1, 10)
       for n in ("two", "three")}, "natural-win": "Natural win", "natural-tie": "Natural tie",
    **{f"win-by-{m}": f"Win by {m}" for m in range(4, 10)},
}
#: Card values as a dealer names them: index 0 is the tens and faces.
VALUE_LABELS: tuple[str, ...] = ("10/J/Q/K", "A", "2", "3", "4", "5", "6", "7", "8", "9")


def outcome_label(bet: str, outcome: str, *, split_six: bool = False) -> str:
    """A row's name for people; ``split_six``: Banco's wins with 6 have rows of their own."""
    if bet == "egalite":
        return {"win": "Égalité", "lose": "No Égalité"}.get(outcome, outcome)
    if bet == "banco" and outcome == "win" and split_six:
        return "Win, other totals"
    return _OUTCOME_LABELS.get(outcome, outcome)


def shoe_description(composition: Composition) -> str:
    """``6 decks (312 cards)`` for a full shoe, else the counts."""
    cards = sum(composition)
    decks, rest = divmod(cards, DECK_SIZE)
    if rest == 0 and decks >= 1 and tuple(composition) == full_composition(decks):
        return f"{decks} deck{'s' if decks > 1 else ''} ({cards} cards)"
    return f"composition {','.join(map(str, composition))} ({cards} cards)"


def rules_to_dict(rules: RuleSet) -> dict[str, Any]:
    """The settings a PAR sheet depends on, spelt as the server's ``rules`` object spells them."""
    return rules_to_json(rules, only=PAYOUT_KEYS)


def rules_description(rules: RuleSet) -> str:
    if rules.banco_payout is BancoPayout.COMMISSION:
        banco = f"Banco 1:1 less {float(rules.commission):.4g} commission"
    else:
        reduced = ", ".join(f"{pay_ratio(p)} on a winning {t}" for t, p in rules.banco_reduced_pays)
        banco = "Banco no commission" + (f", {reduced}" if reduced else "")
    paytable = ",".join(_pay_word(p) for p in rules.lion_paytable)
    tie = ("" if rules.lion_natural_tie_pays == 0
           else f", natural tie {pay_ratio(rules.lion_natural_tie_pays)}")
    return (f"{rules.drawing.value} drawing; {banco}; Égalité {pay_ratio(rules.tie_pays)}; "
            f"Lion Bonus {paytable} (natural {pay_ratio(rules.lion_natural_pays)}{tie})")


def _pay_word(pay: Pay) -> str:
    """A pay-table entry as the ``--lion-paytable`` option and the docs write it: 20, 1.5, -1."""
    return str(pay) if isinstance(pay, int) else f"{float(pay):g}"


def _bet_to_dict(bet: BetAnalysis) -> dict[str, Any]:
    return {
        "ev": str(bet.ev),
        "rtp": float(bet.rtp),
        "house_edge": bet.house_edge,
        "edge_ties_excluded": float(bet.edge_ties_excluded),
        "element_of_risk": float(bet.element_of_risk),
        "push_probability": str(bet.push_probability),
        "variance": str(bet.variance),
        "std_dev": bet.std_dev,
        "hit_frequency": bet.hit_frequency,
        "outcomes": [
            {"outcome": row.name, "combinations": row.combinations,
             "probability": float(bet.probability(row)), "pays": str(row.pays),
             "contribution": float(bet.contribution(row))}
            for row in bet.outcomes
        ],
    }


def par_to_dict(sheet: ParSheet) -> dict[str, Any]:
    """The JSON shape of a PAR sheet: exact counts as integers, exact fractions as strings."""
    return {
        "composition": list(sheet.composition),
        "cards": sheet.cards,
        "rules": rules_to_dict(sheet.rules),
        "total_combinations": sheet.total_combinations,
        "bets": {name: _bet_to_dict(bet) for name, bet in sheet.bets.items()},
    }


def par_json(sheet: ParSheet) -> str:
    return json.dumps(par_to_dict(sheet), indent=2, ensure_ascii=False) + "\n"


def par_csv(sheet: ParSheet) -> str:
    """One line per outcome row; the bet's summary figures repeat on each of its lines."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["bet", "outcome", "combinations", "probability", "pays", "contribution",
                     "ev", "house_edge", "std_dev", "hit_frequency"])
    for name, bet in sheet.bets.items():
        for row in bet.outcomes:
            writer.writerow([name, row.name, row.combinations, f"{float(bet.probability(row)):.12g}",
                             str(row.pays), f"{float(bet.contribution(row)):.12g}", str(bet.ev),
                             f"{bet.house_edge:.12g}", f"{bet.std_dev:.12g}",
                             f"{bet.hit_frequency:.12g}"])
    return out.getvalue()


def _summary_rows(sheet: ParSheet) -> list[list[str]]:
    return [[BET_LABELS[name], f"{float(bet.rtp):.4%}", f"{bet.house_edge:.4%}",
             f"{float(bet.edge_ties_excluded):.4%}", f"{float(bet.element_of_risk):.4%}",
             f"{bet.std_dev:.4f}", f"{bet.hit_frequency:.4%}"]
            for name, bet in sheet.bets.items()]


_SUMMARY_HEAD = ["Bet", "RTP", "House edge", "Ties excluded", "Element of risk", "Std dev",
                 "Hit frequency"]
#: Under the summary: what the two edges beside the house edge mean.
SUMMARY_NOTE = ("House edge: expected loss per unit staked per coup. Ties excluded: per coup that "
                "decides the bet (a returned stake is not counted). Element of risk: per unit "
                "wagered; no bet here can be raised, so it equals the house edge.")
_ROW_HEAD = ["Outcome", "Combinations", "Probability", "Pays", "Return"]


def _outcome_rows(name: str, bet: BetAnalysis) -> list[list[str]]:
    split = any(row.name.startswith("win-with-") for row in bet.outcomes)
    rows = [[outcome_label(name, row.name, split_six=split), f"{row.combinations:,}",
             f"{float(bet.probability(row)):.8f}", pay_ratio(row.pays),
             f"{float(bet.contribution(row)):+.8f}"] for row in bet.outcomes]
    rows.append(["Total", f"{bet.total_combinations:,}", "1.00000000", "",
                 f"{float(bet.ev):+.8f}"])
    return rows


def _md_table(head: Sequence[str], rows: Sequence[Sequence[str]], right: int = 1) -> list[str]:
    align = ["---"] * right + ["---:"] * (len(head) - right)
    lines = ["| " + " | ".join(head) + " |", "| " + " | ".join(align) + " |"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def par_markdown(sheet: ParSheet) -> str:
    lines = [f"# PAR sheet — {shoe_description(sheet.composition)}", "",
             f"Rules: {rules_description(sheet.rules)}. Every ordered six-card sequence counted "
             f"once: {sheet.total_combinations:,} in all.", ""]
    lines += _md_table(_SUMMARY_HEAD, _summary_rows(sheet))
    for name, bet in sheet.bets.items():
        lines += ["", f"## {BET_LABELS[name]} — EV {float(bet.ev):+.6%} (exactly {bet.ev})", ""]
        lines += _md_table(_ROW_HEAD, _outcome_rows(name, bet))
    return "\n".join(lines) + "\n"


_HTML_STYLE = """
body { font: 10pt/1.3 "DejaVu Sans", Arial, sans-serif; margin: 1.2cm; color: #111; }
h1 { font-size: 15pt; margin: 0 0 .2em; } h2 { font-size: 10.5pt; margin: .8em 0 .2em; }
p.meta { margin: 0 0 .6em; color: #333; }
table { border-collapse: collapse; margin-bottom: .3em; }
th, td { border-bottom: 1px solid #ccc; padding: .1em .5em; text-align: right;
         white-space: nowrap; }
th:first-child, td:first-child { text-align: left; }
tr.total td { font-weight: bold; border-top: 1px solid #666; }
.grid { display: flex; flex-wrap: wrap; gap: 0 1.5em; align-items: flex-start; }
footer { margin-top: .8em; font-size: 8pt; color: #555; }
@page { size: A4; margin: 1cm; }
@media print { body { margin: 0; font-size: 7.5pt; } }
"""


def _html_table(head: Sequence[str], rows: Sequence[Sequence[str]], *,
                total_last: bool = False) -> str:
    parts = ["<table><thead><tr>", *(f"<th>{html.escape(h)}</th>" for h in head),
             "</tr></thead><tbody>"]
    for index, row in enumerate(rows):
        total = total_last and index == len(rows) - 1
        parts.append('<tr class="total">' if total else "<tr>")
        parts += [f"<td>{html.escape(cell)}</td>" for cell in row]
        parts.append("</tr>")
    parts.append("</tbody></table>")
    return "".join(parts)


def _html_page(title: str, meta: str, body: list[str]) -> str:
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{html.escape(title)}</title><style>{_HTML_STYLE}</style></head><body>",
        f"<h1>{html.escape(title)}</h1>", f'<p class="meta">{html.escape(meta)}</p>', *body,
        "<footer>puntobanco exact analysis: every ordered six-card sequence of the shoe counted "
        "once (the published convention); rule numbers refer to SPEC.md.</footer>",
        "</body></html>", ""])


def par_html(sheet: ParSheet) -> str:
    """A printable one-page report."""
    body = [_html_table(_SUMMARY_HEAD, _summary_rows(sheet)), '<div class="grid">']
    for name, bet in sheet.bets.items():
        body.append(f"<section><h2>{html.escape(BET_LABELS[name])} — EV "
                    f"{float(bet.ev):+.6%}</h2>")
        body.append(_html_table(_ROW_HEAD, _outcome_rows(name, bet), total_last=True))
        body.append("</section>")
    body.append("</div>")
    meta = (f"{rules_description(sheet.rules)}. {sheet.total_combinations:,} ordered six-card "
            "sequences.")
    return _html_page(f"PAR sheet — {shoe_description(sheet.composition)}", meta, body)


def _figures_whole(table: Any, rows: Sequence[Sequence[str]]) -> None:
    """Figures keep their whole width on one line, at 80 columns too: the labels and the headers
    wrap between words instead (a count cut across two lines reads as two numbers)."""
    for index, column in enumerate(table.columns):
        if index == 0:
            column.min_width = 10
            continue
        column.justify, column.overflow = "right", "fold"  # narrower than 80: fold, never cut
        column.min_width = max(len(row[index]) for row in rows)
        # a column whose header is no wider than its figures keeps its width: the labels give
        # way instead, and the table fits 80 columns with its right border
        column.no_wrap = len(str(column.header)) <= column.min_width


def fit_columns(table: Any, rows: Sequence[Sequence[str]], *, labels: int) -> None:
    """Make a Rich table read whole at 80 columns: the first ``labels`` columns wrap between
    words and never get narrower than their longest word (no name is cut); every other column
    holds figures, each on one line, under a header wrapped to the figures' width, so only the
    labels give way when the terminal is narrow."""
    import textwrap

    for index, column in enumerate(table.columns):
        cells = [str(column.header), *(row[index] for row in rows)]
        if index < labels:
            column.min_width = max(len(word) for cell in cells for word in cell.split())
            column.overflow = "fold"
        else:
            column.justify, column.no_wrap = "right", True
            column.min_width = max(len(row[index]) for row in rows) if rows else 1
            column.header = textwrap.fill(str(column.header), max(column.min_width, 1),
                                          break_long_words=False)


def par_rich(sheet: ParSheet) -> Any:
    """A Rich renderable (imported lazily, for the terminal)."""
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    parts: list[Any] = [
        Text(f"PAR sheet — {shoe_description(sheet.composition)}", style="bold"),
        Text(f"{rules_description(sheet.rules)}\n{sheet.total_combinations:,} ordered six-card "
             "sequences", style="dim"),
    ]
    summary = Table(*_SUMMARY_HEAD, title="Summary", title_justify="left", pad_edge=False)
    summary_rows = _summary_rows(sheet)
    _figures_whole(summary, summary_rows)
    for row in summary_rows:
        summary.add_row(*row)
    parts.append(summary)
    parts.append(Text(SUMMARY_NOTE, style="dim"))
    for name, bet in sheet.bets.items():
        table = Table(*_ROW_HEAD, title=f"{BET_LABELS[name]} — EV {float(bet.ev):+.6%}",
                      title_justify="left")
        rows = _outcome_rows(name, bet)
        _figures_whole(table, rows)
        for index, row in enumerate(rows):
            table.add_row(*row, style="bold" if index == len(rows) - 1 else None,
                          end_section=index == len(rows) - 2)
        parts.append(table)
    return Group(*parts)


# ----------------------------------------------------------------- effects of removal


def eor_to_dict(composition: Composition, rules: RuleSet,
                effects: Mapping[str, Sequence[Fraction]]) -> dict[str, Any]:
    """JSON shape: per bet, the exact change in EV per card removed and the same in percent."""
    return {
        "composition": list(composition),
        "cards": sum(composition),
        "rules": rules_to_dict(rules),
        "values": list(VALUE_LABELS),
        "effects": {name: {"exact": [str(x) if composition[v] else None
                                     for v, x in enumerate(effects[name])],
                           "percent": [float(x) * 100 if composition[v] else None
                                       for v, x in enumerate(effects[name])]}
                    for name in BET_NAMES},
    }


def eor_json(composition: Composition, rules: RuleSet,
             effects: Mapping[str, Sequence[Fraction]]) -> str:
    return json.dumps(eor_to_dict(composition, rules, effects), indent=2, ensure_ascii=False) + "\n"


def _eor_rows(composition: Composition,
              effects: Mapping[str, Sequence[Fraction]]) -> list[list[str]]:
    """Percent of the stake per card removed; a value with no card left shows a dash."""
    return [[label, *(f"{float(effects[name][value]) * 100:+.6f}" if composition[value] else "—"
                      for name in BET_NAMES)]
            for value, label in enumerate(VALUE_LABELS)]


_EOR_HEAD = ["Card removed", *(BET_LABELS[name] for name in BET_NAMES)]
_EOR_NOTE = ("Change in EV, in percent of the stake, when one card of the value leaves the shoe "
             "(a dash: no card of that value is left).")


def eor_csv(composition: Composition, rules: RuleSet,
            effects: Mapping[str, Sequence[Fraction]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["value", "card", *(f"{name}_exact" for name in BET_NAMES),
                     *(f"{name}_percent" for name in BET_NAMES)])
    for value, label in enumerate(VALUE_LABELS):
        present = composition[value] > 0
        writer.writerow([value, label,
                         *(str(effects[name][value]) if present else "" for name in BET_NAMES),
                         *(f"{float(effects[name][value]) * 100:.12g}" if present else ""
                           for name in BET_NAMES)])
    return out.getvalue()


def eor_markdown(composition: Composition, rules: RuleSet,
                 effects: Mapping[str, Sequence[Fraction]]) -> str:
    lines = [f"# Effects of removal — {shoe_description(composition)}", "",
             f"Rules: {rules_description(rules)}. {_EOR_NOTE}", ""]
    lines += _md_table(_EOR_HEAD, _eor_rows(composition, effects))
    return "\n".join(lines) + "\n"


def eor_html(composition: Composition, rules: RuleSet,
             effects: Mapping[str, Sequence[Fraction]]) -> str:
    return _html_page(f"Effects of removal — {shoe_description(composition)}",
                      f"{rules_description(rules)}. {_EOR_NOTE}",
                      [_html_table(_EOR_HEAD, _eor_rows(composition, effects))])


def eor_rich(composition: Composition, rules: RuleSet,
             effects: Mapping[str, Sequence[Fraction]]) -> Any:
    from rich.table import Table

    table = Table(*_EOR_HEAD, title=f"Effects of removal — {shoe_description(composition)}",
                  caption=f"{rules_description(rules)}\n{_EOR_NOTE}", title_justify="left")
    for column in table.columns[1:]:
        column.justify = "right"
    for row in _eor_rows(composition, effects):
        table.add_row(*row)
    return table
