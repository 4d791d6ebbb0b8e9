"""The running room: the database, every table's dealer, and what an empty database starts with."""

from __future__ import annotations

import asyncio
import logging
import secrets
import unicodedata
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from sqlalchemy import select, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from puntobanco.errors import PuntoBancoError
from puntobanco.rules import RuleSet
from puntobanco.server.db import admin, auth, ledger, store
from puntobanco.server.db.dealing import set_dealing
from puntobanco.server.db.engine import Database, backend_of, hold_sqlite, release_sqlite
from puntobanco.server.db.health import Health
from puntobanco.server.db.models import GameTable, Player
from puntobanco.server.live import messages as msg
from puntobanco.server.live.clock import Clock, WallClock
from puntobanco.server.live.cluster import NAMESPACE, Cluster, ClusterHub
from puntobanco.server.live.dealer import TableDealer, dealer_for
from puntobanco.server.live.hub import Hub
from puntobanco.server.messages import NotFound, Refusal
from puntobanco.server.settings import (
    DEFAULT_BETTING_SECONDS,
    OPERATOR_USERNAME,
    ServerSettings,
    table_rules_from_json,
)

log = logging.getLogger("puntobanco.server")
#: work done in the same transaction as a table's creation or change (the audit log)
OnWrite = Callable[[Session, store.TableSettings], None]

#: the longest table name, in characters (after trimming spaces)
MAX_TABLE_NAME = 64


class EndSockets(Protocol):
    """Closes a player's open WebSockets in this process (``api/guard.py``
    ``SocketCounts.end_sessions``): those of one session (its token's hash), or all."""

    def __call__(self, player: int, token: str | None = None, *,
                 hashed: str | None = None) -> object: ...


class OutOfService(PuntoBancoError):
    """The table did not start (its recovery failed); the operator sees why and can fix it."""

    code = "table-out-of-service"


@dataclass(frozen=True, slots=True)
class Broken:
    """A table whose dealer could not start: why, as one sentence, and when."""

    id: int
    name: str
    reason: str
    rules: dict[str, Any]


