"""Issue 21, third pass: the desk's SQLite batch (``Database.run_batch``) runs on the event loop's
own thread when SQLite's write lock is free at once, and on a write thread — waiting for the
lock — when another writer holds it; either way one transaction, wholly written or not at all.
The loop's commits never checkpoint (no fsync on the loop): once the log passed
``WAL_AUTO_PAGES`` pages PASSIVE checkpoints run on a write thread beside the batches, and the
batch that finds it past ``WAL_BURST_PAGES`` waits for one that copies it all, then restarts
it, still on the loop (issue 21, fourth pass: it went to a write thread, and 30 % of a burst's
batches paid the GIL's hand-overs there).
The batch's session check judges the lifetimes in SQLite's query as the Python loop did."""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import Iterator
from datetime import timedelta

import pytest
from sqlalchemy import Connection, text, update

from puntobanco.server.db import auth, bulk, engine
from puntobanco.server.db.engine import Database
from puntobanco.server.db.models import LoginSession, utcnow
from puntobanco.server.settings import GuardSettings

from .support import migrated_database, run_coroutine


@pytest.fixture
def db(sqlite_url: str) -> Iterator[Database]:
    yield from migrated_database(sqlite_url)


def _where(connection: Connection) -> str:
    bulk.execute(connection, "SELECT count(*) FROM coups")  # in BEGIN IMMEDIATE
    return threading.current_thread().name


async def _on_the_loop(db: Database) -> tuple[str, str]:
    """Where a batch ran, and the event loop's own thread."""
    return await db.run_batch(_where), threading.current_thread().name


def test_a_batch_runs_on_the_loop_when_the_write_lock_is_free(db: Database) -> None:
    where, loop = run_coroutine(_on_the_loop(db))
    assert where == loop


def test_a_batch_waits_on_a_write_thread_while_another_writer_holds_the_lock(
        db: Database) -> None:
    holding, release = threading.Event(), threading.Event()

    def writer() -> None:
        with db.write() as session:
            session.execute(text("CREATE TABLE held (x INTEGER)"))  # BEGIN IMMEDIATE held
            holding.set()
            release.wait(5)

    other = threading.Thread(target=writer)
    other.start()
    assert holding.wait(5)

    async def run() -> tuple[str, float]:
        loop = asyncio.get_running_loop()
        loop.call_later(0.3, release.set)
        began = time.monotonic()
        where = await db.run_batch(_where)
        return where, time.monotonic() - began

    where, waited = run_coroutine(run())
    other.join()
    assert where.startswith("db-write") and waited >= 0.25


def test_the_loops_batches_keep_the_log_bounded(db: Database,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Many loop batches writing pages, every one on the loop's thread: the checkpoints beside
    them keep the log's file within ``WAL_BURST_PAGES`` (here 800 pages, so that the 6,000
    pages written pass it) and a batch (without them it grew to 28 MB: the loop's connection
    never checkpoints)."""
    monkeypatch.setattr(engine, "WAL_BURST_PAGES", 800)
    with db.write() as session:
        session.execute(text("CREATE TABLE filler (id INTEGER PRIMARY KEY, pad TEXT)"))

    def fill(connection: Connection) -> str:
        bulk.execute(connection, "INSERT INTO filler (pad) VALUES (?)",
                     [("x" * 3000,) for _ in range(20)])
        return threading.current_thread().name

    async def run() -> set[str]:
        where = {await db.run_batch(fill) for _ in range(300)}  # ~6,000 pages, 24 MB of log
        return where - {threading.current_thread().name}

    assert run_coroutine(run()) == set()
    assert db.health.path is not None
    wal = os.stat(f"{db.health.path}-wal").st_size
    frame = 4096 + 24  # a page and its frame header
    assert wal <= (800 + 64) * frame, wal  # the bound and a batch


def test_the_loops_batches_checkpoint_once_per_stride_of_the_log(
        db: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 21, fifth pass: a checkpoint beside the batches starts once the log grew
    ``WAL_STRIDE_PAGES`` since the last one started, not as soon as the last one ended (which
    copied the same hot pages again every batch or two): 6,000 pages of log, a stride of
    2,000, so about three checkpoints, where one after another made dozens."""
    with db.write() as session:
        session.execute(text("CREATE TABLE filler (id INTEGER PRIMARY KEY, pad TEXT)"))
    started = []
    beside = db._checkpoint_beside

    def counted() -> bool:
        started.append(1)
        return beside()

    monkeypatch.setattr(db, "_checkpoint_beside", counted)

    def fill(connection: Connection) -> None:
        bulk.execute(connection, "INSERT INTO filler (pad) VALUES (?)",
                     [("x" * 3000,) for _ in range(20)])

    async def run() -> None:
        for _ in range(300):  # ~6,000 pages; a pause now and then lets a checkpoint end
            await db.run_batch(fill)
            await asyncio.sleep(0.001)

    run_coroutine(run())
    assert db.checkpoint_stride == engine.WAL_STRIDE_PAGES == 2_000
    assert 1 <= len(started) <= 4, len(started)


