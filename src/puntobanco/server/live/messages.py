"""Every message of the live room, as Pydantic models: the WebSocket messages of a table
(``docs/api.md``, "WebSocket messages") and, at the end, what server processes relay to each
other (``live/cluster.py``).

Each message is one JSON object whose ``type`` names it. The live layer builds these models and
the hub serialises each one once, whatever the number of sockets it goes to; nothing here needs
FastAPI.

>>> BetsClosed(round_no=3, coup_id=12).model_dump_json()
'{"type":"bets-closed","round_no":3,"coup_id":12}'
>>> sorted(MESSAGES)[:3]
['balance', 'bet-accepted', 'bet-refused']
"""

from __future__ import annotations

from collections.abc import Sequence
from json.encoder import encode_basestring as _string
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from puntobanco.bets import BetKind, SettlementLine

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
    #: how long after the card before it a page shows this one (0: at once): the first four
    #: cards of a server-dealt coup come together, to be turned ``card_seconds`` apart
    reveal_after_ms: int = 0


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
                  CardCorrected, CoupDealt, Settlement, RoundSettled, RoundVoided, Balance,
                  ShoeEvent, ShoeFinished, Pong, Error, DatabaseState, BetAccepted, BetRefusal)}


def encode(message: Message) -> str:
    """The message's JSON text (compact, UTF-8 kept as it is)."""
    return message.model_dump_json()


#: the bets' names, which JSON writes as they are (no character to escape)
_KINDS = frozenset(kind.value for kind in BetKind)


def _cents(bets: Any) -> str | None:
    """``{"banco":1000,...}`` as :func:`encode` writes a ``dict[str, int]`` of bets by name,
    or ``None`` when ``bets`` is not such a dict of the bets' own names."""
    if type(bets) is not dict:
        return None
    parts = []
    for name, cents in bets.items():
        if name not in _KINDS or type(cents) is not int:
            return None
        parts.append(f'"{name}":{cents}')
    return "{" + ",".join(parts) + "}"


def my_bets_text(coup_id: int, my_bets: dict[str, int], balance: int) -> str:
    """``encode(MyBets(coup_id=…, my_bets=…, balance=…))`` without building the model, for
    the ``my-bets`` every accepted bet causes (issue 21: 1 µs instead of 5).

    >>> my_bets_text(7, {"banco": 1000}, 9000) == encode(MyBets(
    ...     coup_id=7, my_bets={"banco": 1000}, balance=9000))
    True
    """
    bets = _cents(my_bets)
    if bets is None or type(coup_id) is not int or type(balance) is not int:
        return encode(MyBets(coup_id=coup_id, my_bets=my_bets, balance=balance))
    return _my_bets(coup_id, bets, balance)


def _my_bets(coup_id: int, bets: str, balance: int) -> str:
    """The ``my-bets`` text of whole numbers and the bets as :func:`_cents` wrote them."""
    return f'{{"type":"my-bets","coup_id":{coup_id},"my_bets":{bets},"balance":{balance}}}'


def bet_accepted_texts(key: str, answer: dict[str, Any]) -> tuple[str, str] | None:
    """The ``bet-accepted`` text of a single bet's ``answer`` as the desk gave it, and the
    ``my-bets`` text it implies — what ``BetOut`` then :func:`encode` make of it, without the
    models (issue 21: 2 µs instead of 20) — or ``None`` when ``answer`` is not exactly of
    ``BetOut``'s usual shape (whole numbers, the bets by their names): then the models read it.

    >>> answer = {"bet": "banco", "stake": 1000, "total": 1000, "my_bets": {"banco": 1000},
    ...           "balance": 9000, "coup_id": 3, "round_no": 2}
    >>> bet_accepted_texts("k", answer)[0] == encode(BetAccepted(key="k", answer=answer))
    True
    >>> bet_accepted_texts("k", {**answer, "stake": 10.0}) is None
    True
    """
    parts = _bet_answer(answer)
    if parts is None:
        return None
    text, bets, coup_id, balance = parts
    return (f'{{"type":"bet-accepted","key":{_string(key)},"answer":{text}}}',
            _my_bets(coup_id, bets, balance))


