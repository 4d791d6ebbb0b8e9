"""Request bodies and response shapes of the REST API (they make the OpenAPI document)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import Header, Path, Query
from pydantic import BaseModel, ConfigDict, Field, model_validator

from puntobanco.rules import MAX_STAKE

#: One stake, in a single bet or in a batch: checked alike (issue 18).
Stake = Annotated[int, Field(strict=True, le=MAX_STAKE)]
Lang = Literal["fr", "it", "es", "en"]
#: Ids are the database's INTEGER columns (32 bits on PostgreSQL): a larger one is a 400, not a
#: database error (issue 9).
MAX_ID = 2**31 - 1
Id = Annotated[int, Path(ge=1, le=MAX_ID)]
#: A row count to skip (bounded as ids are: no database is asked to skip 2⁶³ rows).
Offset = Annotated[int, Query(ge=0, le=MAX_ID)]


def row_id(text: str) -> int | None:
    """The row id a name-or-id path parameter names, or ``None`` when it names none: ASCII
    digits only (``"²".isdigit()`` is true, ``int("²")`` fails), 1 to :data:`MAX_ID` (a larger
    one is no INTEGER column's). The one parser of such parameters (issue 18).

    >>> row_id("12"), row_id("0"), row_id("²"), row_id("2147483648"), row_id("99999999999999999999")
    (12, None, None, None, None)
    """
    if not text.isascii() or not text.isdigit() or len(text) > 10:
        return None
    number = int(text)
    return number if 1 <= number <= MAX_ID else None


#: Printable ASCII only: no NUL byte (PostgreSQL refuses it in text) nor control character.
PRINTABLE = r"^[\x20-\x7e]+$"
#: the longest idempotency key
KEY_LENGTH = 100
#: A withdrawal's idempotency key travels in a header (DELETE has no body).
IdempotencyKey = Annotated[str | None, Header(alias="Idempotency-Key", min_length=1,
                                              max_length=KEY_LENGTH, pattern=PRINTABLE)]


#: the words of a body's NUL refusal, by which the error answer recognises it
NUL_IN_BODY = "holds a NUL character"


def nul_field(data: Any, where: str = "") -> str | None:
    """The first field of a JSON value with a NUL character in its text or a key, or ``None``.

    PostgreSQL refuses NUL in text and bcrypt in a password: such a body is a 400 naming the
    field, never a database error (issue 18).

    >>> nul_field({"name": "ok", "rules": {"a\\x00": 1}}), nul_field(["a", "b\\x00"]), nul_field(3)
    ('rules.a\\x00', '1', None)
    """
    if isinstance(data, str):
        return where or "body" if "\x00" in data else None
    if isinstance(data, dict):
        for key, value in data.items():
            field = f"{where}.{key}" if where else str(key)
            if "\x00" in str(key):
                return field
            found = nul_field(value, field)
            if found is not None:
                return found
    elif isinstance(data, list):
        for index, value in enumerate(data):
            found = nul_field(value, f"{where}.{index}" if where else str(index))
            if found is not None:
                return found
    return None


class Body(BaseModel):
    """Every request body: no field it does not know, no NUL character anywhere in it."""

    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _no_nul(cls, data: Any) -> Any:
        field = nul_field(data)
        if field is not None:
            raise ValueError(f"the field {field} {NUL_IN_BODY}")
        return data


class SignupIn(Body):
    username: str
    password: str
    lang: Lang | None = None


class LoginIn(Body):
    username: str
    password: str


class LangIn(Body):
    lang: Lang


class BetIn(Body):
    bet: str = Field(description="punto, banco, egalite, lion-punto or lion-banco")
    stake: Stake = Field(description="cents to add to the bet")
    idempotency_key: Annotated[str, Field(min_length=1, max_length=KEY_LENGTH,
                                          pattern=PRINTABLE)] | None = None
    coup_id: Annotated[int, Field(strict=True, ge=1, le=MAX_ID)] | None = Field(
        default=None, description="the coup the player saw open: a bet "
                                "for any other coup is refused table-closed")


class BetsIn(Body):
    bets: Annotated[dict[str, Stake], Field(min_length=1, max_length=5)] = Field(
        description="bet kind -> cents to add; all placed or none; each box named once "
                    "(an alias and its name are one box: duplicate-bet)")
    idempotency_key: Annotated[str, Field(min_length=1, max_length=KEY_LENGTH,
                                          pattern=PRINTABLE)] | None = None
    coup_id: Annotated[int, Field(strict=True, ge=1, le=MAX_ID)] | None = Field(
        default=None, description="the coup the player saw open: as for a single bet")


class TableIn(Body):
    name: str
    rules: dict[str, Any] = Field(default_factory=dict)
    dealing: Literal["server", "dealer"] = Field(
        "server", description="who deals: the server's shuffled shoe, or a dealer (docs/dealer.md)")


class RulesIn(Body):
    rules: dict[str, Any] | None = None
    name: str | None = Field(default=None, description="a new name (operator console)")


class CreditIn(Body):
    amount: Annotated[int, Field(strict=True, ge=1, le=100_000_000)]
    idempotency_key: Annotated[str, Field(min_length=1, max_length=KEY_LENGTH,
                                          pattern=PRINTABLE)] | None = Field(
        default=None, description="as the Idempotency-Key header: a retry credits nothing")


class PlayerOut(BaseModel):
    id: int
    username: str
    role: Literal["player", "operator", "dealer"]
    lang: Lang
    balance: int


class AuthOut(BaseModel):
    token: str
    player: PlayerOut


class OkOut(BaseModel):
    ok: bool = True


class LogoutOut(BaseModel):
    ok: bool = True
    sessions: int = Field(description="how many sessions were closed")


class OutOfServiceOut(BaseModel):
    """A table whose dealer could not start (its recovery failed): why, and its stored settings
    (which the operator can correct with ``PATCH /api/tables/{id}``)."""

    id: int
    name: str
    reason: str
    rules: dict[str, Any]


class Rules(BaseModel):
    decks: int
    drawing: str
    #: Pays: a whole number, or exact text such as "1.5" (-1: the row loses).
    tie_pays: int | str
    banco_payout: str
    commission: str
    banco_reduced_pays: dict[str, int | str]
    lion_paytable: list[int | str]
    lion_natural_pays: int | str
    lion_natural_tie_pays: int | str
    chip_unit: int
    cut_card: int
    limits: dict[str, list[int]]
    betting_seconds: int | float
    allow_punto_and_banco: bool
    burn: bool
    last_coup: str


Phase = Literal["open", "closed", "dealt", "settled", "idle", "void"]


class TableItem(BaseModel):
    id: int
    name: str
    rules: Rules = Field(description="the rules of the shoe being dealt")
    next_rules: Rules = Field(description="the settings the next shoe will use")
    phase: Phase
    players: int
    spots: int
    paused: bool = Field(default=False, description="paused by the operator (docs/operator.md)")
    dealing: Literal["server", "dealer"] = "server"
    betting_seconds: int | float | None = Field(
        default=None, description="the betting window the table deals now (seconds)")
    betting_seconds_fixed: bool = Field(
        default=False, description="the window is fixed by `serve --betting-seconds`, not by the "
        "table's settings")


class ShoeInfo(BaseModel):
    id: int
    shoe_no: int
    commitment: str
    cards_left: int
    cut_card_out: bool
    last_coup: bool
    coups_dealt: int
    cut_index: int
    burned: int
    coup_in_shoe: int | None = Field(
        None, description="the coup being played (or the last one): its number in the shoe")


class CardOut(BaseModel):
    side: Literal["punto", "banco"]
    position: int
    card: str


class Hand(BaseModel):
    cards: list[str]
    total: int | None


class LineOut(BaseModel):
    bet: str
    stake: int
    outcome: Literal["win", "lose", "push"]
    net: int
    pays: str
    detail: str
    returned: int


class CoupPublic(BaseModel):
    """A coup as everyone sees it (the snapshot's ``last_result``, ``coup-dealt``)."""

    id: int
    table_id: int
    shoe_id: int
    shoe_no: int
    coup_in_shoe: int
    round_no: int
    status: Literal["open", "closed", "dealt", "settled", "void"]
    punto: Hand
    banco: Hand
    winner: Literal["punto", "banco", "egalite"] | None
    natural: bool | None
    margin: int | None
    cards: list[CardOut]
    dealt_at: int | None
    settled_at: int | None


class CoupOut(CoupPublic):
    """A coup with the caller's own bets and settlement lines (L6 order)."""

    settlement: list[LineOut] = Field(default_factory=list)
    my_bets: dict[str, int] = Field(default_factory=dict)


class RoadOut(BaseModel):
    coup_id: int
    winner: Literal["punto", "banco", "egalite"]
    punto_total: int
    banco_total: int
    natural: bool


class DatabaseOut(BaseModel):
    available: bool
    code: Literal["database-unavailable", "storage-full"] | None
    since: int | None = Field(description="epoch ms: unavailable since")


class SnapshotOut(BaseModel):
    id: int
    name: str
    rules: Rules
    phase: Phase
    round_no: int
    coup_id: int | None
    coup_in_shoe: int
    shoe: ShoeInfo | None
    deadline: int | None
    server_time: int
    totals: dict[str, int]
    my_bets: dict[str, int]
    cards: list[CardOut]
    last_result: CoupPublic | None
    roads: list[RoadOut]
    betting_seconds: int | float
    spots: int
    balance: int | None = Field(default=None, description="the caller's wallet (signed in)")
    paused: bool = False
    dealing: Literal["server", "dealer"] = "server"
    database: DatabaseOut | None = Field(
        default=None, description="betting stopped by the database (issue 22): the socket's "
        "`database` message")


class BetOut(BaseModel):
    bet: str
    stake: int
    total: int
    my_bets: dict[str, int]
    balance: int
    coup_id: int
    round_no: int


class BetsOut(BaseModel):
    placed: dict[str, int]
    my_bets: dict[str, int]
    balance: int
    coup_id: int
    round_no: int


class WithdrawOut(BaseModel):
    bet: str
    stake: int
    my_bets: dict[str, int]
    balance: int
    coup_id: int
    round_no: int


class Revealed(BaseModel):
    order: list[str]
    salt: str


class ShoeCoup(BaseModel):
    id: int
    coup_in_shoe: int
    status: str
    cards: list[str]


class ShoeOut(BaseModel):
    id: int
    table_id: int
    table_name: str | None = None
    shoe_no: int
    commitment: str
    status: Literal["dealing", "finished"]
    revealed: Revealed | None
    rules: Rules
    cut_index: int
    burned: int
    cards: int
    started_at: int | None
    finished_at: int | None
    coups: list[ShoeCoup]
    dealing: Literal["server", "dealer"] = "server"
    #: a finished hand-dealt shoe (docs/dealer.md): every entry, the S3 marks, the settlements
    entries: list[dict[str, Any]] | None = None
    cut_card_coup: int | None = None
    last_coup_no: int | None = None
    settlements: dict[str, list[dict[str, Any]]] | None = None


class ErrorBody(BaseModel):
    code: str
    message: str


class ErrorOut(BaseModel):
    error: ErrorBody


#: The error answers every route may give, for the OpenAPI document.
ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorOut, "description": text} for status, text in (
        (400, "malformed request"), (401, "not signed in"), (403, "not allowed"),
        (404, "not found"), (409, "conflict with the table's state"),
        (413, "body too large"), (422, "refused (bet, rules)"), (429, "rate limited"),
        (503, "the database is away or its disk full: retry after Retry-After (issue 22)"))}
