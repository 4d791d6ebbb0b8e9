"""The WebSocket of a table: a snapshot first, then every table event as it happens.

``/ws/tables/{id}?token=…`` (the token is optional: spectators see everything public). The
client may send ``{"type": "ping"}`` and gets ``{"type": "pong"}``.
"""

from __future__ import annotations

import asyncio
import json
from contextlib import suppress

from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from puntobanco.server.api.deps import lookup_player
from puntobanco.server.db import ledger
from puntobanco.server.live.casino import Casino
from puntobanco.server.live.hub import Client, dumps

router = APIRouter()

#: close codes: the table or the session does not exist; the client could not keep up
CLOSE_NOT_FOUND, CLOSE_UNAUTHORIZED, CLOSE_TOO_SLOW = 4404, 4401, 1013


@router.websocket("/ws/tables/{table_id}")
async def table_socket(websocket: WebSocket, table_id: int, token: str | None = None) -> None:
    casino: Casino = websocket.app.state.casino
    dealer = casino.dealers.get(table_id)
    player = await lookup_player(casino, token) if token else None
    await websocket.accept()
    if dealer is None:
        await websocket.close(CLOSE_NOT_FOUND, f"There is no table {table_id}.")
        return
    if token and player is None:
        await websocket.close(CLOSE_UNAUTHORIZED, "The session token is unknown or was closed.")
        return
    client = Client(player.id if player else None)
    # A signed-in player's snapshot also has their balance (a page that reconnects after a
    # refund or a credit shows the wallet as it is now).
    balance = (await casino.db.run_read(lambda s: ledger.wallet_balance(s, player.id))
               if player is not None else None)
    # No await between the snapshot and joining the hub: the client misses no event.
    table = dealer.snapshot(client.player_id)
    if balance is not None:
        table["balance"] = balance
    client.push(dumps({"type": "snapshot", "table": table}))
    dealer.hub.add(client)
    sender = asyncio.create_task(_send(websocket, client))
    receiver = asyncio.create_task(_receive(websocket, client))
    try:
        await asyncio.wait((sender, receiver), return_when=asyncio.FIRST_COMPLETED)
    finally:
        dealer.hub.remove(client)
        for task in (sender, receiver):
            task.cancel()
        await asyncio.gather(sender, receiver, return_exceptions=True)


async def _send(websocket: WebSocket, client: Client) -> None:
    while True:
        text = await client.queue.get()
        if text is None:
            with suppress(Exception):
                await websocket.close(CLOSE_TOO_SLOW, "Too many messages waiting: reconnect.")
            return
        await websocket.send_text(text)


async def _receive(websocket: WebSocket, client: Client) -> None:
    with suppress(WebSocketDisconnect):
        while True:
            text = await websocket.receive_text()
            try:
                message = json.loads(text)
            except ValueError:
                message = None
            if isinstance(message, dict) and message.get("type") == "ping":
                client.push(dumps({"type": "pong"}))
            else:
                client.push(dumps({"type": "error", "error": {
                    "code": "bad-request", "message": "The only message a client sends is "
                                                      "{\"type\": \"ping\"}."}}))
