"""``puntobanco design``: search pay tables (Lion Bonus, Banco, Égalité) for a target house edge.

numpy is imported inside the command, so ``puntobanco --help`` stays fast.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from puntobanco.cli._app import app, given_options, refuse_options
from puntobanco.cli._checks import check_seed, check_shoes
from puntobanco.cli._paths import output_file
from puntobanco.cli.ruleopts import RuleOptions, rule_options
from puntobanco.errors import PuntoBancoError
from puntobanco.rules import BancoPayout

if TYPE_CHECKING:
    from puntobanco.analysis.design import SearchResult

BETS = ("lion", "banco", "egalite")
#: The options each kind of search reads; given to another, they are refused (issue 20).
_ONLY = {"lion": ("side_option", "punto_share", "max_pay", "min_pay", "half_pays", "natural_win",
                  "natural_tie", "lose_margins", "any_order", "min_hit"),
         "banco": ("commissions", "half_totals", "half_pay"),
         "egalite": ("tie_grid",)}
MAX_TOP = 1000
#: The largest pay a searched table may hold (``--max-pay``, ``--natural-win``): 1,000 to 1.
MAX_PAY = 1000
DESIGN_FORMATS = ("table", "json", "md", "html")


def parse_number(text: str, *, what: str) -> Fraction:
    """``0.05``, ``5%``, ``1/20`` or ``-1`` exactly.

    >>> parse_number("12.5%", what="x"), parse_number("3/2", what="x")
    (Fraction(1, 8), Fraction(3, 2))
    """
    raw = text.strip().lower()
    words = {"push": Fraction(0), "lose": Fraction(-1)}
    if raw in words:
        return words[raw]
    try:
        value = Fraction(raw.rstrip("%").strip())
    except (ValueError, ZeroDivisionError):
        raise PuntoBancoError(f"{text!r} is not a number for {what}: give e.g. 0.05, 5% or 1/20.",
                              code="bad-design") from None
    return value / 100 if raw.endswith("%") else value


def parse_values(text: str, *, what: str) -> list[Fraction]:
    """A list: ``1,1.5,2`` or ranges ``low:high:step`` (both ends included), or both mixed.

    >>> [str(x) for x in parse_values("4%:5%:0.5%, 6%", what="x")]
    ['1/25', '9/200', '1/20', '3/50']
    """
    out: list[Fraction] = []
    for part in (p.strip() for p in text.split(",") if p.strip()):
        if ":" in part:
            pieces = part.split(":")
            if len(pieces) != 3:
                raise PuntoBancoError(f"{part!r} is not a range for {what}: give low:high:step.",
                                      code="bad-design")
            low, high, step = (parse_number(p, what=what) for p in pieces)
            if step <= 0 or high < low or (high - low) / step > 10_000:
                raise PuntoBancoError(f"{part!r} is not a usable range for {what}: the step is "
                                      "positive and at most 10,000 steps fit.", code="bad-design")
            value = low
            while value <= high:
                out.append(value)
                value += step
        else:
            out.append(parse_number(part, what=what))
    if not out:
        raise PuntoBancoError(f"Give at least one value for {what}.", code="bad-design")
    return sorted(set(out))


def within(values: list[Fraction], option: str, low: int, high: int, *, rule: str,
           whole: bool = False, above: bool = False, below: bool = False) -> list[Fraction]:
    """The values, if each lies in [low, high] (``above``: low excluded, ``below``: high
    excluded) and is whole where ``whole``; else one sentence naming the first that does not.

    >>> within([Fraction(0), Fraction(12)], "--half-totals", 1, 9, whole=True, rule="1 to 9")
    Traceback (most recent call last):
    ...
    puntobanco.errors.PuntoBancoError: --half-totals cannot take 0: 1 to 9.
    """
    for value in values:
        if (value < low or value > high or (above and value == low) or (below and value == high)
                or (whole and value.denominator != 1)):
            shown = str(value) if value.denominator == 1 else f"{float(value):g}"
            shown = shown if len(shown) <= 24 else f"{shown[:12]}… ({len(shown)} digits)"
            raise PuntoBancoError(f"{option} cannot take {shown}: {rule}.", code="bad-design")
    return values


def parse_target(text: str) -> tuple[float, float]:
    """``10%`` (a point) or ``8%:12%`` (a range) as house edges.

    >>> parse_target("10%"), parse_target("0.08:0.12")
    ((0.1, 0.1), (0.08, 0.12))
    """
    parts = text.split(":")
    if len(parts) > 2:
        raise PuntoBancoError(f"{text!r} is not a target: give an edge (10%) or a range (8%:12%).",
                              code="bad-design")
    exact = [parse_number(p, what="--target") for p in parts]
    low_exact, high_exact = exact[0], exact[-1]
    low, high = (float(x) if -1 < x < 1 else float(x > 0) for x in (low_exact, high_exact))
    if low_exact > high_exact:
        raise PuntoBancoError(f"{text!r} is not a target: a range goes from the lower edge to the "
                              "higher (8%:12%).", code="bad-design")
    if not -1 < low_exact <= high_exact < 1:
        hint = f" (a plain number is a fraction: {text}% is written with the sign)" if all(
            "%" not in p for p in parts) else ""
        raise PuntoBancoError(f"{text!r} is not a house edge between -100% and 100%{hint}.",
                              code="bad-design")
    return low, high


def _render(result: SearchResult, fmt: str) -> tuple[str | None, Any]:
    from puntobanco.analysis import designreport

    if fmt == "json":
        return designreport.to_json(result), None
    if fmt == "md":
        return designreport.to_markdown(result), None
    if fmt == "html":
        return designreport.to_html(result), None
    return None, designreport.to_rich(result)


@app.command()
@rule_options(rules_file=True)
def design(
    *,
    rules: RuleOptions,
    bet: Annotated[str, typer.Option("--bet", help="lion (Lion Bonus pay table), banco "
                                     "(commission or a total paid 1:2) or egalite.")] = "lion",
    target: Annotated[str, typer.Option("--target", help="House edge wanted: 10% or a range "
                                        "8%:12%.")] = "10%",
    side_option: Annotated[str | None, typer.Option(
        "--side", help="Lion Bonus objective: both (default; the worse side's distance to the "
        "target: one pay table serves both), mix (the handle-weighted edge, --punto-share), "
        "punto or banco (that side only).", show_default=False)] = None,
    punto_share: Annotated[str | None, typer.Option(
        "--punto-share", help="With --side mix: Punto's share of the Lion Bonus handle "
        "(default 1/2).", show_default=False)] = None,
    max_pay: Annotated[int, typer.Option("--max-pay", help="Largest pay allowed (Lion).")] = 30,
    min_pay: Annotated[str, typer.Option("--min-pay", help="Smallest pay of a winning margin "
                                         "(Lion).")] = "1",
    half_pays: Annotated[bool, typer.Option("--half-pays", help="Allow half-unit pays "
                                            "(x.5:1) on the margins (Lion).")] = False,
    natural_win: Annotated[str, typer.Option("--natural-win", help="Natural-win pays to try, "
                                             "e.g. 1 or 1,1.5,2 (Lion).")] = "1",
    natural_tie: Annotated[str, typer.Option("--natural-tie", help="Natural-tie results to "
                                             "try: push, lose or a pay (Lion).")] = "push",
    lose_margins: Annotated[bool, typer.Option("--lose-margins", help="Let the smallest margins "
                                               "lose, as a win by 1-3 does (Lion).")] = False,
    any_order: Annotated[bool, typer.Option("--any-order", help="Do not require pays "
                                            "non-increasing as the margin falls (Lion).")] = False,
    min_hit: Annotated[str, typer.Option("--min-hit", help="Least hit frequency, e.g. 25%.")] = "0",
    prefer: Annotated[str, typer.Option("--prefer", help="Among equally close tables: low or "
                                        "high volatility first.")] = "low",
    commissions: Annotated[str, typer.Option("--commissions", help="Banco commissions to try "
                                             "(list or low:high:step).")] = "0%:10%:0.25%",
    half_totals: Annotated[str, typer.Option("--half-totals", help="Banco winning totals to try "
                                             "paying --half-pay instead of 1:1.")] = "1:9:1",
    half_pay: Annotated[str, typer.Option("--half-pay", help="What those Banco wins pay.")] = "1/2",
    tie_grid: Annotated[str, typer.Option("--tie-pays-grid", help="Égalité pays to try.")]
    = "5:12:0.5",
    top: Annotated[int, typer.Option("--top", help="How many tables to show.")] = 15,
    cut_card_depth: Annotated[int | None, typer.Option(
        "--cut-card-depth", help="Average the outcome probabilities over the coups dealt to a "
        "cut card this many cards from the end (simulated shoes, exact probabilities of the "
        "cards left); default: off the top of the full shoe, exactly.", show_default=False)]
    = None,
    shoes: Annotated[int, typer.Option("--shoes", help="Shoes played for --cut-card-depth.")]
    = 500,
    seed: Annotated[int, typer.Option("--seed", help="Seed for --cut-card-depth.")] = 1,
    output_format: Annotated[str, typer.Option("--format", "-f", help="table, json, md or "
                                               "html.")] = "table",
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Write to this file.",
                                             show_default=False, dir_okay=False)] = None,
) -> None:
    """Search pay tables for a target house edge, exactly; rank by closeness, then volatility."""
    key = bet.strip().lower().replace("-", "_")
    key = {"lion_bonus": "lion", "égalité": "egalite", "tie": "egalite"}.get(key, key)
    if key not in BETS:
        raise PuntoBancoError(f"{bet!r} is not a bet to design: choose lion, banco or egalite.",
                              code="bad-bet")
    fmt = output_format.strip().lower().replace("markdown", "md")
    if fmt not in DESIGN_FORMATS:
        raise PuntoBancoError(f"{output_format!r} is not an output format: choose table, json, "
                              "md or html.", code="bad-format")
    if prefer not in ("low", "high"):
        raise PuntoBancoError(f"{prefer!r} is not a preference: choose low or high.",
                              code="bad-design")
    side = side_option or "both"
    if side not in ("punto", "banco", "both", "mix"):
        raise PuntoBancoError(f"{side!r} is not a side: choose both, mix, punto or banco.",
                              code="bad-design")
    if not 1 <= top <= MAX_TOP:
        raise PuntoBancoError(f"--top shows 1 to {MAX_TOP} tables, not {top}.", code="bad-design")
    if punto_share is not None and (key != "lion" or side != "mix"):
        raise PuntoBancoError("--punto-share weights the two Lion Bonus sides: it goes with "
                              "--bet lion --side mix.", code="bad-design")
    for kind, options in _ONLY.items():
        if kind != key:
            refuse_options(given_options(*options), f"to --bet {kind}")
    if cut_card_depth is None:
        refuse_options(given_options("shoes", "seed"), "with --cut-card-depth")
    if out is not None:
        output_file(out, option="--out")
    goal = parse_target(target)
    # the shoe and drawing rule; the table's pays are the reference placed among the candidates
    shoe, ruleset = rules.shoe_and_rules()
    if cut_card_depth is not None:
        if rules.composition is not None:
            raise PuntoBancoError("--cut-card-depth plays full shoes: give --decks, not "
                                  "--composition.", code="bad-design")
        check_shoes(shoes)
        check_seed(seed)
        ruleset = ruleset.replace(cut_card=cut_card_depth)  # RuleSetError: one sentence
    hit = float(within([parse_number(min_hit, what="--min-hit")], "--min-hit", 0, 1,
                       rule="a hit frequency lies between 0 and 100%")[0])
    if not 1 <= max_pay <= MAX_PAY:
        raise PuntoBancoError(f"--max-pay takes 1 to {MAX_PAY}, not {max_pay}.",
                              code="bad-design")
    from puntobanco.analysis import design as search

    if key == "lion":
        if cut_card_depth is None:
            punto_rows = search.lion_rows(shoe, ruleset, side="punto")
            banco_rows = search.lion_rows(shoe, ruleset, side="banco")
        else:
            from puntobanco.sim.shoestates import lion_rows_by_depth

            punto_rows = lion_rows_by_depth(ruleset, side="punto", shoes=shoes, seed=seed)
            banco_rows = lion_rows_by_depth(ruleset, side="banco", shoes=shoes, seed=seed)
        rows, other = (banco_rows, punto_rows) if side == "banco" else (punto_rows, banco_rows)
        objective = {"punto": "the Punto side's house edge", "banco": "the Banco side's house "
                     "edge", "both": "the worse side's distance (Punto and Banco)"}.get(side)
        if side == "mix":
            share = parse_number(punto_share or "1/2", what="--punto-share")
            rows = search.mixed_rows(punto_rows, banco_rows, share)
            objective = (f"the handle-weighted edge, Punto {float(share):.0%} and Banco "
                         f"{float(1 - share):.0%}")
        step = Fraction(1, 2) if half_pays else Fraction(1)
        low_pay = parse_number(min_pay, what="--min-pay")
        if low_pay < 0 or max_pay < low_pay:
            raise PuntoBancoError("--min-pay is at least 0 and at most --max-pay.",
                                  code="bad-design")
        wins = within(parse_values(natural_win, what="--natural-win"), "--natural-win",
                      0, MAX_PAY, above=True, rule=f"a pay above 0, at most {MAX_PAY}")
        ties = within(parse_values(natural_tie, what="--natural-tie"), "--natural-tie",
                      -1, MAX_PAY, rule=f"lose (-1), push (0) or a pay up to {MAX_PAY}")
        # design proposes only what a table can deal: every value tried is a RuleSet's
        search.verify_expressible(ruleset, "--natural-win", [
            {"lion_natural_pays": w} for w in wins])
        search.verify_expressible(ruleset, "--natural-tie", [
            {"lion_natural_tie_pays": t} for t in ties])
        search.verify_expressible(ruleset, "--max-pay/--min-pay/--half-pays", [
            {"lion_paytable": (pay,) * 6} for pay in (low_pay, Fraction(max_pay), step)])
        result = search.search_lion(
            rows, target=goal, max_pay=max_pay, min_pay=low_pay, step=step,
            natural_win=wins, natural_tie=ties, min_hit=hit,
            monotone=not any_order, prefer=prefer, top=top, lose_margins=lose_margins,
            reference=ruleset.lion_paytable, both_sides=other if side == "both" else None,
            objective=objective,
            base=ruleset, reference_natural=(Fraction(ruleset.lion_natural_pays),
                                             Fraction(ruleset.lion_natural_tie_pays)))
        result = search.with_side_edges(result, punto_rows, banco_rows)
    else:
        if cut_card_depth is None:
            rows = search.banco_rows(shoe, ruleset)
        else:
            from puntobanco.sim.shoestates import banco_rows_by_depth

            rows = banco_rows_by_depth(ruleset, shoes=shoes, seed=seed)
        if key == "banco":
            totals = [int(t) for t in within(parse_values(half_totals, what="--half-totals"),
                                             "--half-totals", 1, 9, whole=True,
                                             rule="Banco wins with a total of 1 to 9")]
            rates = within(parse_values(commissions, what="--commissions"), "--commissions", 0, 1,
                           below=True, rule="a commission is at least 0 and less than 1")
            reduced = within(parse_values(half_pay, what="--half-pay"), "--half-pay", 0, 1,
                             below=True, rule="a Banco win paid less than 1:1 pays at least 0")
            search.verify_expressible(ruleset, "--commissions", [
                {"banco_payout": BancoPayout.COMMISSION, "commission": c} for c in rates])
            search.verify_expressible(ruleset, "--half-pay", [
                {"banco_payout": BancoPayout.HALF_ON_SIX, "banco_reduced_pays": ((6, p),)}
                for p in reduced])
            result = search.search_banco(
                rows, target=goal, commissions=rates,
                half_totals=totals, half_pays=reduced,
                prefer=prefer, top=top, reference_commission=ruleset.commission
                if ruleset.banco_payout is BancoPayout.COMMISSION else None, base=ruleset,
                min_hit=hit)
        else:
            grid = within(parse_values(tie_grid, what="--tie-pays-grid"), "--tie-pays-grid",
                          0, 10_000, above=True, rule="an Égalité pay is more than 0")
            search.verify_expressible(ruleset, "--tie-pays-grid", [{"tie_pays": k} for k in grid])
            result = search.search_egalite(search.egalite_rows(rows), target=goal,
                                           pays=grid, prefer=prefer, top=top,
                                           reference=Fraction(ruleset.tie_pays), base=ruleset,
                                           min_hit=hit)
    text, renderable = _render(result, fmt)
    from puntobanco.cli.par import _emit

    _emit(text, renderable, out)
