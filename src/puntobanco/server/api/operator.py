"""The operator's API (operators only, 403 for anyone else): players (list and search, credit,
suspend and unsuspend, history), pausing tables, and each table's live view with the house's
exposure on the coup in progress. Every change is written to the audit log in the same
transaction (``docs/operator.md``)."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Annotated, Any

from fastapi import APIRouter, Query, Response
from pydantic import BaseModel, Field
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from puntobanco.errors import PuntoBancoError, RuleSetError
from puntobanco.rules import RuleSet
from puntobanco.server.api.deps import CasinoDep, Operator, forget_sessions
from puntobanco.server.api.schemas import (
    ERRORS,
    CreditIn,
    Id,
    IdempotencyKey,
    Lang,
    Offset,
    TableItem,
)
from puntobanco.server.db import admin, audit, ledger
from puntobanco.server.hold import exposure
from puntobanco.server.live.casino import Casino
from puntobanco.server.live.dealer import TableDealer
from puntobanco.server.live.messages import Balance
from puntobanco.server.settings import table_rules_from_json

#: a row id in a query (bounded, so that no database is asked about a number it cannot hold)
RowId = Annotated[int, Query(ge=0, le=2**31 - 1)]

router = APIRouter(prefix="/api", tags=["operator"], responses=ERRORS)


class PlayerAdminOut(BaseModel):
    id: int
    username: str
    role: str
    lang: Lang
    balance: int
    suspended: bool
    created_at: int


class PlayerChangeOut(BaseModel):
    player: PlayerAdminOut
    #: cents given back from bets on rounds still open for betting (suspension)
    refunded: int = 0


class HistoryLine(BaseModel):
    id: int
    at: int
    reason: str
    amount: int
    balance: int
    table_id: int | None
    coup_id: int | None
    round_no: int | None
    bet: str | None
    table_name: str | None = None
    shoe_no: int | None = Field(None, description="the coup's identity: shoe number …")
    coup_in_shoe: int | None = Field(None, description="… and coup number in that shoe")


class Watcher(BaseModel):
    id: int
    username: str


class Spot(BaseModel):
    player_id: int
    username: str
    bets: dict[str, int]
    total: int


class Exposure(BaseModel):
    stakes: int
    worst: int | None
    best: int | None
    expected: float | None


class LiveTable(BaseModel):
    table: TableItem
    round_no: int
    coup_id: int | None
    coup_in_shoe: int
    deadline: int | None
    shoe: dict[str, Any] | None
    watchers: list[Watcher]
    spots: list[Spot]
    totals: dict[str, int]
    exposure: Exposure | None


# --- players ------------------------------------------------------------------------------


@router.get("/players", response_model=list[PlayerAdminOut])
async def players(casino: CasinoDep, _operator: Operator, response: Response,
                  q: Annotated[str | None, Query(max_length=32)] = None,
                  limit: Annotated[int, Query(ge=1, le=500)] = 200,
                  offset: Offset = 0) -> list[dict[str, Any]]:
    """Players by id, those whose name contains ``q`` (ignoring case); the header
    ``X-Total-Count`` says how many match."""
    total, found = await casino.db.run_read(
        lambda s: admin.find_players(s, query=q, limit=limit, offset=offset))
    response.headers["X-Total-Count"] = str(total)
    return found


@router.get("/players/{player_id}", response_model=PlayerAdminOut)
async def player(player_id: Id, casino: CasinoDep, _operator: Operator) -> dict[str, Any]:
    return await casino.db.run_read(lambda s: admin.one_player(s, player_id))


@router.get("/players/{player_id}/history", response_model=list[HistoryLine])
async def history(player_id: Id, casino: CasinoDep, _operator: Operator,
                  limit: Annotated[int, Query(ge=1, le=500)] = 100,
                  before_id: RowId | None = None) -> list[dict[str, Any]]:
    """Every movement of the player's wallet, newest first, with the balance after it."""
    return await casino.db.run_read(
        lambda s: admin.history(s, player_id, limit=limit, before_id=before_id))


