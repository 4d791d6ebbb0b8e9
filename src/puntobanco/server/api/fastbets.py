"""The bet request's short way through (issue 8): ``POST /api/tables/{id}/bets`` answered
without FastAPI's routing and dependency machinery, which cost the one event loop more than the
bet itself (about half of its time at 1,000 players betting).

:class:`FastBets` is called by the application itself before any middleware
(:class:`puntobanco.server.app.PuntoBancoApp`): the five middleware layers a request otherwise
crosses (Starlette's error and telemetry layers, FastAPI's body limit, our
:class:`~puntobanco.server.api.guard.Guard`, the compression) each wrap the request's ``send``
and cost a bet more than the desk's work. It takes a request only when it is the plain case —
``POST /api/tables/{id}/bets``, no query string, a JSON body with its ``Content-Length`` within
the guard's limit that :class:`~puntobanco.server.api.schemas.BetIn` accepts, a bearer token of
a live session — and then does exactly what the route does
(:func:`puntobanco.server.api.tables.place_bet`): the player's rate limit, the table's dealer,
``place_bet``, the answer validated by :class:`~puntobanco.server.api.schemas.BetOut`, a
refusal answered as :func:`~puntobanco.server.api.deps.on_puntobanco_error` does (its code,
its status, the sentence in the request's language — ``Accept-Language``, else the player's —
``Retry-After`` on 429 and 503), with the headers the guard gives a bet's answer
(``JSON_HEADERS``). The same work, :func:`take_bet` (:func:`take_bets` for a batch), is
what the routes themselves do (``api/tables.py``: they are adapters over it) and what answers
a bet sent on the player's WebSocket (``api/wsbets.py``), with one bearer parser
(:func:`~puntobanco.server.api.deps.parse_bearer`) and one error envelope
(:func:`~puntobanco.server.api.deps.refusal`) — issue 17. Anything else — another path, a
query string (``?lang=``), a body the model refuses, no or an unknown token — goes on to the
application unchanged (the body it read is handed on as it came), so every answer not in the
plain case is the route's own; the OpenAPI document still describes the route.

A session seen live in the last minute (:func:`~puntobanco.server.api.deps.known_player`) is
not looked up again: the bet's own group commit checks it, in the transaction that writes the
bet (``BetDesk.submit``). A bet whose session that batch finds ended, or that is refused before
any batch (after the deadline, a stake refused by the cheap checks, a retry answered from its
stored first answer), has its session looked up then, as the route would: an ended session is
answered ``unauthorized`` by the route exactly as before, and no refusal or stored answer is
given on a session not checked.
"""

from __future__ import annotations

import asyncio
import json
import json.scanner
import logging
import re
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from pydantic import BaseModel, ValidationError
from starlette.datastructures import State
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from puntobanco.bets import BetKind
from puntobanco.errors import PuntoBancoError
from puntobanco.i18n import DEFAULT_LANGUAGE
from puntobanco.rules import MAX_STAKE
from puntobanco.server.api import outage
from puntobanco.server.api.deps import (
    MAX_TOKEN,
    Taken,
    forget_sessions,
    known_player,
    lookup_player,
    parse_bearer,
    refusal,
)
from puntobanco.server.api.guard import (
    JSON_HEADERS,
    MAX_BODY_BYTES,
    Guards,
    TooManyRequests,
    asked_lang,
)
from puntobanco.server.api.schemas import KEY_LENGTH, MAX_ID, BetIn, BetOut, BetsIn, BetsOut
from puntobanco.server.db.auth import PlayerInfo
from puntobanco.server.db.health import DatabaseUnavailable
from puntobanco.server.live import messages as msg
from puntobanco.server.live.casino import Casino
from puntobanco.server.live.desk import SessionEnded, SessionUnchecked
from puntobanco.server.live.engine import TableDealer
from puntobanco.server.messages import Refusal

log = logging.getLogger("puntobanco.server.api.fastbets")

