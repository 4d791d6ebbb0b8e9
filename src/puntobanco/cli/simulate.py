"""``puntobanco simulate`` and ``puntobanco count``: the shoe simulator and the counting study.

numpy, numba and Dask are imported inside the commands, so ``puntobanco --help`` stays fast.
"""

from __future__ import annotations

import json
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from puntobanco.cli._app import app
from puntobanco.cli._checks import check_seed, check_shoes, check_workers
from puntobanco.cli._paths import output_folder
from puntobanco.cli.ruleopts import RuleOptions, rule_options
from puntobanco.rules import LastCoup, RuleSet

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from puntobanco.cards import Composition

SeedOption = Annotated[int | None, typer.Option(
    "--seed", help="Seed of the whole run (default: fresh, and printed so it can be reused).",
    show_default=False)]
CutCardOption = Annotated[int, typer.Option(
    "--cut-card", help="Cards behind the cut card (S3).")]
WorkersOption = Annotated[int | None, typer.Option(
    "--workers", help="Start a local Dask cluster of K worker processes (default: run in this "
    "process, one thread per core).", show_default=False)]
SchedulerOption = Annotated[str | None, typer.Option(
    "--scheduler", help="Send the work to an existing Dask cluster, e.g. tcp://10.0.0.5:8786.",
    show_default=False)]
JsonOption = Annotated[bool, typer.Option("--json", help="Print one JSON document.")]


def table_and_shoe(rules: RuleOptions, *, cut_card: int) -> tuple[Composition, RuleSet]:
    """The shared rule options plus ``--cut-card``, checked, as (composition, RuleSet)."""
    shoe, ruleset = rules.shoe_and_rules()
    return shoe, ruleset.replace(cut_card=cut_card)


def fresh_seed(seed: int | None) -> int:
    """The seed given, or fresh entropy from numpy's ``SeedSequence`` (reported in the output)."""
    if seed is not None:
        check_seed(seed)
        return seed
    import numpy as np

    return int(np.random.SeedSequence().entropy)  # type: ignore[arg-type]


