"""Tables: their list and snapshot, bets, and the operator's table settings."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from puntobanco.bets import BetKind
from puntobanco.errors import PuntoBancoError
from puntobanco.server.api import outage
from puntobanco.server.api.deps import (
    CasinoDep,
    GuardsDep,
    Operator,
    SignedIn,
    Taken,
    bearer_token,
    json_answer,
)
from puntobanco.server.api.fastbets import TOO_MANY, take_bet, take_bets
from puntobanco.server.api.guard import asked_lang
from puntobanco.server.api.outage import PlayerIfReachable
from puntobanco.server.api.schemas import (
    ERRORS,
    BetIn,
    BetOut,
    BetsIn,
    BetsOut,
    Id,
    IdempotencyKey,
    OutOfServiceOut,
    RulesIn,
    SnapshotOut,
    TableIn,
    TableItem,
    WithdrawOut,
)
from puntobanco.server.db import admin, audit, ledger
from puntobanco.server.db.store import TableSettings
from puntobanco.server.live.casino import table_name

router = APIRouter(prefix="/api/tables", tags=["tables"], responses=ERRORS)


@router.get("", response_model=list[TableItem])
async def list_tables(casino: CasinoDep) -> list[dict[str, Any]]:
    return [dealer.summary() for dealer in casino.dealers.values()]


@router.get("/out-of-service", response_model=list[OutOfServiceOut])
async def out_of_service(casino: CasinoDep, _operator: Operator) -> list[dict[str, Any]]:
    """The tables whose dealer could not start, and why (operator); fix one with PATCH."""
    return [{"id": b.id, "name": b.name, "reason": b.reason, "rules": b.rules}
            for b in casino.broken.values()]


@router.get("/{table_id}", response_model=SnapshotOut)
async def snapshot(table_id: Id, casino: CasinoDep, player: PlayerIfReachable
                   ) -> dict[str, Any]:
    """Everything a (re)connecting page needs; also wakes an idle dealer for a round. While
    the database is away the snapshot is still served, from memory, without the wallet."""
    dealer = casino.dealer(table_id)
    dealer.poke()
    if player is None:
        return dealer.snapshot(None)
    balance = await outage.unless_away(
        casino.db.run_read(lambda s: ledger.wallet_balance(s, player.id)))
    return {**dealer.snapshot(player.id), "balance": balance}


@router.post("/{table_id}/bets", response_model=BetOut)
async def place_bet(table_id: Id, body: BetIn, request: Request, casino: CasinoDep,
                    player: SignedIn, guards: GuardsDep) -> JSONResponse:
    """Add a stake to one of the player's bets while betting is open (L4, M3). Each player's
    bets and withdrawals are rate limited (429, ``Retry-After``)."""
    # an adapter over the one bet function of the short way and the socket (issue 17)
    return _answer(await take_bet(casino, guards, table_id, bearer_token(request), body,
                                  lang=_asked(request), path=request.url.path, player=player))


@router.post("/{table_id}/bets/batch", response_model=BetsOut)
async def place_bets(table_id: Id, body: BetsIn, request: Request, casino: CasinoDep,
                     player: SignedIn, guards: GuardsDep) -> JSONResponse:
    """Several stakes at once, all or nothing (the page's repeat and double): each is checked
    as the single bets are, and together against the limits and the balance; one refusal and
    nothing is placed. A batch naming one box twice (``banco`` and ``BANCO``, ``punto`` and
    ``player``) is refused ``duplicate-bet``: its stakes are never summed before the check."""
    return _answer(await take_bets(casino, guards, table_id, bearer_token(request), body,
                                   lang=_asked(request), path=request.url.path, player=player))


def _asked(request: Request) -> str | None:
    """The language the request asks for (``?lang=``, ``Accept-Language``); else the
    player's."""
    return asked_lang(request.query_params.get("lang"),
                      request.headers.get("accept-language", ""))


def _answer(taken: Taken | None) -> JSONResponse:
    if taken is None:  # not reached: the player was looked up by the route's dependency
        raise PuntoBancoError("The session token is unknown or was closed.", code="unauthorized")
    return json_answer(taken)


@router.delete("/{table_id}/bets/{bet}", response_model=WithdrawOut)
async def withdraw_bet(table_id: Id, bet: str, casino: CasinoDep, player: SignedIn,
                       guards: GuardsDep, idempotency_key: IdempotencyKey = None
                       ) -> dict[str, Any]:
    """Take a whole bet back while betting is open (L4). With an ``Idempotency-Key`` header, a
    retried withdrawal answers as the first did and moves no money."""
    guards.bets.check(str(player.id), TOO_MANY)
    dealer = casino.dealer(table_id)
    return await dealer.withdraw_bet(player.id, BetKind.parse(bet), idempotency_key)


@router.post("", status_code=201, response_model=TableItem)
async def create_table(body: TableIn, casino: CasinoDep, operator: Operator) -> dict[str, Any]:
    """A new table with its own dealer (operator; written to the audit log)."""

    def log(session: Session, settings: TableSettings) -> None:
        audit.record(session, operator_id=operator.id, action="table-create",
                     target_kind="table", target_id=settings.id, before=None,
                     after={"name": settings.name, "rules": settings.rules_json()})

    dealer = await casino.add_table(body.name, body.rules, on_write=log,
                                    dealing=body.dealing)
    return dealer.summary()


@router.patch("/{table_id}", response_model=TableItem)
async def update_table(table_id: Id, body: RulesIn, casino: CasinoDep,
                       operator: Operator) -> dict[str, Any]:
    """Rename a table and/or change its settings; settings apply from its next shoe (operator;
    written to the audit log)."""
    if body.rules is None and body.name is None:
        raise PuntoBancoError("Nothing to change: give a name or settings.",
                              code="nothing-to-change")
    if table_id in casino.broken:  # issue 9: the operator repairs a table out of service
        return (await casino.update_table(table_id, body.rules)).summary()
    name = table_name(body.name) if body.name is not None else None
    before = casino.dealer(table_id).settings

    def log(session: Session, after: TableSettings) -> None:
        if name is not None and name != before.name:
            admin.rename_table(session, table_id, name)
            audit.record(session, operator_id=operator.id, action="table-rename",
                         target_kind="table", target_id=table_id, before={"name": before.name},
                         after={"name": name})
        old, new = before.rules_json(), after.rules_json()
        changed = sorted(key for key in new if old.get(key) != new[key])
        if changed:
            audit.record(session, operator_id=operator.id, action="table-rules",
                         target_kind="table", target_id=table_id,
                         before={key: old.get(key) for key in changed},
                         after={key: new[key] for key in changed})

    try:
        dealer = await casino.update_table(table_id, body.rules, on_write=log)
    except IntegrityError:  # the same name, given to another table at the same moment
        raise PuntoBancoError(f"A table named {name!r} exists.",
                              code="table-name-taken") from None
    return dealer.summary()
