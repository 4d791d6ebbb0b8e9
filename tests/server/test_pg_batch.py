"""Issue 21, seventh pass: the desk's PostgreSQL batch (``Database.run_batch``) on a connection
lent in a transaction (``engine.batch_engine``): the checkout's ``BEGIN`` is the pool's ping,
``COMMIT`` is libpq's own. A batch is its ``BEGIN``, two statements (the coup, sessions and
wallets read and locked in one, coup first; the writes) and its ``COMMIT`` — no ping — still
comes through a database that closed every connection (a restart), and writes nothing when
anything in it failed, even a failure its work swallowed."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import tempfile
import threading
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from sqlalchemy import Connection, event, select, text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.pool import Pool

from puntobanco.bets import BetKind
from puntobanco.errors import BetRefused
from puntobanco.rules import RuleSet
from puntobanco.server.db import auth, bulk, engine, ledger, store
from puntobanco.server.db.engine import Database
from puntobanco.server.db.models import BetRecord
from puntobanco.server.live.desk import BetDesk, SessionEnded
from puntobanco.server.live.hub import Hub

from .conftest import PostgresCluster
from .support import first_coup, migrated_database, run_coroutine


@pytest.fixture
def pg_db(pg_cluster: PostgresCluster) -> Iterator[Database]:
    yield from migrated_database(pg_cluster.new_database())


def _setup(db: Database) -> tuple[list[tuple[int, str]], int, int]:
    """Two players with 100.00 each and a session each, a table and its open coup."""
    with db.write() as session:
        people = []
        for name in ("ann", "bob"):
            player = auth.create_player(session, username=name, password_hash="-", lang="en",
                                        welcome=10_000).id
            people.append((player, auth.open_session(session, player)))
        table = store.create_table(session, name="pg", rules=RuleSet(), betting_seconds=15)
        coup = first_coup(session, table)
    return people, table.id, coup


async def _bets(db: Database, table: int, coup: int,
                bets: list[tuple[int, str | None, BetKind, str]]) -> list[Any]:
    """The desk's answers to ``bets`` (player, token, kind, key) of 10.00, written in one batch,
    as the socket's short way submits them (a token None: as HTTP does, its session looked up
    before)."""
    desk = BetDesk(table_id=table, db=db, hub=Hub(), linger=0.05)
    desk.open(coup_id=coup, round_no=1, rules=RuleSet())
    desk.start()
    try:
        futures = [desk.submit(store.BetOp(player, kind, 1_000, key), token=token)
                   for player, token, kind, key in bets]
        return list(await asyncio.gather(*futures, return_exceptions=True))
    finally:
        await desk.stop()


class _Trace:
    """Every message psycopg's connections exchange with PostgreSQL from their opening (libpq's
    trace of the protocol, a file per connection), so that a pool's ping is seen too:
    :meth:`round_trips` lists, per connection, the statements sent before each
    ``ReadyForQuery``."""

    def __init__(self) -> None:
        self.traced: list[tuple[Any, Any]] = []

    def connect(self, dbapi_connection: Any, _record: Any) -> None:
        file = tempfile.TemporaryFile("w+")  # noqa: SIM115 (closed by round_trips)
        self.traced.append((dbapi_connection, file))
        dbapi_connection.pgconn.trace(os.dup(file.fileno()))
        dbapi_connection.pgconn.set_trace_flags(
            psycopg.pq.Trace.SUPPRESS_TIMESTAMPS | psycopg.pq.Trace.REGRESS_MODE)

    def round_trips(self) -> list[list[str]]:
        """Each connection's round trips (its trace stopped: libpq flushes it)."""
        found = []
        for dbapi_connection, file in self.traced:
            with contextlib.suppress(Exception):
                dbapi_connection.pgconn.untrace()
            file.seek(0)
            sent: list[str] = []
            statements: list[str] = []
            for line in file:
                parts = line.rstrip("\n").split("\t")
                if len(parts) < 4:  # the rest of a statement written on several lines
                    continue
                side, _, message, rest = parts[:4]
                quoted = re.findall(r'"((?:[^"]|"")*)"', rest)
                if side == "F" and message in ("Query", "Parse") and quoted:
                    statements.append(quoted[-1 if message == "Parse" else 0][:30])
                elif side == "F" and message == "Bind" and len(quoted) > 1 and quoted[1]:
                    statements.append(f"prepared {quoted[1]}")
                elif side == "B" and message == "ReadyForQuery":
                    sent.append("; ".join(statements))
                    statements = []
            found.append(sent)
            file.close()
        return found


