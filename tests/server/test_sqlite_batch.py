"""Issue 21, third pass: the desk's SQLite batch (``Database.run_batch``) runs on the event loop's
own thread when SQLite's write lock is free at once, and on a write thread — waiting for the
lock — when another writer holds it; either way one transaction, wholly written or not at all.
The loop's commits never checkpoint (no fsync on the loop): the write threads checkpoint the
log once it passed ``WAL_AUTO_PAGES`` pages, so it stays bounded."""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import Iterator

import pytest
from sqlalchemy import Connection, text

from puntobanco.server.db import bulk
from puntobanco.server.db.engine import Database, migrate
from puntobanco.server.db.health import WAL_AUTO_PAGES


@pytest.fixture
def db(sqlite_url: str) -> Iterator[Database]:
    migrate(sqlite_url)
    database = Database(sqlite_url, threads=1)
    try:
        yield database
    finally:
        database.close()


def _where(connection: Connection) -> str:
    bulk.execute(connection, "SELECT count(*) FROM coups")  # in BEGIN IMMEDIATE
    return threading.current_thread().name


def test_a_batch_runs_on_the_loop_when_the_write_lock_is_free(db: Database) -> None:
    async def run() -> str:
        return await db.run_batch(_where)

    assert asyncio.run(run()) == threading.current_thread().name


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

    where, waited = asyncio.run(run())
    other.join()
    assert where.startswith("db-write") and waited >= 0.25


def test_the_loops_batches_keep_the_log_bounded(db: Database) -> None:
    """Many loop batches writing pages: the write threads' checkpoints keep the log's file
    within the auto-checkpoint's bound and a transaction (without them it grew to 28 MB: the
    loop's connection never checkpoints)."""
    with db.write() as session:
        session.execute(text("CREATE TABLE filler (id INTEGER PRIMARY KEY, pad TEXT)"))

    def fill(connection: Connection) -> None:
        bulk.execute(connection, "INSERT INTO filler (pad) VALUES (?)",
                     [("x" * 3000,) for _ in range(20)])

    async def run() -> None:
        for _ in range(300):  # ~6,000 pages, 24 MB of log without a checkpoint
            await db.run_batch(fill)
            await asyncio.sleep(0)  # let a checkpoint's thread finish

    asyncio.run(run())
    assert db.health.path is not None
    wal = os.stat(f"{db.health.path}-wal").st_size
    assert wal <= (WAL_AUTO_PAGES + 64) * 4096, wal  # the bound and a transaction
