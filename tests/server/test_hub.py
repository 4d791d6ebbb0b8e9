"""Issue 8: the hub sends a message at once when nothing of that client's is waiting, and
queues it otherwise; a send that has to wait (the connection takes no data) is finished before
any later message, so every client gets every message in order."""

from __future__ import annotations

import asyncio
from typing import Any

from puntobanco.server.api import frames
from puntobanco.server.api.ws import _send
from puntobanco.server.live.hub import MY_BETS_LINGER, Client, Hub
from puntobanco.server.live.messages import my_bets_text

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


def test_issue21_the_messages_of_one_moment_go_out_in_one_write_per_socket() -> None:
    """The last card and the coup, a player's settlement and the round's result: pushed
    before the event loop turns, they cost one system call per socket, in their order; what
    the connection does not take then goes through the queue, still in order."""

    async def main() -> tuple[list[list[str]], list[list[str]], list[str]]:
        hub = Hub()
        player, spectator, stalled = Client(1), Client(None), Client(2)
        writes: dict[Client, list[list[str]]] = {player: [], spectator: [], stalled: []}

        def taking(client: Client, takes: bool) -> Any:
            def write(texts: list[str]) -> bool:
                if takes:
                    writes[client].append(list(texts))
                return takes
            return write

        player.write, spectator.write = taking(player, True), taking(spectator, True)
        stalled.write = taking(stalled, False)
        socket = FakeSocket()
        sender = asyncio.create_task(_send(socket, stalled))  # type: ignore[arg-type]
        await asyncio.sleep(0)
        stalled.write = taking(stalled, False)  # _send set its own: this one takes nothing
        for client in (player, spectator, stalled):
            hub.add(client)
        hub.broadcast_text("card")
        hub.broadcast_text("coup")
        hub.send_text(1, "settlement")
        hub.broadcast_text("settled")
        assert writes[player] == [] and writes[spectator] == []  # at the end of the moment
        await asyncio.sleep(0)
        hub.broadcast_text("next")
        await asyncio.sleep(0.01)
        sender.cancel()
        await asyncio.gather(sender, return_exceptions=True)
        return writes[player], writes[spectator], socket.got

    player, spectator, stalled = run_coroutine(main())
    assert player == [["card", "coup", "settlement", "settled"], ["next"]]
    assert spectator == [["card", "coup", "settled"], ["next"]]
    assert stalled == ["card", "coup", "settled", "next"]


def test_issue21_a_burst_of_answers_keeps_the_broadcast_frame_built() -> None:
    """A message written to every socket is framed once; the bet answers written in between
    (each to one socket) do not push it out of the cache, so it is not framed again."""
    broadcast = '{"type":"bet-totals","coup_id":1}'
    built = frames.frame(broadcast)
    for n in range(10 * frames.CACHED):
        frames.frame(f'{{"type":"bet-accepted","key":"k{n}"}}')
        assert frames.frame(broadcast) is built



def test_issue21_a_players_my_bets_waits_for_its_sockets_next_write() -> None:
    """A ``my-bets`` to a socket that did not place the bet (the bet came over HTTP, or from
    another tab) rides with that socket's next write instead of a write of its own, or goes
    alone ``MY_BETS_LINGER`` seconds later; only the latest waits, and it always goes before
    whatever the socket is sent next, so a page never sees an older one after a newer."""
    async def main() -> tuple[list[list[str]], list[list[str]]]:
        hub = Hub()
        watching, other = Client(1), Client(2)
        writes: dict[Client, list[list[str]]] = {watching: [], other: []}
        for client in (watching, other):
            client.write = lambda texts, c=client: writes[c].append(list(texts)) is None
            hub.add(client)
        first, second = my_bets_text(5, {"banco": 100}, 900), my_bets_text(5, {"banco": 300}, 700)
        hub.send_text(1, first)
        hub.send_text(1, second)  # replaces the first: the player's whole bets
        await asyncio.sleep(0.01)
        assert writes[watching] == []  # no write of its own
        hub.broadcast_text("bet-totals")
        await asyncio.sleep(0)
        hub.send_text(1, my_bets_text(5, {"banco": 500}, 500))
        hub.send_text(1, "settlement")  # anything else to the player: the my-bets first
        await asyncio.sleep(0)
        third = my_bets_text(6, {"punto": 100}, 400)
        hub.send_text(1, third)
        await asyncio.sleep(MY_BETS_LINGER + 0.2)  # alone, once the linger ends
        return writes[watching], writes[other]

    watching, other = run_coroutine(main())
    assert watching == [[my_bets_text(5, {"banco": 300}, 700), "bet-totals"],
                        [my_bets_text(5, {"banco": 500}, 500), "settlement"],
                        [my_bets_text(6, {"punto": 100}, 400)]]
    assert other == [["bet-totals"]]