@pytest.fixture
def trace() -> Iterator[_Trace]:
    """:class:`_Trace` of every connection opened meanwhile, of any pool."""
    traced = _Trace()
    event.listen(Pool, "connect", traced.connect)
    try:
        yield traced
    finally:
        event.remove(Pool, "connect", traced.connect)


def test_a_postgresql_batch_is_begin_two_statements_commit(
        trace: _Trace, pg_db: Database) -> None:
    """A pooled connection was pinged (``SELECT 1``, a round trip and ~45 µs of CPU) before
    each batch; now the batch's ``BEGIN`` sent at the checkout is the ping. The coup's read
    with the sessions and the wallets' lock are one query (``store.read_coup(lock=True)``),
    the writes another: four round trips where there were six."""
    db = pg_db
    [(ann, ann_token), (bob, bob_token)], table, coup = _setup(db)
    first = run_coroutine(_bets(db, table, coup, [(ann, ann_token, BetKind.PUNTO, "k1")]))
    second = run_coroutine(_bets(db, table, coup, [(bob, bob_token, BetKind.BANCO, "k2")]))
    third = run_coroutine(_bets(db, table, coup, [(bob, None, BetKind.BANCO, "k3")]))
    assert all(isinstance(answer, dict) for answer in first + second + third)
    # the connection that wrote the batches: its round trips after the first batch's COMMIT
    batches = max(trace.round_trips(), key=lambda sent: sum(
        each.startswith("WITH w0 AS (INSERT INTO bets") for each in sent))
    commits = [index for index, each in enumerate(batches) if each == "COMMIT"]
    sent, http = batches[commits[-3] + 1:commits[-2] + 1], batches[commits[-2] + 1:]
    assert len(sent) == 4, sent  # BEGIN, the coup with the sessions and wallets, the write, COMMIT
    assert sent[0] == "BEGIN" and sent[-1] == "COMMIT", sent
    assert len(http) == 4, http  # a batch without tokens (HTTP's) too
    with db.read() as session:
        assert ledger.audit(session).ok


def _balance(db: Database, player: int) -> int:
    with db.read() as session:
        return int(session.execute(text("SELECT balance FROM accounts WHERE player_id = :p"),
                                   {"p": player}).scalar_one())


