"""The operator's players: the list with balances, and play-money credits."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from sqlalchemy import select
from sqlalchemy.orm import Session

from puntobanco.server.api.auth import player_fields, player_json
from puntobanco.server.api.deps import CasinoDep, Operator
from puntobanco.server.api.schemas import ERRORS, CreditIn, Id, PlayerOut
from puntobanco.server.db import auth, ledger
from puntobanco.server.db.models import Account, Player
from puntobanco.server.messages import NotFound

router = APIRouter(prefix="/api/players", tags=["operator"], responses=ERRORS)


@router.get("", response_model=list[PlayerOut])
async def players(casino: CasinoDep, _operator: Operator) -> list[dict[str, Any]]:
    def read(session: Session) -> list[dict[str, Any]]:
        balances = {code: value for code, value in session.execute(
            select(Account.code, Account.balance)
            .where(Account.kind == "wallet"))}
        return [player_fields(auth.info(p), balances.get(ledger.wallet_code(p.id), 0))
                for p in session.scalars(select(Player).order_by(Player.id))]

    return await casino.db.run_read(read)


@router.post("/{player_id}/credit", response_model=dict[str, PlayerOut])
async def credit(player_id: Id, body: CreditIn, casino: CasinoDep,
                 _operator: Operator) -> dict[str, Any]:
    """Credit play money to a player's wallet (a ledger transaction from the issuer)."""

    def write(session: Session) -> dict[str, Any]:
        player = session.get(Player, player_id)
        if player is None:
            raise NotFound(f"There is no player {player_id}.")
        ledger.transfer(session, ledger.account_id(session, ledger.ISSUER_CODE),
                        ledger.account_id(session, ledger.wallet_code(player_id)), body.amount,
                        reason="credit", player_id=player_id)
        return {"player": player_json(session, auth.info(player))}

    answer = await casino.db.run_write(write)
    casino.tell_player(player_id, {"type": "balance", "reason": "credit", "amount": body.amount,
                                   "balance": answer["player"]["balance"]})
    return answer