_PATH = re.compile(r"/api/tables/([1-9][0-9]{0,9})/bets")
#: what the guard adds to a bet's answer (the short way does not cross it)
_HEADERS = [(b"content-type", b"application/json"), *JSON_HEADERS]
#: the same headers as the lines of an answer, up to the length's value (``connections.py``)
JSON_ANSWER = b"".join(name + b": " + value + b"\r\n" for name, value in _HEADERS) + \
    b"content-length: "
#: the rate limit's sentence (the same for every door)
TOO_MANY = "Too many bets at once: wait a moment."


class FastBets:
    """See the module's docstring."""

    #: bets answered the short way, in this process (a figure; the tests read it): here or
    #: by the HTTP protocol itself (:func:`quick_http_bet`, also counted in ``quick``)
    answered = 0
    quick = 0

    def __init__(self, app: ASGIApp, state: State) -> None:
        #: the whole application (its middleware and routes), for every request not taken here
        self.app = app
        self.state = state

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (scope["type"] != "http" or scope["method"] != "POST" or scope["query_string"]
                or (found := _PATH.fullmatch(scope["path"])) is None):
            await self.app(scope, receive, send)
            return
        table_id = int(found.group(1))
        plain = plain_headers(scope["headers"])
        if table_id > MAX_ID or plain is None:
            await self.app(scope, receive, send)
            return
        token, accept_language = plain
        chunks: list[bytes] = []
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client went away
                return
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        bet = _bet_in(body)
        if bet is None:  # the route answers (its refusals, its language)
            await self.app(scope, _replay(body, receive), send)
            return
        lang = asked_lang(None, accept_language.decode("latin-1"))
        taken = await take_bet(self.state.casino, self.state.guards, table_id, token, bet,
                               lang=lang, path=scope["path"])
        if taken is None:  # no live session: the route answers 401 in its words
            await self.app(scope, _replay(body, receive), send)
            return
        FastBets.answered += 1
        text = encoded(taken)
        await send({"type": "http.response.start", "status": taken.status, "headers": [
            *_HEADERS, (b"content-length", str(len(text)).encode()),
            *([(b"retry-after", str(taken.retry_after).encode())]
              if taken.retry_after is not None else [])]})
        await send({"type": "http.response.body", "body": text})


def plain_headers(headers: Iterable[tuple[bytes, bytes]]) -> tuple[str, bytes] | None:
    """The bearer token and the ``Accept-Language`` of a bet request's headers (ASGI's: names
    in lower case; the last of a repeated one counts) when they are the plain case — a bearer
    token of at most ``MAX_TOKEN`` characters, a JSON body whose ``Content-Length`` is within
    the guard's limit — else ``None`` (the route answers). A body without ``Content-Length``
    (chunked) goes to the route: the guard in front has checked a declared length, while a
    chunked one may still be refused 413 mid-way.

    >>> plain_headers([(b"authorization", b"Bearer t"), (b"content-length", b"12"),
    ...                (b"content-type", b"application/json; charset=utf-8")])
    ('t', b'')
    >>> plain_headers([(b"authorization", b"Bearer t"), (b"content-type", b"application/json"),
    ...                (b"transfer-encoding", b"chunked")]) is None
    True
    """
    token = content_type = declared = language = b""
    for name, value in headers:
        if name == b"authorization":
            token = value
        elif name == b"content-type":
            content_type = value
        elif name == b"content-length":
            declared = value
        elif name == b"accept-language":
            language = value
    bearer = parse_bearer(token.decode("latin-1"))
    if (bearer is None or len(bearer) > MAX_TOKEN
            or content_type.split(b";")[0].strip().lower() != b"application/json"
            or not declared.isdigit() or int(declared) > MAX_BODY_BYTES):
        return None
    return bearer, language


