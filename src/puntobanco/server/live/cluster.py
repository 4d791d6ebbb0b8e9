"""Several server processes on one PostgreSQL database (issue 8; ``docs/server.md``).

Every process serves every table: its sockets, its bets. One of them *deals* each table, the
one holding the table's session-level advisory lock ``pg_try_advisory_lock(NAMESPACE,
table_id)`` on a connection of its own (:attr:`Cluster.lock_connection`). The others retry
every :data:`RETRY_SECONDS`; when the holder dies its connection drops, PostgreSQL frees the lock,
and the next try takes it: the new holder runs the dealer's recovery (a round not dealt is void,
a dealt coup is settled, the shoe resumes from its recorded order) and deals on.

A process that cannot reach its lock connection stops dealing at once (its dealer tasks are
cancelled, its desks closed), and every dealer write first checks, in its own transaction,
that the lock is held by this process's lock connection (:meth:`Cluster.fence`), so a process
that lost the lock writes nothing more as the dealer.

Events travel with PostgreSQL ``LISTEN``/``NOTIFY`` (channel :data:`CHANNEL`): what one process
pushes to its sockets — table events, a player's own messages, the operator's actions — is
relayed, packed many to a notification, to the others, which push it to theirs. Each relayed
item is one of the models of ``live/messages.py``'s relay union (``RelayItem``, named by its
``kind``); an item of no known kind is logged and left. A payload
longer than NOTIFY's 8,000 bytes is cut into parts sent in one transaction and joined by the
receivers. The dealing process attaches its table's state to each table event, so a
non-dealing process draws the same snapshot and opens and closes its own desk for the coup the
dealer opened (bets are written with the same database-arbitrated close whichever process takes
them). Each process counts every process's bets from the bets a relayed ``my-bets`` carries
(typed, beside its text) and pushes its own coalesced ``bet-totals``. Every second each process
reports who watches each table there (``watchers``: the signed-in players, expiring unless
renewed), so that every process counts every process's watchers (:class:`ClusterHub`). Nothing
is relayed while a process is alone on its database.

A table's dealer is made with this cluster as its links (``live/links.py``: its hub, its
fence, the way to ask for a hand-dealt table); the cluster drives it as a :class:`Member` and
neither module imports the other.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from json.encoder import encode_basestring
from typing import Any, Protocol

import psycopg
from pydantic import ValidationError
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session

from puntobanco.server.db.engine import Database
from puntobanco.server.db.health import outage_code
from puntobanco.server.live import messages as msg
from puntobanco.server.live.desk import BetDesk
from puntobanco.server.live.hub import Client, Hub
from puntobanco.server.live.links import Fence, LeadershipLost

log = logging.getLogger("puntobanco.server.live.cluster")

#: the first key of every table's advisory lock ("pb"); the second is the table's id
NAMESPACE = 0x7062
CHANNEL = "puntobanco"
#: the application name of each process's listening connection (how a process counts its peers)
APP_NAME = "puntobanco-cluster"
#: how often a process tries the locks it lacks and checks the ones it holds
RETRY_SECONDS = 1.0
#: the largest NOTIFY payload sent (PostgreSQL's limit is 8,000 bytes)
PAYLOAD_BYTES = 7_800
#: a process's report of who watches a table lasts this many retry periods (plus a second)
WATCH_PERIODS = 3
#: how long a bet's relayed ``my-bets`` may wait for more relayed items (issue 21): it feeds the
#: other processes' totals, pushed at most every 0.25 s, and the player's sockets there; every
#: other item goes at the end of its moment and takes the waiting ones along, in order. Never
#: near the close (:meth:`ClusterHub.send_bets`): the final totals count every process's bets
RELAY_LINGER = 0.1


def notify_all(count: int) -> str:
    """One statement sending ``count`` notifications in order (a select list is evaluated
    from left to right; in autocommit the statement is one transaction: they are delivered
    together). Each payload is a parameter of its own: an array of them cost psycopg's
    array quoting, more than the two round trips it saved.

    >>> notify_all(2)
    'SELECT pg_notify(%(c)s, %(p0)s), pg_notify(%(c)s, %(p1)s)'
    """
    return "SELECT " + ", ".join(f"pg_notify(%(c)s, %(p{n})s)" for n in range(count))

__all__ = ["Cluster", "ClusterHub", "LeadershipLost", "Member", "libpq_url", "pack"]


class Member(Protocol):
    """A table's dealer as the cluster drives it (``live/engine.py`` ``TableDealer``)."""

    id: int
    db: Database
    hub: Hub
    desk: BetDesk
    lock: asyncio.Lock
    following: bool

    async def open(self) -> None: ...

    async def lead(self) -> None: ...

    def follow(self) -> None: ...

    def demote(self) -> None: ...

    def resnapshot(self, client: Client) -> None: ...

    def cluster_state(self) -> msg.DealerState: ...


