"""Dealer mode (``docs/dealer.md``): dealer accounts and their tables (operator), and the actions
a dealer — or a card-reading shoe signed in as one — drives a hand-dealt table with.

Every action answers the table's dealer state (:class:`DealerStateOut`) in the caller's
language; a refusal is one sentence with a 4xx code, and nothing changes.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Path, Request
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel, Field
from sqlalchemy.orm import Session

from puntobanco.cards import Card, parse_cards
from puntobanco.errors import PuntoBancoError
from puntobanco.rules import Side
from puntobanco.server.api.deps import CasinoDep, Operator, SignedIn, request_lang
from puntobanco.server.api.schemas import ERRORS, Body, Lang
from puntobanco.server.db import audit, auth, dealing
from puntobanco.server.db.auth import PlayerInfo
from puntobanco.server.live.casino import Casino
from puntobanco.server.live.hand import DealerControls

router = APIRouter(tags=["dealer"], responses=ERRORS)


# --- shapes -------------------------------------------------------------------------------


class DealerIn(Body):
    username: str
    password: str
    lang: Lang = "fr"


class DealerOut(BaseModel):
    id: int
    username: str
    lang: Lang
    tables: list[int]


#: a database id (a 32-bit integer in PostgreSQL)
Id = Annotated[int, Field(strict=True, ge=1, le=2**31 - 1)]


class AssignIn(Body):
    tables: Annotated[list[Id], Field(max_length=1000)] = Field(
        description="the hand-dealt tables this dealer may drive")


class ShoeIn(Body):
    decks: Annotated[int, Field(strict=True, ge=1, le=8)] | None = None


class BurnIn(Body):
    cards: list[str] = Field(default_factory=list, description="burned cards seen, e.g. [\"9h\"]")
    count: Annotated[int, Field(strict=True, ge=0, le=416)] = Field(
        0, description="cards burned face down, only counted")


class CardIn(Body):
    card: str = Field(description="the card drawn: rank then suit, e.g. 9h, QS, 10d")
    side: Literal["punto", "banco"] | None = Field(
        None, description="the side the dealer gives it to; refused if the rules call for the "
                          "other (out of turn)")
    number: Annotated[int, Field(strict=True, ge=1, le=6)] | None = Field(
        None, description="the card's place in the coup (1-6): a retry of the same card changes "
                          "nothing")


class CorrectionIn(Body):
    card: str = Field(description="the card that replaces the last one entered in this coup")


class StepOut(BaseModel):
    side: Literal["punto", "banco"] | None
    position: int | None
    reason: Literal["deal", "punto-draws", "banco-draws", "natural", "banco-stands",
                    "banco-drew"]
    complete: bool
    cards: int
    punto_total: int | None
    banco_total: int | None
    punto_third: int | None
    text: str


class DealerShoeOut(BaseModel):
    id: int | None
    shoe_no: int
    cards_left: int
    cut_card_out: bool
    last_coup: bool
    coups_dealt: int
    burned: int
    decks: int
    finished: bool


class HandOut(BaseModel):
    cards: list[str]
    total: int | None


class DealerStateOut(BaseModel):
    table_id: int
    name: str
    phase: Literal["open", "closed", "dealt", "settled", "idle", "void"]
    round_no: int
    coup_id: int | None
    coup_in_shoe: int
    shoe: DealerShoeOut | None
    step: StepOut | None = Field(description="what the rules require now (bets closed)")
    hands: dict[str, HandOut]
    totals: dict[str, int]
    spots: int
    last_result: dict[str, Any] | None
    can: dict[str, bool] = Field(description="the actions allowed now")


class DealerTableOut(BaseModel):
    id: int
    name: str
    phase: str


# --- who may drive ------------------------------------------------------------------------


async def _driven(table_id: int, casino: Casino, player: PlayerInfo) -> DealerControls:
    table = casino.dealer(table_id).controls
    if table is None:
        raise PuntoBancoError(f"Table {table_id} is dealt by the server, not by a dealer.",
                              code="not-dealer-table")
    if player.is_operator:
        return table
    allowed = player.role == "dealer" and await casino.db.run_read(
        lambda s: dealing.may_drive(s, player.id, table_id))
    if not allowed:
        raise PuntoBancoError("You are not the dealer of this table.", code="not-your-table")
    return table


async def driven_table(table_id: int, casino: CasinoDep, player: SignedIn) -> DealerControls:
    return await _driven(table_id, casino, player)


Driven = Annotated[DealerControls, Depends(driven_table)]


def _card(text: str) -> Card:
    return Card.parse(text)


# --- the operator's dealers ---------------------------------------------------------------


@router.post("/api/dealers", status_code=201, response_model=DealerOut, tags=["operator"])
async def create_dealer(body: DealerIn, casino: CasinoDep, operator: Operator) -> dict[str, Any]:
    """A dealer account (it signs in with ``/api/login`` and drives the tables assigned);
    audited ``dealer-create``."""
    auth.check_username(body.username)
    auth.check_password(body.password)
    hashed = await run_in_threadpool(auth.hash_password, body.password,
                                     rounds=casino.config.bcrypt_rounds)

    def create(session: Session) -> dict[str, Any]:
        made = auth.create_player(session, username=body.username, password_hash=hashed,
                                  lang=body.lang, role="dealer")
        audit.record(session, operator_id=operator.id, action="dealer-create",
                     target_kind="player", target_id=made.id, before=None,
                     after={"username": made.username, "lang": made.lang})
        return {"id": made.id, "username": made.username, "lang": made.lang, "tables": []}

    return await casino.db.run_write(create)


@router.get("/api/dealers", response_model=list[DealerOut], tags=["operator"])
async def list_dealers(casino: CasinoDep, _operator: Operator) -> list[dict[str, Any]]:
    return await casino.db.run_read(dealing.dealers)


@router.put("/api/dealers/{dealer_id}/tables", response_model=DealerOut, tags=["operator"])
async def assign(dealer_id: Annotated[int, Path(ge=1, le=2**31 - 1)], body: AssignIn, casino: CasinoDep,
                 operator: Operator) -> dict[str, Any]:
    """Set exactly the hand-dealt tables a dealer may drive; audited ``dealer-tables``."""
    def write(session: Session) -> dict[str, Any]:
        before = dealing.dealer_tables(session, dealer_id)
        tables = dealing.assign_tables(session, dealer_id, body.tables)
        audit.record(session, operator_id=operator.id, action="dealer-tables",
                     target_kind="player", target_id=dealer_id, before={"tables": before},
                     after={"tables": tables})
        found = next(d for d in dealing.dealers(session) if d["id"] == dealer_id)
        return {**found, "tables": tables}

    return await casino.db.run_write(write)


@router.get("/api/dealer/tables", response_model=list[DealerTableOut])
async def my_tables(casino: CasinoDep, player: SignedIn) -> list[dict[str, Any]]:
    """The hand-dealt tables the caller may drive (all of them for the operator)."""
    if player.is_operator:
        ids = [t for t, d in casino.dealers.items() if d.controls is not None]
    elif player.role == "dealer":
        ids = await casino.db.run_read(lambda s: dealing.dealer_tables(s, player.id))
    else:
        ids = []
    return [{"id": t, "name": casino.dealers[t].settings.name, "phase": casino.dealers[t].view.phase}
            for t in ids if t in casino.dealers]


# --- driving a table ----------------------------------------------------------------------

_BASE = "/api/tables/{table_id}/dealer"


@router.get(_BASE, response_model=DealerStateOut)
async def state(table: Driven, request: Request) -> dict[str, Any]:
    """The step the rules require, the hands, the betting state and the shoe."""
    return table.dealer_state(request_lang(request))


@router.post(f"{_BASE}/shoe", response_model=DealerStateOut)
async def new_shoe(body: ShoeIn, table: Driven, player: SignedIn,
                   request: Request) -> dict[str, Any]:
    """A new shoe (``decks``, else the table's); one in play is ended (between rounds only)."""
    await table.new_shoe(player.id, decks=body.decks)
    return table.dealer_state(request_lang(request))


@router.post(f"{_BASE}/burn", response_model=DealerStateOut)
async def burn(body: BurnIn, table: Driven, player: SignedIn, request: Request) -> dict[str, Any]:
    """Burned cards: those seen (entered) and those only counted (S2)."""
    await table.burn(player.id, cards=parse_cards(body.cards), counted=body.count)
    return table.dealer_state(request_lang(request))


@router.post(f"{_BASE}/open", response_model=DealerStateOut)
async def open_betting(table: Driven, player: SignedIn, request: Request) -> dict[str, Any]:
    await table.open_betting(player.id)
    return table.dealer_state(request_lang(request))


@router.post(f"{_BASE}/close", response_model=DealerStateOut)
async def close_betting(table: Driven, player: SignedIn, request: Request) -> dict[str, Any]:
    """No more bets (L4)."""
    await table.close_betting(player.id)
    return table.dealer_state(request_lang(request))


@router.post(f"{_BASE}/cards", response_model=DealerStateOut)
async def enter_card(body: CardIn, table: Driven, player: SignedIn,
                     request: Request) -> dict[str, Any]:
    """The card just drawn; refused unless the rules call for it and the shoe can hold it."""
    side = Side(body.side) if body.side is not None else None
    await table.enter_card(player.id, _card(body.card), side=side, number=body.number)
    return table.dealer_state(request_lang(request))


@router.post(f"{_BASE}/correction", response_model=DealerStateOut)
async def correct(body: CorrectionIn, table: Driven, player: SignedIn,
                  request: Request) -> dict[str, Any]:
    """Replace the last card entered in the coup (before it is settled)."""
    await table.correct_card(player.id, _card(body.card))
    return table.dealer_state(request_lang(request))


@router.post(f"{_BASE}/settle", response_model=DealerStateOut)
async def settle(table: Driven, player: SignedIn, request: Request) -> dict[str, Any]:
    """The coup is complete: settle it (exactly once, as on every table)."""
    await table.settle(player.id)
    return table.dealer_state(request_lang(request))


@router.post(f"{_BASE}/cut-card", response_model=DealerStateOut)
async def cut_card(table: Driven, player: SignedIn, request: Request) -> dict[str, Any]:
    """The cut card came out (S3): the coup in progress is completed and one more played."""
    await table.cut_card(player.id)
    return table.dealer_state(request_lang(request))


@router.post(f"{_BASE}/last-coup", response_model=DealerStateOut)
async def last_coup(table: Driven, player: SignedIn, request: Request) -> dict[str, Any]:
    """The next coup (or the one in progress) ends the shoe."""
    await table.last_coup(player.id)
    return table.dealer_state(request_lang(request))


@router.post(f"{_BASE}/misdeal", response_model=DealerStateOut)
async def misdeal(table: Driven, player: SignedIn, request: Request) -> dict[str, Any]:
    """Void the round: every stake returned; its cards stay in the record, marked void."""
    await table.misdeal(player.id)
    return table.dealer_state(request_lang(request))