def plain_bet(key: object, name: object, stake: object, coup_id: object) -> BetKind | None:
    """The kind of a single bet whose fields :class:`BetIn` accepts exactly as they are (the
    key ``None`` or 1 to ``KEY_LENGTH`` printable ASCII characters, the stake a whole number
    within ``MAX_STAKE``, the coup ``None`` or an id), else ``None``: the one hand check of the
    socket's (``api/wsbets.quick_bet``) and HTTP's (:func:`quick_http_bet`) short ways, which
    leave anything else to the model. A stake the model takes but the desk refuses (0, -5)
    passes here: the desk's cheap checks refuse it, and the caller then takes the long way.

    >>> plain_bet("k", "Banco", 1000, 3), plain_bet(None, "punto", 500, None)
    (<BetKind.BANCO: 'banco'>, <BetKind.PUNTO: 'punto'>)
    >>> [plain_bet(*fields) for fields in (("", "banco", 1, None), ("k\\x00", "banco", 1, None),
    ...  ("k", "zebra", 1, None), ("k", "banco", 1.0, None), ("k", "banco", True, None),
    ...  ("k", "banco", 1, 0), ("k", "banco", 1, 2**31), ("k", "banco", 10**12, None))]
    [None, None, None, None, None, None, None, None]
    """
    if ((key is not None and (type(key) is not str or not 0 < len(key) <= KEY_LENGTH
                              or not key.isascii() or not key.isprintable()))
            or type(name) is not str or type(stake) is not int or stake > MAX_STAKE
            or (coup_id is not None and (type(coup_id) is not int
                                         or not 1 <= coup_id <= MAX_ID))):
        return None
    kind = _NAMED.get(name)  # a bet's own name: what ``BetKind.parse`` gives it, at once
    if kind is not None:
        return kind
    try:
        return BetKind.parse(name)
    except PuntoBancoError:
        return None


#: each bet by its own name (``BetKind.parse`` of it is that bet; other spellings go there)
_NAMED = {kind.value: kind for kind in BetKind}


def queue_plain(guards: Guards, dealer: TableDealer, player: PlayerInfo, kind: BetKind,
                stake: int, key: str | None, coup_id: int | None, token: str
                ) -> asyncio.Future[dict[str, Any]] | TooManyRequests | None:
    """A plain bet of a player seen live queued at its table's desk without a task
    (``TableDealer.queue_bet``; the socket's and HTTP's short ways): the desk's future; the
    player's rate limit's refusal (asked last, once nothing else refuses); or ``None``,
    nothing done (the account or a cheap check would refuse it: the caller asks the long way,
    which words the refusal)."""
    queued = dealer.queue_bet(player.id, kind, stake, key, role=player.role, coup_id=coup_id,
                              token=token, limit=guards.bets.take)
    if isinstance(queued, float):
        return TooManyRequests(TOO_MANY, retry_after=queued)
    return queued


#: the fields of a plain bet's body
_FIELDS, _NEEDED = (frozenset(("bet", "stake", "idempotency_key", "coup_id")),
                    frozenset(("bet", "stake")))
#: how :func:`quick_http_bet` answers: the status, the JSON text and ``Retry-After``'s seconds;
#: ``None``: no answer, the connection is closed (the desk was stopped under the bet)
Reply = Callable[[tuple[int, bytes, int | None] | None], None]
#: the answers under way by a task (a bet its batch refused: ``_later``)
_LATER: set[asyncio.Task[None]] = set()


