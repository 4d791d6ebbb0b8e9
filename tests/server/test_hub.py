"""Issue 8: the hub sends a message at once when nothing of that client's is waiting, and
queues it otherwise; a send that has to wait (the connection takes no data) is finished before
any later message, so every client gets every message in order."""

from __future__ import annotations

import asyncio
from typing import Any

from puntobanco.server.api.ws import _send
from puntobanco.server.live.hub import Client, Hub

from .support import run_coroutine


class FakeSocket:
    """A WebSocket whose connection can stop taking data (as a paused transport does)."""

    def __init__(self) -> None:
        self.got: list[str] = []
        self.writable = asyncio.Event()
        self.writable.set()
        self.closed: int | None = None

    async def send_text(self, text: str) -> None:
        await self.writable.wait()
        self.got.append(text)

    async def close(self, code: int, reason: str) -> None:
        self.closed = code


def test_issue8_messages_reach_a_client_in_order_whether_sent_at_once_or_queued() -> None:
    async def main() -> tuple[list[str], list[str], int, int]:
        hub = Hub()
        quick, slow = Client(1), Client(2)
        fast_socket, slow_socket = FakeSocket(), FakeSocket()
        for client in (quick, slow):
            client.push("snapshot")  # before the connection's sender runs: queued
            hub.add(client)
        senders = [asyncio.create_task(_send(socket, client))  # type: ignore[arg-type]
                   for socket, client in ((fast_socket, quick), (slow_socket, slow))]
        await asyncio.sleep(0.01)
        queued_before = slow.queue.qsize()
        hub.broadcast_text("1")  # sent at once to both
        slow_socket.writable.clear()  # the slow one stops reading
        for text in ("2", "3", "4"):
            hub.broadcast_text(text)
        hub.send_text(2, "mine")
        waiting = slow.pending
        await asyncio.sleep(0.01)
        assert slow_socket.got == ["snapshot", "1"]  # "2" is under way, the rest queued
        slow_socket.writable.set()
        await asyncio.sleep(0.01)
        for task in senders:
            task.cancel()
        await asyncio.gather(*senders, return_exceptions=True)
        return fast_socket.got, slow_socket.got, queued_before, waiting

    fast, slow, queued_before, waiting = run_coroutine(main())
    assert fast == ["snapshot", "1", "2", "3", "4"]
    assert slow == ["snapshot", "1", "2", "3", "4", "mine"]
    assert queued_before == 0 and waiting == 3  # "3", "4" and "mine" waited in the queue


def test_issue8_a_client_that_stops_reading_is_still_dropped_when_its_queue_is_full() -> None:
    async def main() -> Any:
        client = Client(1)
        socket = FakeSocket()
        sender = asyncio.create_task(_send(socket, client))  # type: ignore[arg-type]
        await asyncio.sleep(0)
        socket.writable.clear()
        for number in range(client.queue.maxsize + 2):
            client.push(str(number))
        socket.writable.set()
        await asyncio.wait_for(sender, 5)
        return client.dropped, socket.closed

    dropped, closed = run_coroutine(main())
    assert dropped and closed == 1013
