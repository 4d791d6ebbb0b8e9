"""The WebSocket of a table: a snapshot first, then every table event as it happens.

``/ws/tables/{id}?token=…`` (the token is optional: spectators see everything public). The
client may send ``{"type": "ping"}`` and gets ``{"type": "pong"}``, and a signed-in player
``{"type": "bet", "key": …}`` and gets ``bet-accepted`` or ``bet-refused`` echoing the key
(issue 21, ``api/wsbets.py``). Anything else — a binary frame, a text over
``MAX_CLIENT_TEXT`` characters, JSON too deeply nested, another message — gets
``{"type": "error", "error": {"code": "bad-request", ...}}`` and the connection stays open.

Sockets are capped in all, anonymous ones per address, signed-in ones per player
(``GuardSettings``); one over a cap is accepted then closed at once with code 4429 and the
reason (issue 9). A signed-in socket
is closed with 4401 when its session is ended (log-out, log-out-everywhere, suspension) or found
expired (checked every ``session_recheck_seconds``, without renewing it).

While the database is away (issue 22) a new socket is still accepted: after the snapshot it
gets ``{"type": "database", "available": false, …}``. Its session is trusted if this process
saw it live in the last minute; otherwise the socket is served as a spectator's and closed with
4503 when the database is back, so that the page reconnects at once with its session checked.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable
from contextlib import suppress
from typing import Any

from fastapi import APIRouter, WebSocket

from puntobanco.i18n import DEFAULT_LANGUAGE
from puntobanco.server.api import frames, wsread
from puntobanco.server.api.deps import known_player, lookup_player
from puntobanco.server.api.fastbets import loads
from puntobanco.server.api.guard import Guards, client_address
from puntobanco.server.api.wsbets import quick_bet, socket_bet
from puntobanco.server.db import auth, ledger
from puntobanco.server.db.health import outage_code
from puntobanco.server.live import collector
from puntobanco.server.live import messages as msg
from puntobanco.server.live.casino import Casino
from puntobanco.server.live.hub import Client

router = APIRouter()

PONG = msg.encode(msg.Pong())
BAD_MESSAGE = msg.encode(msg.Error(error=msg.ErrorBody(
    code="bad-request", message="A client sends {\"type\": \"ping\"} or a bet "
                                "({\"type\": \"bet\", ...}), as text.")))

#: close codes: the table or the session does not exist; the client could not keep up
CLOSE_NOT_FOUND, CLOSE_UNAUTHORIZED, CLOSE_TOO_SLOW = 4404, 4401, 1013
#: close code: over a socket cap (in all, anonymous per address, per player)
CLOSE_TOO_MANY = 4429
#: close code: the socket was served without its session while the database was away, and
#: the database is back: reconnect (the session is checked then; issue 22)
CLOSE_DATABASE_BACK = 4503
#: the longest text a client sends (a ping is 16 characters)
MAX_CLIENT_TEXT = 1024


@router.websocket("/ws/tables/{table_id}")
async def table_socket(websocket: WebSocket, table_id: int, token: str | None = None) -> None:
    casino: Casino = websocket.app.state.casino
    guards: Guards = websocket.app.state.guards
    limits, address = guards.limits, client_address(websocket.client)

    def over_cap(player_id: int | None) -> str | None:
        return guards.sockets.refusal(address, player_id, total=limits.sockets_total,
                                      per_address=limits.sockets_per_address,
                                      per_player=limits.sockets_per_player)

    dealer = casino.dealers.get(table_id)
    # the cap in all is checked before the token costs a database read
    full = guards.sockets.total >= limits.sockets_total
    unchecked = False
    try:
        player = await lookup_player(casino, token) if token and not full else None
    except Exception as error:
        if outage_code(error) is None:
            raise
        # the database is away (issue 22): a session seen live in the last minute is trusted
        # until it can be checked again; another one is served as a spectator until then
        player = known_player(casino, token) if token else None
        unchecked = player is None
    await websocket.accept()
    if dealer is None:
        await websocket.close(CLOSE_NOT_FOUND, f"There is no table {table_id}.")
        return
    if unchecked:  # counted as an anonymous socket of its address meanwhile (the caps)
        if (refused := over_cap(None)) is not None:
            await websocket.close(CLOSE_TOO_MANY, refused)
            return
        guards.sockets.add(address, None)
        try:
            await _until_database_back(websocket, casino, dealer.snapshot(None))
        finally:
            guards.sockets.remove(address, None)
        return
    if token and player is None and not full:
        await websocket.close(CLOSE_UNAUTHORIZED, "The session token is unknown or was closed.")
        return
    refused = over_cap(player.id if player else None)
    if refused is not None:
        await websocket.close(CLOSE_TOO_MANY, refused)
        return
    player_id = player.id if player else None
    client = Client(player_id)
    # A signed-in player's snapshot also has their balance (a page that reconnects after a
    # refund or a credit shows the wallet as it is now).
    balance = None
    if player_id is not None:
        try:
            balance = await casino.db.run_read(lambda s: ledger.wallet_balance(s, player_id))
        except Exception as error:  # the database away: the snapshot without the wallet
            if outage_code(error) is None:
                raise
    # No await between the snapshot and joining the hub: the client misses no event.
    table = dealer.snapshot(client.player_id)
    if balance is not None:
        table["balance"] = balance
    client.push(msg.encode(msg.Snapshot(table=table)))
    if not casino.db.health.available:  # betting stopped by the database (issue 22)
        client.push(msg.encode(msg.DatabaseState(**casino.db.health.state())))
    dealer.hub.add(client)
    guards.sockets.add(address, player_id)  # counted from here; uncounted in ``finally``
    ended = (guards.sockets.session_watch(player_id, token) if player_id is not None and token
             else asyncio.Event())
    sender = asyncio.create_task(_send(websocket, client))
    signed_in = token if player_id is not None else None
    receiver = asyncio.create_task(_receive(websocket, client, functools.partial(
        socket_bet, casino, guards, table_id, signed_in,
        player.lang if player is not None else DEFAULT_LANGUAGE),
        functools.partial(quick_bet, casino, guards, table_id, signed_in)))
    logged_out = asyncio.create_task(
        _session_lives(casino, token, ended, limits.session_recheck_seconds)
        if player_id is not None and token else ended.wait())
    try:
        await asyncio.wait((sender, receiver, logged_out), return_when=asyncio.FIRST_COMPLETED)
        if logged_out.done():  # the session was ended: its private messages stop here
            with suppress(Exception):
                await websocket.close(CLOSE_UNAUTHORIZED, "The session was ended.")
    finally:
        guards.sockets.remove(address, player_id)
        if player_id is not None:
            guards.sockets.session_unwatch(player_id, ended)
        dealer.hub.remove(client)
        collector.disconnected()
        for task in (sender, receiver, logged_out):
            task.cancel()
        await asyncio.gather(sender, receiver, logged_out, return_exceptions=True)


async def _session_lives(casino: Casino, token: str, ended: asyncio.Event,
                         every: float) -> None:
    """Return when the socket's session ends: at once when it is ended, or at the first check
    (every ``every`` seconds, without renewing it) that finds it expired."""
    limits = casino.config.guard
    while True:
        with suppress(TimeoutError):
            await asyncio.wait_for(ended.wait(), every)
        if ended.is_set():
            return
        try:
            alive = await casino.db.run_read(lambda s: auth.lookup_token(s, token, limits=limits))
        except Exception as error:  # the database away: checked again at the next turn
            if outage_code(error) is None:
                raise
            continue
        if alive is None:
            return


async def _until_database_back(websocket: WebSocket, casino: Casino,
                               table: dict[str, Any]) -> None:
    """A socket whose session could not be checked (the database away, issue 22): it gets the
    table's snapshot, as a spectator's, and the ``database`` message, and is closed with
    :data:`CLOSE_DATABASE_BACK` when the database is back — the page reconnects at once and
    its session is checked then."""
    health = casino.db.health
    health.refuse("sockets")
    with suppress(Exception):
        await websocket.send_text(msg.encode(msg.Snapshot(table=table)))
        await websocket.send_text(msg.encode(msg.DatabaseState(**health.state())))
        gone = asyncio.create_task(_disconnected(websocket))
        back = asyncio.create_task(health.back.wait())
        try:
            await asyncio.wait((gone, back), return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (gone, back):
                task.cancel()
        if back.done() and not gone.done():
            await websocket.close(CLOSE_DATABASE_BACK, "The database is back: reconnect.")


async def _disconnected(websocket: WebSocket) -> None:
    while (await websocket.receive())["type"] != "websocket.disconnect":
        pass


async def _send(websocket: WebSocket, client: Client) -> None:
    """Drain the client's queue in order (what :meth:`Client.push` could not send at once)."""
    # a table message as one frame built once for every socket (api/frames.py), when the
    # socket came the short way past the middleware
    asgi_send = getattr(websocket, "_send", None)
    send = client.direct = frames.writer(websocket, asgi_send)
    # the messages of one moment in one write (live/hub.Client), on uvicorn's own connection
    client.write = frames.direct(asgi_send)
    while True:
        text = await client.queue.get()
        await client.idle.wait()  # a send started by push() goes out first
        if text is None:
            with suppress(Exception):
                await websocket.close(CLOSE_TOO_SLOW, "Too many messages waiting: reconnect.")
            return
        client.idle.clear()
        try:
            await send(text)
        finally:
            client.idle.set()
            client.sent()


