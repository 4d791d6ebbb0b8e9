"""``puntobanco design`` output: JSON, Markdown and HTML an analyst can paste, and Rich tables.

>>> from fractions import Fraction
>>> from puntobanco.analysis.design import egalite_rows, banco_rows, search_egalite
>>> from puntobanco.cards import full_composition
>>> from puntobanco.rules import RuleSet
>>> rows = egalite_rows(banco_rows(full_composition(8), RuleSet()))
>>> result = search_egalite(rows, target=(0.14, 0.15), pays=[Fraction(8), Fraction(9)])
>>> print(to_markdown(result).splitlines()[0])
# Égalité pay design — target house edge 14.0000% to 15.0000%
"""

from __future__ import annotations

import json
from typing import Any

from puntobanco.analysis.design import Candidate, SearchResult
from puntobanco.analysis.report import _html_page, _html_table, _md_table
from puntobanco.rules import pay_ratio

TITLES = {"lion": "Lion Bonus pay table", "banco": "Banco payout", "egalite": "Égalité pay"}
_ROW_LABELS = {"natural-win": "Natural win", "natural-tie": "Natural tie",
               **{f"win-by-{m}": f"Win by {m}" for m in range(4, 10)},
               **{f"win-with-{t}": f"Win with {t}" for t in range(1, 10)},
               "win-other": "Win, other totals", "tie": "Tie", "lose": "Lose"}


def _target_text(result: SearchResult) -> str:
    low, high = result.target
    return f"{low:.4%}" if low == high else f"{low:.4%} to {high:.4%}"


def head(result: SearchResult) -> list[str]:
    if result.bet != "lion":
        return ["Rank", "Payout", "House edge", "Std dev", "Hit frequency"]
    first = result.best[0] if result.best else result.spec
    columns = [] if first is None else [_ROW_LABELS.get(k, k) for k in first.pays]
    if first is not None and first.side_edges is not None:
        weighted = ["Weighted edge"] if result.objective.startswith("the handle") else []
        return ["Rank", *columns, *weighted, "Punto edge", "Banco edge", "Std dev",
                "Hit frequency"]
    other = [] if first is None or first.other_side_edge is None else ["Other side's edge"]
    return ["Rank", *columns, "House edge", *other, "Std dev", "Hit frequency"]


def _row(candidate: Candidate, rank: str, *, weighted: bool = False) -> list[str]:
    edge = f"{candidate.house_edge:.4%}"
    cells = ([candidate.name] if candidate.name
             else [pay_ratio(p) for p in candidate.pays.values()])
    if candidate.side_edges is not None:
        sides = [f"{e:.4%}" for e in candidate.side_edges]
        return [rank, *cells, *([edge] if weighted else []), *sides,
                f"{candidate.std_dev:.4f}", f"{candidate.hit_frequency:.4%}"]
    other = [] if candidate.other_side_edge is None else [f"{candidate.other_side_edge:.4%}"]
    return [rank, *cells, edge, *other,
            f"{candidate.std_dev:.4f}", f"{candidate.hit_frequency:.4%}"]


def rows(result: SearchResult) -> list[list[str]]:
    spec = result.spec
    weighted = result.objective.startswith("the handle")
    out = [_row(c, f"{c.rank} ({result.reference_name})" if spec is not None
                and c.pays == spec.pays else str(c.rank), weighted=weighted)
           for c in result.best]
    if result.spec is not None and all(c.pays != result.spec.pays for c in result.best):
        ref = result.reference_name
        place = f"{ref} ({result.spec_place:,})" if result.spec_place else f"{ref} (outside)"
        out.append(_row(result.spec, place, weighted=weighted))
    return out


def summary(result: SearchResult) -> str:
    spec = result.spec
    whose = "SPEC's table" if result.reference_name == "SPEC" else "the reference table"
    where = (f"{whose} does not meet the constraints" if result.spec_place is None
             else f"{whose} ranks {result.spec_place:,} of {result.passed:,}")
    noise = ("" if spec is None or spec.house_edge_std_error is None
             else f" ± {spec.house_edge_std_error:.4%}")
    spec_text = "" if spec is None else (f"; {where} (house edge {spec.house_edge:.4%}{noise}, "
                                         f"SD {spec.std_dev:.4f})")
    exact = ("exact outcome counts, full shoe (off the top)" if result.rows.method == "exact"
             else result.rows.method)
    findings = "".join(f" {sentence}" for sentence in result.findings)
    return (f"{result.candidates:,} candidates scored, {result.passed:,} meet the constraints, "
            f"in {result.seconds:.2f} s; objective: {result.objective}; ranked by distance to "
            f"the target, then by standard deviation{spec_text}. Probabilities: {exact}."
            f"{findings}")


