"""Game recall: a player's last coups, any coup by id, and shoes (revealed once finished), by
id or by a table's own shoe number."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query
from sqlalchemy import select

from puntobanco.server.api.deps import CasinoDep, MaybePlayer, SignedIn
from puntobanco.server.api.schemas import ERRORS, CoupOut, Id, ShoeOut, row_id
from puntobanco.server.db import dealing, recall
from puntobanco.server.db.models import CoupRecord, ShoeRecord
from puntobanco.server.messages import NotFound

router = APIRouter(prefix="/api", tags=["recall"], responses=ERRORS)


@router.get("/me/coups", response_model=list[CoupOut])
async def my_coups(player: SignedIn, casino: CasinoDep,
                   limit: Annotated[int, Query(ge=1, le=200)] = 20) -> list[dict[str, Any]]:
    """The caller's last coups with a bet: cards, bets and every settlement line, newest first."""
    return await casino.db.run_read(lambda s: recall.recent_coups(s, player.id, limit=limit))


@router.get("/coups/{coup_id}", response_model=CoupOut)
async def coup(coup_id: Id, casino: CasinoDep, player: MaybePlayer) -> dict[str, Any]:
    """Any coup by id; signed in, with the caller's own bets and lines in L6 order."""
    found = await casino.db.run_read(
        lambda s: recall.coup_for(s, coup_id, player.id if player else None))
    if found is None:
        raise NotFound(f"There is no coup {coup_id}.")
    return found


@router.get("/shoes/{shoe_id}", response_model=ShoeOut)
async def shoe(shoe_id: Id, casino: CasinoDep, player: MaybePlayer) -> dict[str, Any]:
    """A shoe's commitment; after its last coup, also its salt and order (provably fair)."""
    found = await casino.db.run_read(lambda s: recall.shoe_json(s, shoe_id))
    if found is None:
        raise NotFound(f"There is no shoe {shoe_id}.")
    return await _with_record(found, casino, player)


async def _with_record(found: dict[str, Any], casino: CasinoDep,
                       player: MaybePlayer) -> dict[str, Any]:
    """A hand-dealt shoe's record (docs/dealer.md): for everyone once it is finished, for the
    operator while it is dealt too."""
    operator = player is not None and player.is_operator
    if found.get("dealing") == "dealer" and (found["status"] == "finished" or operator):
        shoe_id = found["id"]
        found.update(await casino.db.run_read(lambda s: dealing.hand_dealt_shoe_json(
            s, s.get_one(ShoeRecord, shoe_id),
            s.scalars(select(CoupRecord).where(CoupRecord.shoe_id == shoe_id)).all())))
    return found


@router.get("/tables/{table}/shoes/{shoe_no}", response_model=ShoeOut)
async def table_shoe(table: Annotated[str, Path(min_length=1, max_length=255)],
                     shoe_no: Annotated[int, Path(ge=1, le=2_147_483_647)],
                     casino: CasinoDep, player: MaybePlayer) -> dict[str, Any]:
    """A table's shoe by the number the page shows (``table``: its name or id)."""
    table_id = row_id(table)
    found = await casino.db.run_read(
        lambda s: recall.table_shoe_json(s, table, shoe_no, table_id=table_id))
    if found is None:
        raise NotFound(f"Table {table} has no shoe {shoe_no}.")
    return await _with_record(found, casino, player)