async def _receive(websocket: WebSocket, client: Client,
                   bet: Callable[[dict[str, Any]], Awaitable[tuple[str, str | None]]],
                   quick: Callable[[dict[str, Any], Client], bool] | None = None) -> None:
    """Answer the client's messages: a ping at once, a bet when its batch is written (the
    plain bet by ``quick``, the desk's future's callback; any other by a task running ``bet``:
    the socket goes on reading; a bet once read completes even if the socket closes).
    While a bet is answered, the ``my-bets`` it causes is not sent to this socket: its answer
    says the same (``Client.answered``)."""
    betting: set[asyncio.Task[None]] = set()

    async def answer(message: dict[str, Any]) -> None:
        client.betting += 1
        text, implied = None, None
        try:
            text, implied = await bet(message)
        finally:
            client.betting -= 1
            client.answered(text, implied)

    def take(text: object) -> None:
        message: object = None
        if isinstance(text, str) and len(text) <= MAX_CLIENT_TEXT:
            try:
                message = loads(text)
            except (ValueError, RecursionError):
                message = None
        kind = message.get("type") if isinstance(message, dict) else None
        if kind == "bet":  # the usual message while betting: asked first
            assert isinstance(message, dict)
            if quick is not None and quick(message, client):
                return
            task = asyncio.create_task(answer(message))
            betting.add(task)
            task.add_done_callback(betting.discard)
        elif kind == "ping":
            client.push(PONG)
        else:
            client.push(BAD_MESSAGE)

    # the plain text frames read straight from uvicorn's connection (api/wsread.py); the
    # rest, and everything on another server, through ASGI
    reader = wsread.install(getattr(websocket, "_send", None), take)
    # the socket is set up (its sender ran first): its long-lived objects are frozen, by this
    # freeze or the next, and not walked by a collection again until a thaw (live/collector.py)
    collector.connected()
    try:
        while True:
            frame = await websocket.receive()
            if frame["type"] == "websocket.disconnect":
                return
            take(frame.get("text"))
    finally:
        if reader is not None:
            reader.stop()