def libpq_url(url: str) -> str:
    """The libpq address of an SQLAlchemy PostgreSQL URL.

    >>> libpq_url("postgresql+psycopg://pb:s%40cret@127.0.0.1:5433/pb")
    'postgresql://pb:s%40cret@127.0.0.1:5433/pb'
    """
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def pack(origin: str, items: list[str]) -> list[str]:
    """NOTIFY payloads carrying ``items`` (JSON texts) in order, each under
    :data:`PAYLOAD_BYTES`; an item too long for one payload is cut into numbered parts.

    >>> [json.loads(p)["i"] for p in pack("o", ['{"a":1}', '{"b":2}'])]
    [[{'a': 1}, {'b': 2}]]
    >>> parts = pack("o", ["x" * 20_000])
    >>> len(parts), json.loads(parts[2])["c"][1:3]
    (3, [2, 3])
    """
    payloads: list[str] = []
    batch: list[str] = []
    size = 0
    head = f'{{"o":"{origin}","i":['

    def flush() -> None:
        nonlocal batch, size
        if batch:
            payloads.append(head + ",".join(batch) + "]}")
        batch, size = [], 0

    for item in items:
        length = len(item.encode())
        if length + len(head) + 8 > PAYLOAD_BYTES:
            flush()
            payloads += _parts(origin, item)
            continue
        if size + length + len(head) + 8 > PAYLOAD_BYTES:
            flush()
        batch.append(item)
        size += length + 1
    flush()
    return payloads


def _parts(origin: str, item: str) -> list[str]:
    """``item`` cut into numbered parts, each payload under :data:`PAYLOAD_BYTES`."""
    key = secrets.token_hex(6)
    step = PAYLOAD_BYTES - 200  # halved while escapes or wide characters make it too long
    while True:
        pieces = [item[i:i + step] for i in range(0, len(item), step)]
        payloads = [json.dumps({"o": origin, "c": [key, n, len(pieces), piece]},
                               separators=(",", ":"), ensure_ascii=False)
                    for n, piece in enumerate(pieces)]
        if all(len(payload.encode()) <= PAYLOAD_BYTES for payload in payloads):
            return payloads
        step //= 2  # characters of several bytes each: smaller pieces