def quick_http_bet(casino: Casino, guards: Guards, table_id: int, token: str, body: bytes,
                   accept_language: bytes, reply: Reply) -> bool:
    """Take ``POST /api/tables/{table_id}/bets`` the shortest way (issue 21, fourth pass),
    ``True``, or leave it to the application (``False``, nothing done): called by the HTTP
    protocol itself (``server/connections.py``) once the request is read, without an ASGI
    cycle, a task, the models or a coroutine — what ``api/wsbets.quick_bet`` does for a bet on
    the socket. It takes the plain case of :class:`FastBets` (the headers were checked by
    :func:`plain_headers`) whose body's fields are :func:`plain_bet`'s, from a session seen live
    (:func:`~puntobanco.server.api.deps.known_player`), that neither the account, the desk's
    cheap checks nor the rate limit refuse: its answer is :class:`BetOut`'s text
    (``messages.bet_answer_text``), or the rate limit's 429, in the request's language, else
    the player's. A bet its batch refuses (its session ended, its balance, the database away)
    is answered by :func:`retake_bet` as the routes answer it, a session found ended
    ``unauthorized`` in the route's words. Anything else is the application's (``FastBets``,
    then the route), so every refusal is worded where it always was."""
    try:
        data = loads(body)
    except (ValueError, RecursionError):
        return False
    if type(data) is not dict or not _NEEDED <= data.keys() <= _FIELDS:
        return False
    key, stake, coup_id = data.get("idempotency_key"), data["stake"], data.get("coup_id")
    kind = plain_bet(key, data["bet"], stake, coup_id)
    player = known_player(casino, token)
    dealer = casino.dealers.get(table_id)
    if kind is None or player is None or dealer is None:
        return False
    queued = queue_plain(guards, dealer, player, kind, stake, key, coup_id, token)
    if queued is None:
        return False
    FastBets.answered += 1
    if isinstance(queued, TooManyRequests):
        reply(_reply(refusal(queued, _lang(accept_language) or player.lang)))
        return True
    FastBets.quick += 1

    def answered(future: asyncio.Future[dict[str, Any]]) -> None:
        try:
            if future.cancelled():
                reply(None)
                return
            error = future.exception()
            if error is None:
                text = msg.bet_answer_text(future.result())
                reply((200, text.encode(), None) if text is not None else _reply(
                    accepted_answer(casino, BetOut, future.result(),
                                    _lang(accept_language) or player.lang,
                                    f"/api/tables/{table_id}/bets")))
                return
            assert isinstance(error, Exception)
            bet = BetIn.model_construct(bet=data["bet"], stake=stake, idempotency_key=key,
                                        coup_id=coup_id)
            task = asyncio.create_task(_later(casino, table_id, token, bet, player, error,
                                              _lang(accept_language), reply))
            _LATER.add(task)
            task.add_done_callback(_LATER.discard)
        except Exception as failure:  # a bug: answered as the routes answer one
            reply(_reply(failed(casino, failure, _lang(accept_language) or player.lang,
                                f"/api/tables/{table_id}/bets")))

    queued.add_done_callback(answered)
    return True


def _lang(accept_language: bytes) -> str | None:
    """The language a request's ``Accept-Language`` asks for (``guard.asked_lang``)."""
    return asked_lang(None, accept_language.decode("latin-1")) if accept_language else None


#: json's own C scanner (``None``: this Python's json has none)
_SCAN: Callable[[str, int], tuple[Any, int]] | None = (
    None if json.scanner.c_make_scanner is None  # type: ignore[attr-defined]
    else json.scanner.c_make_scanner(json.JSONDecoder()))  # type: ignore[attr-defined]


def loads(data: str | bytes) -> Any:
    """``json.loads(data)``: an HTTP bet's body or a socket's message (``api/ws.py``). The
    usual one — UTF-8, nothing around its value — is read by json's C scanner alone (without
    ``json.loads``' three Python layers: 0.8 µs instead of 1.8 a socket message); any other by
    ``json.loads``, which gives its value or its error. The same value either way: a body the
    scanner takes whole is one ``json.loads`` reads as UTF-8 (no byte order mark, no NUL
    among its first four bytes: neither is JSON outside a string, nor inside one).

    >>> loads(b'{"bet":"banco","stake":1000}'), loads(b' [1] '), loads('"é"'.encode())
    ({'bet': 'banco', 'stake': 1000}, [1], 'é')
    >>> loads('{"type":"ping"}'), loads(' [1] '), loads('"\\u00e9"')
    ({'type': 'ping'}, [1], 'é')
    >>> loads(b'{"a":1} x')
    Traceback (most recent call last):
    json.decoder.JSONDecodeError: Extra data: line 1 column 9 (char 8)
    """
    if _SCAN is not None:
        try:
            text = data if isinstance(data, str) else data.decode()
            value, end = _SCAN(text, 0)
            if end == len(text):
                return value
        except (ValueError, StopIteration, RecursionError):
            pass
    return json.loads(data)


