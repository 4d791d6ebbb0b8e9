"""Engines, sessions and migrations for SQLite (the default) and PostgreSQL.

SQLite runs in WAL mode with a busy timeout, and every *write* transaction starts with
``BEGIN IMMEDIATE`` so that two writers queue for the lock instead of failing when one of them
upgrades a read lock. Reads use ordinary deferred transactions and never block behind writers.
Every database call is synchronous and runs on :attr:`Database.executor` (writes on
:attr:`Database.write_executor`), so the asyncio loop (the dealers and the WebSockets) never
waits on disk or for a lock — except a desk's batch of bets on SQLite, written on the loop's
thread when the write lock is free at once and with no checkpoint in its commit
(:meth:`Database.run_batch`, issue 21), else on a write thread; on PostgreSQL on threads and a
pool of their own (:class:`Lanes`, :func:`batch_engine`; issue 21, seventh pass). Each call
tells :attr:`Database.health` how it ended, and :meth:`Database.watch` probes a database that
went away, checkpoints SQLite's write-ahead log and watches its disk (``db/health.py``, issue
22).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import queue
import sqlite3
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Generic, TypeVar

import psycopg
from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, Engine, create_engine, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, InvalidatePoolError, SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import NullPool

from puntobanco.errors import PuntoBancoError
from puntobanco.server.db import bulk
from puntobanco.server.db.health import (
    DISK_SECONDS,
    PROBE_SECONDS,
    QUIET_SECONDS,
    STORAGE_FULL,
    UNAVAILABLE,
    WAL_AUTO_PAGES,
    WAL_BURST_PAGES,
    WAL_KEEP_BYTES,
    WAL_STRIDE_PAGES,
    Health,
)

T = TypeVar("T")

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"


def _make_sqlite_directory(url: str) -> None:
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite" and parsed.database and parsed.database != ":memory:":
        Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)


def _sqlite_engine(url: str, *, immediate: bool) -> Engine:
    _make_sqlite_directory(url)
    engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30},
                           pool_size=8, max_overflow=16)

    @event.listens_for(engine, "connect")
    def _connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy, not the driver, decide when transactions begin.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA busy_timeout=30000")
        # the log never fills the disk by itself: checkpointed every WAL_AUTO_PAGES pages and
        # cut back to WAL_KEEP_BYTES after a checkpoint (Database.watch truncates it beyond
        # WAL_BURST_PAGES; issue 22)
        cursor.execute(f"PRAGMA wal_autocheckpoint={WAL_AUTO_PAGES}")
        cursor.execute(f"PRAGMA journal_size_limit={WAL_KEEP_BYTES}")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(connection: Any) -> None:
        connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

    return engine


def backend_of(url: str) -> str:
    """``sqlite`` or ``postgresql``; any other URL is refused with one clear sentence."""
    try:
        backend = make_url(url).get_backend_name()
    except ArgumentError:
        raise PuntoBancoError(f"{url!r} is not a database URL such as sqlite:///var/pb.sqlite3 "
                              "or postgresql+psycopg://user@host/db.", code="bad-url") from None
    if backend not in ("sqlite", "postgresql"):
        raise PuntoBancoError(f"The server runs on SQLite or PostgreSQL, not {backend}.",
                              code="bad-url")
    return backend


def make_engines(url: str) -> tuple[Engine, Engine]:
    """The (writer, reader) engines for ``url``; one engine serves both on PostgreSQL."""
    if backend_of(url) == "sqlite":
        return _sqlite_engine(url, immediate=True), _sqlite_engine(url, immediate=False)
    writer = create_engine(url, pool_size=10, max_overflow=20, pool_pre_ping=True)
    event.listen(writer, "connect", _generic_plans)
    return writer, create_engine(url, pool_size=10, max_overflow=20, pool_pre_ping=True)


def _generic_plans(dbapi_connection: Any, _record: Any) -> None:
    # The writes' statements are fixed and prepared by psycopg at their fifth use; left to
    # itself PostgreSQL planned each execution again (a custom plan: 0.2-0.5 ms of its CPU for
    # each of a bet batch's reads). Their plans do not depend on the values.
    dbapi_connection.execute("SET plan_cache_mode = force_generic_plan")
    dbapi_connection.commit()


#: the most connections :func:`batch_engine`'s pool keeps (the write threads: one batch each)
BATCH_CONNECTIONS = 4


def batch_engine(url: str) -> Engine:
    """PostgreSQL: the engine of :meth:`Database.run_write_core` (the desk's batches of bets),
    whose connections come out of its pool in a transaction: each checkout sends ``BEGIN``
    (:func:`~puntobanco.server.db.bulk.pg_command`), and that ``BEGIN`` is the pool's ping
    (issue 21, seventh pass). The other engines ping a connection before lending it
    (``pool_pre_ping``: ``SELECT 1`` in autocommit, ~45 µs of this process's CPU and a round
    trip), then the transaction sends its ``BEGIN``; here a ``BEGIN`` found on a connection the
    database closed (a restart) makes the pool open a new one, as a failed ping does, and drop
    every connection older than it."""
    # one connection a batch thread (``Lanes``) at most: no overflow beyond them (the
    # database's connections are counted: 100 by default, for every process)
    engine = create_engine(url, pool_size=BATCH_CONNECTIONS, max_overflow=0)
    event.listen(engine, "connect", _generic_plans)

    @event.listens_for(engine, "checkout")
    def _begin(dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
        try:
            bulk.pg_command(dbapi_connection, b"BEGIN")
        except psycopg.Error as error:
            if engine.dialect.is_disconnect(error, dbapi_connection, None):  # type: ignore[arg-type]
                raise InvalidatePoolError(str(error)) from error  # a new connection, and again
            raise DBAPIError.instance("BEGIN", (), error, psycopg.Error,
                                      dialect=engine.dialect) from error

    return engine


def alembic_config(url: str) -> Config:
    """An Alembic configuration pointing at the migrations shipped inside the package."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


def check_database(url: str) -> None:
    """Migrate the database, or raise one clear :class:`PuntoBancoError` if it cannot be used."""
    backend_of(url)
    try:
        migrate(url)
    except (SQLAlchemyError, OSError) as error:
        reason = str(getattr(error, "orig", None) or error).strip().splitlines()[0]
        raise PuntoBancoError(f"Cannot open the database {make_url(url).render_as_string()}: "
                              f"{reason}.", code="bad-database") from None


#: the advisory lock that serialises migrations on PostgreSQL: the cluster's namespace ("pb",
#: ``live/cluster.py``) with a key no table has (tables lock their positive id, seeding 0)
MIGRATION_LOCK = (0x7062, -1)


def migrate(url: str) -> None:
    """Apply every migration up to the newest (``alembic upgrade head``).

    On PostgreSQL, processes starting together on one database migrate one after the other
    (issue 18: two ``serve`` on an empty database both created the schema, and one stopped on a
    unique constraint): each holds the session-level advisory lock :data:`MIGRATION_LOCK` while
    it upgrades, so the second finds the schema up to date. SQLite serves one process per file
    (:func:`hold_sqlite`) and its migrations take the file's write lock.
    """
    _make_sqlite_directory(url)
    if backend_of(url) != "postgresql":
        command.upgrade(alembic_config(url), "head")
        return
    engine = create_engine(url, poolclass=NullPool, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as lock:
            lock.execute(text("SELECT pg_advisory_lock(:ns, :key)"),
                         {"ns": MIGRATION_LOCK[0], "key": MIGRATION_LOCK[1]})
            try:
                command.upgrade(alembic_config(url), "head")
            finally:
                lock.execute(text("SELECT pg_advisory_unlock(:ns, :key)"),
                             {"ns": MIGRATION_LOCK[0], "key": MIGRATION_LOCK[1]})
    finally:
        engine.dispose()


#: SQLite files this process serves: path → (lock file descriptor, holders)
_HELD: dict[str, tuple[int, int]] = {}


def hold_sqlite(url: str) -> None:
    """Claim an SQLite database for this process (a no-op on PostgreSQL).

    The dealers of an SQLite database live in one process: a second process is refused with one
    clear sentence. The claim is an exclusive ``flock`` on ``<file>.serve-lock``, released by
    :func:`release_sqlite` or when the process ends, however it ends. Claims within one process
    are counted, so a test may start a server again on the same file.
    """
    import fcntl

    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or not parsed.database or parsed.database == ":memory:":
        return
    path = str(Path(parsed.database).resolve())
    if path in _HELD:
        fd, holders = _HELD[path]
        _HELD[path] = (fd, holders + 1)
        return
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path + ".serve-lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        raise PuntoBancoError(f"Another puntobanco server already uses the SQLite database "
                              f"{parsed.database}: one process serves an SQLite file (run several "
                              "processes on PostgreSQL).", code="database-in-use") from None
    _HELD[path] = (fd, 1)


def release_sqlite(url: str) -> None:
    """Give back a claim of :func:`hold_sqlite`."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or not parsed.database:
        return
    path = str(Path(parsed.database).resolve())
    if path not in _HELD:
        return
    fd, holders = _HELD[path]
    if holders > 1:
        _HELD[path] = (fd, holders - 1)
        return
    del _HELD[path]
    os.close(fd)  # closing the descriptor releases the lock


#: :meth:`Database._batch_inline` did not run the batch: another writer holds the lock, or
#: the log is past its bound (``_LOG_FULL``)
_NOT_RUN, _LOG_FULL = object(), object()

#: set in a session's ``info`` once it has a connection to the database
REACHED = "puntobanco.reached"


def _reached(session: Session, _transaction: Any, _connection: Any) -> None:
    session.info[REACHED] = True


class Database:
    """Both engines, their session factories and the thread pool the calls run on."""

    def __init__(self, url: str, *, threads: int = 16) -> None:
        self.url = url
        self.sqlite = backend_of(url) == "sqlite"
        self.postgresql = backend_of(url) == "postgresql"
        self.writer, self.reader = make_engines(url)
        #: PostgreSQL: the connections of :meth:`run_write_core`, lent in a transaction
        self.batch_writer = batch_engine(url) if self.postgresql else None
        #: the threads :meth:`run_write_core` runs its calls on, one a connection of
        #: :attr:`batch_writer` (started with the first call)
        self._batch_threads = Lanes(BATCH_CONNECTIONS, "db-batch")
        self._write_sessions = sessionmaker(self.writer, expire_on_commit=False)
        self._read_sessions = sessionmaker(self.reader, expire_on_commit=False)
        for sessions in (self._write_sessions, self._read_sessions):
            # a call that reached the database (not one with nothing to ask): it is reachable
            event.listen(sessions, "after_begin", _reached)
        self.executor = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="db")
        #: writes have threads of their own: a batch of bets, a close or a settlement never
        #: queues behind a flood of reads (every request's session lookup is one)
        self.write_executor = ThreadPoolExecutor(max_workers=4, thread_name_prefix="db-write")
        #: reachable, unreachable or out of space, as this process's calls found it (issue 22)
        self.health = Health(url)
        #: SQLite: :meth:`run_batch` writes a batch on the loop's thread when the write lock is
        #: free (``_batch_inline``); False: always on the write threads
        self.inline_batches = self.sqlite
        self._inline: Connection | None = None
        self._inline_driver: Any = None
        #: the last PASSIVE checkpoint run beside the batches (``_batch_inline``), or None;
        #: the batches written before it started (of ``_batches``, all written so far)
        self._checkpoint: Future[bool] | None = None
        self._checkpoint_at = self._batches = 0
        #: the log's pages when the last checkpoint beside the batches started
        self._checkpoint_pages = 0
        #: the log's growth between two checkpoints beside the batches, in pages
        self.checkpoint_stride = WAL_STRIDE_PAGES
        self._wal = None if self.health.path is None else f"{self.health.path}-wal"

    @contextmanager
    def write(self) -> Iterator[Session]:
        """A session whose transaction commits on success and rolls back on any error."""
        with self._write_sessions() as session, session.begin():
            yield session

    @contextmanager
    def read(self) -> Iterator[Session]:
        with self._read_sessions() as session, session.begin():
            yield session

    async def run_write(self, work: Callable[[Session], T], *, essential: bool = False) -> T:
        """Run ``work(session)`` in one write transaction on the database threads.

        While the disk is short (``storage-full``) only ``essential`` writes are made — the
        bets already queued, the dealers' closes, settlements, voids and recoveries, which the
        reserve is kept for; any other write is refused
        :class:`~puntobanco.server.db.health.DatabaseUnavailable` at once."""
        if not essential:
            self.health.check_writes()
        call = functools.partial(self._write_call, work)
        started = self.health.started()
        try:
            result, reached = await asyncio.get_running_loop().run_in_executor(
                self.write_executor, call)
        except Exception as error:
            self.health.failed(error, started)
            raise
        if reached:
            self.health.succeeded(started, write=True)
        return result

    async def run_batch(self, work: Callable[[Connection], T]) -> T:
        """``work(connection)`` in one essential write transaction on a bare connection (issue
        21: the desk's batch of bets; ``work`` runs only driver SQL, ``db/bulk.py``, so no ORM
        session is built around it). On PostgreSQL that is :meth:`run_write_core`. On SQLite,
        ``BEGIN IMMEDIATE`` … ``COMMIT`` sent on the driver's connection: no SQLAlchemy
        transaction either (the two cost ~100 µs of CPU a transaction).

        It runs on the event loop's own thread when the write lock is free at once
        (:attr:`inline_batches`, ``_batch_inline``), else on a write thread, which waits for
        the lock as every writer does: a batch on a thread fought the loop for the GIL (every
        0.2 ms, ``app.SWITCH_INTERVAL``) and paid the hops there and back. An essential write
        (:meth:`run_write`); errors are SQLAlchemy's, as from :meth:`run_write`, and the
        transaction is rolled back."""
        if not self.sqlite:
            return await self.run_write_core(work, essential=True)
        started = self.health.started()
        try:
            result = self._batch_inline(work) if self.inline_batches else _NOT_RUN
            if result is _LOG_FULL:
                # the log restarts only at a write that finds it wholly copied: one more
                # checkpoint when the last one started before the last batches, or could not
                assert self._checkpoint is not None
                copied = await asyncio.wrap_future(self._checkpoint)
                if not copied or self._checkpoint_at != self._batches:
                    await asyncio.wrap_future(self._checkpoint_now())
                result = self._batch_inline(work, full=True)
            if result is _NOT_RUN:
                result = await asyncio.get_running_loop().run_in_executor(
                    self.write_executor, functools.partial(self._batch_call, work))
        except Exception as error:
            self.health.failed(error, started)
            raise
        self._batches += 1
        self.health.succeeded(started, write=True)
        return result  # type: ignore[return-value]

    def _batch_inline(self, work: Callable[[Connection], T], *, full: bool = False
                      ) -> T | object:
        """:meth:`_batch_call` on the event loop's own thread when SQLite's write lock is free
        at once (``BEGIN IMMEDIATE`` with no busy wait); ``_NOT_RUN`` when another writer holds
        it (then the batch goes to the write threads, which wait for it), ``_LOG_FULL`` when
        the log is past :data:`WAL_BURST_PAGES` (unless ``full``: it was, and the batch waited
        for the checkpoints).

        Its commits never checkpoint (two fsyncs on the loop). Once the log passed
        :data:`WAL_AUTO_PAGES`, ``PASSIVE`` checkpoints run on a write thread beside the
        batches, one each time the log grew :data:`WAL_STRIDE_PAGES` more (they take no
        write lock: the next batches go on, here, meanwhile; one after the other, they copied
        the same hot pages again every batch or two). The log restarts only at a write
        that finds it wholly copied, and while bets keep coming only a checkpoint that ends
        between two batches copies it all, so it grows through a burst of bets and restarts
        now and then, or in the pause after it; the batch that finds it past
        :data:`WAL_BURST_PAGES` waits for a checkpoint that copies it all (the only wait on
        the disk a batch has), and restarts it."""
        pages = 0 if full else self._wal_pages()  # (full: copied, it restarts now)
        if (pages > WAL_AUTO_PAGES and (self._checkpoint is None or self._checkpoint.done())
                and (pages > WAL_BURST_PAGES or not self._checkpoint_pages <= pages
                     < self._checkpoint_pages + self.checkpoint_stride)):
            self._checkpoint_pages = pages  # (fewer pages: the log restarted since)
            self._checkpoint_now()
        if pages > WAL_BURST_PAGES:
            return _LOG_FULL
        if self._inline is None:
            self._inline = self.writer.connect()
        connection = self._inline
        driver = connection.connection.driver_connection
        assert driver is not None
        if driver is not self._inline_driver:  # new, or the pool opened it again
            # no busy wait on the loop, and no checkpoint (two fsyncs) in its commits
            bulk.execute(connection, "PRAGMA busy_timeout=0")
            bulk.execute(connection, "PRAGMA wal_autocheckpoint=0")
            self._inline_driver = driver
        try:
            driver.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as error:
            if error.sqlite_errorcode & 0xFF in (5, 6):  # SQLITE_BUSY, SQLITE_LOCKED
                return _NOT_RUN
            raise bulk.wrapped(connection, "BEGIN IMMEDIATE", error) from error
        return self._in_transaction(connection, work)

    def _checkpoint_now(self) -> Future[bool]:
        """Start :meth:`_checkpoint_beside` on a write thread (none runs)."""
        self._checkpoint_at = self._batches
        self._checkpoint = self.write_executor.submit(self._checkpoint_beside)
        return self._checkpoint

    def _checkpoint_beside(self) -> bool:
        """``PRAGMA wal_checkpoint(PASSIVE)`` on a write thread, while the loop's batches go
        on: the log's pages copied into the database; the next batch after it copied them all
        starts the log again from its beginning (and cuts the file to
        ``journal_size_limit``). True: it copied the whole log it found."""
        try:
            raw = self.writer.raw_connection()
            try:
                cursor = raw.cursor()
                busy, frames, copied = cursor.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
                cursor.close()
                return bool(busy == 0 and frames == copied)
            finally:
                raw.close()
        except Exception:  # a database gone or busy: the next batch tries again
            return False

    def _wal_pages(self) -> int:
        """The size of the log's file, in pages (SQLite's default 4 KiB)."""
        try:
            return 0 if self._wal is None else os.stat(self._wal).st_size // 4096
        except OSError:
            return 0

    def _batch_call(self, work: Callable[[Connection], T]) -> T:
        with self.writer.connect() as connection:
            bulk.execute(connection, "BEGIN IMMEDIATE")
            return self._in_transaction(connection, work)

    @staticmethod
    def _in_transaction(connection: Connection, work: Callable[[Connection], T]) -> T:
        """``work(connection)`` and ``COMMIT``; ``ROLLBACK`` if anything failed."""
        try:
            result = work(connection)
            bulk.execute(connection, "COMMIT")
        except BaseException:
            driver = connection.connection.driver_connection
            with contextlib.suppress(Exception):  # a database gone: the error says so
                if driver is not None and driver.in_transaction:
                    driver.rollback()
            raise
        return result

    async def run_write_core(self, work: Callable[[Connection], T], *,
                             essential: bool = False) -> T:
        """:meth:`run_write` on a Core connection instead of an ORM session: for work that
        sends fixed driver SQL only (the desk's PostgreSQL batch, ``db/bulk.py``), where the
        session's own begin, commit and bookkeeping cost the write thread about 90 µs of its
        CPU a transaction (issue 21). The same transaction, health reports and outage
        handling. On PostgreSQL the connection comes from :attr:`batch_writer`, already in its
        transaction (no ping: its ``BEGIN`` is one), and libpq's own ``COMMIT`` ends it (issue
        21, seventh pass: ~200 µs of CPU less a batch)."""
        if not essential:
            self.health.check_writes()
        started = self.health.started()
        try:
            call = functools.partial(self._write_core_call, work)
            result = await (self._batch_threads.run(call) if self.batch_writer is not None
                            else asyncio.get_running_loop().run_in_executor(
                                self.write_executor, call))
        except Exception as error:
            self.health.failed(error, started)
            raise
        self.health.succeeded(started, write=True)  # it had its connection: it was reached
        return result

    def _write_core_call(self, work: Callable[[Connection], T]) -> T:
        if self.batch_writer is None:
            with self.writer.begin() as connection:
                return work(connection)
        # PostgreSQL: the connection comes in a transaction (batch_engine), committed here with
        # libpq's own COMMIT; SQLAlchemy's transaction (its begin, commit and events) and
        # psycopg's ~90 µs of CPU less a batch (issue 21, seventh pass)
        with self.batch_writer.connect() as connection:
            driver = connection.connection.driver_connection
            try:
                result = work(connection)
            except BaseException:
                with contextlib.suppress(Exception):  # a database gone: the error says so
                    driver.rollback()  # type: ignore[union-attr]
                raise
            try:
                bulk.pg_command(driver, b"COMMIT")
            except psycopg.Error as error:
                raise bulk.pg_error(connection, "COMMIT", (), error) from error
            return result

    async def run_read(self, work: Callable[[Session], T]) -> T:
        started = self.health.started()
        try:
            result, reached = await self._run(functools.partial(self._read_call, work))
        except Exception as error:
            self.health.failed(error, started)
            raise
        if reached:
            self.health.succeeded(started)
        return result

    def _write_call(self, work: Callable[[Session], T]) -> tuple[T, bool]:
        with self.write() as session:
            return work(session), bool(session.info.get(REACHED))

    def _read_call(self, work: Callable[[Session], T]) -> tuple[T, bool]:
        with self.read() as session:
            return work(session), bool(session.info.get(REACHED))

    async def _run(self, call: Callable[[], T]) -> T:
        return await asyncio.get_running_loop().run_in_executor(self.executor, call)

    # --- the watch (issue 22) ------------------------------------------------------------------

    def checkpoint(self) -> tuple[int, int, int]:
        """``PRAGMA wal_checkpoint(TRUNCATE)`` on SQLite: the log copied into the database and
        cut to nothing, waiting at most 2 s for readers; SQLite's (busy, log pages,
        checkpointed pages)."""
        raw = self.writer.raw_connection()
        try:
            cursor = raw.cursor()
            cursor.execute("PRAGMA busy_timeout=2000")
            try:
                cursor.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                busy, pages, done = cursor.fetchone() or (1, -1, -1)
            finally:
                cursor.execute("PRAGMA busy_timeout=30000")
                cursor.close()
            return int(busy), int(pages), int(done)
        finally:
            raw.close()

    def _probe(self, session: Session) -> None:
        session.execute(text("SELECT 1"))

    async def watch(self) -> None:
        """Run while the server runs: probe the database while it is away (every
        ``PROBE_SECONDS``), and on SQLite look at the disk every ``DISK_SECONDS`` —
        checkpoint and truncate the log when it grew past ``WAL_BURST_PAGES`` or after a full
        disk, and refuse new bets while the free space is below the reserve."""
        health = self.health
        loop = asyncio.get_running_loop()
        while True:
            if health.path is not None:
                health.look_at_disk()
                if health.code == STORAGE_FULL or (health.wal_bytes or 0) > WAL_BURST_PAGES * 4096:
                    started = health.started()
                    try:
                        await loop.run_in_executor(self.write_executor, self.checkpoint)
                        health.checkpoints += 1
                    except Exception as error:  # a full disk or a database away: said there
                        health.failed(error, started)
                    health.look_at_disk()
                health.disk_state()
            quiet = health.last_ok is None or time.monotonic() - health.last_ok > QUIET_SECONDS
            if health.code == UNAVAILABLE or quiet:  # away, or nothing asked it lately
                with contextlib.suppress(Exception):  # run_read reports how it went
                    await self.run_read(self._probe)
            await asyncio.sleep(PROBE_SECONDS if health.code is not None else DISK_SECONDS)

    def close(self) -> None:
        self.executor.shutdown(wait=True)
        self.write_executor.shutdown(wait=True)
        self._batch_threads.stop()
        if self._inline is not None:
            self._inline.close()
            self._inline = None
        self.writer.dispose()
        self.reader.dispose()
        if self.batch_writer is not None:
            self.batch_writer.dispose()


class Lanes:
    """Threads that run calls for the event loop: :meth:`run` hands a call over through a
    ``SimpleQueue`` and the thread answers the loop's future with ``call_soon_threadsafe``.
    ``loop.run_in_executor`` on a ``ThreadPoolExecutor`` made a ``concurrent.futures.Future``
    (a ``Condition``) and chained it to the loop's (callbacks both ways): ~84 µs of CPU a call
    against ~50 here (issue 21, seventh pass: the desk's PostgreSQL batches). The calls' order
    and results are the executor's; a call's exception is raised by :meth:`run`."""

    def __init__(self, count: int, name: str) -> None:
        self.count, self.name = count, name
        self._calls: queue.SimpleQueue[
            tuple[asyncio.AbstractEventLoop, asyncio.Future[Any], Callable[[], Any]] | None
        ] = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()

    def run(self, call: Callable[[], T]) -> asyncio.Future[T]:
        """``call()`` on one of the threads; the loop's future of its result."""
        if not self._threads:
            self._start()
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        self._calls.put((loop, future, call))
        return future

    def _start(self) -> None:
        with self._lock:
            if self._threads:
                return
            for number in range(self.count):
                thread = threading.Thread(target=self._serve, name=f"{self.name}_{number}",
                                          daemon=True)
                thread.start()
                self._threads.append(thread)

    def _serve(self) -> None:
        while (taken := self._calls.get()) is not None:
            loop, future, call = taken
            try:
                result = call()
            except BaseException as error:  # the caller's to raise
                _answer_soon(loop, future, None, error)
            else:
                _answer_soon(loop, future, result, None)

    def stop(self) -> None:
        """End the threads once the calls handed over are done."""
        with self._lock:
            threads, self._threads = self._threads, []
        for _ in threads:
            self._calls.put(None)
        for thread in threads:
            thread.join()


def _answer_soon(loop: asyncio.AbstractEventLoop, future: asyncio.Future[Any], result: Any,
                 error: BaseException | None) -> None:
    with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: nobody waits
        loop.call_soon_threadsafe(_answer, future, result, error)


def _answer(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    if future.done():  # cancelled meanwhile
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)


K = TypeVar("K")
V = TypeVar("V")


class Gathered(Generic[K, V]):
    """Reads of one kind gathered into one query: the keys asked for while a query runs are
    looked up together by the next one (``fetch(keys)`` → the found keys' values), so a busy
    moment costs a query (and a thread hop) per batch instead of one per request. Each key is
    still read from the database after it was asked for. A failed query fails every request of
    its batch.
    """

    def __init__(self, fetch: Callable[[list[K]], Awaitable[dict[K, V]]], *,
                 most: int = 500) -> None:
        self.fetch = fetch
        self.most = most
        self._waiting: dict[K, list[asyncio.Future[V | None]]] = {}
        self._task: asyncio.Task[None] | None = None
        #: figures: queries made, keys looked up
        self.queries = self.keys = 0

    async def get(self, key: K) -> V | None:
        future: asyncio.Future[V | None] = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(key, []).append(future)
        if self._task is None:
            self._task = asyncio.create_task(self._run())
        return await future

    async def _run(self) -> None:
        try:
            while self._waiting:
                keys = list(self._waiting)[:self.most]
                batch = {key: self._waiting.pop(key) for key in keys}
                try:
                    found = await self.fetch(keys)
                except Exception as error:  # every request of the batch hears of it
                    for futures in batch.values():
                        for future in futures:
                            if not future.done():
                                future.set_exception(error)
                                future.exception()  # no "never retrieved" if it went away
                    continue
                self.queries += 1
                self.keys += len(keys)
                for key, futures in batch.items():
                    value = found.get(key)
                    for future in futures:
                        if not future.done():
                            future.set_result(value)
        finally:
            self._task = None