class ClusterHub(Hub):
    """A table's hub that also relays what it pushes to the other processes (their sockets).

    ``bet-totals`` stay local: every process counts every process's bets and pushes its own.
    It also knows who watches the table on the other processes (their last ``watchers``
    report, until it expires), so that :meth:`players` and :meth:`watcher_ids` count every
    process.
    """

    def __init__(self, cluster: Cluster, table_id: int,
                 state: Callable[[], msg.DealerState | None]) -> None:
        super().__init__()
        self.cluster = cluster
        self.table_id = table_id
        #: the dealer's state, relayed with each table event (``None``: this process follows)
        self.state = state
        #: each other process's signed-in watchers of this table, and when its report expires
        self.elsewhere: dict[str, tuple[float, frozenset[int]]] = {}

    def seen_elsewhere(self, origin: str, players: frozenset[int], seconds: float) -> None:
        """Another process's report: these players watch the table there (for ``seconds``)."""
        if players:
            self.elsewhere[origin] = (time.monotonic() + seconds, players)
        else:
            self.elsewhere.pop(origin, None)

    def watcher_ids(self) -> set[int]:
        """The signed-in players watching the table on any process (reports not expired)."""
        now = time.monotonic()
        found = set(self._by_player)
        for origin, (expires, players) in list(self.elsewhere.items()):
            if expires < now:
                del self.elsewhere[origin]  # that process stopped reporting
            else:
                found |= players
        return found

    def players(self) -> int:
        return len(self.watcher_ids()) if self.elsewhere else super().players()

    def table_sockets(self) -> int:
        """This process's sockets and the signed-in players the others reported (a socket
        each, as the load's players have; spectators elsewhere are not reported). Each process
        pushes its own ``bet-totals``, at the gap the whole table's sockets make: with each
        process's own count, two processes pushed twice the socket writes one did (issue 21)."""
        now = time.monotonic()
        return len(self.clients) + sum(len(players) for expires, players in
                                       self.elsewhere.values() if expires >= now)

    def publish(self, message: msg.Message) -> None:
        if isinstance(message, msg.BetTotals):
            Hub.broadcast_text(self, msg.encode(message))
        else:
            self.broadcast_text(msg.encode(message))

    def broadcast_text(self, text: str) -> None:
        super().broadcast_text(text)
        if self.cluster.peers > 1 and (state := self.state()) is not None:  # the dealer's
            self.cluster.relay(msg.TableEvent(table=self.table_id, text=text, state=state))

    def send(self, player_id: int, message: msg.Message) -> None:
        text = msg.encode(message)
        Hub.send_text(self, player_id, text)
        self.cluster.relay_text(player_item(self.table_id, player_id, text,
                                            text if isinstance(message, msg.MyBets) else None))

    def send_bets(self, player_id: int, coup_id: int, my_bets: dict[str, int],
                  balance: int) -> None:
        """A bet's ``my-bets``, relayed with its bets as :meth:`send` relays a ``MyBets``, its
        item written by hand (:func:`player_item`): one for every accepted bet (issue 21)."""
        text = msg.my_bets_text(coup_id, my_bets, balance)
        Hub.send_text(self, player_id, text)
        self.cluster.relay_text(player_item(self.table_id, player_id, text, text),
                                linger=self._may_wait())

    def _may_wait(self) -> bool:
        """Whether a bet's relayed ``my-bets`` may wait for more (:data:`RELAY_LINGER`): while
        the table takes bets and its deadline is further than twice that away — never around
        the close, where the final totals count the other processes' last bets, nor on a
        hand-dealt table, whose dealer closes it at any moment."""
        dealer = self.cluster.dealers.get(self.table_id)
        if dealer is None:
            return False
        desk = dealer.desk
        return (desk.accepting and desk.closes_at is not None
                and desk.closes_at - desk.clock.now() > 2 * RELAY_LINGER)

    def send_text(self, player_id: int, text: str) -> None:
        Hub.send_text(self, player_id, text)
        self.cluster.relay_text(player_item(self.table_id, player_id, text))