async def _later(casino: Casino, table_id: int, token: str, bet: BetIn, player: PlayerInfo,
                 error: Exception, lang: str | None, reply: Reply) -> None:
    """The answer to a bet :func:`quick_http_bet` queued that its batch refused."""
    taken = await retake_bet(casino, table_id, token, bet, player, error, lang=lang)
    if taken is None:  # the session has ended: the route's dependency says so
        taken = refusal(PuntoBancoError("The session token is unknown or was closed.",
                                        code="unauthorized"), lang or DEFAULT_LANGUAGE)
    reply(_reply(taken))


def _reply(taken: Taken) -> tuple[int, bytes, int | None]:
    return taken.status, encoded(taken), taken.retry_after


def bug_answer(error: Exception) -> tuple[int, bytes, int | None]:
    """The answer to a bet whose short way met a bug (said in the log): the routes'
    ``internal-error``, never a traceback nor a bet placed twice."""
    log.exception("a bet failed", exc_info=error)
    return _reply(refusal(PuntoBancoError("Something went wrong on the server.",
                                          code="internal-error"), DEFAULT_LANGUAGE))


def encoded(taken: Taken) -> bytes:
    """The answer's JSON text, as the routes' ``JSONResponse`` writes it."""
    return json.dumps(taken.content, ensure_ascii=False, allow_nan=False,
                      separators=(",", ":")).encode()


#: how a bet is placed at its table once its player is known: (player, token for the group
#: commit to check, or ``None``) → the answer
Place = Callable[[PlayerInfo, str | None], Awaitable[dict[str, Any]]]


async def take_bet(casino: Casino, guards: Guards, table_id: int, token: str | None,
                   bet: BetIn, *, lang: str | None = None, path: str = "",
                   player: PlayerInfo | None = None) -> Taken | None:
    """A single bet, whichever door it came by — the route
    (:func:`puntobanco.server.api.tables.place_bet`, which gives the ``player`` its dependency
    looked up), the short way, the player's WebSocket: the player's rate limit, the table's
    dealer, ``place_bet``, :class:`BetOut` or the refusal, in ``lang`` (the request's language)
    when given, else the player's; a database away or full is a 503 with its code (issue 22),
    never an ``internal-error``. ``None``: the token opens no live session (the caller says so
    in its own way). A session seen live in the last minute is not looked up: the bet's own
    group commit checks it."""

    return await _take(casino, guards, token, _placing(casino, table_id, bet), BetOut,
                       lang=lang, path=path, player=player, trust_known=True)


def _placing(casino: Casino, table_id: int, bet: BetIn) -> Place:
    async def place(who: PlayerInfo, check: str | None) -> dict[str, Any]:
        answer: dict[str, Any] = await casino.dealer(table_id).place_bet(
            who.id, BetKind.parse(bet.bet), bet.stake,
            bet.idempotency_key, role=who.role, coup_id=bet.coup_id, token=check)
        return answer

    return place


async def take_bets(casino: Casino, guards: Guards, table_id: int, token: str | None,
                    bets: BetsIn, *, lang: str | None = None, path: str = "",
                    player: PlayerInfo | None = None) -> Taken | None:
    """A batch of bets, all or nothing, whichever door it came by (the batch route
    :func:`puntobanco.server.api.tables.place_bets`, the socket): as :func:`take_bet`, with
    ``Dealer.place_bets`` and :class:`BetsOut`; its session is always looked up (a batch's
    commit does not check one)."""

    async def place(who: PlayerInfo, _check: str | None) -> dict[str, Any]:
        answer: dict[str, Any] = await casino.dealer(table_id).place_bets(
            who.id, batch_stakes(bets.bets), bets.idempotency_key, role=who.role,
            coup_id=bets.coup_id)
        return answer

    return await _take(casino, guards, token, place, BetsOut, lang=lang, path=path,
                       player=player, trust_known=False)


async def _take(casino: Casino, guards: Guards, token: str | None,
                place: Place, out: type[BaseModel], *, lang: str | None, path: str,
                player: PlayerInfo | None, trust_known: bool) -> Taken | None:
    unchecked = False
    try:
        if player is None and trust_known and token is not None:
            # a session seen lately is checked by the bet's own group commit
            player = known_player(casino, token)
            unchecked = player is not None
        if player is None and (player := await lookup_player(casino, token)) is None:
            return None
    except Exception as error:  # the database away: a 503, never plain text
        return failed(casino, error, lang or DEFAULT_LANGUAGE, path)
    try:
        guards.bets.check(str(player.id), TOO_MANY)
        answer = await place(player, token if unchecked else None)
    except Exception as error:
        return await _recover(casino, token, place, out, player, error, lang=lang, path=path)
    return accepted_answer(casino, out, answer, lang or player.lang, path)