def to_dict(result: SearchResult) -> dict[str, Any]:
    data = result.to_dict()
    data["title"] = TITLES[result.bet]
    data["row_probabilities"] = dict(zip(result.rows.names,
                                         (float(x) for x in result.rows.probabilities),
                                         strict=True))
    if result.rows.errors is not None:
        data["row_standard_errors"] = dict(zip(result.rows.names, result.rows.errors,
                                               strict=True))
    return data


def to_json(result: SearchResult) -> str:
    return json.dumps(to_dict(result), indent=2, ensure_ascii=False) + "\n"


def to_markdown(result: SearchResult) -> str:
    lines = [f"# {TITLES[result.bet]} design — target house edge {_target_text(result)}", "",
             summary(result), ""]
    lines += _md_table(head(result), rows(result))
    return "\n".join(lines) + "\n"


def to_html(result: SearchResult) -> str:
    return _html_page(f"{TITLES[result.bet]} design — target {_target_text(result)}",
                      summary(result), [_html_table(head(result), rows(result))])


def to_rich(result: SearchResult) -> Any:
    """The terminal's table, whole at 80 columns: a Lion Bonus table's pays in two columns
    (natural win / tie, and the margins 9 to 4 as ``20 8 4 4 2 1``), figures never cut."""
    from rich.table import Table

    from puntobanco.analysis.report import fit_columns

    names, cells = _compact(head(result), rows(result))
    said: list[str] = []
    for name in ("Natural win/tie", "Hit frequency"):  # the same in every row: said once
        if name in names and len(cells) > 1 and len({row[names.index(name)] for row in cells}) == 1:
            column = names.index(name)
            value = cells[0][column]
            if name.startswith("Natural"):
                win, tie = (f"{x}:1" if x[0].isdigit() else x for x in value.split("/"))
                said.append(f"natural win {win}, natural tie {tie}")
            else:
                said.append(f"hit frequency {value}")
            names = names[:column] + names[column + 1:]
            cells = [row[:column] + row[column + 1:] for row in cells]
    shared = f"; every table: {', '.join(said)}" if said else ""
    table = Table(*names, title=f"{TITLES[result.bet]} design — target house edge "
                  f"{_target_text(result)}{shared}", caption=summary(result),
                  title_justify="left", pad_edge=False)
    fit_columns(table, cells, labels=1 if result.bet == "lion" else 2)  # a payout is words
    for row in cells:
        table.add_row(*row, style="bold" if row[0].startswith(result.reference_name) else None)
    return table


def _compact(names: list[str], cells: list[list[str]]) -> tuple[list[str], list[list[str]]]:
    """The natural-win and natural-tie columns as one (``1:1 / push``), the margins' pays as
    one (``20 8 4 4 2 1``, each N:1); every other column as it is."""
    natural = [i for i, name in enumerate(names) if name in ("Natural win", "Natural tie")]
    margins = [i for i, name in enumerate(names) if name.startswith("Win by ")]
    if len(natural) != 2 or not margins:
        return names, cells
    merged = set(natural) | set(margins)

    def pay(cell: str) -> str:  # N:1 as N, a half pay 21:2 as 10.5
        top, colon, bottom = cell.partition(":")
        if not colon or not (top.isdigit() and bottom.isdigit()):
            return cell
        return f"{int(top) / int(bottom):g}"

    out_names: list[str] = []
    for i, name in enumerate(names):
        if i == natural[0]:
            out_names.append("Natural win/tie")  # pays N:1 written N
        elif i == margins[0]:
            out_names.append("Pays N:1 by margin " + " ".join(names[j][7:] for j in margins))
        elif i not in merged:
            out_names.append(name)
    out_cells = []
    for row in cells:
        out: list[str] = []
        for i, cell in enumerate(row):
            if i == natural[0]:
                out.append(f"{pay(row[natural[0]])}/{pay(row[natural[1]])}"
                           if len(row) == len(names) else cell)
            elif i == margins[0]:
                out.append(" ".join(pay(row[j]) for j in margins) if len(row) == len(names)
                           else cell)
            elif i not in merged:
                out.append(cell)
        out_cells.append(out)
    return out_names, out_cells
