"""Fan-out of a table's messages to its WebSocket clients.

Each client has a bounded queue of JSON texts that its connection drains; pushing never waits, so
a slow client can never hold up the dealer or the other clients: when its queue is full it is
dropped (closed 1013; it reconnects and gets a fresh snapshot). A message is serialised once,
whatever the number of sockets it goes to, and the clients are indexed by player so that a
player's own message (``my-bets``, ``settlement``) costs nothing for the others.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from puntobanco.server.live.messages import Message, encode

QUEUE_SIZE = 2000


def dumps(message: dict[str, Any]) -> str:
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False)


class Client:
    """One WebSocket connection: who it is (``player_id``, or ``None`` for a spectator)."""

    def __init__(self, player_id: int | None) -> None:
        self.player_id = player_id
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(QUEUE_SIZE)
        self.dropped = False

    def push(self, text: str) -> None:
        """Queue a message; a client too slow to keep up is dropped (``None`` ends its queue)."""
        if self.dropped:
            return
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            self.dropped = True
            while not self.queue.empty():
                self.queue.get_nowait()
            self.queue.put_nowait(None)


class Hub:
    """The clients watching one table (in this process)."""

    def __init__(self) -> None:
        self.clients: set[Client] = set()
        self._by_player: dict[int, set[Client]] = {}
        #: set while at least one client watches (the dealer waits on it when idle)
        self.watched = asyncio.Event()
        #: messages pushed, and texts queued (one per socket reached), since the start
        self.messages = 0
        self.texts = 0

    def add(self, client: Client) -> None:
        self.clients.add(client)
        if client.player_id is not None:
            self._by_player.setdefault(client.player_id, set()).add(client)
        self.watched.set()

    def remove(self, client: Client) -> None:
        self.clients.discard(client)
        if client.player_id is not None:
            mine = self._by_player.get(client.player_id)
            if mine is not None:
                mine.discard(client)
                if not mine:
                    del self._by_player[client.player_id]
        if not self.clients:
            self.watched.clear()

    def players(self) -> int:
        """How many distinct signed-in players watch."""
        return len(self._by_player)

    def publish(self, message: Message) -> None:
        """Push a message to every client (serialised once)."""
        self.broadcast_text(encode(message))

    def broadcast_text(self, text: str) -> None:
        self.messages += 1
        for client in list(self.clients):
            client.push(text)
        self.texts += len(self.clients)

    def send(self, player_id: int, message: Message) -> None:
        """Push to every connection of one player (their own lines, their bets and balance)."""
        self.send_text(player_id, encode(message))

    def send_text(self, player_id: int, text: str) -> None:
        mine = self._by_player.get(player_id)
        if not mine:
            return
        self.messages += 1
        for client in list(mine):
            client.push(text)
        self.texts += len(mine)

    # the former dict interface, kept for the hooks written against it
    def broadcast(self, message: dict[str, Any]) -> None:
        self.broadcast_text(dumps(message))

    def send_to(self, player_id: int, message: dict[str, Any]) -> None:
        self.send_text(player_id, dumps(message))
