"""``puntobanco risk``: the house's result over a session of N coups, exactly or from whole shoes.

numpy and matplotlib are imported inside the command, so ``puntobanco --help`` stays fast.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path
from typing import Annotated, Any

import typer

from puntobanco.cli._app import app, given_options, refuse_options
from puntobanco.cli._checks import check_seed
from puntobanco.cli._paths import output_file
from puntobanco.cli.ruleopts import RuleOptions, rule_options
from puntobanco.errors import PuntoBancoError

METHODS = ("exact", "simulate")
#: The most sessions one simulation keeps (each holds its checkpoints in memory).
MAX_SESSIONS = 1_000_000

BetMixOption = Annotated[str, typer.Option(
    "--bet", help="A bet (punto, banco, egalite, lion-punto, lion-banco) or a mix with handle "
    "shares, e.g. punto=0.9,lion-punto=0.1.")]


def _session_length(coups: int | None, handle: float | None, stake: float) -> int:
    if not 0 < stake < math.inf:  # also refuses nan
        raise PuntoBancoError(f"--stake is a positive amount, not {stake:g}.", code="bad-stake")
    if handle is not None and not math.isfinite(handle):
        raise PuntoBancoError(f"--handle is an amount, not {handle:g}.", code="bad-coups")
    if coups is not None and handle is not None:
        raise PuntoBancoError("Give --coups or --handle, not both.", code="bad-coups")
    if handle is not None:
        if handle < stake:
            raise PuntoBancoError(f"--handle {handle:g} is less than one stake of {stake:g}.",
                                  code="bad-coups")
        return int(handle // stake)
    n = 1000 if coups is None else coups
    if n < 1:
        raise PuntoBancoError(f"--coups takes at least one coup, not {n}.", code="bad-coups")
    return n


#: The console report's width: every line fits 80 columns (values wrap under their label).
WIDTH = 80
_LABEL = 31


def _row(label: str, *values: str) -> list[str]:
    """A label and its values, one per line, aligned under the first."""
    first, *rest = values
    return [f"  {label}".ljust(_LABEL) + first, *(" " * _LABEL + value for value in rest)]


def _text(summary_dict: dict[str, object], *, decks_text: str) -> str:
    import textwrap

    q = summary_dict["quantiles"]
    assert isinstance(q, dict)
    safe = summary_dict["coups_until_behind_below"]
    assert isinstance(safe, dict)
    simulated = "sessions" in summary_dict
    data: dict[str, Any] = summary_dict

    def crossing(level: str) -> list[str]:
        value = safe.get(level)
        if value is None:
            return ["never (no house edge)"]
        if not simulated:
            return [f"{value:,} coups"]
        out = [f"{value:,} coups (exact)"]
        at = (data.get("prob_house_behind_at_exact_crossings_simulated") or {}).get(level)
        bracket = (data.get("coups_until_behind_below_simulated_bracket") or {}).get(level, {})
        if at is not None:
            out.append(f"simulated P(behind) there {at['prob_house_behind']:.2%} ± "
                       f"{at['std_error']:.2%}")
        else:
            out.append("beyond the session: not simulated")
        if bracket:
            by = bracket.get("by")
            out.append(f"simulated check points: after {bracket['after']:,}, by "
                       + ("—" if by is None else f"{by:,}"))
        return out

    if simulated:
        ev_exact = float(Fraction(str(data["ev_exact"])))
        ev = [f"{data['ev_per_unit']:+.4%} ± {data['ev_per_unit_std_error']:.4%} simulated",
              f"{ev_exact:+.6%} exact"]
        sd = [f"{data['sd_per_unit']:.4f} ± {data['sd_per_unit_std_error']:.4f} simulated "
              "(SD / √N)", f"{data['sd_per_unit_exact']:.6f} exact (one coup)"]
        volatility = [f"{data['volatility_index']:.4f} (simulated SD)"]
        if "prob_house_behind_upper_bound_95" in data:
            behind = [f"< {data['prob_house_behind_upper_bound_95']:.4%} simulated: no session "
                      "behind", "(95 % upper bound)"]
        elif "prob_house_behind_lower_bound_95" in data:
            behind = [f"> {data['prob_house_behind_lower_bound_95']:.4%} simulated: every "
                      "session behind", "(95 % lower bound)"]
        else:
            behind = [f"{data['prob_house_behind']:.4%} ± "
                      f"{data['prob_house_behind_std_error']:.4%} simulated"]
        quantile_head = "  house result after the session (quantiles, simulated):"
    else:
        ev = [f"{data['ev_per_unit']:+.6%}"]
        sd = [f"{data['sd_per_unit']:.6f}"]
        volatility = [f"{data['volatility_index']:.4f}"]
        behind = [f"{data['prob_house_behind']:.4%}"]
        quantile_head = "  house result after the session (quantiles):"
    head = (f"Risk for the house — {summary_dict['bet']}, {summary_dict['coups']:,} coups of "
            f"{summary_dict['stake']:g} ({decks_text}); method: {summary_dict['method']}")
    lines = [
        *textwrap.wrap(head, WIDTH),
        "",
        *_row("EV per unit (house)", *ev),
        *_row("SD per unit", *sd),
        *_row("volatility index (90 %)", *volatility),
        quantile_head,
        "    " + "  ".join(f"{k} {v:+,.2f}" for k, v in q.items()),
        *_row("P(house behind)", *behind),
        *_row("behind with < 5 % from", *crossing("5%")),
        *_row("behind with < 1 % from", *crossing("1%")),
    ]
    if "numerical_error" in summary_dict:
        lines += _row("FFT round-off (measured)", f"{summary_dict['numerical_error']:.1e}")
    if simulated:
        lines += textwrap.wrap(
            f"{summary_dict['sessions']:,} simulated sessions of whole shoes, seed "
            f"{summary_dict['seed']}; ± is one standard error. The crossings are the exact "
            "off-the-top figures.", WIDTH, initial_indent="  ", subsequent_indent="  ")
    return "\n".join(lines)


@app.command()
@rule_options(rules_file=True)
def risk(
    *,
    rules: RuleOptions,
    bet: BetMixOption = "lion-punto",
    coups: Annotated[int | None, typer.Option(
        "--coups", "-n", help="Coups in the session (default 1,000).", show_default=False)] = None,
    handle: Annotated[float | None, typer.Option(
        "--handle", help="Total staked in the session instead of --coups (coups = handle / "
        "stake).", show_default=False)] = None,
    stake: Annotated[float, typer.Option("--stake", help="Amount staked per coup.")] = 1.0,
    method: Annotated[str, typer.Option(
        "--method", help="exact (convolution, independent coups from the full shoe) or simulate "
        "(whole shoes, S1-S3).")] = "exact",
    sessions: Annotated[int, typer.Option(
        "--sessions", help="Simulated sessions with --method simulate.")] = 20_000,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the simulation.")] = 1,
    cut_card: Annotated[int, typer.Option("--cut-card", help="Cards behind the cut card (S3), "
                                          "--method simulate.")] = 14,
    plot: Annotated[Path | None, typer.Option(
        "--plot", help="Draw the distribution and P(behind) against N into this PNG file.",
        show_default=False, dir_okay=False)] = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print one JSON document.")] = False,
    side: Annotated[str | None, typer.Option(
        "--side", help="Whose bankroll the session view follows: player (default) or house.",
        show_default=False)] = None,
    behind: Annotated[str | None, typer.Option(
        "--behind", help="Session view: P(ever behind by this amount within the session), "
        "e.g. 50 or 50,100.", show_default=False)] = None,
    drawdown: Annotated[str | None, typer.Option(
        "--drawdown", help="Session view: P(largest fall from a peak ≥ this amount), and the "
        "drawdown's quantiles.", show_default=False)] = None,
    stop_loss: Annotated[float | None, typer.Option(
        "--stop-loss", help="Session view: stop when this much down (how it ends, how long).",
        show_default=False)] = None,
    stop_win: Annotated[float | None, typer.Option(
        "--stop-win", help="Session view: stop when this much up (with both stops and no "
        "--coups, no coup limit).", show_default=False)] = None,
) -> None:
    """The house's result over N coups of a bet or mix: EV, SD, quantiles, P(behind)."""
    key = method.strip().lower()
    if key not in METHODS:
        raise PuntoBancoError(f"{method!r} is not a method: choose exact or simulate.",
                              code="bad-method")
    n = _session_length(coups, handle, stake)
    shoe, ruleset = rules.shoe_and_rules()
    if plot is not None:
        output_file(plot, option="--plot", suffixes=(".png",))
    if key == "exact":  # whole shoes are what --method simulate plays; exact has none
        refuse_options(given_options("sessions", "seed", "cut_card"), "with --method simulate")
    if key == "simulate":  # every option checked before the work starts
        check_seed(seed)
        if not 2 <= sessions <= MAX_SESSIONS:
            raise PuntoBancoError(f"--sessions takes 2 to {MAX_SESSIONS:,} sessions, not "
                                  f"{sessions}.", code="bad-sessions")
        ruleset.replace(cut_card=cut_card)  # RuleSetError: one sentence
    from puntobanco.analysis.report import shoe_description
    from puntobanco.analysis.risk import (
        coup_distribution,
        mix_label,
        parse_mix,
        risk_summary,
        safe_crossings,
        session_distribution,
    )

    shares = parse_mix(bet)
    label = mix_label(shares)
    dist = coup_distribution(shoe, ruleset, shares)
    session = run = None
    if key == "exact":
        summary, session = risk_summary(dist, n, bet=label, stake=stake)
    else:
        from puntobanco.sim.sessions import simulate_sessions, simulated_summary

        exact_crossings = safe_crossings(dist)
        # check points for the P(behind) curve, and the exact crossings themselves, where the
        # simulation then reports its own P(behind)
        marks = sorted({max(1, round(n * f)) for f in (0.05, 0.1, 0.2, 0.35, 0.5, 0.7, 0.85)}
                       | {c for c in exact_crossings.values() if c is not None and c < n})
        run = simulate_sessions(ruleset.replace(cut_card=cut_card), shares, coups=n,
                                sessions=sessions, seed=seed, composition=shoe, checkpoints=marks)
        summary = simulated_summary(run, bet=label, ev=dist.mean, sd=dist.std_dev, stake=stake,
                                    exact_crossings=exact_crossings)
        if plot is not None:  # the exact distribution beside the simulated one, if it fits
            try:
                session = session_distribution(dist, n)
            except PuntoBancoError:
                session = None
    data = summary.to_dict()
    data["decks"] = ruleset.decks
    data["composition"] = list(shoe)
    from puntobanco.cli import _riskview as view

    if side not in (None, "player", "house"):
        raise PuntoBancoError(f"{side!r} is not a side: choose player or house.",
                              code="bad-bet")
    request = view.ViewRequest(
        side=side or "player", behind=view.parse_amounts(behind, option="--behind"),
        drawdown=view.parse_amounts(drawdown, option="--drawdown"),
        stop_loss=view.parse_amount(stop_loss, option="--stop-loss"),
        stop_win=view.parse_amount(stop_win, option="--stop-win"),
        coups_given=coups, coups=n, stake=stake)
    if side is not None and not request.wanted:
        raise PuntoBancoError("--side chooses whose bankroll the session view follows: give it "
                              "with --behind, --drawdown, --stop-loss or --stop-win.",
                              code="bad-bet")
    if request.wanted:
        exact = view.exact_view(request, dist, required=key == "exact")
        simulated = None if key == "exact" else view.simulated_view(
            request, ruleset.replace(cut_card=cut_card), shares, sessions=sessions, seed=seed,
            composition=shoe)
        data["session_view"] = view.view_document(request, exact=exact, simulated=simulated,
                                                  sessions=sessions)
    if plot is not None:
        from puntobanco.analysis.riskplot import draw_risk_plot

        try:
            draw_risk_plot(plot, summary=summary, dist=dist, session=session, run=run)
        except OSError as error:
            raise PuntoBancoError(f"Cannot write {plot}: {error.strerror}.",
                                  code="bad-out") from None
        data["plot"] = str(plot)
    if json_output:
        print(json.dumps(data, indent=2))
        return
    text = _text(data, decks_text=shoe_description(shoe))
    if "session_view" in data:
        session_view = data["session_view"]
        assert isinstance(session_view, dict)
        text += "\n" + "\n".join(view.view_text(session_view,
                                                money=lambda x: f"{x:,.2f}"))
    if plot is not None:
        text += f"\n  plot: {plot}"
    typer.echo(text)