@router.post("/players/{player_id}/credit", response_model=dict[str, PlayerAdminOut])
async def credit(player_id: Id, body: CreditIn, casino: CasinoDep, operator: Operator,
                 idempotency_key: IdempotencyKey = None) -> dict[str, Any]:
    """Credit play money to a player's wallet (a ledger transaction from the issuer). With an
    ``Idempotency-Key`` header (or ``idempotency_key`` in the body), a retried request is
    answered as the first was and credits nothing (the console sends one per click)."""
    key = idempotency_key or body.idempotency_key
    fingerprint = f"credit:{player_id}:{body.amount}"

    def write(session: Session) -> tuple[dict[str, Any], bool]:
        if key is not None and (stored := admin.operator_answer(
                session, operator.id, key, fingerprint)) is not None:
            return stored, False
        if admin.player_row(session, player_id).role != "player":  # issue 17
            raise PuntoBancoError("Only a player's account bets and holds money.",
                                  code="not-a-player")
        before = ledger.wallet_balance(session, player_id)
        moved = ledger.transfer(session, ledger.account_id(session, ledger.ISSUER_CODE),
                                ledger.account_id(session, ledger.wallet_code(player_id)),
                                body.amount, reason="credit", player_id=player_id)
        audit.record(session, operator_id=operator.id, action="player-credit",
                     target_kind="player", target_id=player_id, before={"balance": before},
                     after={"balance": moved.target_balance, "amount": body.amount})
        answer = {"player": admin.one_player(session, player_id)}
        if key is not None:
            admin.store_operator_answer(session, operator.id, key, fingerprint, answer)
        return answer, True

    try:
        answer, credited = await casino.db.run_write(write)
    except IntegrityError:  # the same key, sent at the same moment: the first one's answer
        answer, credited = await casino.db.run_write(write)
    if credited:
        casino.tell_player(player_id, Balance(reason="credit", amount=body.amount,
                                              balance=answer["player"]["balance"]))
    return answer


@router.post("/players/{player_id}/suspend", response_model=PlayerChangeOut)
async def suspend(player_id: Id, casino: CasinoDep, operator: Operator) -> dict[str, Any]:
    """Suspend a player: every session ends (its open sockets are closed), sign-in and bets are
    refused, and bets on a round still open for betting are given back (bets already closed
    stand and are settled)."""
    await _set_suspended(casino, operator.id, player_id, True)
    forget_sessions(casino, player_id)
    casino.end_sessions(player_id)  # its sockets, on every process (the log-out's relay)
    refunded = 0
    dealers = list(casino.dealers.values())
    casino.bar(player_id, True)  # barred everywhere at once (every process), then refunds
    for dealer in dealers:
        refunded += await dealer.refund_suspended(player_id)
    found = await casino.db.run_read(lambda s: admin.one_player(s, player_id))
    return {"player": found, "refunded": refunded}


@router.post("/players/{player_id}/unsuspend", response_model=PlayerChangeOut)
async def unsuspend(player_id: Id, casino: CasinoDep, operator: Operator) -> dict[str, Any]:
    """Lift a suspension: the player may sign in (and then bet) again."""
    await _set_suspended(casino, operator.id, player_id, False)
    casino.bar(player_id, False)
    found = await casino.db.run_read(lambda s: admin.one_player(s, player_id))
    return {"player": found, "refunded": 0}


async def _set_suspended(casino: Casino, operator_id: int, player_id: int,
                         suspended: bool) -> None:
    def write(session: Session) -> None:
        before = admin.set_suspended(session, player_id, suspended)
        if before != suspended:
            audit.record(session, operator_id=operator_id,
                         action="player-suspend" if suspended else "player-unsuspend",
                         target_kind="player", target_id=player_id,
                         before={"suspended": before}, after={"suspended": suspended})

    await casino.db.run_write(write)


# --- tables -------------------------------------------------------------------------------


@router.post("/tables/{table_id}/pause", response_model=TableItem)
async def pause(table_id: Id, casino: CasinoDep, operator: Operator) -> dict[str, Any]:
    """Pause a table: the coup under way is finished and settled, then no new round opens.
    Nothing is voided. The pause outlives a restart of the server."""
    return await _set_paused(casino, operator.id, table_id, True)


