"""What a table message costs the server per socket (issue 21): the fan-out alone, measured
apart from the bets' database work, whose group commits make the load client's CPU per bet
swing by more than the fan-out's changes.

One process serves ``--sockets`` loopback TCP connections on uvloop (the server's loop) and
pushes a round's messages to all of them through the real :class:`~puntobanco.server.live.hub.Hub`
and :mod:`~puntobanco.server.api.frames`; a second process reads and discards everything (its
CPU is not counted). Two ways are timed, each on the same connections, alternately, ``--repeat``
times: ``direct`` (each message written to each socket at once, as before issue 21's
corking: ``Client.direct``) and ``corked`` (the messages of one moment written together,
``Client.write``). A "round" is what the server sends every watching player at 1,000
players: round-opened, 3 bet-totals, bets-closed, 4 cards of which the last goes with
coup-dealt, then the player's settlement with round-settled — 10 moments, 11 messages to
every socket and a settlement to each.

Run: ``.venv/bin/python bench/bench_fanout.py [--sockets 1000] [--rounds 20] [--repeat 3]``;
it prints the loop thread's CPU (user + system, ``time.thread_time``) per message per socket.
``--python-only`` measures the hub's and ``api/frames``' own part alone: no connection, each
socket's transport taking the bytes without a system call (corked, a moment being the last
card with the coup, or one card).
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import socket
import time
from typing import Any

import uvloop

from puntobanco.server.api import frames
from puntobanco.server.live.hub import Client, Hub

#: a round's moments: each a list of (to whom, text); "all" or "mine" (the player's own)
TEXT = '{"type":"%s","coup_id":12,"round_no":12,"padding":"%s"}'
ROUND: list[list[tuple[str, str]]] = [
    [("all", TEXT % ("round-opened", "x" * 150))],
    *[[("all", TEXT % ("bet-totals", "x" * 80))] for _ in range(3)],
    [("all", TEXT % ("bets-closed", ""))],
    *[[("all", TEXT % ("card-dealt", "x" * 60))] for _ in range(3)],
    [("all", TEXT % ("card-dealt", "y" * 60)), ("all", TEXT % ("coup-dealt", "x" * 400))],
    [("mine", TEXT % ("settlement", "x" * 200)), ("all", TEXT % ("round-settled", "x" * 60))],
]


def _reader(port: int, sockets: int, ready: Any) -> None:
    """Connect ``sockets`` times and drain every connection until the server closes them."""
    import selectors

    selector = selectors.DefaultSelector()
    for _ in range(sockets):
        connection = socket.create_connection(("127.0.0.1", port))
        connection.setblocking(False)
        selector.register(connection, selectors.EVENT_READ)
    ready.set()
    open_ = sockets
    while open_:
        for key, _ in selector.select():
            sock: socket.socket = key.fileobj  # type: ignore[assignment]
            try:
                data = sock.recv(1 << 16)
            except BlockingIOError:
                continue
            if not data:
                selector.unregister(sock)
                sock.close()
                open_ -= 1


class _Protocol(asyncio.Protocol):
    """Just enough of uvicorn's WebSocket protocol for ``api/frames``: its transport, whether
    it takes data (flow control), and its ``send``."""

    def __init__(self, accepted: list[_Protocol]) -> None:
        self.accepted = accepted
        self.writable = asyncio.Event()
        self.writable.set()
        self.close_sent = self.disconnected = False
        self.conn = None
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # uvloop's: a WriteTransport
        self.accepted.append(self)

    def pause_writing(self) -> None:
        self.writable.clear()

    def resume_writing(self) -> None:
        self.writable.set()

    async def send(self, message: Any) -> None:  # pragma: no cover - frames write directly
        raise AssertionError("the transport is always writable in this bench")


async def _watch(held: list[float]) -> None:
    """The longest the event loop went without turning (what a bet read meanwhile waits)."""
    loop = asyncio.get_running_loop()
    last = loop.time()
    while True:
        await asyncio.sleep(0)
        now = loop.time()
        held[0] = max(held[0], now - last)
        last = now


class _NoSocket:
    async def send_text(self, text: str) -> None:  # pragma: no cover
        raise AssertionError("every write goes straight to the transport")


async def _measure(sockets: int, rounds: int, repeat: int) -> dict[str, list[float]]:
    accepted: list[_Protocol] = []
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: _Protocol(accepted), "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    ready = multiprocessing.Event()
    reader = multiprocessing.Process(target=_reader, args=(port, sockets, ready))
    reader.start()
    while len(accepted) < sockets:
        await asyncio.sleep(0.01)
    hub = Hub()
    clients = [Client(number) for number in range(sockets)]
    for client in clients:
        hub.add(client)
    figures: dict[str, list[float]] = {"direct": [], "corked": [], "direct held": [],
                                       "corked held": []}
    for _ in range(repeat):
        for way in ("direct", "corked"):
            for client, protocol in zip(clients, accepted, strict=True):
                send = protocol.send
                if way == "direct":
                    client.write = None
                    client.direct = frames.writer(_NoSocket(), send)  # type: ignore[arg-type]
                else:
                    client.write = frames.direct(send)
            messages = 0
            held = [0.0]
            watching = asyncio.ensure_future(_watch(held))
            started = time.thread_time()
            for _ in range(rounds):
                for moment in ROUND:
                    for whom, text in moment:
                        if whom == "all":
                            hub.broadcast_text(text)
                            messages += 1
                        else:
                            for client in clients:
                                hub.send_text(client.player_id or 0, text)
                    await asyncio.sleep(0)  # the moment ends: the corked texts go out
                    await asyncio.sleep(0.002)  # the reader keeps up (no flow control)
            spent = time.thread_time() - started
            watching.cancel()
            figures[way].append(spent / (messages * sockets) * 1e6)
            figures[f"{way} held"].append(1000 * held[0])
    for protocol in accepted:
        assert protocol.transport is not None
        protocol.transport.close()
    server.close()
    reader.join(30)
    return figures


class _Taking:
    """A transport that takes every write (no system call)."""

    def write(self, data: bytes) -> None:
        pass

    def is_closing(self) -> bool:
        return False


class _Unconnected(_Protocol):
    def __init__(self) -> None:
        super().__init__([])
        self.transport = _Taking()  # type: ignore[assignment]


async def _python_only(sockets: int, repeat: int) -> list[float]:
    hub = Hub()
    for number in range(sockets):
        client = Client(number)
        client.write = frames.direct(_Unconnected().send)
        hub.add(client)
    card, other, coup = (TEXT % ("card-dealt", "x" * 60), TEXT % ("card-dealt", "y" * 60),
                         TEXT % ("coup-dealt", "x" * 400))
    figures = []
    for _ in range(repeat):
        started = time.thread_time()
        for _ in range(20):
            hub.broadcast_text(card)
            await asyncio.sleep(0)
            hub.broadcast_text(other)
            hub.broadcast_text(coup)
            await asyncio.sleep(0)
        figures.append((time.thread_time() - started) / (20 * 2 * sockets) * 1e6)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sockets", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--python-only", action="store_true",
                        help="the hub's and api/frames' part alone, without system calls")
    args = parser.parse_args()
    if args.python_only:
        runs = uvloop.run(_python_only(args.sockets, args.repeat))
        print(f"{args.sockets} sockets, the Python part alone: "
              + ", ".join(f"{value:.2f}" for value in sorted(runs))
              + " µs of the loop thread's CPU per socket per moment")
        return
    figures = uvloop.run(_measure(args.sockets, args.rounds, args.repeat))
    load = os.getloadavg()[0]
    print(f"{args.sockets} sockets, {args.rounds} rounds x {len(ROUND)} moments, "
          f"load average {load:.1f}")
    for way in ("direct", "corked"):
        shown = ", ".join(f"{value:.1f}" for value in figures[way])
        longest = ", ".join(f"{value:.0f}" for value in figures[f"{way} held"])
        print(f"  {way}: {shown} µs of the loop thread's CPU per message per socket "
              f"(the settlement counted with round-settled's); the loop held at most "
              f"{longest} ms at once")


if __name__ == "__main__":
    main()
