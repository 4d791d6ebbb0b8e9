"""Bets sent on the player's WebSocket (issue 21), as live tables' clients send them.

``{"type": "bet", "key": K, "coup_id": N, "bet": "banco", "stake": 1000}`` is
``POST /api/tables/{id}/bets`` with ``idempotency_key`` K, and
``{"type": "bet", "key": K, "coup_id": N, "bets": {"banco": 1000, "lion-banco": 500}}`` is
``POST …/bets/batch`` (all or nothing), for the socket's table. Each is read by the route's own
model (:class:`~puntobanco.server.api.schemas.BetIn`, :class:`~…BetsIn`: the key is the
idempotency key, with its limits), then does what the route does — the single bet through
:func:`puntobanco.server.api.fastbets.take_bet`, the very function of the HTTP short way (the
player's rate limit, ``Dealer.place_bet`` with the session checked by the bet's group commit);
the batch as the batch route (the session looked up, the rate limit, ``Dealer.place_bets``).
The answer echoes the key: ``bet-accepted`` with the route's JSON answer, or ``bet-refused``
with the code, the sentence in the player's language, the route's status and ``Retry-After``'s
seconds. A retry with the same key — on the socket or over HTTP, after the socket dropped —
gets the first answer, as over HTTP.

A spectator's socket (no session) gets ``bet-refused`` ``unauthorized``. Bets from one socket
reach the desk in the order they were read (the short way queues a bet before its first
``await``); their answers may come in another order (each names its key).
"""

from __future__ import annotations

import logging
from typing import Any

from pydantic import BaseModel, ValidationError

from puntobanco.errors import PuntoBancoError
from puntobanco.i18n import DEFAULT_LANGUAGE
from puntobanco.server.api import outage
from puntobanco.server.api.deps import lookup_player
from puntobanco.server.api.fastbets import Taken, batch_stakes, failed, refusal, take_bet
from puntobanco.server.api.guard import Guards
from puntobanco.server.api.schemas import BetIn, BetsIn, BetsOut
from puntobanco.server.db.health import DatabaseUnavailable
from puntobanco.server.live import messages as msg
from puntobanco.server.live.casino import Casino
from puntobanco.server.messages import message as sentence

log = logging.getLogger("puntobanco.server.api.wsbets")


async def socket_bet(casino: Casino, guards: Guards, table_id: int, token: str | None,
                     lang: str, message: dict[str, Any]) -> str:
    """The answer (JSON text) to one ``bet`` message of a socket of table ``table_id`` signed
    in with ``token`` (``None``: a spectator); ``lang``: the socket's player's language, for
    a message refused before its bet is read."""
    key = message.get("key")
    if not isinstance(key, str):
        return _refused(None, _bad_request("key", lang))
    body = {name: value for name, value in message.items() if name not in ("type", "key")}
    body["idempotency_key"] = key
    model: type[BaseModel] = BetsIn if "bets" in body else BetIn
    try:
        bet = model.model_validate(body)
    except ValidationError as error:
        where = error.errors()[0]["loc"] if error.errors() else ()
        field = ".".join(str(part) for part in where) or "body"
        return _refused(key, _bad_request("key" if field == "idempotency_key" else field, lang))
    if token is None:
        return _refused(key, refusal(PuntoBancoError("Sign in first.", code="unauthorized"),
                                     lang))
    if isinstance(bet, BetIn):
        taken = await take_bet(casino, guards, table_id, token, bet)
    else:
        assert isinstance(bet, BetsIn)
        taken = await _take_bets(casino, guards, table_id, token, bet)
    if taken is None:
        return _refused(key, refusal(PuntoBancoError(
            "The session token is unknown or was closed.", code="unauthorized"), lang))
    if taken.status != 200:
        return _refused(key, taken)
    return msg.encode(msg.BetAccepted(key=key, answer=taken.content))


async def _take_bets(casino: Casino, guards: Guards, table_id: int, token: str,
                     bets: BetsIn) -> Taken | None:
    """What the batch route (:func:`puntobanco.server.api.tables.place_bets`) does, with the
    outage's 503 as :func:`~puntobanco.server.api.fastbets.take_bet` answers it."""
    path = f"/api/tables/{table_id}/bets/batch"
    try:
        player = await lookup_player(casino, token)
    except Exception as error:  # the database away: a 503 (issue 22)
        return failed(casino, error, DEFAULT_LANGUAGE, path)
    if player is None:
        return None
    try:
        guards.bets.check(str(player.id), "Too many bets at once: wait a moment.")
        dealer = casino.dealer(table_id)
        answer = await dealer.place_bets(player.id, batch_stakes(bets.bets), bets.idempotency_key,
                                         role=player.role, coup_id=bets.coup_id)
        return Taken(200, BetsOut.model_validate(answer).model_dump(mode="json"))
    except PuntoBancoError as error:
        if isinstance(error, DatabaseUnavailable):
            outage.refusal(casino.db.health, error, path)
        return refusal(error, player.lang)
    except Exception as error:
        return failed(casino, error, player.lang, path)


def _bad_request(field: str, lang: str) -> Taken:
    text = sentence("bad-request", lang, f"The field {field} is not valid.", field=field)
    return Taken(400, {"error": {"code": "bad-request", "message": text}})


def _refused(key: str | None, taken: Taken) -> str:
    error = taken.content["error"]
    return msg.encode(msg.BetRefusal(
        key=key, status=taken.status, retry_after=taken.retry_after,
        error=msg.ErrorBody(code=error["code"], message=error["message"])))
