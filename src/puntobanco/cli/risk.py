"""``puntobanco risk``: the house's result over a session of N coups, exactly or from whole shoes.

numpy and matplotlib are imported inside the command, so ``puntobanco --help`` stays fast.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Annotated

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


def _text(summary_dict: dict[str, object], *, decks_text: str) -> str:
    q = summary_dict["quantiles"]
    assert isinstance(q, dict)
    safe = summary_dict["coups_until_behind_below"]
    assert isinstance(safe, dict)

    def coups_text(value: object) -> str:
        return "never (no house edge)" if value is None else f"{value:,} coups"

    lines = [
        f"Risk for the house — {summary_dict['bet']}, {summary_dict['coups']:,} coups of "
        f"{summary_dict['stake']:g} ({decks_text}); method: {summary_dict['method']}",
        "",
        f"  EV per unit (house)          {summary_dict['ev_per_unit']:+.6%}",
        f"  SD per unit                  {summary_dict['sd_per_unit']:.6f}",
        f"  volatility index (90 %)      {summary_dict['volatility_index']:.4f}",
        "  house result after the session (quantiles):",
        "    " + "  ".join(f"{k} {v:+,.2f}" for k, v in q.items()),
        f"  P(house behind)              {summary_dict['prob_house_behind']:.4%}",
        f"  behind with < 5 % from       {coups_text(safe.get('5%'))}",
        f"  behind with < 1 % from       {coups_text(safe.get('1%'))}",
    ]
    if "numerical_error" in summary_dict:
        lines.append(f"  FFT round-off (measured)     {summary_dict['numerical_error']:.1e}")
    if "sessions" in summary_dict:
        lines.append(f"  {summary_dict['sessions']:,} simulated sessions, seed {summary_dict['seed']}; "
                     f"P(behind) ± {summary_dict['prob_house_behind_std_error']:.4%} (1 s.e.); "
                     "EV, SD per unit and the crossings are the exact off-the-top figures.")
    return "\n".join(lines)


@app.command()
@rule_options()
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

        marks = sorted({max(1, round(n * f)) for f in (0.05, 0.1, 0.2, 0.35, 0.5, 0.7, 0.85)})
        run = simulate_sessions(ruleset.replace(cut_card=cut_card), shares, coups=n,
                                sessions=sessions, seed=seed, composition=shoe, checkpoints=marks)
        summary = simulated_summary(run, bet=label, ev=dist.mean, sd=dist.std_dev, stake=stake,
                                    exact_crossings=safe_crossings(dist))
        if plot is not None:  # the exact distribution beside the simulated one, if it fits
            try:
                session = session_distribution(dist, n)
            except PuntoBancoError:
                session = None
    data = summary.to_dict()
    data["decks"] = ruleset.decks
    data["composition"] = list(shoe)
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
    if plot is not None:
        text += f"\n  plot: {plot}"
    typer.echo(text)