def accepted_answer(casino: Casino, out: type[BaseModel], answer: dict[str, Any],
                    lang: str, path: str) -> Taken:
    """An accepted request's answer, as ``out`` gives it."""
    try:
        return Taken(200, out.model_validate(answer).model_dump(mode="json"))
    except Exception as error:
        return failed(casino, error, lang, path)


async def _recover(casino: Casino, token: str | None, place: Place, out: type[BaseModel],
                   player: PlayerInfo, error: Exception, *, lang: str | None, path: str
                   ) -> Taken | None:
    """The answer to a request whose first ``place`` (or rate limit) raised ``error``."""
    try:
        if not isinstance(error, (SessionUnchecked, SessionEnded)):
            raise error
        # refused before any batch checked its session, or the session has ended:
        # looked up now, as the route would, and asked again (nothing was written)
        if (fresh := await lookup_player(casino, token)) is None:
            forget_sessions(casino, player.id, token)
            return None
        player = fresh
        answer = await place(player, None)
    except PuntoBancoError as refused:
        if not isinstance(refused, DatabaseUnavailable):  # a refusal (the routes' handler)
            return refusal(refused, lang or player.lang)
        return failed(casino, refused, lang or player.lang, path)
    except Exception as failure:
        return failed(casino, failure, lang or player.lang, path)
    return accepted_answer(casino, out, answer, lang or player.lang, path)


async def retake_bet(casino: Casino, table_id: int, token: str, bet: BetIn,
                     player: PlayerInfo, error: Exception, *, lang: str | None = None
                     ) -> Taken | None:
    """The answer :func:`take_bet` gives (in ``lang``, else the player's language) to a bet of
    a player seen live (``known_player``) that the desk's future answered with ``error``: what
    a bet queued without a task (``api/wsbets.quick_bet``, :func:`quick_http_bet`) answers
    then."""
    return await _recover(casino, token, _placing(casino, table_id, bet), BetOut, player,
                          error, lang=lang, path=f"/api/tables/{table_id}/bets")


def batch_stakes(bets: dict[str, int]) -> list[tuple[BetKind, int]]:
    """A batch's stakes by box: a batch naming one box twice (``banco`` and ``BANCO``,
    ``punto`` and ``player``) is refused ``duplicate-bet`` — its stakes are never summed
    before each is judged (issue 18)."""
    stakes = [(BetKind.parse(name), stake) for name, stake in bets.items()]
    if len({kind for kind, _ in stakes}) != len(stakes):
        raise Refusal("A batch of bets names each box once.", code="duplicate-bet",
                      key="duplicate-bet")
    return stakes


def failed(casino: Casino, error: Exception, lang: str, path: str) -> Taken:
    """A bet that met an error: 503 with ``Retry-After`` when the database is away or full
    (counted, not logged: ``db/health.py`` logs the outage once; the code as the routes'
    ``outage.on_database_error`` gives it), else the bug's ``internal-error`` with its
    traceback."""
    code = outage.refusal(casino.db.health, error, path)
    if code is not None:
        return Taken(503, outage.body(code, lang), DatabaseUnavailable(code).retry_after)
    log.exception("a bet failed", exc_info=error)
    return refusal(PuntoBancoError("Something went wrong on the server.",
                                   code="internal-error"), lang)


def _bet_in(body: bytes) -> BetIn | None:
    """The body as the route would read it, or ``None`` (the route then says what is wrong)."""
    try:
        return BetIn.model_validate(json.loads(body))
    except (ValueError, ValidationError, RecursionError):
        return None


def _replay(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that gives the body already read, then what the client sends next."""
    given = False

    async def replayed() -> Message:
        nonlocal given
        if not given:
            given = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replayed
