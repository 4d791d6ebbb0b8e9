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

import asyncio
import functools
import logging
from typing import Any

from pydantic import BaseModel, ValidationError

from puntobanco.errors import PuntoBancoError
from puntobanco.server.api.deps import Taken, error_body, known_player, refusal
from puntobanco.server.api.fastbets import (
    accepted_answer,
    plain_bet,
    queue_plain,
    retake_bet,
    take_bet,
    take_bets,
)
from puntobanco.server.api.guard import Guards, TooManyRequests
from puntobanco.server.api.schemas import BetIn, BetOut, BetsIn
from puntobanco.server.db.auth import PlayerInfo
from puntobanco.server.live import messages as msg
from puntobanco.server.live.casino import Casino
from puntobanco.server.live.hub import Client
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
    return _texts(key, taken, lang)


def _texts(key: str, taken: Taken | None, lang: str) -> tuple[str, str | None]:
    """The answer to a ``bet`` message the routes' work answered with ``taken`` (``None``: no
    live session), and the ``my-bets`` an accepted one implies."""
    if taken is None:
        return _refused(key, refusal(PuntoBancoError(
            "The session token is unknown or was closed.", code="unauthorized"), lang)), None
    if taken.status != 200:
        return _refused(key, taken), None
    answer = taken.content
    return msg.encode(msg.BetAccepted(key=key, answer=answer)), msg.my_bets_text(
        answer["coup_id"], answer["my_bets"], answer["balance"])


#: the fields of a plain single bet on the socket, with and without its coup
_PLAIN, _PLAIN_NO_COUP = (frozenset(("type", "key", "bet", "stake", "coup_id")),
                          frozenset(("type", "key", "bet", "stake")))
#: the answers still under way by a task (a bet the desk refused: ``_later``)
_LATER: set[asyncio.Task[None]] = set()
#: bets taken by :func:`quick_bet` in this process (a figure; the tests read it)
FIGURES = {"quick": 0}


def quick_bet(casino: Casino, guards: Guards, table_id: int, token: str | None,
              message: dict[str, Any], client: Client) -> bool:
    """Take a ``bet`` message the short way (issue 21), ``True``, or leave it to
    :func:`socket_bet` (``False``, nothing done).

    The short way takes the plain case — a single bet whose fields :class:`BetIn` accepts as
    they are (checked here by hand: the same bounds), a session seen live in the last minute,
    a bet that neither the account, the desk's cheap checks nor the player's rate limit refuse —
    and queues it at the desk at once, without the model, a coroutine or a task; the desk's
    answer is encoded straight to the ``bet-accepted`` text (``messages.bet_accepted_texts``)
    and pushed by the future's callback (:func:`_answered`). Any other message, and a bet the
    rate limit or the desk's batch refuses, is answered by :func:`socket_bet`'s own work
    (``take_bet``), so the refusals are the same sentences with the same codes."""
    if token is None:
        return False
    fields = message.keys()  # compared as they are: no set made (issue 21, sixth pass)
    if fields != _PLAIN and fields != _PLAIN_NO_COUP:
        return False
    key, name, stake, coup_id = (message["key"], message["bet"], message["stake"],
                                 message.get("coup_id"))
    if type(key) is not str:
        return False
    kind = plain_bet(key, name, stake, coup_id)  # the same hand check as HTTP's short way
    if kind is None:
        return False
    player = known_player(casino, token)
    dealer = casino.dealers.get(table_id)
    if player is None or dealer is None:
        return False
    future = queue_plain(guards, dealer, player, kind, stake, key, coup_id, token)
    if future is None:
        return False
    if isinstance(future, TooManyRequests):
        client.push(_refused(key, refusal(future, player.lang)))
        return True
    client.betting += 1
    FIGURES["quick"] += 1
    # what the rare answers need, in one tuple; the callback is a partial, not a closure
    # over nine cells made for every bet (issue 21, sixth pass)
    future.add_done_callback(functools.partial(
        _answered, client, key, (casino, table_id, token, player, name, stake, coup_id)))
    return True


def _answered(client: Client, key: str,
              bet: tuple[Casino, int, str, PlayerInfo, str, int, int | None],
              future: asyncio.Future[dict[str, Any]]) -> None:
    """A bet :func:`quick_bet` queued has its answer: ``bet-accepted``, or the refusal
    :func:`socket_bet` would give (``bet``: the table, the session, the player and the bet's
    fields, for that)."""
    if future.cancelled():
        client.betting -= 1
        client.answered(None, None)
        return
    error = future.exception()
    if error is None:
        answer = future.result()
        texts: tuple[str, str | None] | None = msg.bet_accepted_texts(key, answer)
        if texts is None:  # not the usual shape: the models read it
            casino, table_id, _, player, *_ = bet
            texts = _texts(key, accepted_answer(casino, BetOut, answer, player.lang,
                                                f"/api/tables/{table_id}/bets"), player.lang)
        client.betting -= 1
        client.answered(*texts)
        return
    casino, table_id, token, player, name, stake, coup_id = bet
    assert isinstance(error, Exception)
    task = asyncio.create_task(_later(casino, table_id, token, BetIn.model_construct(
        bet=name, stake=stake, idempotency_key=key, coup_id=coup_id), player, error, client))
    _LATER.add(task)
    task.add_done_callback(_LATER.discard)


async def _later(casino: Casino, table_id: int, token: str, bet: BetIn, player: PlayerInfo,
                 error: Exception, client: Client) -> None:
    """The answer to a bet taken the short way that its batch refused (its session ended, the
    database away, ...): as :func:`socket_bet` gives it."""
    text, implied = None, None
    try:
        assert bet.idempotency_key is not None
        text, implied = _texts(bet.idempotency_key, await retake_bet(
            casino, table_id, token, bet, player, error), player.lang)
    finally:
        client.betting -= 1
        client.answered(text, implied)


def _bad_request(field: str, lang: str) -> Taken:
    text = sentence("bad-request", lang, f"The field {field} is not valid.", field=field)
    return Taken(400, error_body("bad-request", text))


def _refused(key: str | None, taken: Taken) -> str:
    error = taken.content["error"]
    return msg.encode(msg.BetRefusal(
        key=key, status=taken.status, retry_after=taken.retry_after,
        error=msg.ErrorBody(code=error["code"], message=error["message"])))