def test_sqlites_session_lifetimes_in_the_query_are_the_loops(db: Database) -> None:
    """``auth.lookup_tokens`` on SQLite judges the lifetimes in its query (timestamps compared
    as SQLAlchemy's fixed-width text); at every moment around each boundary it finds the same
    live sessions, the same renewals due, as the Python loop over the rows (PostgreSQL's way)."""
    limits = GuardSettings(session_idle_seconds=3600, session_max_seconds=86400,
                           session_renew_seconds=60)
    start = utcnow()
    with db.write() as session:
        ann = auth.create_player(session, username="ann", password_hash="x", lang="en").id
        tokens = [auth.open_session(session, ann) for _ in range(4)]
        session.execute(update(LoginSession).where(
            LoginSession.token_hash == auth.token_hash(tokens[1])).values(last_seen_at=None))
        for token, seen in ((tokens[2], timedelta(minutes=50)), (tokens[3], timedelta(hours=23))):
            auth.renew_session(session, token, now=start + seen)
    moments = [timedelta(0), timedelta(seconds=59), timedelta(seconds=61),
               timedelta(minutes=59, seconds=59), timedelta(hours=1, seconds=1),
               timedelta(minutes=109), timedelta(minutes=111), timedelta(hours=23, minutes=30),
               timedelta(hours=23, minutes=59, seconds=59), timedelta(hours=24, seconds=1)]
    for after in moments:
        with db.read() as session:
            connection = session.connection()
            rows = [(hashed, player, name, role, lang, created.replace(" ", "T"),
                     seen and seen.replace(" ", "T")) for hashed, player, name, role, lang,
                    created, seen in bulk.execute(connection, auth._LOOKUP.sqlite, (
                        bulk.json_list(auth.token_hash(t) for t in tokens),))]
            in_query = auth.lookup_tokens(session, tokens, limits=limits, now=start + after)
            in_loop = auth.lookup_tokens(session, tokens, limits=limits, now=start + after,
                                         rows=rows)
        assert in_query == in_loop, after
    assert len(moments) > 0 and in_query == {}  # the last moment: every lifetime over


def test_the_loops_connection_never_waits_for_the_lock_even_when_opened_again(
        db: Database) -> None:
    """The loop's connection is set up again when the pool gave it a new driver connection
    (after an outage): it must never wait the writers' 30 s for the lock on the loop."""
    run_coroutine(_on_the_loop(db))
    assert db._inline is not None
    db._inline.invalidate()  # the pool opens a fresh driver connection, with the defaults
    where, loop = run_coroutine(_on_the_loop(db))
    assert where == loop
    assert db._inline.connection.driver_connection is not None
    timeout = db._inline.connection.driver_connection.execute("PRAGMA busy_timeout").fetchone()
    assert timeout == (0,)
