"""Tables: their list and snapshot, bets, and the operator's table settings."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from puntobanco.bets import BetKind
from puntobanco.errors import PuntoBancoError
from puntobanco.server.api.deps import CasinoDep, MaybePlayer, Operator, SignedIn
from puntobanco.server.api.schemas import (
    BetIn,
    BetOut,
    RulesIn,
    SnapshotOut,
    TableIn,
    TableItem,
    WithdrawOut,
)
from puntobanco.server.db import admin, audit
from puntobanco.server.db.store import TableSettings
from puntobanco.server.live.casino import table_name

router = APIRouter(prefix="/api/tables", tags=["tables"])


@router.get("", response_model=list[TableItem])
async def list_tables(casino: CasinoDep) -> list[dict[str, Any]]:
    return [dealer.summary() for dealer in casino.dealers.values()]


@router.get("/{table_id}", response_model=SnapshotOut)
async def snapshot(table_id: int, casino: CasinoDep, player: MaybePlayer) -> dict[str, Any]:
    """Everything a (re)connecting page needs; also wakes an idle dealer for a round."""
    dealer = casino.dealer(table_id)
    dealer.poke()
    return dealer.snapshot(player.id if player else None)


@router.post("/{table_id}/bets", response_model=BetOut)
async def place_bet(table_id: int, body: BetIn, casino: CasinoDep,
                    player: SignedIn) -> dict[str, Any]:
    """Add a stake to one of the player's bets while betting is open (L4, M3)."""
    dealer = casino.dealer(table_id)
    return await dealer.place_bet(player.id, BetKind.parse(body.bet), body.stake,
                                  body.idempotency_key)


@router.delete("/{table_id}/bets/{bet}", response_model=WithdrawOut)
async def withdraw_bet(table_id: int, bet: str, casino: CasinoDep,
                       player: SignedIn) -> dict[str, Any]:
    """Take a whole bet back while betting is open (L4)."""
    dealer = casino.dealer(table_id)
    return await dealer.withdraw_bet(player.id, BetKind.parse(bet))


@router.post("", status_code=201, response_model=TableItem)
async def create_table(body: TableIn, casino: CasinoDep, operator: Operator) -> dict[str, Any]:
    """A new table with its own dealer (operator; written to the audit log)."""

    def log(session: Session, settings: TableSettings) -> None:
        audit.record(session, operator_id=operator.id, action="table-create",
                     target_kind="table", target_id=settings.id, before=None,
                     after={"name": settings.name, "rules": settings.rules_json()})

    dealer = await casino.add_table(body.name, body.rules, on_write=log)
    return dealer.summary()


@router.patch("/{table_id}", response_model=TableItem)
async def update_table(table_id: int, body: RulesIn, casino: CasinoDep,
                       operator: Operator) -> dict[str, Any]:
    """Rename a table and/or change its settings; settings apply from its next shoe (operator;
    written to the audit log)."""
    if body.rules is None and body.name is None:
        raise PuntoBancoError("Nothing to change: give a name or settings.",
                              code="nothing-to-change")
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