class Casino:
    """Owns the database and the dealers; the web layer reaches everything through it."""

    def __init__(self, config: ServerSettings, *, clock: Clock | None = None) -> None:
        self.config = config
        #: what paces every table's round (live/clock.py): the wall clock, or a test's
        self.clock: Clock = clock or WallClock()
        self.db = Database(config.database_url)
        self.dealers: dict[int, TableDealer] = {}
        #: tables whose recovery failed at start: out of service until the operator fixes them
        self.broken: dict[int, Broken] = {}
        self._held = False
        #: the operator's password when it was generated at this start (print it once)
        self.generated_operator_password: str | None = None
        #: PUNTOBANCO_OPERATOR_PASSWORD was given, but the database's operator has another one
        #: (``serve`` says so; ``puntobanco operator-password`` resets it)
        self.operator_password_ignored = False
        #: several processes on one PostgreSQL database (live/cluster.py); None on SQLite
        self.cluster: Cluster | None = None
        #: closes a player's open WebSockets in this process (set by the application)
        self.end_player_sockets: EndSockets | None = None
        #: the database's watch (``Database.watch``: outages probed, SQLite's disk and log)
        self._watch: asyncio.Task[None] | None = None

    async def open(self) -> None:
        """Seed an empty database, then start one dealer per table (on PostgreSQL: deal the
        tables whose lock is free, follow the others)."""
        hold_sqlite(self.config.database_url)  # one process per SQLite file
        self._held = True
        self.generated_operator_password = await self.db.run_write(self._seed)
        if backend_of(self.config.database_url) == "postgresql":
            self.cluster = Cluster(self.config.database_url, on_item=self._relayed,
                                   retry_seconds=self.config.cluster_retry_seconds)
            await self.cluster.start()
        paused = await self.db.run_read(admin.paused_tables)
        for table_id, name, rules in await self.db.run_read(store.table_rows):
            await self._start_table(table_id, name, rules, paused=table_id in paused)
        # the database's outages told to every socket here; its disk and log watched (issue 22)
        self.db.health.listeners.append(self._database_changed)
        self.db.health.bets_in_play = self.bets_in_play
        self._watch = asyncio.create_task(self.db.watch(), name="database-watch")

    def _database_changed(self, health: Health) -> None:
        """Tell every socket of this process that the tables stopped taking bets because of
        the database, or take them again (each process tells its own sockets)."""
        text = msg.encode(msg.DatabaseState(**health.state()))
        for dealer in self.dealers.values():
            Hub.broadcast_text(dealer.hub, text)

    def bets_in_play(self) -> int:
        """The bets accepted here and not yet settled or refunded (the disk's reserve)."""
        return sum(len(bets) for dealer in self.dealers.values()
                   for bets in dealer.spot_bets().values())

    async def _start_table(self, table_id: int, name: str, rules: dict[str, Any], *,
                           paused: bool = False) -> bool:
        """Start one table's dealer; a table whose settings or recovery fail is isolated (issue
        9): logged, listed out of service with the reason, and the other tables start."""
        try:
            settings = await self.db.run_read(lambda s: store.load_table(s, table_id))
            await self._add_dealer(settings, paused=paused)
        except Exception as error:  # whatever it is, one table must not stop the room
            log.exception("table %s (%s) is out of service: its recovery failed", table_id, name)
            reason = str(error).strip().splitlines()[0][:300] if str(error).strip() else \
                type(error).__name__
            self.broken[table_id] = Broken(table_id, name, reason, rules)
            return False
        self.broken.pop(table_id, None)
        return True

    def _seed(self, session: Session) -> str | None:
        if session.get_bind().dialect.name == "postgresql":  # processes starting together
            session.execute(text("SELECT pg_advisory_xact_lock(:ns, 0)"), {"ns": NAMESPACE})
        ledger.ensure_account(session, ledger.ISSUER_CODE, kind="issuer")
        if not session.scalars(select(GameTable.id)).first():
            for name in self.config.default_tables:
                store.create_table(session, name=name, rules=RuleSet(),
                                   betting_seconds=DEFAULT_BETTING_SECONDS)
        operator = session.scalars(select(Player).where(Player.role == "operator")).first()
        if operator is not None:
            wanted = self.config.operator_password
            self.operator_password_ignored = wanted is not None and not auth.password_matches(
                wanted, operator.password_hash)
            return None
        password = self.config.operator_password
        generated = password is None
        if password is None:
            password = secrets.token_urlsafe(12)
        auth.check_password(password)
        auth.create_player(session, username=OPERATOR_USERNAME, role="operator", lang="fr",
                           password_hash=auth.hash_password(password,
                                                            rounds=self.config.bcrypt_rounds))
        return password if generated else None

    async def _add_dealer(self, settings: store.TableSettings, *,
                          paused: bool = False) -> TableDealer:
        dealer = await dealer_for(settings, db=self.db, config=self.config,
                                  clock=self.clock, links=self.cluster)  # dealer mode hook
        dealer.set_paused(paused)
        if self.cluster is None:
            await dealer.open()
        else:
            await self.cluster.manage(dealer)
        self.dealers[settings.id] = dealer
        return dealer

    async def close(self) -> None:
        """Stop every dealer (each finishes its coup or voids its open round), then the database."""
        # Each step is bounded: a stop never hangs the process (a dealer's own stop waits
        # ``stop_timeout`` for its coup; whatever is left, the next start or process recovers).
        bound = self.config.stop_timeout + 5
        if self._watch is not None:
            self._watch.cancel()
            await asyncio.gather(self._watch, return_exceptions=True)
            self.db.health.flush()
        if self.cluster is not None:  # no table taken over while the dealers stop
            await _bounded(self.cluster.stop_campaign(), bound, "taking tables over")
        await _bounded(asyncio.gather(*(dealer.stop() for dealer in self.dealers.values())),
                       bound, "stopping the dealers")
        if self.cluster is not None:  # the locks go back once the dealers have stopped
            await _bounded(self.cluster.close(), bound, "leaving the cluster")
        self.db.close()
        if self._held:
            release_sqlite(self.config.database_url)
            self._held = False

    def tell_player(self, player_id: int, message: msg.Message) -> None:
        """Send a message to every open page of one player, whatever table it shows (a credit
        reaching an open page)."""
        text = msg.encode(message)
        self._tell_here(player_id, text)
        if self.cluster is not None:
            self.cluster.relay(msg.TellPlayer(player=player_id, text=text))

    def _tell_here(self, player_id: int, text: str) -> None:
        for dealer in self.dealers.values():
            Hub.send_text(dealer.hub, player_id, text)  # this process's sockets only

    def set_paused(self, table_id: int, paused: bool) -> None:
        """Pause or resume a table in every process (the dealing one finishes its coup)."""
        self.dealer(table_id).set_paused(paused)
        if self.cluster is not None:
            self.cluster.relay(msg.PauseTable(table=table_id, paused=paused))

    def bar(self, player_id: int, barred: bool) -> None:
        """Bar a suspended player from betting at every table, in every process, and close
        their sockets (or lift the bar)."""
        self._bar_here(player_id, barred)
        if self.cluster is not None:
            self.cluster.relay(msg.BarPlayer(player=player_id, barred=barred))

    def end_sessions(self, player_id: int, hashed: str | None = None) -> None:
        """Close, in every process, a player's sockets opened with the session whose token
        hashes to ``hashed`` (``db/auth.py`` ``token_hash``), or with any session (``None``):
        the log-out and log-out-everywhere, once the sessions are gone from the database. The
        relay carries the hash, never the token."""
        self._end_sessions_here(player_id, hashed)
        if self.cluster is not None:
            self.cluster.relay(msg.EndSessions(player=player_id, token_hash=hashed))

    def _end_sessions_here(self, player_id: int, hashed: str | None) -> None:
        if self.end_player_sockets is not None:
            self.end_player_sockets(player_id, hashed=hashed)

    def _bar_here(self, player_id: int, barred: bool) -> None:
        for dealer in self.dealers.values():
            if barred:
                dealer.barred.add(player_id)
            else:
                dealer.barred.discard(player_id)
        if barred and self.end_player_sockets is not None:
            self.end_player_sockets(player_id)

    async def _relayed(self, item: msg.RelayItem) -> None:
        """An item another server process relayed (``live/cluster.py``), by its kind."""
        if isinstance(item, msg.TellPlayer):
            self._tell_here(item.player, item.text)
        elif isinstance(item, msg.BarPlayer):
            self._bar_here(item.player, item.barred)
        elif isinstance(item, msg.EndSessions):
            self._end_sessions_here(item.player, item.token_hash)
        elif isinstance(item, msg.TableChanged):
            await self._table_changed(item.table)
        elif (dealer := self.dealers.get(item.table)) is not None:
            await self._relayed_to(dealer, item)

    async def _relayed_to(self, dealer: TableDealer, item: msg.RelayItem) -> None:
        """A relayed item about one table this process serves."""
        if isinstance(item, msg.TableEvent):  # with the dealer's state
            dealer.follow_state(item.state)
            Hub.broadcast_text(dealer.hub, item.text)
        elif isinstance(item, msg.PlayerMessage):  # a player's own message
            Hub.send_text(dealer.hub, item.player, item.text)
            if item.bets is not None:  # a bet taken there: counted in the totals here
                dealer.desk.apply_remote(item.player, item.bets.coup_id, item.bets.my_bets)
        elif isinstance(item, msg.TableState):
            dealer.follow_state(item.state)
            if item.redraw and dealer.following:
                for client in list(dealer.hub.clients):
                    dealer.resnapshot(client)
        elif isinstance(item, msg.StateWanted):
            if not dealer.following and self.cluster is not None:
                self.cluster.relay(msg.TableState(table=dealer.id, state=dealer.cluster_state(),
                                                  redraw=True))
        elif isinstance(item, msg.PauseTable):
            dealer.set_paused(item.paused)
        elif isinstance(item, msg.Watchers):  # who watches it on another process
            if isinstance(dealer.hub, ClusterHub):
                dealer.hub.seen_elsewhere(item.origin, frozenset(item.players), item.seconds)
            if item.watched and not dealer.following:  # watched there: deal on
                dealer.poke()
        elif (isinstance(item, msg.TableWanted) and dealer.controls is not None
              and self.cluster is not None):
            await self.cluster.hand_over(dealer.id)  # its dealer's page is elsewhere

    async def _table_changed(self, table_id: int) -> None:
        """Another process created a table or changed its settings: serve it as stored."""
        dealer = self.dealers.get(table_id)
        if dealer is not None:
            dealer.settings = await self.db.run_read(lambda s: store.load_table(s, table_id))
            return
        for found, name, rules in await self.db.run_read(store.table_rows):
            if found == table_id:
                await self._start_table(table_id, name, rules)

    def _changed_table(self, table_id: int) -> None:
        if self.cluster is not None:
            self.cluster.relay(msg.TableChanged(table=table_id))

    def dealer(self, table_id: int) -> TableDealer:
        dealer = self.dealers.get(table_id)
        if dealer is None:
            if table_id in self.broken:
                raise OutOfService(f"Table {table_id} is out of service: "
                                   f"{self.broken[table_id].reason}")
            raise NotFound(f"There is no table {table_id}.")
        return dealer

    async def add_table(self, name: str, rules: dict[str, Any], *,
                        on_write: OnWrite | None = None,
                        dealing: str = "server") -> TableDealer:
        """A new table with its dealer (operator); names are unique ignoring case.
        ``on_write(session, settings)`` runs in the same transaction (the audit log)."""
        name = table_name(name)
        parsed, seconds = table_rules_from_json(rules)

        def create(session: Session) -> store.TableSettings:
            if store.find_table_named(session, name) is not None:
                raise PuntoBancoError(f"A table named {name!r} exists.", code="table-name-taken")
            settings = store.create_table(session, name=name, rules=parsed,
                                          betting_seconds=seconds)
            if dealing != "server":  # a hand-dealt table (docs/dealer.md)
                set_dealing(session, settings.id, dealing)
            if on_write is not None:
                on_write(session, settings)
            return settings

        try:
            settings = await self.db.run_write(create)
        except IntegrityError:  # the same name, created at the same moment
            raise PuntoBancoError(f"A table named {name!r} exists.",
                                  code="table-name-taken") from None
        dealer = await self._add_dealer(settings)
        self._changed_table(settings.id)
        return dealer

    async def update_table(self, table_id: int, rules: dict[str, Any] | None, *,
                           on_write: OnWrite | None = None) -> TableDealer:
        """Change a table's settings; its dealer uses them from the next shoe.
        ``on_write(session, settings)`` runs in the same transaction (a rename, the audit log).
        A table out of service gets its settings changed, then its dealer is started again."""
        if table_id in self.broken:
            if rules is None:
                raise OutOfService(f"Table {table_id} is out of service: "
                                   f"{self.broken[table_id].reason}")
            broken = self.broken[table_id]
            stored = await self.db.run_write(lambda s: store.update_table(s, table_id, rules))
            if not await self._start_table(table_id, broken.name, stored.rules_json()):
                raise OutOfService(f"Table {table_id} is still out of service: "
                                   f"{self.broken[table_id].reason}")
            self._changed_table(table_id)
            return self.dealers[table_id]
        dealer = self.dealer(table_id)

        def write(session: Session) -> store.TableSettings:
            settings = (store.update_table(session, table_id, rules) if rules is not None
                        else store.load_table(session, table_id))
            if on_write is not None:
                on_write(session, settings)
                settings = store.load_table(session, table_id)
            return settings

        dealer.settings = await self.db.run_write(write)
        self._changed_table(table_id)
        return dealer


async def _bounded(work: Awaitable[Any], seconds: float, what: str) -> None:
    """Await ``work`` for at most ``seconds`` (then it is cancelled and the stop goes on)."""
    try:
        await asyncio.wait_for(work, seconds)
    except TimeoutError:
        log.error("the stop gave up %s after %.0f s", what, seconds)


def table_name(name: str) -> str:
    """A table's name without the spaces around it, 1 to 64 characters, or a refusal."""
    name = name.strip()
    if not 1 <= len(name) <= MAX_TABLE_NAME:
        raise Refusal(f"A table's name is 1 to {MAX_TABLE_NAME} characters.",
                      code="bad-request", key="table-name-length")
    if any(unicodedata.category(char)[0] == "C" for char in name):  # NUL, controls
        raise Refusal("A table's name has no control character.", code="bad-request",
                      key="table-name-characters")
    return name
