"""The WebSocket messages of a table, as Pydantic models (``docs/api.md``, "WebSocket messages").

Each message is one JSON object whose ``type`` names it. The live layer builds these models and
the hub serialises each one once, whatever the number of sockets it goes to; nothing here needs
FastAPI.

>>> BetsClosed(round_no=3, coup_id=12).model_dump_json()
'{"type":"bets-closed","round_no":3,"coup_id":12}'
>>> sorted(MESSAGES)[:3]
['bet-accepted', 'bet-refused', 'bet-totals']
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Json = dict[str, Any]


class Message(BaseModel):
    """A message pushed to the clients of a table."""

    model_config = ConfigDict(frozen=True)
    type: str


class Snapshot(Message):
    """The first message on every connection: the table as ``GET /api/tables/{id}`` shows it."""

    type: Literal["snapshot"] = "snapshot"
    table: Json


class ShoeStarted(Message):
    type: Literal["shoe-started"] = "shoe-started"
    shoe_id: int
    shoe_no: int
    commitment: str = Field(description="sha256(salt:cards), published before the first card")
    cards_left: int
    cut_index: int
    burned: int
    cards: int
    rules: Json


class RoundOpened(Message):
    type: Literal["round-opened"] = "round-opened"
    round_no: int
    coup_id: int
    coup_in_shoe: int
    last_coup: bool
    deadline: int = Field(description="epoch ms: 'no more bets' at this moment")
    server_time: int
    seconds: float


class BetTotals(Message):
    """The table's stakes per bet kind; coalesced (at most a few per second per table)."""

    type: Literal["bet-totals"] = "bet-totals"
    coup_id: int
    totals: dict[str, int]
    spots: int


class MyBets(Message):
    """To the player only: their bets this coup and their wallet after a bet or withdrawal."""

    type: Literal["my-bets"] = "my-bets"
    coup_id: int
    my_bets: dict[str, int]
    balance: int


class BetsClosed(Message):
    type: Literal["bets-closed"] = "bets-closed"
    round_no: int
    coup_id: int


class CardDealt(Message):
    type: Literal["card-dealt"] = "card-dealt"
    side: str
    position: int
    card: str
    punto_total: int
    banco_total: int


class CoupDealt(Message):
    type: Literal["coup-dealt"] = "coup-dealt"
    coup: Json
    cards_left: int
    cut_card_out: bool


class Settlement(Message):
    """To the player only: their settlement lines (L6 order) and their wallet afterwards."""

    type: Literal["settlement"] = "settlement"
    coup_id: int
    lines: list[Json]
    balance: int


class RoundSettled(Message):
    type: Literal["round-settled"] = "round-settled"
    round_no: int
    coup_id: int
    winner: str
    shoe_finished: bool


class ShoeFinished(Message):
    type: Literal["shoe-finished"] = "shoe-finished"
    shoe_id: int
    shoe_no: int
    order: list[str]
    salt: str
    commitment: str


class Pong(Message):
    type: Literal["pong"] = "pong"


class ErrorBody(BaseModel):
    code: str
    message: str


class Error(Message):
    """The answer to anything a client sends other than a ping."""

    type: Literal["error"] = "error"
    error: ErrorBody


class DatabaseState(Message):
    """The table stopped taking bets because of the database (``available`` false: it cannot be
    reached, ``database-unavailable``, or its disk is full, ``storage-full``; ``since`` epoch
    ms), or takes them again (``available`` true, ``code`` and ``since`` null). The snapshot
    carries the same object under ``database`` (issue 22, ``docs/server.md``)."""

    type: Literal["database"] = "database"
    available: bool
    code: Literal["database-unavailable", "storage-full"] | None
    since: int | None


class BetAccepted(Message):
    """The answer to a client's ``bet`` message (issue 21): its ``key``, and ``answer``, what
    the HTTP route answers (``BetOut``, or ``BetsOut`` for a ``bets`` message)."""

    type: Literal["bet-accepted"] = "bet-accepted"
    key: str
    answer: Json


class BetRefusal(Message):
    """A client's ``bet`` message refused: its ``key`` (``null`` when it had none), the code
    and the sentence in the player's language, the HTTP status the route gives the same
    refusal, and ``retry_after`` (seconds) when the player's bet limit was reached."""

    type: Literal["bet-refused"] = "bet-refused"
    key: str | None
    status: int
    error: ErrorBody
    retry_after: int | None = None


#: every message model by its ``type``
MESSAGES: dict[str, type[Message]] = {
    model.model_fields["type"].default: model
    for model in (Snapshot, ShoeStarted, RoundOpened, BetTotals, MyBets, BetsClosed, CardDealt,
                  CoupDealt, Settlement, RoundSettled, ShoeFinished, Pong, Error,
                  DatabaseState, BetAccepted, BetRefusal)}


def encode(message: Message) -> str:
    """The message's JSON text (compact, UTF-8 kept as it is)."""
    return message.model_dump_json()