@router.post("/tables/{table_id}/resume", response_model=TableItem)
async def resume(table_id: Id, casino: CasinoDep, operator: Operator) -> dict[str, Any]:
    return await _set_paused(casino, operator.id, table_id, False)


async def _set_paused(casino: Casino, operator_id: int, table_id: int,
                      paused: bool) -> dict[str, Any]:
    dealer = casino.dealer(table_id)

    def write(session: Session) -> None:
        before = admin.set_paused(session, table_id, paused)
        if before != paused:
            audit.record(session, operator_id=operator_id,
                         action="table-pause" if paused else "table-resume",
                         target_kind="table", target_id=table_id,
                         before={"paused": before}, after={"paused": paused})

    await casino.db.run_write(write)
    casino.set_paused(table_id, paused)  # in every process
    return dealer.summary()


@router.get("/operator/tables", response_model=list[LiveTable])
async def live_tables(casino: CasinoDep, _operator: Operator) -> list[dict[str, Any]]:
    """Every table's live view (see ``GET /api/operator/tables/{id}``)."""
    return [await _live(casino, dealer) for dealer in list(casino.dealers.values())]


@router.get("/operator/tables/{table_id}", response_model=LiveTable)
async def live_table(table_id: Id, casino: CasinoDep, _operator: Operator) -> dict[str, Any]:
    """Who watches the table, each spot's bets on the coup in progress, and the house's
    exposure on it: the worst and best result for the house over every coup the shoe can still
    deal, and the expected result from the exact EVs of the cards left."""
    return await _live(casino, casino.dealer(table_id))


async def _live(casino: Casino, dealer: TableDealer) -> dict[str, Any]:
    view = dealer.view
    in_progress = view.phase in ("open", "closed", "dealt")
    bets = dealer.spot_bets() if in_progress else {}
    totals = {kind: 0 for kind in ("punto", "banco", "egalite", "lion-punto", "lion-banco")}
    for spot_bets in bets.values():
        for kind, stake in spot_bets.items():
            totals[kind] += stake
    composition = await _composition(casino, dealer) if in_progress else None
    rules = _shoe_rules(dealer)
    watching = sorted(dealer.hub.watcher_ids())  # on every server process
    names = await casino.db.run_read(lambda s: admin.usernames(s, sorted({*watching, *bets})))
    found = (await asyncio.to_thread(exposure, totals, composition, rules)
             if composition is not None else None)
    return {"table": dealer.summary(), "round_no": view.round_no, "coup_id": view.coup_id,
            "coup_in_shoe": view.coup_in_shoe, "deadline": view.deadline, "shoe": view.shoe,
            "watchers": [{"id": p, "username": names.get(p, "?")} for p in watching],
            "spots": [{"player_id": p, "username": names.get(p, "?"), "bets": b,
                       "total": sum(b.values())} for p, b in sorted(bets.items())],
            "totals": totals, "exposure": found}


def _shoe_rules(dealer: TableDealer) -> RuleSet:
    """The rules of the shoe being dealt: the dealer's core has them; a following process has
    the dealer's relayed rules JSON (its own core holds the table's settings, which an
    operator may have changed since the shoe started)."""
    if dealer.following:
        with contextlib.suppress(RuleSetError):
            return table_rules_from_json(dealer.shoe_rules)[0]
    return dealer.table.rules


async def _composition(casino: Casino, dealer: TableDealer) -> tuple[int, ...] | None:
    """The cards left before the coup in progress: the dealer's shoe, or — on a process that
    follows a table another one deals (``live/cluster.py``) — the same cards from the record
    (read only), so that every process shows the same exposure."""
    coup_id = dealer.view.coup_id
    if not dealer.following:
        return dealer.source.composition_before_coup(betting=dealer.view.phase == "open")
    if coup_id is None:
        return None
    return await casino.db.run_read(lambda s: admin.composition_before(s, coup_id))