def bet_answer_text(answer: dict[str, Any]) -> str | None:
    """A single bet's ``answer`` as ``BetOut`` writes it — the JSON answer of ``POST
    /api/tables/{id}/bets`` (issue 21, fourth pass: ``api/fastbets.quick_http_bet``) — or
    ``None`` when it is not of the usual shape (:func:`bet_accepted_texts`).

    >>> bet_answer_text({"bet": "banco", "stake": 1000, "total": 1000, "my_bets": {},
    ...                  "balance": 9000, "coup_id": 3, "round_no": 2})
    '{"bet":"banco","stake":1000,"total":1000,"my_bets":{},"balance":9000,"coup_id":3,"round_no":2}'
    """
    parts = _bet_answer(answer)
    return None if parts is None else parts[0]


def _bet_answer(answer: dict[str, Any]) -> tuple[str, str, int, int] | None:
    """The answer's JSON text, its bets' text, its coup and balance (see above)."""
    try:
        bet, stake, total, balance, coup_id, round_no = (
            answer["bet"], answer["stake"], answer["total"], answer["balance"],
            answer["coup_id"], answer["round_no"])
        bets = _cents(answer["my_bets"])
    except (KeyError, TypeError):
        return None
    if (bets is None or type(bet) is not str or bet not in _KINDS or type(stake) is not int
            or type(total) is not int or type(balance) is not int or type(coup_id) is not int
            or type(round_no) is not int):
        return None
    return (f'{{"bet":"{bet}","stake":{stake},"total":{total},"my_bets":{bets},'
            f'"balance":{balance},"coup_id":{coup_id},"round_no":{round_no}}}',
            bets, coup_id, balance)


_JSON: TypeAdapter[Json] = TypeAdapter(Json)


def settlement_line(line: SettlementLine) -> Json:
    """A settlement line as the ``settlement`` message lists it (``docs/api.md``)."""
    return {**line.to_dict(), "returned": line.returned}


#: the texts of the lines written so far (:func:`settlement_text`): by the line's ``id``, with
#: the line itself (kept alive by it, so its ``id`` is no other line's while it is here)
LineTexts = dict[int, tuple[SettlementLine, str]]


def settlement_text(coup_id: int, balance: int, lines: Sequence[SettlementLine],
                    made: LineTexts) -> str:
    """``encode(Settlement(coup_id=…, balance=…, lines=[settlement_line(…), …]))`` without
    the model, for the one ``settlement`` each bettor gets at every coup (issue 21, fourth
    pass: 5,000 of them at once, ~15 µs each with the model). ``made`` keeps each line's text
    for the coup's other bettors: many players hold the same bet, so most lines are written
    once a coup. They are found by identity (the core settles every spot holding the same
    bets with the same lines): a line's hash (its ``Fraction`` odds and enums, in Python) cost
    ~10 µs of every bettor's message (issue 21, seventh pass).

    >>> from puntobanco.bets import Outcome, Reason
    >>> from fractions import Fraction
    >>> line = SettlementLine(BetKind.BANCO, 1000, Outcome.WIN, 950, Fraction(19, 20),
    ...                       Reason.WIN_COMMISSION)
    >>> settlement_text(4, 10950, [line], {}) == encode(Settlement(
    ...     coup_id=4, balance=10950, lines=[settlement_line(line)]))
    True
    """
    if type(coup_id) is not int or type(balance) is not int:
        return encode(Settlement(coup_id=coup_id, balance=balance,
                                 lines=[settlement_line(line) for line in lines]))
    texts = []
    for line in lines:
        found = made.get(id(line))
        if found is not None and found[0] is line:
            texts.append(found[1])
            continue
        text = _line_text(line)
        made[id(line)] = (line, text)
        texts.append(text)
    return (f'{{"type":"settlement","coup_id":{coup_id},"lines":[{",".join(texts)}],'
            f'"balance":{balance}}}')


