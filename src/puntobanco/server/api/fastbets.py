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
(``JSON_HEADERS``). The same work, :func:`take_bet`, answers a bet sent on the player's
WebSocket (``api/wsbets.py``). Anything else — another path, a
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

import json
import logging
import re
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError
from starlette.datastructures import State
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from puntobanco.bets import BetKind
from puntobanco.errors import PuntoBancoError
from puntobanco.i18n import DEFAULT_LANGUAGE
from puntobanco.server.api import outage
from puntobanco.server.api.deps import (
    MAX_TOKEN,
    forget_sessions,
    known_player,
    lookup_player,
)
from puntobanco.server.api.guard import (
    JSON_HEADERS,
    MAX_BODY_BYTES,
    Guards,
    TooManyRequests,
    asked_lang,
)
from puntobanco.server.api.schemas import MAX_ID, BetIn, BetOut
from puntobanco.server.db.health import DatabaseUnavailable
from puntobanco.server.live.casino import Casino
from puntobanco.server.live.desk import SessionEnded, SessionUnchecked
from puntobanco.server.messages import Refusal, error_message, status_of

log = logging.getLogger("puntobanco.server.api.fastbets")

_PATH = re.compile(r"/api/tables/([1-9][0-9]{0,9})/bets")
#: what the guard adds to a bet's answer (the short way does not cross it)
_HEADERS = [(b"content-type", b"application/json"), *JSON_HEADERS]


class FastBets:
    """See the module's docstring."""

    #: bets answered the short way, in this process (a figure; the tests read it)
    answered = 0

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
        headers = dict(scope["headers"])
        token = _bearer(headers.get(b"authorization", b""))
        content_type = headers.get(b"content-type", b"").split(b";")[0].strip().lower()
        # a body without Content-Length (chunked) goes to the route: the guard in front has
        # checked a declared length, while a chunked one may still be refused 413 mid-way
        declared = headers.get(b"content-length", b"")
        if (table_id > MAX_ID or token is None or content_type != b"application/json"
                or not declared.isdigit() or int(declared) > MAX_BODY_BYTES):
            await self.app(scope, receive, send)
            return
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
        lang = asked_lang(None, headers.get(b"accept-language", b"").decode("latin-1"))
        taken = await take_bet(self.state.casino, self.state.guards, table_id, token, bet,
                               lang=lang, path=scope["path"])
        if taken is None:  # no live session: the route answers 401 in its words
            await self.app(scope, _replay(body, receive), send)
            return
        FastBets.answered += 1
        extra = ([(b"retry-after", str(taken.retry_after).encode())]
                 if taken.retry_after is not None else [])
        await _json(send, taken.status, taken.content, extra)


@dataclass(frozen=True, slots=True)
class Taken:
    """A bet's answer: ``status`` 200 and :class:`BetOut`'s JSON, or a refusal's status and
    ``{"error": {"code", "message"}}`` in the player's language (``retry_after`` on 429)."""

    status: int
    content: dict[str, Any]
    retry_after: int | None = None


async def take_bet(casino: Casino, guards: Guards, table_id: int, token: str, bet: BetIn,
                   *, lang: str | None = None, path: str = "") -> Taken | None:
    """What the route :func:`puntobanco.server.api.tables.place_bet` does with a bet, for the
    short way and for a bet sent on the player's WebSocket (``api/wsbets.py``): the player's
    rate limit, the table's dealer, ``place_bet``, the answer or the refusal — in ``lang`` (the
    request's language) when given, else the player's; a database away or full is a 503 with
    its code (issue 22), never an ``internal-error``. ``None``: the token opens no live session
    (the caller says so in its own way)."""
    # a session seen lately is checked by the bet's own group commit, not looked up first
    player = known_player(casino, token)
    unchecked = player is not None
    try:
        if player is None and (player := await lookup_player(casino, token)) is None:
            return None
    except Exception as error:  # the database away: a 503, never plain text
        return failed(casino, error, lang or DEFAULT_LANGUAGE, path)
    try:
        guards.bets.check(str(player.id), "Too many bets at once: wait a moment.")
        dealer = casino.dealer(table_id)
        kind = BetKind.parse(bet.bet)
        try:
            answer = await dealer.place_bet(player.id, kind, bet.stake, bet.idempotency_key,
                                            role=player.role, coup_id=bet.coup_id,
                                            token=token if unchecked else None)
        except (SessionUnchecked, SessionEnded):
            # refused before any batch checked its session, or the session has ended:
            # looked up now, as the route would, and asked again (nothing was written)
            if (fresh := await lookup_player(casino, token)) is None:
                forget_sessions(casino, player.id, token)
                return None
            player = fresh
            answer = await dealer.place_bet(player.id, kind, bet.stake, bet.idempotency_key,
                                            role=player.role, coup_id=bet.coup_id)
        return Taken(200, BetOut.model_validate(answer).model_dump(mode="json"))
    except PuntoBancoError as error:
        if isinstance(error, DatabaseUnavailable):
            outage.refusal(casino.db.health, error, path)  # counted for the outage's log line
        return refusal(error, lang or player.lang)
    except Exception as error:
        return failed(casino, error, lang or player.lang, path)


def batch_stakes(bets: dict[str, int]) -> list[tuple[BetKind, int]]:
    """A batch's stakes by box, for the batch route and the socket's batch alike: a batch naming
    one box twice (``banco`` and ``BANCO``, ``punto`` and ``player``) is refused
    ``duplicate-bet`` — its stakes are never summed before each is judged (issue 18)."""
    stakes = [(BetKind.parse(name), stake) for name, stake in bets.items()]
    if len({kind for kind, _ in stakes}) != len(stakes):
        raise Refusal("A batch of bets names each box once.", code="duplicate-bet",
                      key="duplicate-bet")
    return stakes


def refusal(error: PuntoBancoError, lang: str) -> Taken:
    """A refusal's answer: its code, status and sentence in ``lang`` (as
    :func:`~puntobanco.server.api.deps.on_puntobanco_error` words it), ``retry_after`` on 429
    and 503."""
    return Taken(status_of(error.code), {"error": {
        "code": error.code, "message": error_message(error, lang)}},
        error.retry_after if isinstance(error, (TooManyRequests, DatabaseUnavailable)) else None)


def failed(casino: Casino, error: Exception, lang: str, path: str) -> Taken:
    """A bet that met an error: 503 with ``Retry-After`` when the database is away or full
    (counted, not logged: ``db/health.py`` logs the outage once), else the bug's
    ``internal-error`` with its traceback."""
    code = outage.refusal(casino.db.health, error, path)
    if code is not None:
        return Taken(503, outage.body(code, lang), DatabaseUnavailable(code).retry_after)
    log.exception("a bet failed", exc_info=error)
    return refusal(PuntoBancoError("Something went wrong on the server.",
                                   code="internal-error"), lang)


def _bearer(header: bytes) -> str | None:
    scheme, _, token = header.decode("latin-1").partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or len(token) > MAX_TOKEN:
        return None
    return token


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


async def _json(send: Send, status: int, content: Any,
                extra: list[tuple[bytes, bytes]] | None = None) -> None:
    text = json.dumps(content, ensure_ascii=False, allow_nan=False,
                      separators=(",", ":")).encode()
    await send({"type": "http.response.start", "status": status, "headers": [
        *_HEADERS, (b"content-length", str(len(text)).encode()), *(extra or [])]})
    await send({"type": "http.response.body", "body": text})
