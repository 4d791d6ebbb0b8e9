"""``puntobanco risk``'s session view: what a bankroll meets on the way (issue 20).

``--behind``, ``--drawdown``, ``--stop-loss`` and ``--stop-win`` ask for it; ``--side`` says whose
bankroll (a player's, or the house's float). Exact Markov chains
(:mod:`puntobanco.analysis.sessionrisk`) with ``--method exact``; whole shoes
(:mod:`puntobanco.sim.paths`) with ``--method simulate``, each simulated figure labelled and given
with its standard error (or its 95 % bound when no session saw it), the exact figure beside it
where the chain fits.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from puntobanco.analysis.risk import CoupDistribution
from puntobanco.cards import Composition
from puntobanco.errors import PuntoBancoError
from puntobanco.rules import RuleSet

#: The drawdown quantiles reported with ``--drawdown``.
DRAWDOWN_QUANTILES: tuple[tuple[str, float], ...] = (("p50", 0.5), ("p90", 0.9), ("p99", 0.99))
#: With both stops and no ``--coups``, a simulated session is cut at this many coups.
SIMULATED_STOP_LIMIT = 1_000_000


def percent_text(x: float) -> str:
    """A probability as a percentage; one too small for four decimals in scientific notation.

    >>> percent_text(0.125), percent_text(3.2e-9), percent_text(0.0)
    ('12.5000%', '3.200e-07%', '0%')
    """
    if x == 0:
        return "0%"
    return f"{x:.4%}" if x >= 5e-7 else f"{x * 100:.3e}%"


def parse_amounts(text: str | None, *, option: str) -> list[float]:
    """``50`` or ``50,100,200``: positive, finite amounts of money.

    >>> parse_amounts("50, 100", option="--behind")
    [50.0, 100.0]
    """
    if text is None:
        return []
    out: list[float] = []
    for part in (p.strip() for p in text.split(",")):
        try:
            value = float(part)
        except ValueError:
            value = math.nan
        if not math.isfinite(value) or value <= 0:
            raise PuntoBancoError(f"{option} takes positive amounts such as 50 or 50,100, "
                                  f"not {part!r}.", code="bad-amount")
        out.append(value)
    return sorted(set(out))


def parse_amount(value: float | None, *, option: str) -> float | None:
    if value is not None and (not math.isfinite(value) or value <= 0):
        raise PuntoBancoError(f"{option} is a positive amount, not {value:g}.", code="bad-amount")
    return value


@dataclass(frozen=True, kw_only=True)
class ViewRequest:
    side: str
    behind: list[float]
    drawdown: list[float]
    stop_loss: float | None
    stop_win: float | None
    #: The session length the user gave (``None``: the default, or none with both stops).
    coups_given: int | None
    coups: int
    stake: float

    @property
    def wanted(self) -> bool:
        return bool(self.behind or self.drawdown or self.stop_loss or self.stop_win)

    def stop_limit(self) -> int | None:
        if self.coups_given is not None:
            return self.coups_given
        return None if self.stop_loss is not None and self.stop_win is not None else self.coups


def _exact_or_none(compute: Callable[[], Any]) -> Any:
    try:
        return compute()
    except PuntoBancoError:
        return None


def exact_view(request: ViewRequest, dist: CoupDistribution, *, required: bool
               ) -> dict[str, Any]:
    """The session view by exact chains; ``required``: a chain too large is an error (else
    its figure is left out)."""
    from puntobanco.analysis import sessionrisk as chains

    walk = chains.Walk.of(dist, side=request.side)
    n, stake = request.coups, request.stake

    def run(compute: Callable[[], Any]) -> Any:
        return compute() if required else _exact_or_none(compute)

    def behind(x: float) -> Callable[[], float]:
        return lambda: chains.prob_ever_behind(walk, x / stake, n).probability

    def fall(x: float) -> Callable[[], float]:
        return lambda: chains.prob_drawdown_at_least(walk, x / stake, n).probability

    def quantile(q: float) -> Callable[[], Fraction]:
        return lambda: chains.drawdown_quantile(walk, q, n)

    view: dict[str, Any] = {}
    if request.behind:
        view["ever_behind"] = {f"{x:g}": run(behind(x)) for x in request.behind}
    if request.drawdown:
        view["drawdown_at_least"] = {f"{x:g}": run(fall(x)) for x in request.drawdown}
        view["drawdown_quantiles"] = {key: _money(run(quantile(q)), stake)
                                      for key, q in DRAWDOWN_QUANTILES}
    if request.stop_loss is not None or request.stop_win is not None:
        stops = run(lambda: chains.stop_session(
            walk, loss=None if request.stop_loss is None else request.stop_loss / stake,
            win=None if request.stop_win is None else request.stop_win / stake,
            coups=request.stop_limit()))
        view["stop_session"] = None if stops is None else {
            "ends_by_loss": stops.prob_loss, "ends_by_win": stops.prob_win,
            "ends_by_coups": stops.prob_time, "expected_coups": stops.expected_length,
            "expected_coups_if_loss": stops.length_if_loss,
            "expected_coups_if_win": stops.length_if_win,
            "expected_result": stops.expected_result * stake,
            "numerical_error": stops.numerical_error}
    return view


def _money(value: Fraction | None, stake: float) -> float | None:
    return None if value is None else float(value) * stake


def simulated_view(request: ViewRequest, rules: RuleSet, shares: Mapping[str, Fraction], *,
                   sessions: int, seed: int, composition: Composition) -> dict[str, Any]:
    """The session view from whole shoes; each figure ``{value, std_error[, bound]}``."""
    from puntobanco.sim.paths import BY_LOSS, BY_WIN, simulate_paths

    n, stake = request.coups, request.stake
    view: dict[str, Any] = {}
    if request.behind or request.drawdown:
        run = simulate_paths(rules, shares, side=request.side, coups=n, sessions=sessions,
                             seed=seed, stop_loss=None, stop_win=None, composition=composition)
        if request.behind:
            view["ever_behind"] = {f"{x:g}": run.ever_behind(x / stake).to_dict()
                                   for x in request.behind}
        if request.drawdown:
            view["drawdown_at_least"] = {f"{x:g}": run.drawdown_at_least(x / stake).to_dict()
                                         for x in request.drawdown}
            view["drawdown_quantiles"] = {key: float(run.drawdown_quantile(q)) * stake
                                          for key, q in DRAWDOWN_QUANTILES}
    if request.stop_loss is not None or request.stop_win is not None:
        limit = request.stop_limit() or SIMULATED_STOP_LIMIT
        run = simulate_paths(rules, shares, side=request.side, coups=limit, sessions=sessions,
                             seed=seed, composition=composition,
                             stop_loss=None if request.stop_loss is None
                             else request.stop_loss / stake,
                             stop_win=None if request.stop_win is None
                             else request.stop_win / stake)
        ends = run.ends()
        if_loss, if_win = run.length_if(BY_LOSS), run.length_if(BY_WIN)
        result = run.result()
        view["stop_session"] = {
            "ends_by_loss": ends["loss"].to_dict(), "ends_by_win": ends["win"].to_dict(),
            "ends_by_coups": ends["time"].to_dict(), "expected_coups": run.length().to_dict(),
            "expected_coups_if_loss": None if if_loss is None else if_loss.to_dict(),
            "expected_coups_if_win": None if if_win is None else if_win.to_dict(),
            "expected_result": {"value": result.value * stake,
                                "std_error": result.std_error * stake},
            "coup_limit": limit}
    return view


def view_document(request: ViewRequest, *, exact: Mapping[str, Any],
                  simulated: Mapping[str, Any] | None, sessions: int | None) -> dict[str, Any]:
    """The JSON ``session_view`` object: the request, and the exact and simulated figures."""
    doc: dict[str, Any] = {
        "side": request.side, "coups": request.coups,
        "stop_loss": request.stop_loss, "stop_win": request.stop_win,
        "stop_coup_limit": request.stop_limit(),
        "method": "exact-markov-chain (independent coups off the top)" if simulated is None
        else f"simulation-whole-shoes ({sessions:,} sessions), exact chain beside",
        "exact": dict(exact),
    }
    if simulated is not None:
        doc["simulated"] = dict(simulated)
    return doc


#: The session view's label column; every line fits 80 columns.
_LABEL = 38


def _row(label: str, values: list[str]) -> list[str]:
    first, *rest = values or ["—"]
    return [label.ljust(_LABEL) + first, *(" " * _LABEL + value for value in rest)]


def view_text(doc: Mapping[str, Any], *, money: Callable[[float], str]) -> list[str]:
    """The console lines of the session view (at most 80 columns): each figure, the simulated
    one first (labelled) and the exact one under it."""
    import textwrap

    side = "a player's bankroll" if doc["side"] == "player" else "the house's float"
    lines = ["", *textwrap.wrap(f"Session view — {side}, {doc['coups']:,} coups; "
                                f"{doc['method']}", 80)]
    exact = doc["exact"]
    simulated = doc.get("simulated")

    def figure(section: str, key: str, shown: Callable[[float], str]) -> list[str]:
        out = []
        if simulated is not None and section in simulated:
            value = simulated[section][key]
            out += _estimate_lines(value, shown)
        exact_value = (exact.get(section) or {}).get(key)
        if exact_value is not None:
            out.append(shown(exact_value) + (" exact" if simulated is not None else ""))
        elif simulated is not None:
            out.append("exact: chain too large")
        return out

    def keys(section: str) -> list[str]:
        return list(exact.get(section) or (simulated or {}).get(section) or {})

    for amount in keys("ever_behind"):
        lines += _row(f"  P(ever behind by {money(float(amount))})",
                      figure("ever_behind", amount, percent_text))
    for amount in keys("drawdown_at_least"):
        lines += _row(f"  P(drawdown ≥ {money(float(amount))})",
                      figure("drawdown_at_least", amount, percent_text))
    for key in keys("drawdown_quantiles"):
        lines += _row(f"  drawdown {key}", figure("drawdown_quantiles", key, money))
    if "stop_session" in exact or "stop_session" in (simulated or {}):
        limit = doc["stop_coup_limit"]
        lines.append(f"  stop-loss {_stop(doc['stop_loss'], money)} / stop-win "
                     f"{_stop(doc['stop_win'], money)}, "
                     + ("no coup limit" if limit is None else f"at most {limit:,} coups") + ":")
        rows: list[tuple[str, str, Callable[[float], str]]] = [
            ("ends_by_loss", "ends at the stop-loss", percent_text),
            ("ends_by_win", "ends at the stop-win", percent_text),
            ("ends_by_coups", "ends at the coup limit", percent_text),
            ("expected_coups", "expected length (coups)", lambda x: f"{x:,.1f}"),
            ("expected_coups_if_loss", "  … if it ends at the stop-loss", lambda x: f"{x:,.1f}"),
            ("expected_coups_if_win", "  … if it ends at the stop-win", lambda x: f"{x:,.1f}"),
            ("expected_result", "expected result", money)]
        for key, label, shown in rows:
            lines += _row(f"    {label}", _stop_figure(exact, simulated, key, shown))
    return lines


def _stop(value: float | None, money: Callable[[float], str]) -> str:
    return "none" if value is None else money(value)


def _stop_figure(exact: Mapping[str, Any], simulated: Mapping[str, Any] | None, key: str,
                 shown: Callable[[float], str]) -> list[str]:
    out = []
    if simulated is not None:
        value = simulated["stop_session"][key]
        out += ["— simulated"] if value is None else _estimate_lines(value, shown)
    exact_stops = exact.get("stop_session")
    if exact_stops is not None:
        value = exact_stops[key]
        out.append(("—" if value is None else shown(value))
                   + (" exact" if simulated is not None else ""))
    elif simulated is not None:
        out.append("exact: chain too large")
    return out


def _estimate_lines(value: Any, shown: Callable[[float], str]) -> list[str]:
    """A simulated figure, labelled: ``x ± se simulated``, or its 95 % bound."""
    if not isinstance(value, Mapping):
        return [f"{shown(float(value))} simulated"]
    if "upper_bound_95" in value:
        return [f"< {shown(value['upper_bound_95'])} simulated: no session",
                "(95 % upper bound)"]
    if "lower_bound_95" in value:
        return [f"> {shown(value['lower_bound_95'])} simulated: every session",
                "(95 % lower bound)"]
    return [f"{shown(value['value'])} ± {shown(value['std_error'])} simulated"]
