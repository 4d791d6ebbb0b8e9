"""Bets sent on the player's WebSocket (issue 21), as live tables' clients send them.

``{"type": "bet", "key": K, "coup_id": N, "bet": "banco", "stake": 1000}`` is
``POST /api/tables/{id}/bets`` with ``idempotency_key`` K, and
``{"type": "bet", "key": K, "coup_id": N, "bets": {"banco": 1000, "lion-banco": 500}}`` is
``POST …/bets/batch`` (all or nothing), for the socket's table. Each is read by the route's own
model (:class:`~puntobanco.server.api.schemas.BetIn`, :class:`~…BetsIn`: the key is the
idempotency key, with its limits), then goes through the very function of the routes and the
HTTP short way (issue 17): :func:`puntobanco.server.api.fastbets.take_bet` (the player's rate
limit, ``Dealer.place_bet`` with the session checked by the bet's group commit), or
:func:`~puntobanco.server.api.fastbets.take_bets` for a batch.
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
from puntobanco.server.api.deps import Taken, error_body, refusal
from puntobanco.server.api.fastbets import take_bet, take_bets
from puntobanco.server.api.guard import Guards
from puntobanco.server.api.schemas import BetIn, BetsIn
from puntobanco.server.live import messages as msg
from puntobanco.server.live.casino import Casino
from puntobanco.server.messages import message as sentence

log = logging.getLogger("puntobanco.server.api.wsbets")


async def socket_bet(casino: Casino, guards: Guards, table_id: int, token: str | None,
                     lang: str, message: dict[str, Any]) -> tuple[str, str | None]:
    """The answer (JSON text) to one ``bet`` message of a socket of table ``table_id`` signed
    in with ``token`` (``None``: a spectator), and the ``my-bets`` text an accepted answer
    implies (the socket is not sent that ``my-bets`` too: ``live/hub.Client.answered``);
    ``lang``: the socket's player's language, for a message refused before its bet is read."""
    key = message.get("key")
    if not isinstance(key, str):
        return _refused(None, _bad_request("key", lang)), None
    body = {name: value for name, value in message.items() if name not in ("type", "key")}
    body["idempotency_key"] = key
    model: type[BaseModel] = BetsIn if "bets" in body else BetIn
    try:
        bet = model.model_validate(body)
    except ValidationError as error:
        where = error.errors()[0]["loc"] if error.errors() else ()
        field = ".".join(str(part) for part in where) or "body"
        return _refused(key, _bad_request("key" if field == "idempotency_key" else field,
                                          lang)), None
    if token is None:
        return _refused(key, refusal(PuntoBancoError("Sign in first.", code="unauthorized"),
                                     lang)), None
    if isinstance(bet, BetIn):
        taken = await take_bet(casino, guards, table_id, token, bet,
                               path=f"/api/tables/{table_id}/bets")
    else:
        assert isinstance(bet, BetsIn)
        taken = await take_bets(casino, guards, table_id, token, bet,
                                path=f"/api/tables/{table_id}/bets/batch")
    if taken is None:
        return _refused(key, refusal(PuntoBancoError(
            "The session token is unknown or was closed.", code="unauthorized"), lang)), None
    if taken.status != 200:
        return _refused(key, taken), None
    answer = taken.content
    return msg.encode(msg.BetAccepted(key=key, answer=answer)), msg.encode(msg.MyBets(
        coup_id=answer["coup_id"], my_bets=answer["my_bets"], balance=answer["balance"]))


def _bad_request(field: str, lang: str) -> Taken:
    text = sentence("bad-request", lang, f"The field {field} is not valid.", field=field)
    return Taken(400, error_body("bad-request", text))


def _refused(key: str | None, taken: Taken) -> str:
    error = taken.content["error"]
    return msg.encode(msg.BetRefusal(
        key=key, status=taken.status, retry_after=taken.retry_after,
        error=msg.ErrorBody(code=error["code"], message=error["message"])))