def test_a_batch_after_postgresql_closed_every_connection_is_written(pg_db: Database) -> None:
    """The pool lends no connection it has not found alive: a ``BEGIN`` that finds the
    connection closed by the database (a restart; here its backends ended) opens a new one
    and drops the older ones, as the ping did — no bet is refused for it."""
    db = pg_db
    assert db.batch_writer is not None
    [(ann, ann_token), (bob, bob_token)], table, coup = _setup(db)
    lent = [db.batch_writer.connect(), db.batch_writer.connect()]  # two in the pool
    for connection in lent:
        connection.close()
    with db.read() as session:
        ended = session.execute(text(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()")).scalar_one()
    assert ended >= 2
    first = run_coroutine(_bets(db, table, coup, [(ann, ann_token, BetKind.PUNTO, "k1")]))
    second = run_coroutine(_bets(db, table, coup, [(bob, bob_token, BetKind.BANCO, "k2")]))
    assert all(isinstance(answer, dict) for answer in first + second), (first, second)
    assert _balance(db, ann) == _balance(db, bob) == 9_000
    with db.read() as session:
        assert ledger.audit(session).ok


def test_a_batch_that_failed_writes_nothing_even_if_its_work_swallowed_the_error(
        pg_db: Database) -> None:
    """A statement that failed aborts the transaction; PostgreSQL answers its ``COMMIT``
    ``ROLLBACK``. The batch then raises (psycopg's ``commit()`` returned as if it had
    committed); a batch that raised is rolled back, and its connection serves the next."""
    db = pg_db
    [(ann, _), _], _, _ = _setup(db)
    credit = "UPDATE accounts SET balance = balance + 1 WHERE player_id = %s"

    def swallowed(connection: Connection) -> str:
        bulk.pg_execute(connection, credit, (ann,))
        with contextlib.suppress(DBAPIError):
            bulk.pg_execute(connection, "SELECT 1 / 0")
        return "written?"

    def raised(connection: Connection) -> None:
        bulk.pg_execute(connection, credit, (ann,))
        raise ValueError("a bug")

    def counted(connection: Connection) -> int:
        return int(bulk.pg_execute(connection, "SELECT count(*) FROM bets")[0][0])

    with pytest.raises(DBAPIError, match="ROLLBACK"):
        run_coroutine(db.run_batch(swallowed))
    with pytest.raises(ValueError, match="a bug"):
        run_coroutine(db.run_batch(raised))
    assert run_coroutine(db.run_batch(counted)) == 0
    assert _balance(db, ann) == 10_000
    with db.read() as session:
        assert session.scalars(select(BetRecord.id)).all() == []
        assert ledger.audit(session).ok


def test_a_postgresql_batch_runs_on_a_batch_thread_and_its_error_reaches_the_loop(
        pg_db: Database) -> None:
    """The batches' own threads (``engine.Lanes``: a queue in, ``call_soon_threadsafe`` out,
    lighter on the loop than ``run_in_executor``): the result and any exception come back to
    the awaiting coroutine, calls run one a thread at a time, and closing the database ends
    the threads."""
    db = pg_db

    def where(connection: Connection) -> str:
        bulk.pg_execute(connection, "SELECT 1")
        return threading.current_thread().name

    def failing(_connection: Connection) -> None:
        raise LookupError("no such wallet")

    async def calls() -> list[Any]:
        return list(await asyncio.gather(*(db.run_batch(where) for _ in range(8)),
                                         db.run_batch(failing), return_exceptions=True))

    *names, error = run_coroutine(calls())
    assert all(name.startswith("db-batch_") for name in names), names
    assert 1 <= len(set(names)) <= engine.BATCH_CONNECTIONS
    assert isinstance(error, LookupError) and str(error) == "no such wallet"
    lanes = [thread for thread in threading.enumerate() if thread.name.startswith("db-batch_")]
    assert len(lanes) == engine.BATCH_CONNECTIONS
    db.close()
    assert not any(thread.is_alive() for thread in lanes)


def _psycopg(db: Database) -> psycopg.Connection[Any]:
    return psycopg.connect(db.url.replace("postgresql+psycopg://", "postgresql://"))


def test_a_batch_locks_no_wallet_before_the_coups_row(pg_db: Database) -> None:
    """The one query locks the coup's row ``FOR SHARE`` before any wallet, as the two queries
    did: while the close holds the coup, the batch waits holding no wallet (a void, which
    updates the coup and then credits wallets, never waits for it: no deadlock), then finds
    the coup closed, refuses the bet and writes nothing."""
    db = pg_db
    [(ann, ann_token), _], table, coup = _setup(db)
    with _psycopg(db) as closer, _psycopg(db) as other:
        closer.execute("SELECT id FROM coups WHERE id = %s FOR UPDATE", (coup,))

        async def scenario() -> list[Any]:
            batch = asyncio.ensure_future(
                _bets(db, table, coup, [(ann, ann_token, BetKind.PUNTO, "k1")]))
            await asyncio.sleep(0.5)
            assert not batch.done()  # waiting for the coup's row
            wallet = other.execute("SELECT id FROM accounts WHERE player_id = %s "
                                   "FOR UPDATE NOWAIT", (ann,)).fetchall()
            other.rollback()  # taken at once: the waiting batch holds no wallet
            assert len(wallet) == 1
            closer.execute("UPDATE coups SET status = 'closed' WHERE id = %s", (coup,))
            closer.commit()
            return await batch

        answers = run_coroutine(scenario())
    assert isinstance(answers[0], BetRefused) and answers[0].code == "table-closed", answers
    assert _balance(db, ann) == 10_000


def test_a_bet_of_an_ended_session_is_refused_beside_a_live_one(pg_db: Database) -> None:
    """The query locks every operation's player's wallet before the session check (in the
    same round trip): a bet whose session ended is still refused ``unauthorized``, its wallet
    untouched, and the other bet of the batch is written."""
    db = pg_db
    [(ann, ann_token), (bob, bob_token)], table, coup = _setup(db)
    with db.write() as session:
        auth.close_session(session, ann_token)
    answers = run_coroutine(_bets(db, table, coup, [(ann, ann_token, BetKind.PUNTO, "k1"),
                                                    (bob, bob_token, BetKind.BANCO, "k2")]))
    assert isinstance(answers[0], SessionEnded), answers
    assert isinstance(answers[1], dict) and answers[1]["balance"] == 9_000, answers
    assert _balance(db, ann) == 10_000 and _balance(db, bob) == 9_000
    with db.read() as session:
        assert ledger.audit(session).ok
