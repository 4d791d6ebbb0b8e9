"""The WebSocket messages of a table, as Pydantic models (``docs/api.md``, "WebSocket messages").

Each message is one JSON object whose ``type`` names it. The live layer builds these models and
the hub serialises each one once, whatever the number of sockets it goes to; nothing here needs
FastAPI.

>>> BetsClosed(round_no=3, coup_id=12).model_dump_json()
'{"type":"bets-closed","round_no":3,"coup_id":12}'
>>> sorted(MESSAGES)[:3]
['bet-totals', 'bets-closed', 'card-dealt']
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


#: who deals a table: the server (a shuffled shoe) or a person (a real shoe, docs/dealer.md)
Dealing = Literal["server", "dealer"]


class ShoeStarted(Message):
    type: Literal["shoe-started"] = "shoe-started"
    shoe_id: int
    shoe_no: int
    commitment: str = Field(description="sha256(salt:cards), published before the first card "
                                        "(empty for a hand-dealt shoe)")
    cards_left: int
    cut_index: int
    burned: int
    cards: int
    rules: Json
    dealing: Dealing = "server"


class RoundOpened(Message):
    """Betting is open on coup ``coup_in_shoe`` of shoe ``shoe_no`` (the coup's identity on
    every page, report and recall; ``round_no`` counts the table's rounds, void ones too)."""

    type: Literal["round-opened"] = "round-opened"
    round_no: int
    coup_id: int
    shoe_no: int
    coup_in_shoe: int
    last_coup: bool
    deadline: int | None = Field(description="epoch ms: 'no more bets' at this moment "
                                             "(None: the dealer closes it)")
    server_time: int
    seconds: float | None
    dealing: Dealing = "server"


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
    shoe_no: int
    coup_in_shoe: int
    winner: str
    shoe_finished: bool


class RoundVoided(Message):
    """The round is void (a misdeal, a stop while betting was open): every stake returned
    (each player gets a ``balance``); the coup's number in the shoe is not used up."""

    type: Literal["round-voided"] = "round-voided"
    round_no: int
    coup_id: int
    shoe_no: int
    coup_in_shoe: int
    cards: list[str] = Field(default_factory=list, description="the cards of a misdeal, kept "
                                                               "in the record marked void")


class Balance(Message):
    """To the player only: their wallet moved outside a bet (a credit, a void round's refund,
    a suspension's refund)."""

    type: Literal["balance"] = "balance"
    reason: Literal["credit", "void", "refund"]
    amount: int
    balance: int
    coup_id: int | None = None


class CardCorrected(Message):
    """A hand-dealt coup's last card was mistyped: ``card`` replaces ``was``."""

    type: Literal["card-corrected"] = "card-corrected"
    side: str
    position: int
    card: str
    was: str
    punto_total: int
    banco_total: int


class ShoeEvent(Message):
    """A hand-dealt shoe's burn, cut card or last-coup mark, with the shoe afterwards."""

    type: Literal["shoe-event"] = "shoe-event"
    event: Literal["burn", "cut-card", "last-coup"]
    shoe: Json
    cards: list[str] = Field(default_factory=list)
    counted: int = 0


class ShoeFinished(Message):
    type: Literal["shoe-finished"] = "shoe-finished"
    shoe_id: int
    shoe_no: int
    order: list[str] = Field(default_factory=list, description="empty for a hand-dealt shoe")
    salt: str = ""
    commitment: str = ""
    dealing: Dealing = "server"


class Pong(Message):
    type: Literal["pong"] = "pong"


class ErrorBody(BaseModel):
    code: str
    message: str


class Error(Message):
    """The answer to anything a client sends other than a ping."""

    type: Literal["error"] = "error"
    error: ErrorBody


#: every message model by its ``type``
MESSAGES: dict[str, type[Message]] = {
    model.model_fields["type"].default: model
    for model in (Snapshot, ShoeStarted, RoundOpened, BetTotals, MyBets, BetsClosed, CardDealt,
                  CardCorrected, CoupDealt, Settlement, RoundSettled, RoundVoided, Balance,
                  ShoeEvent, ShoeFinished, Pong, Error)}


def encode(message: Message) -> str:
    """The message's JSON text (compact, UTF-8 kept as it is)."""
    return message.model_dump_json()
