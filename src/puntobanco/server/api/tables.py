"""Tables: their list and snapshot, bets, and the operator's table settings."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from puntobanco.bets import BetKind
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
async def create_table(body: TableIn, casino: CasinoDep, _operator: Operator) -> dict[str, Any]:
    """A new table with its own dealer (operator)."""
    dealer = await casino.add_table(body.name, body.rules, dealing=body.dealing)
    return dealer.summary()


@router.patch("/{table_id}", response_model=TableItem)
async def update_table(table_id: int, body: RulesIn, casino: CasinoDep,
                       _operator: Operator) -> dict[str, Any]:
    """Change a table's settings; they apply from its next shoe (operator)."""
    dealer = await casino.update_table(table_id, body.rules)
    return dealer.summary()