@contextmanager
def progress_bar(label: str, total: int, *, enabled: bool) -> Iterator[Callable[[int], None]]:
    """A Rich progress bar on the terminal's stderr, advanced by the callback it yields."""
    if not enabled or not sys.stderr.isatty():
        yield lambda _done: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    with Progress("[progress.description]{task.description}", BarColumn(),
                  MofNCompleteColumn(), TimeRemainingColumn(),
                  console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task(label, total=total)
        yield lambda done: progress.advance(task, done)


@contextmanager
def compiling(*, enabled: bool) -> Iterator[None]:
    """``compiling (first run only)…`` on the terminal's stderr while the kernels get ready."""
    if not enabled or not sys.stderr.isatty():
        yield
        return
    from rich.console import Console

    with Console(stderr=True).status("compiling (first run only)…"):
        yield


def _rate(per_second: float) -> str:
    if per_second >= 1e6:
        return f"{per_second / 1e6:.1f} million coups per second"
    return f"{per_second:,.0f} coups per second"


def _percent(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:+.4f}%"


def shoe_sentence(rules: RuleSet, composition: Composition) -> str:
    cards = sum(composition)
    shoe = f"{rules.decks} deck(s)" if cards == 52 * rules.decks else f"{cards} cards"
    return (f"{shoe}, cut card {rules.cut_card} cards from the end, "
            f"{'one more coup' if rules.last_coup is LastCoup.ONE_MORE else 'no more coups'} "
            "after it (S3)")


@app.command()
@rule_options(rules_file=True)
def simulate(
    *,
    shoes: Annotated[int, typer.Option("--shoes", help="How many shoes to play.")] = 100_000,
    seed: SeedOption = None,
    cut_card: CutCardOption = 14,
    workers: WorkersOption = None,
    scheduler: SchedulerOption = None,
    json_output: JsonOption = False,
    rules: RuleOptions,
) -> None:
    """Play whole shoes (shuffle, burn, cut card, one more coup) and settle all five bets."""
    check_shoes(shoes)
    shoe, ruleset = table_and_shoe(rules, cut_card=cut_card)
    run_seed = fresh_seed(seed)
    from puntobanco.sim import engine
    from puntobanco.sim.executors import Placement
    from puntobanco.sim.simulate import (
        bet_statistics,
        coups_per_shoe,
        exact_evs,
        exact_std_devs,
        small_run_warning,
        warm_up,
    )
    from puntobanco.sim.simulate import simulate as run_simulation

    check_workers(workers)
    Placement(workers=workers, scheduler=scheduler)  # refuse bad options before any work
    spec = engine.ShoeSpec.build(ruleset, shoe)
    plan = engine.chunk_plan(shoes)
    with compiling(enabled=not json_output):
        warm_up(spec)  # the run is timed after it
    with progress_bar("Simulating", len(plan), enabled=not json_output) as advance:
        run = run_simulation(ruleset, shoes=shoes, seed=run_seed, composition=shoe,
                             workers=workers, scheduler=scheduler, progress=advance)
    exact = exact_evs(run)
    stats = bet_statistics(run, exact, exact_std_dev=exact_std_devs(run))
    per_shoe = coups_per_shoe(run)
    warning = small_run_warning(run.shoes)
    if json_output:
        document: dict[str, Any] = {
            "shoes": run.shoes, "coups": run.coups, "seconds": run.seconds,
            "coups_per_second": run.coups_per_second, "seed": run.seed,
            "decks": ruleset.decks, "composition": list(shoe), "cut_card": ruleset.cut_card,
            "placement": run.placement, "coups_per_shoe": per_shoe,
            "exact_ev_reference": "full shoe (exact analysis of the composition before the burn)",
            "bets": {s.name: s.to_dict() for s in stats},
            "warning": warning,
        }
        print(json.dumps(document, indent=2))
        return
    lines = [
        f"Simulated {run.shoes:,} shoes, {run.coups:,} coups ({per_shoe['mean']:.2f} per shoe, "
        f"{per_shoe['min']}–{per_shoe['max']}) in {run.seconds:.2f} s: "
        f"{_rate(run.coups_per_second)} on {run.placement}.",
        f"Seed {run.seed}; {shoe_sentence(ruleset, shoe)}.",
        "Returns per unit staked on every coup; the exact EV is the full shoe's (the burn and "
        "the cut card do not change the expectation per coup materially). Intervals: Student's "
        "t on the shoes, never narrower than if every coup were independent.",
        "",
        f"{'bet':<11}{'mean':>11}  {'95 % confidence interval':<25}{'exact EV':>11}{'z':>7}"
        f"{'wins':>9}{'pushes':>9}",
    ]
    for s in stats:
        interval = f"[{_percent(s.ci95[0])}, {_percent(s.ci95[1])}]"
        z_text = "—" if s.z is None else f"{s.z:+.2f}"
        lines.append(f"{s.name:<11}{_percent(s.mean):>11}  {interval:<25}"
                     f"{_percent(s.exact_ev):>11}{z_text:>7}{100 * s.win_frequency:>8.3f}%"
                     f"{100 * s.push_frequency:>8.3f}%")
    if warning is not None:
        lines += ["", f"Warning: {warning}"]
    typer.echo("\n".join(lines))


@app.command()
@rule_options(rules_file=True)
def count(
    *,
    shoes: Annotated[int, typer.Option("--shoes", help="How many shoes to study.")] = 10_000,
    seed: SeedOption = None,
    cut_card: CutCardOption = 14,
    workers: WorkersOption = None,
    scheduler: SchedulerOption = None,
    out: Annotated[Path | None, typer.Option(
        "--out", help="Folder for the plots (PNG); none are drawn without it.",
        show_default=False)] = None,
    json_output: JsonOption = False,
    rules: RuleOptions,
) -> None:
    """Can counting cards beat the bets? Exact EV at every coup, the ceiling, the best count."""
    check_shoes(shoes, least=2)
    shoe, ruleset = table_and_shoe(rules, cut_card=cut_card)
    run_seed = fresh_seed(seed)
    if out is not None:
        output_folder(out, option="--out")
    from puntobanco.sim import countreport, engine
    from puntobanco.sim.counting import build_setup, count_chunk_plan, study
    from puntobanco.sim.counting import warm_up as warm_up_count
    from puntobanco.sim.executors import Placement

    check_workers(workers)
    Placement(workers=workers, scheduler=scheduler)
    plan = count_chunk_plan(shoes)
    with compiling(enabled=not json_output):
        warm_up_count(build_setup(engine.ShoeSpec.build(ruleset, shoe), shoes)[0])
    with progress_bar("Counting", len(plan), enabled=not json_output) as advance:
        result = study(ruleset, shoes=shoes, seed=run_seed, composition=shoe, workers=workers,
                       scheduler=scheduler, progress=advance)
    plots: list[str] = []
    if out is not None:
        from puntobanco.sim.countplots import draw_plots

        plots = [str(path) for path in draw_plots(result, out)]
    if json_output:
        print(json.dumps(countreport.to_json(result, plots=plots), indent=2))
    else:
        typer.echo(countreport.to_text(result, plots=plots))