def _line_text(line: SettlementLine) -> str:
    """One line's JSON as :func:`encode` writes :func:`settlement_line`'s dict."""
    fields = settlement_line(line)
    if not all(type(fields[name]) is int for name in ("stake", "net", "returned")) or not all(
            type(fields[name]) is str for name in ("bet", "outcome", "pays", "detail")):
        return _JSON.dump_json(fields).decode()
    return (f'{{"bet":{_string(fields["bet"])},"stake":{fields["stake"]},'
            f'"outcome":{_string(fields["outcome"])},"net":{fields["net"]},'
            f'"pays":{_string(fields["pays"])},"detail":{_string(fields["detail"])},'
            f'"returned":{fields["returned"]}}}')


# --- between server processes (live/cluster.py): what one process tells the others ---------
#
# One discriminated union, named by ``kind``: a relayed item is parsed into exactly one of
# these, or refused as not understood. A table event travels as the JSON text the sockets get
# (serialised once, pushed as it came).


class DealerState(BaseModel):
    """What a following process needs to draw a table as its dealing process sees it."""

    model_config = ConfigDict(frozen=True)
    view: Json
    rules: Json
    seconds: float
    paused: bool


class Relayed(BaseModel):
    model_config = ConfigDict(frozen=True)
    kind: str


class TableEvent(Relayed):
    """A table event the dealing process pushed to its sockets, with its state."""

    kind: Literal["table-event"] = "table-event"
    table: int
    text: str
    state: DealerState


class PlayerMessage(Relayed):
    """A message to one player's sockets (``my-bets``, ``settlement``, ``balance``); a bet's
    ``my-bets`` also carries its bets for the other processes' totals (``bets``)."""

    kind: Literal["player-message"] = "player-message"
    table: int
    player: int
    text: str
    bets: MyBets | None = None


class TellPlayer(Relayed):
    """A message to every page of one player, whatever table it shows (a credit)."""

    kind: Literal["tell-player"] = "tell-player"
    player: int
    text: str


class BarPlayer(Relayed):
    kind: Literal["bar-player"] = "bar-player"
    player: int
    barred: bool


class EndSessions(Relayed):
    """Close a player's sockets opened with the session whose token hashes to
    ``token_hash`` (or with any session): the hash travels, never the token."""

    kind: Literal["end-sessions"] = "end-sessions"
    player: int
    token_hash: str | None = None


class TableChanged(Relayed):
    """A table was created or its settings changed: serve it as stored."""

    kind: Literal["table-changed"] = "table-changed"
    table: int


class TableState(Relayed):
    """The dealing process's state of a table (after a takeover, or asked for);
    ``redraw``: every page draws the table afresh."""

    kind: Literal["table-state"] = "table-state"
    table: int
    state: DealerState
    redraw: bool = False


class StateWanted(Relayed):
    """A process (starting, or back after a lost connection) asks for a table's state."""

    kind: Literal["state-wanted"] = "state-wanted"
    table: int


class PauseTable(Relayed):
    kind: Literal["pause-table"] = "pause-table"
    table: int
    paused: bool


class Watchers(Relayed):
    """Who watches a table on the process ``origin`` (its signed-in players), for
    ``seconds`` unless renewed, and whether anyone does."""

    kind: Literal["watchers"] = "watchers"
    table: int
    origin: str
    watched: bool
    players: list[int]
    seconds: float


class TableWanted(Relayed):
    """A hand-dealt table's dealer acts through another process: hand the table over."""

    kind: Literal["table-wanted"] = "table-wanted"
    table: int


RelayItem = Annotated[TableEvent | PlayerMessage | TellPlayer | BarPlayer | EndSessions
                      | TableChanged | TableState | StateWanted | PauseTable | Watchers
                      | TableWanted, Field(discriminator="kind")]
#: parses one relayed item (a dict) into its model
RELAYED: TypeAdapter[RelayItem] = TypeAdapter(RelayItem)
