"""Fan-out of a table's messages to its WebSocket clients.

Each client has a bounded queue of JSON texts that its connection drains; pushing never waits, so
a slow client can never hold up the dealer or the other clients: when its queue is full it is
dropped (closed 1013; it reconnects and gets a fresh snapshot). A message is serialised once,
whatever the number of sockets it goes to, and the clients are indexed by player so that a
player's own message (``my-bets``, ``settlement``) costs nothing for the others.

A socket whose own ``bet`` message is being answered does not get the ``my-bets`` of that bet
(issue 21): its ``bet-accepted`` carries the same facts (the bets and the wallet after it), and
a socket write is the largest part of a message's cost. Such a ``my-bets`` is held while the
socket's bets are in flight (:attr:`Client.betting`) and sent after the last answer only if it
says something the answers did not (another socket of the player bet in between); the
player's other sockets get it at once as before.

Any other socket of the player (the one watching while the bets come over HTTP, or another
tab) gets a bet's ``my-bets`` with its next write, or at the latest :data:`MY_BETS_LINGER`
seconds later (issue 21, fifth pass): each such ``my-bets`` was one more write a bet, ~30 µs of
an HTTP bet's CPU, though it only repeats what the bet's own answer said to whoever placed it.
It says the player's whole bets on the coup, so only the latest one waiting is kept, and it goes
before anything else that socket is sent (the next ``bet-totals``, ``bets-closed`` at the latest
while betting is open, an answer, a settlement): a page never sees an older one after a newer.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine
from typing import Any

from puntobanco.server.live.messages import Message, MyBets, encode, my_bets_text

QUEUE_SIZE = 2000
#: the longest a ``my-bets`` waits for its socket's next write (seconds; see the docstring)
MY_BETS_LINGER = 2.0
#: how every ``my-bets`` text begins (the model's ``type`` comes first): the hub recognises the
#: player's bets among their messages, including those relayed as text by another process
MY_BETS = encode(MyBets(coup_id=1, my_bets={}, balance=0)).partition(",")[0] + ","


class Client:
    """One WebSocket connection: who it is (``player_id``, or ``None`` for a spectator).

    A message goes out without a task switch when nothing of this client's is waiting, else it
    joins the client's queue, which its connection's sender drains in order. Sending at once
    spares a task switch per socket per message, the largest cost of a fan-out to 1,000 sockets
    after the system call itself (issue 8). On uvicorn's own connection (``write``, issue 21)
    the messages of one moment — everything pushed before the event loop turns: the last card
    and the coup, a player's settlement and the round's result — are written together, one
    system call for all of them, at the end of the moment (``loop.call_soon``); elsewhere
    (``direct``) each message is sent at once."""

    def __init__(self, player_id: int | None) -> None:
        self.player_id = player_id
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(QUEUE_SIZE)
        self.dropped = False
        #: the socket's send, once the connection runs (``None``: always queue)
        self.direct: Callable[[str], Coroutine[Any, Any, None]] | None = None
        #: writes texts at once when the connection takes them (``api/frames.direct``), else
        #: says no; ``None``: not uvicorn's own connection (then ``direct``)
        self.write: Callable[[list[str]], bool] | None = None
        #: the texts pushed in this moment, written together when it ends
        self.corked: list[str] = []
        #: set while no send of this client is under way (the sender waits for it)
        self.idle = asyncio.Event()
        self.idle.set()
        #: messages queued or held by the sender, not sent yet: while any, push() queues too
        self.pending = 0
        #: this socket's own bets being answered, and the latest ``my-bets`` held meanwhile
        self.betting = 0
        self.held: str | None = None
        #: the latest ``my-bets`` waiting for this socket's next write (:data:`MY_BETS_LINGER`)
        self.later: str | None = None

    def push(self, text: str) -> None:
        """Send or queue a message; a client too slow to keep up is dropped (``None`` ends its
        queue). A ``my-bets`` waiting goes first."""
        if self.dropped:
            return
        if self.later is not None:
            later, self.later = self.later, None
            self.push(later)
        if self.write is not None and self.idle.is_set() and not self.pending:
            if not self.corked:
                _cork(self)
            self.corked.append(text)
            return
        if self.direct is not None and self.idle.is_set() and not self.pending:
            sending = self.direct(text)
            try:
                waiting = sending.send(None)
            except StopIteration:
                return  # sent
            except Exception:  # the socket is gone: the sender finds out the usual way
                self.direct = None
            else:  # the connection takes no data now: the send finishes later, in order
                self.idle.clear()
                finishing = asyncio.ensure_future(_finish(sending, waiting))
                finishing.add_done_callback(lambda _: self.idle.set())
                return
        self._queue(text)

    def _queue(self, text: str) -> None:
        try:
            self.queue.put_nowait(text)
            self.pending += 1
        except asyncio.QueueFull:
            self.dropped = True
            while not self.queue.empty():
                self.queue.get_nowait()
            self.queue.put_nowait(None)

    def sent(self) -> None:
        """The sender has sent (or given up on) one queued message."""
        self.pending = max(0, self.pending - 1)

    def mine(self, text: str) -> None:
        """A message to this socket's player: a ``my-bets`` waits while the socket's own bets
        are answered (their answers say it)."""
        if text.startswith(MY_BETS):
            if self.betting:
                self.held = text
                return
            if self.write is not None:  # with this socket's next write (MY_BETS_LINGER)
                if self.later is None:
                    _linger(self)
                self.later = text
                return
        self.push(text)

    def answered(self, text: str | None, implied: str | None) -> None:
        """Push the answer to one of this socket's bets (``betting`` already counted down;
        ``None``: there is none); ``implied``: the ``my-bets`` text its facts make (``None``:
        refused). After the last answer, a ``my-bets`` held meanwhile goes out unless it is
        the one the answer implies."""
        if text is not None:
            self.push(text)
        if not self.betting and self.held is not None:
            held, self.held = self.held, None
            if held != implied:
                self.push(held)


#: the clients with texts corked in this moment, per thread, with their event loop
_MOMENT = threading.local()


def _of_loop(kept: threading.local) -> tuple[asyncio.AbstractEventLoop, list[Client]]:
    """The running loop and the clients ``kept`` (this thread's) holds for it: a new loop
    gets a new list, never one a dead loop kept."""
    loop = asyncio.get_running_loop()
    found: tuple[asyncio.AbstractEventLoop, list[Client]] | None = getattr(
        kept, "clients", None)
    if found is None or found[0] is not loop:
        found = kept.clients = (loop, [])
    return found


def _moment() -> list[Client]:
    """The clients with texts corked in this moment (their flush is scheduled once the first
    one joins)."""
    return _of_loop(_MOMENT)[1]


def _cork(client: Client, corked: list[Client] | None = None) -> None:
    if corked is None:
        corked = _moment()
    if not corked:
        asyncio.get_running_loop().call_soon(_flush, corked)
    corked.append(client)


def _flush(corked: list[Client]) -> None:
    """The moment ended: write each client's texts (pushed meanwhile: the next moment's); what
    a connection does not take now goes to its queue, in order (its sender waits for the
    connection or finds it gone)."""
    clients = corked[:]
    corked.clear()
    for client in clients:  # inlined: it runs for every socket of every moment
        texts, client.corked = client.corked, []
        if not texts or client.dropped:
            continue
        write = client.write
        if write is not None:
            try:
                if write(texts):
                    continue
            except Exception:  # the socket is gone: the sender finds out the usual way
                client.write = None
        for text in texts:
            client._queue(text)


#: the clients with a ``my-bets`` waiting, per thread, with their event loop
_LINGERING = threading.local()


def _linger(client: Client) -> None:
    """``client`` holds a ``my-bets`` for its next write: it goes out :data:`MY_BETS_LINGER`
    seconds from the first of a batch of such waits at the latest."""
    loop, waiting = _of_loop(_LINGERING)
    if not waiting:
        loop.call_later(MY_BETS_LINGER, _release, waiting)
    waiting.append(client)


def _release(waiting: list[Client]) -> None:
    """The linger is over: every ``my-bets`` still waiting goes out (in this moment's write)."""
    clients = waiting[:]
    waiting.clear()
    for client in clients:
        later, client.later = client.later, None
        if later is not None:
            client.push(later)


async def _finish(sending: Coroutine[Any, Any, None], waiting: Any) -> None:
    """Drive a send that :meth:`Client.push` started and that had to wait, to its end, as a
    task would: ``waiting`` is what the send yielded (the future it waits for)."""
    while True:
        try:
            if waiting is None:  # a bare yield
                await asyncio.sleep(0)
            else:
                # a task takes the "blocking" mark off a future yielded to it before waiting;
                # awaiting it with the mark still on raises "await wasn't used with future"
                waiting._asyncio_future_blocking = False
                await waiting
        except BaseException as error:  # handed to the send, as a task would
            try:
                waiting = sending.throw(error)
            except (StopIteration, Exception):
                return
            continue
        try:
            waiting = sending.send(None)
        except (StopIteration, Exception):
            return


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

    def table_sockets(self) -> int:
        """How many sockets watch the table (with several server processes, on all of them:
        ``live/cluster.ClusterHub``): what the gap between two ``bet-totals`` is made for."""
        return len(self.clients)

    def watcher_ids(self) -> set[int]:
        """The signed-in players who watch (with several server processes, on any of them:
        ``live/cluster.ClusterHub``)."""
        return set(self._by_player)

    def publish(self, message: Message) -> None:
        """Push a message to every client (serialised once)."""
        self.broadcast_text(encode(message))

    def broadcast_text(self, text: str) -> None:
        """:meth:`Client.push` to every client, its usual case inlined (issue 21, fourth pass:
        a card to 5,000 sockets held the loop 80-130 ms, a sixth of it the pushes): the text
        joins the moment of each client that writes straight to its connection and has
        nothing waiting; the others push it as usual."""
        self.messages += 1
        moment: list[Client] | None = None
        for client in list(self.clients):
            if (client.write is not None and not client.pending and not client.dropped
                    and client.idle.is_set()):
                corked = client.corked
                if not corked:
                    if moment is None:
                        moment = _moment()
                    _cork(client, moment)
                if client.later is not None:  # a my-bets waiting goes first
                    corked.append(client.later)
                    client.later = None
                corked.append(text)
            else:
                client.push(text)
        self.texts += len(self.clients)

    def send(self, player_id: int, message: Message) -> None:
        """Push to every connection of one player (their own lines, their bets and balance)."""
        self.send_text(player_id, encode(message))

    def send_bets(self, player_id: int, coup_id: int, my_bets: dict[str, int],
                  balance: int) -> None:
        """``send(player_id, MyBets(…))`` without building the model (``my_bets_text``): the
        ``my-bets`` of every accepted bet (issue 21)."""
        self.send_text(player_id, my_bets_text(coup_id, my_bets, balance))

    def send_text(self, player_id: int, text: str) -> None:
        mine = self._by_player.get(player_id)
        if not mine:
            return
        self.messages += 1
        for client in list(mine):
            client.mine(text)
        self.texts += len(mine)