def player_item(table: int, player: int, text: str, bets: str | None = None) -> str:
    """The relayed ``PlayerMessage`` of a message ``text`` to one player, with ``bets`` the
    ``MyBets`` JSON a ``my-bets`` carries (its own text), as ``model_dump_json`` writes it,
    without the models: 1 µs instead of 6 for each of a settlement's messages, and of every
    bet's ``my-bets`` (issue 21).

    >>> text = msg.my_bets_text(7, {"banco": 1000}, 9000)
    >>> player_item(1, 5, text, text) == msg.PlayerMessage(table=1, player=5, text=text, bets=(
    ...     msg.MyBets(coup_id=7, my_bets={"banco": 1000}, balance=9000))).model_dump_json()
    True
    >>> text = msg.encode(msg.Balance(reason="credit", amount=500, balance=5000))
    >>> odd = text + '"é' + chr(92) + chr(10)  # a quote, a backslash, a new line
    >>> player_item(2, 9, odd) == msg.PlayerMessage(table=2, player=9, text=odd).model_dump_json()
    True
    """
    return (f'{{"kind":"player-message","table":{table},"player":{player},'
            f'"text":{encode_basestring(text)},"bets":{"null" if bets is None else bets}}}')


class Cluster:
    """This process's part in a cluster of servers on one PostgreSQL database."""

    def __init__(self, url: str, *, on_item: Callable[[msg.RelayItem], Awaitable[None]],
                 retry_seconds: float = RETRY_SECONDS) -> None:
        self.conninfo = libpq_url(url)
        self.origin = secrets.token_hex(6)
        self.on_item = on_item
        self.retry_seconds = retry_seconds
        #: table id → its dealer (every table this process serves)
        self.dealers: dict[int, Member] = {}
        #: the tables whose lock this process holds (it deals them)
        self.held: set[int] = set()
        #: server processes listening on this database, this one included
        self.peers = 1
        self.lock_connection: psycopg.AsyncConnection[Any] | None = None
        self._listen: psycopg.AsyncConnection[Any] | None = None
        self._notify: psycopg.AsyncConnection[Any] | None = None
        self._outbox: list[str] = []
        self._flushing: asyncio.Task[None] | None = None
        #: set when the outbox holds an item that may not wait (:data:`RELAY_LINGER`)
        self._prompt = asyncio.Event()
        self._parts: dict[str, list[str | None]] = {}
        self._tasks: list[asyncio.Task[None]] = []
        self._leading: set[asyncio.Task[None]] = set()
        self._closing = False
        #: tables handed over to another process: not taken back before this loop time
        self._yielded: dict[int, float] = {}
        #: tables whose watchers this process reported last period
        self._watch_reported: set[int] = set()

    # --- life cycle -----------------------------------------------------------------------

    async def start(self) -> None:
        self.lock_connection = await self._connect_locks()
        self._notify = await self._connect()
        await self._open_listener()
        await self._count_peers()
        self._tasks = [asyncio.create_task(self._listen_loop(), name="cluster-listen"),
                       asyncio.create_task(self._campaign(), name="cluster-locks")]

    async def _connect(self, **options: Any) -> psycopg.AsyncConnection[Any]:
        return await psycopg.AsyncConnection.connect(self.conninfo, autocommit=True,
                                                     connect_timeout=5, **options)

    async def _connect_locks(self) -> psycopg.AsyncConnection[Any]:
        """The lock connection, with TCP keep-alives both ways: this process notices a dead
        link within the check's timeout, and PostgreSQL frees the locks of a holder it can no
        longer reach within about 10 s (by then that holder has stopped dealing)."""
        connection = await self._connect(keepalives=1, keepalives_idle=5,
                                         keepalives_interval=2, keepalives_count=2)
        for setting, value in (("idle", 5), ("interval", 2), ("count", 2)):
            await connection.execute(f"SET tcp_keepalives_{setting} = {value}")
        return connection

    async def _open_listener(self) -> None:
        self._listen = await self._connect(application_name=APP_NAME)
        await self._listen.execute(f"LISTEN {CHANNEL}")

    async def stop_campaign(self) -> None:
        """Take no more tables over (the server is stopping: its dealers stop next)."""
        for task in [*self._tasks[1:], *self._leading]:
            task.cancel()
        await asyncio.gather(*self._tasks[1:], *self._leading, return_exceptions=True)

    async def close(self) -> None:
        """Stop relaying and give the locks back (after the dealers stopped)."""
        self._closing = True
        self._prompt.set()  # what waits goes now
        if self._flushing is not None:
            await asyncio.gather(self._flushing, return_exceptions=True)
        for task in [*self._tasks, *self._leading]:
            task.cancel()
        await asyncio.gather(*self._tasks, *self._leading, return_exceptions=True)
        for connection in (self._listen, self._notify, self.lock_connection):
            if connection is not None:
                with contextlib.suppress(Exception):
                    await connection.close()
        self.held.clear()

    # --- the locks: one dealer per table ---------------------------------------------------

    # --- what a table's dealer is made with (live/links.py) ----------------------------------

    def hub(self, table_id: int, state: Callable[[], msg.DealerState | None]) -> Hub:
        return ClusterHub(self, table_id, state)

    def want(self, table_id: int) -> None:
        self.relay(msg.TableWanted(table=table_id))

    async def manage(self, dealer: Member) -> None:
        """Serve ``dealer``'s table (made with this cluster's links): deal it if its lock is
        free (after the recovery), otherwise follow the process that deals it."""
        self.dealers[dealer.id] = dealer
        if await self._try_locks([dealer.id]):
            await dealer.open()
        else:
            dealer.follow()
            self.relay(msg.StateWanted(table=dealer.id))

    async def _try_locks(self, tables: list[int]) -> set[int]:
        assert self.lock_connection is not None
        cursor = await self.lock_connection.execute(
            "SELECT t, pg_try_advisory_lock(%s, t) FROM unnest(%s::int[]) AS t",
            (NAMESPACE, tables))
        got = {int(row[0]) for row in await cursor.fetchall() if row[1]}
        self.held |= got
        return got

    async def _count_peers(self) -> None:
        assert self.lock_connection is not None
        cursor = await self.lock_connection.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s "
            "AND datname = current_database()", (APP_NAME,))
        row = await cursor.fetchone()
        self.peers = max(1, int(row[0]) if row else 1)

    async def _campaign(self) -> None:
        """Every second: check the lock connection (lost: stop dealing at once), count the
        peers, and try the locks this process lacks; a table won is recovered, then dealt.
        A table watched here but dealt elsewhere is reported watched to its dealer (which
        otherwise waits while nobody watches)."""
        while True:
            await asyncio.sleep(self.retry_seconds)
            try:
                won = await asyncio.wait_for(self._check(), max(5.0, 3 * self.retry_seconds))
            except (psycopg.Error, OSError, AssertionError, TimeoutError):
                self._lost_locks()
                await self._reconnect_locks()
                continue
            except Exception:  # a bug: logged, and the next second tries again
                log.exception("the table locks could not be tried")
                continue
            self._report_watchers()
            for table in sorted(won):
                dealer = self.dealers.get(table)
                if dealer is None:
                    continue
                task = asyncio.create_task(self._lead(dealer), name=f"lead-{table}")
                self._leading.add(task)
                task.add_done_callback(self._leading.discard)

    def _report_watchers(self) -> None:
        """Tell the other processes who watches each table here (``watch``): the signed-in
        players (their ``players`` counts and the operator's ``watchers`` are the union of
        every process's) and whether anyone does (a dealer waiting while its table is unwatched
        deals on). Sent every period while someone watches, once more when nobody does any
        longer; a report not renewed expires after :data:`WATCH_PERIODS` periods (a process
        that stopped, or lost its database)."""
        if self.peers <= 1:
            return
        lasting = WATCH_PERIODS * self.retry_seconds + 1.0
        for table, served in self.dealers.items():
            hub = served.hub
            watched = hub.watched.is_set()
            if watched or table in self._watch_reported:
                self.relay(msg.Watchers(table=table, origin=self.origin, watched=watched,
                                        players=sorted(hub._by_player), seconds=lasting))
            if watched:
                self._watch_reported.add(table)
            else:
                self._watch_reported.discard(table)

    async def _check(self) -> set[int]:
        """One round trip or two on the lock connection: the peers, the locks won."""
        await self._count_peers()
        now = asyncio.get_running_loop().time()
        wanted = [table for table in self.dealers
                  if table not in self.held and self._yielded.get(table, 0.0) <= now]
        return await self._try_locks(wanted) if wanted else set()

    async def _lead(self, dealer: Member) -> None:
        log.warning("table %s: this process deals it now (its lock was free)", dealer.id)
        try:
            await dealer.lead()
        except Exception:
            log.exception("table %s: taking the table over failed; it is given back", dealer.id)
            dealer.demote()
            await self._unlock(dealer.id)
            return
        for client in list(dealer.hub.clients):  # the recovered table, drawn afresh
            dealer.resnapshot(client)
        self.relay(msg.TableState(table=dealer.id, state=dealer.cluster_state(), redraw=True))

    async def hand_over(self, table: int) -> None:
        """Another process's dealer page drives this hand-dealt table: give it up between two
        actions (the next holder resumes the shoe and the round from the record)."""
        dealer = self.dealers.get(table)
        if dealer is None or dealer.following or table not in self.held:
            return
        async with dealer.lock:  # not in the middle of a dealer's action
            dealer.demote()
            await dealer.desk.drain()
            await self._unlock(table)
        self._yielded[table] = asyncio.get_running_loop().time() + 3 * self.retry_seconds
        log.warning("table %s: handed over to the process its dealer uses", table)

    async def _unlock(self, table: int) -> None:
        self.held.discard(table)
        if self.lock_connection is not None:
            with contextlib.suppress(Exception):
                await self.lock_connection.execute("SELECT pg_advisory_unlock(%s, %s)",
                                                   (NAMESPACE, table))

    def _lost_locks(self) -> None:
        """The lock connection is gone: whatever it held may be another's now."""
        if self.held:
            log.error("the lock connection is lost: this process stops dealing tables %s",
                      sorted(self.held))
        for table in sorted(self.held):
            dealer = self.dealers.get(table)
            if dealer is not None:
                dealer.demote()
                # the "database back" line waits for its repair (db/health.py, issue 22)
                dealer.db.health.dealer_failed(table)
        self.held.clear()

    async def _reconnect_locks(self) -> None:
        if self.lock_connection is not None:
            with contextlib.suppress(Exception):
                await self.lock_connection.close()
            self.lock_connection = None
        while not self._closing:
            try:
                self.lock_connection = await self._connect_locks()
                return
            except (psycopg.Error, OSError):
                await asyncio.sleep(self.retry_seconds)

    def fence(self, table: int) -> Fence:
        """A check for the start of each dealer write: this process's lock connection holds
        the table's lock (``pg_locks``), or :class:`LeadershipLost` and nothing is written."""
        def check(session: Session) -> None:
            connection = self.lock_connection
            pid = connection.info.backend_pid if connection is not None else 0
            held = session.execute(text(
                "SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted "
                "AND classid::bigint = :ns AND objid::bigint = :table AND objsubid = 2 "
                "AND pid = :pid"), {"ns": NAMESPACE, "table": table, "pid": pid}).first()
            if held is None or table not in self.held:
                raise LeadershipLost(f"Table {table} is dealt by another process now.")
        return check

    # --- relaying events -------------------------------------------------------------------

    def relay(self, item: msg.Relayed) -> None:
        """Send ``item`` to the other processes (nothing while this one is alone, but a
        request for a table's state: that is how a process finds it is not alone)."""
        if (self.peers <= 1 and not isinstance(item, msg.StateWanted)) or self._closing:
            return
        self._relay(item.model_dump_json())

    def relay_text(self, item: str, *, linger: bool = False) -> None:
        """:meth:`relay` of an item already written as its JSON text (nothing while this
        process is alone); ``linger``: it may wait up to :data:`RELAY_LINGER` for more."""
        if self.peers > 1 and not self._closing:
            self._relay(item, linger=linger)

    def _relay(self, item: str, *, linger: bool = False) -> None:
        self._outbox.append(item)
        if not linger:
            self._prompt.set()
        if self._flushing is None or self._flushing.done():
            self._flushing = asyncio.create_task(self._flush(), name="cluster-notify")

    async def _flush(self) -> None:
        """Send the outbox: at the end of the moment (what this turn of the loop relays goes
        together), or, when it holds only items that may wait, :data:`RELAY_LINGER` after
        the first of them or at the first item that may not, whichever comes first. A
        relay costs the loop a round trip here and a notification to read at every other
        process: a bet's ``my-bets`` of each batch answered, ~40 a second per process, went
        one by one (issue 21)."""
        await asyncio.sleep(0)
        loop = asyncio.get_running_loop()
        while self._outbox:
            if not self._prompt.is_set() and not self._closing:
                timer = loop.call_later(RELAY_LINGER, self._prompt.set)
                await self._prompt.wait()
                timer.cancel()
            self._prompt.clear()
            items, self._outbox = self._outbox, []
            payloads = pack(self.origin, items)
            try:
                if self._notify is None or self._notify.closed:
                    self._notify = await self._connect()
                # one statement, its own transaction (autocommit): one round trip where
                # BEGIN, the notifications and COMMIT were three, for the relay of every
                # moment (issue 21); the parts of a long item still arrive together, in order
                await self._notify.execute(notify_all(len(payloads)), {
                    "c": CHANNEL, **{f"p{n}": payload for n, payload in enumerate(payloads)}})
            except (psycopg.Error, OSError) as error:
                if outage_code(error) is None:
                    log.exception("%d relayed event(s) could not be sent", len(items))
                else:  # the database is away: said once by db/health.py (issue 22)
                    log.info("%d relayed event(s) could not be sent: the database is away",
                             len(items))
                self._notify = None

    async def _listen_loop(self) -> None:
        lost = False  # said once per loss, not at each attempt to reconnect (issue 22)
        while not self._closing:
            try:
                assert self._listen is not None
                lost = False
                async for notice in self._listen.notifies():
                    try:
                        await self._received(notice.payload)
                    except (ValueError, KeyError, TypeError, IndexError):  # not ours
                        log.warning("a notification on %s was not understood", CHANNEL)
            except (psycopg.Error, OSError, AssertionError):
                if self._closing:
                    return
                if not lost:
                    log.warning("the cluster's listening connection is lost; reconnecting")
                lost = True
                await asyncio.sleep(self.retry_seconds)
                with contextlib.suppress(psycopg.Error, OSError):
                    self._listen = None
                    await self._open_listener()
                    for table in self.dealers:  # what was missed meanwhile: a fresh state
                        self.relay(msg.StateWanted(table=table))

    async def _received(self, payload: str) -> None:
        data = json.loads(payload)
        if data.get("o") == self.origin:
            return
        self.peers = max(self.peers, 2)  # someone else listens: relay from now on
        items: list[Any]
        if "c" in data:
            key, number, count, piece = data["c"]
            if len(self._parts) > 100:  # parts a dead sender never finished
                self._parts.clear()
            parts = self._parts.setdefault(key, [None] * count)
            parts[number] = piece
            if any(part is None for part in parts):
                return
            del self._parts[key]
            items = [json.loads("".join(part for part in parts if part is not None))]
        else:
            items = data["i"]
        for item in items:
            try:
                parsed = msg.RELAYED.validate_python(item)
            except ValidationError:
                log.warning("a relayed item of no known kind was left: %s", str(item)[:200])
                continue
            try:
                await self.on_item(parsed)
            except Exception:  # one bad item must not stop the relay
                log.exception("a relayed event could not be applied: %s", str(item)[:200])
