"""Fan-out of a table's messages to its WebSocket clients.

Each client has a bounded queue of JSON texts that its connection drains; pushing never waits, so
a slow client can never hold up the dealer: when its queue is full it is dropped (it reconnects
and gets a fresh snapshot).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

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
    """The clients watching one table."""

    def __init__(self) -> None:
        self.clients: set[Client] = set()
        #: set while at least one client watches (the dealer waits on it when idle)
        self.watched = asyncio.Event()

    def add(self, client: Client) -> None:
        self.clients.add(client)
        self.watched.set()

    def remove(self, client: Client) -> None:
        self.clients.discard(client)
        if not self.clients:
            self.watched.clear()

    def players(self) -> int:
        """How many distinct signed-in players watch."""
        return len({c.player_id for c in self.clients if c.player_id is not None})

    def broadcast(self, message: dict[str, Any]) -> None:
        text = dumps(message)
        for client in list(self.clients):
            client.push(text)

    def send_to(self, player_id: int, message: dict[str, Any]) -> None:
        """Send to every connection of one player (their own lines, their bets and balance)."""
        text = dumps(message)
        for client in list(self.clients):
            if client.player_id == player_id:
                client.push(text)
