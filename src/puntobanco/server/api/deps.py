"""What every endpoint shares: the casino, who is signed in, the language, and error answers.

Errors answer ``{"error": {"code", "message"}}`` with the status of ``messages.status_of``; the
message is in the caller's language: ``?lang=``, else a sign-up's own ``lang``, else the first
supported ``Accept-Language`` tag (the pages send the language they show), else the signed-in
player's stored language, else French.
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass
from typing import Annotated, Any
from weakref import WeakKeyDictionary

from fastapi import Depends, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException
from starlette.routing import Match

from puntobanco.errors import PuntoBancoError
from puntobanco.i18n import DEFAULT_LANGUAGE, LANGUAGES
from puntobanco.server.api.guard import Guards, TooManyRequests, asked_lang
from puntobanco.server.api.schemas import NUL_IN_BODY
from puntobanco.server.db import auth
from puntobanco.server.db.auth import PlayerInfo
from puntobanco.server.db.engine import Database, Gathered
from puntobanco.server.db.health import DatabaseUnavailable
from puntobanco.server.live.casino import Casino
from puntobanco.server.messages import error_message, message, status_of
from puntobanco.server.settings import GuardSettings

#: A session token is 43 characters; anything much longer is not one (and is not hashed).
MAX_TOKEN = 128
#: how long a bet's short way trusts a session it has seen for who the player is (its id,
#: language and role; whether the session is still live is checked by the bet's own group
#: commit), and how many such sessions a process remembers
KNOWN_SECONDS, KNOWN_MOST = 60.0, 20_000


async def get_casino(request: Request) -> Casino:  # async: no worker thread per request
    casino: Casino = request.app.state.casino
    return casino


CasinoDep = Annotated[Casino, Depends(get_casino)]


def parse_bearer(header: str) -> str | None:
    """The token of an ``Authorization`` header's value (``Bearer <token>``), or ``None``: the
    one parser of the routes, the bet's short way and its socket (issue 17).

    >>> parse_bearer("Bearer abc "), parse_bearer("bearer  abc"), parse_bearer("Basic abc")
    ('abc', 'abc', None)
    >>> parse_bearer("Bearer "), parse_bearer("")
    (None, None)
    """
    scheme, _, token = header.partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and token else None


def bearer_token(request: Request) -> str | None:
    return parse_bearer(request.headers.get("authorization", ""))


def get_guards(request: Request) -> Guards:
    guards: Guards = request.app.state.guards
    return guards


GuardsDep = Annotated[Guards, Depends(get_guards)]


async def lookup_player(casino: Casino, token: str | None) -> PlayerInfo | None:
    """The player of a live session; a use renews the session (sliding lifetime), at most once
    per ``session_renew_seconds``. The lookups of a moment share one query
    (:class:`TokenLookups`)."""
    if token is None or len(token) > MAX_TOKEN:
        return None
    return await _lookups(casino).player(token)


class TokenLookups(Gathered[str, PlayerInfo]):
    """Session lookups, gathered (:class:`~puntobanco.server.db.engine.Gathered`): the
    requests that arrive while one query runs are looked up together by the next (``WHERE
    token_hash IN (…)``, one thread hop), and the sessions due for renewal are renewed in one
    statement before any of them is answered. Each request is still judged by the database as
    it is after the request arrived: a token ended (log-out, log-out everywhere, suspension,
    ``operator-password`` from another process) is refused by the next lookup, exactly as with
    one query per request; a busy table just costs a query per batch instead of one per bet."""

    def __init__(self, db: Database, limits: GuardSettings) -> None:
        super().__init__(self._lookup)
        self.db = db
        self.limits = limits
        #: sessions seen live lately: token → (player, when it was looked up)
        self.known: dict[str, tuple[PlayerInfo, float]] = {}

    async def player(self, token: str) -> PlayerInfo | None:
        found = await self.get(token)
        if found is not None:
            if len(self.known) >= KNOWN_MOST:
                self.known.clear()
            self.known[token] = (found, time.monotonic())
        return found

    def seen(self, token: str) -> PlayerInfo | None:
        """The player of a session looked up live in the last :data:`KNOWN_SECONDS`, or
        ``None``. Not proof that the session is still live: see :func:`known_player`."""
        entry = self.known.get(token)
        if entry is None or time.monotonic() - entry[1] > KNOWN_SECONDS:
            return None
        return entry[0]

    def forget(self, player_id: int, token: str | None = None) -> None:
        for known, (player, _) in list(self.known.items()):
            if player.id == player_id and token in (None, known):
                del self.known[known]

    async def _lookup(self, tokens: list[str]) -> dict[str, PlayerInfo]:
        found = await self.db.run_read(functools.partial(
            auth.lookup_tokens, tokens=tokens, limits=self.limits))
        due = [token for token, lookup in found.items() if lookup.renew]
        if due:
            await self.db.run_write(functools.partial(auth.renew_sessions, tokens=due),
                                    essential=True)  # in place: written on a short disk too
        return {token: lookup.player for token, lookup in found.items()}


_LOOKUPS: WeakKeyDictionary[Database, TokenLookups] = WeakKeyDictionary()
#: the database last asked for and its lookups (a process serves one: no weak reference made
#: and hashed for every bet, issue 21, sixth pass)
_LAST: list[tuple[Database, TokenLookups] | None] = [None]


def _lookups(casino: Casino) -> TokenLookups:
    db = casino.db
    last = _LAST[0]
    if last is not None and last[0] is db:
        return last[1]
    lookups = _LOOKUPS.get(db)
    if lookups is None:
        lookups = _LOOKUPS[db] = TokenLookups(db, casino.config.guard)
    _LAST[0] = (db, lookups)
    return lookups


def known_player(casino: Casino, token: str) -> PlayerInfo | None:
    """Who a token's session belonged to when it was last looked up live, within
    :data:`KNOWN_SECONDS` (``None``: look it up). Only for a request whose own transaction
    checks the session again — a bet's short way, whose group commit refuses an ended session
    (``BetDesk.submit``) — so that 1,000 bets a second cost no lookup of their own."""
    return _lookups(casino).seen(token)


def forget_sessions(casino: Casino, player_id: int, token: str | None = None) -> None:
    """Drop what :func:`known_player` remembers of a player's sessions (one, or all): at a
    log-out, a suspension, a change of language."""
    _lookups(casino).forget(player_id, token)


async def optional_player(request: Request, casino: CasinoDep) -> PlayerInfo | None:
    """The signed-in player, or ``None``; a token that opens no session is refused."""
    token = bearer_token(request)
    player = await lookup_player(casino, token)
    if token is not None and player is None:
        raise PuntoBancoError("The session token is unknown or was closed.", code="unauthorized")
    request.state.player = player
    return player


async def current_player(player: Annotated[PlayerInfo | None, Depends(optional_player)]
                         ) -> PlayerInfo:
    if player is None:
        raise PuntoBancoError("Sign in first.", code="unauthorized")
    return player


async def operator(player: Annotated[PlayerInfo, Depends(current_player)]) -> PlayerInfo:
    if not player.is_operator:
        raise PuntoBancoError("Only the operator may do this.", code="forbidden")
    return player


MaybePlayer = Annotated[PlayerInfo | None, Depends(optional_player)]
SignedIn = Annotated[PlayerInfo, Depends(current_player)]
Operator = Annotated[PlayerInfo, Depends(operator)]


def request_lang(request: Request, player: PlayerInfo | None = None) -> str:
    """The language to answer in (see the module's docstring): what the request asks for wins
    over the account's stored language (issue 18: the console set to English showed the
    operator's French)."""
    chosen = getattr(request.state, "lang", None)  # a sign-up's own ``lang``
    query = request.query_params.get("lang")
    if query not in LANGUAGES and chosen in LANGUAGES:
        return str(chosen)
    asked = asked_lang(query, request.headers.get("accept-language", ""))
    if asked is not None:
        return asked
    player = player or getattr(request.state, "player", None)
    if player is not None:
        return player.lang
    return DEFAULT_LANGUAGE


def error_body(code: str, text: str) -> dict[str, Any]:
    """The error envelope every refusal answers with, over HTTP (the routes, the bet's short
    way) and in a socket's ``bet-refused``: ``{"error": {"code", "message"}}``."""
    return {"error": {"code": code, "message": text}}


@dataclass(frozen=True, slots=True)
class Taken:
    """An answer, whichever door it goes out by (a route, the bet's short way, a socket):
    its status and JSON, and ``Retry-After``'s seconds (429, 503)."""

    status: int
    content: dict[str, Any]
    retry_after: int | None = None


def refusal(error: PuntoBancoError, lang: str) -> Taken:
    """A refusal's answer: its code, status and sentence in ``lang`` with the error's facts
    (M3), ``retry_after`` on 429 and 503."""
    return Taken(status_of(error.code), error_body(error.code, error_message(error, lang)),
                 error.retry_after if isinstance(error, (TooManyRequests, DatabaseUnavailable))
                 else None)


def json_answer(taken: Taken) -> JSONResponse:
    """A route's answer of ``taken`` (the same JSON text as the bet's short way writes)."""
    return JSONResponse(taken.content, status_code=taken.status, headers=(
        {"Retry-After": str(taken.retry_after)} if taken.retry_after is not None else None))


def error_response(request: Request, code: str, default: str, *, key: str | None = None,
                   status: int | None = None, **fields: str) -> JSONResponse:
    """The error answer: ``code`` for the client, the sentence ``key`` (default: the code's) in
    the caller's language for the player, ``default`` being the specific reason in English."""
    text = message(key or code, request_lang(request), default, **fields)
    return JSONResponse(error_body(code, text), status_code=status or status_of(code))


async def on_puntobanco_error(request: Request, error: Exception) -> JSONResponse:
    assert isinstance(error, PuntoBancoError)
    return json_answer(refusal(error, request_lang(request)))


async def on_validation_error(request: Request, error: Exception) -> JSONResponse:
    assert isinstance(error, RequestValidationError)
    first = error.errors()[0] if error.errors() else {}
    if first.get("type") == "json_invalid":  # its location is a position in the text, not a field
        return error_response(request, "bad-request", "The request body is not valid JSON.",
                              key="bad-json")
    if NUL_IN_BODY in str(first.get("msg", "")):  # schemas.Body: the body's NUL sentence
        return error_response(request, "bad-request", "A request holds no NUL character.",
                              key="bad-nul")
    field = ".".join(str(part) for part in first.get("loc", ()) if part != "body") or "body"
    return error_response(request, "bad-request", f"The field {field} is not valid.", field=field)


async def on_http_error(request: Request, error: Exception) -> JSONResponse:
    assert isinstance(error, HTTPException)
    code = {401: "unauthorized", 403: "forbidden", 404: "not-found",
            413: "body-too-large"}.get(error.status_code, "bad-request")
    key = "bad-method" if error.status_code == 405 else None
    reason = str(error.detail).strip().rstrip(".") + "."
    answer = error_response(request, code, reason, key=key,
                            status=error.status_code if error.status_code < 500 else 400)
    if error.status_code == 405:  # RFC 9110: a 405 says which methods the address takes
        answer.headers["Allow"] = ", ".join(allowed_methods(request))
    return answer


#: the methods a route of the API may take (``Allow`` is made of those a path's routes take)
METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE")


def allowed_methods(request: Request) -> list[str]:
    """Every method some route of the application takes at the request's path, asked of each
    route's own ``matches`` (Starlette's own ``Allow`` names only the first route matched, and
    each method is a route of its own here)."""
    return [method for method in METHODS
            if any(route.matches({**request.scope, "method": method})[0] == Match.FULL
                   for route in request.app.router.routes)]
