"""What a table shows: the view its clients have been told, and the snapshots built from it.

The round engine (``live/engine.py``) keeps a :class:`View` up to date as it tells the clients;
the functions here read the engine (its view, its desk while betting is open, its core round
after the close) and never change it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from puntobanco.bets import BetKind
from puntobanco.cards import Card
from puntobanco.rules import hand_total
from puntobanco.server.live.clock import now_ms
from puntobanco.table import Phase

if TYPE_CHECKING:
    from puntobanco.server.live.engine import TableDealer


@dataclass(slots=True)
class View:
    """What the clients have been told so far: the snapshot is built from it."""

    phase: str = "idle"
    round_no: int = 0
    coup_id: int | None = None
    coup_in_shoe: int = 0
    deadline: int | None = None
    cards: list[dict[str, Any]] = field(default_factory=list)
    shoe: dict[str, Any] | None = None
    last_result: dict[str, Any] | None = None
    roads: list[dict[str, Any]] = field(default_factory=list)


def hand_totals(view: View) -> tuple[int, int]:
    """Punto's and Banco's totals of the cards shown so far."""
    values: dict[str, list[int]] = {"punto": [], "banco": []}
    for shown in view.cards:
        values[shown["side"]].append(Card.parse(shown["card"]).value)
    return hand_total(values["punto"]), hand_total(values["banco"])


def betting(engine: TableDealer) -> bool:
    """The bets are the desk's (the core gets them from the database at the close); a
    following process knows the bets from its desk only."""
    return engine.following or engine.table.phase is Phase.OPEN


def totals(engine: TableDealer) -> dict[str, int]:
    """The whole table's stakes on each bet this round."""
    if betting(engine):
        return engine.desk.totals()
    found = {kind.value: 0 for kind in BetKind}
    for spot_bets in engine.table.bets.values():
        for kind, stake in spot_bets.items():
            found[kind.value] += stake
    return found


def my_bets(engine: TableDealer, player_id: int) -> dict[str, int]:
    """A player's bets this round, in payment order."""
    if betting(engine):
        return dict(engine.desk.spots.get(player_id, {}))
    bets = engine.table.bets.get(str(player_id), {})
    return {kind.value: bets[kind] for kind in BetKind if bets.get(kind)}


def spot_bets(engine: TableDealer) -> dict[int, dict[str, int]]:
    """Every player's bets this round, in payment order (the operator's live view)."""
    if betting(engine):
        return {player: dict(bets) for player, bets in engine.desk.spots.items()}
    return {int(spot): {kind.value: bets[kind] for kind in BetKind if bets.get(kind)}
            for spot, bets in engine.table.bets.items()}


def spots(engine: TableDealer) -> int:
    """How many players have a bet this round."""
    return len(engine.desk.spots) if betting(engine) else len(engine.table.bets)


def window(engine: TableDealer) -> float:
    """The betting window the table deals now (``serve --betting-seconds`` overrides the
    settings)."""
    fixed = engine.config.betting_seconds
    return fixed if fixed is not None else engine.betting_seconds


def snapshot(engine: TableDealer, player_id: int | None) -> dict[str, Any]:
    """Everything a page needs to draw the table now (``GET /api/tables/{id}``)."""
    view = engine.view
    return {
        "id": engine.id, "name": engine.settings.name, "rules": engine.shoe_rules,
        "phase": view.phase, "round_no": view.round_no, "coup_id": view.coup_id,
        "coup_in_shoe": view.coup_in_shoe, "shoe": view.shoe, "deadline": view.deadline,
        "server_time": now_ms(engine.clock), "totals": totals(engine),
        "my_bets": my_bets(engine, player_id) if player_id is not None else {},
        "cards": list(view.cards), "last_result": view.last_result, "roads": list(view.roads),
        "betting_seconds": window(engine),
        "spots": spots(engine), "paused": engine.paused, "dealing": engine.dealing,
        "database": engine.db.health.state(),  # issue 22: bets stopped by the database
    }


def summary(engine: TableDealer) -> dict[str, Any]:
    """The table's entry in ``GET /api/tables``."""
    return {"id": engine.id, "name": engine.settings.name, "rules": engine.shoe_rules,
            "next_rules": engine.settings.rules_json(), "phase": engine.view.phase,
            "players": engine.hub.players(), "spots": spots(engine),
            "paused": engine.paused, "dealing": engine.dealing,
            # the console says when ``serve --betting-seconds`` overrides the settings
            "betting_seconds": window(engine),
            "betting_seconds_fixed": engine.config.betting_seconds is not None}
