"""The bet batch's rows, written as driver SQL (``db/bulk.py``), are the rows the ORM writes
(issue 8: the desk's write made cheaper with no change in the stored data), on SQLite and
PostgreSQL: the same JSON text, the same timestamp storage, read back equal through the ORM;
the ids given back are the rows' own; refusals, replays and conflicts answered as before.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
import pytest
from sqlalchemy import Connection, event, select, text

from puntobanco.bets import BetKind
from puntobanco.errors import BetRefused
from puntobanco.rules import RuleSet
from puntobanco.server.db import auth, bulk, ledger, store
from puntobanco.server.db.engine import Database
from puntobanco.server.db.models import (
    BetRecord,
    BetRequest,
    LedgerEntry,
    LedgerTransaction,
    LoginSession,
    Player,
)
from puntobanco.server.settings import GuardSettings

from .conftest import PostgresCluster
from .support import first_coup, migrated_database


@pytest.fixture
def db(db_url: str) -> Iterator[Database]:
    yield from migrated_database(db_url)


@pytest.fixture
def pg_db(pg_cluster: PostgresCluster) -> Iterator[Database]:
    """A migrated PostgreSQL database alone, for what only PostgreSQL does."""
    yield from migrated_database(pg_cluster.new_database())


@contextmanager
def _round_trips(db: Database) -> Iterator[list[str]]:
    """What ``db``'s writer sends PostgreSQL inside the block, one item per round trip (the
    statements sent before the server said it was ready for the next, as libpq's trace of the
    protocol shows them), from each connection's checkout to its checkin: the transaction's
    ``BEGIN`` and ``COMMIT`` included, the pool's pre-ping (made before the checkout) not.
    Whatever way a statement is sent — SQLAlchemy or the driver's own — it is counted."""
    sent: list[str] = []
    with tempfile.TemporaryFile("w+") as trace:
        def checkout(dbapi_connection: Any, *_: object) -> None:
            dbapi_connection.pgconn.trace(trace.fileno())
            dbapi_connection.pgconn.set_trace_flags(
                psycopg.pq.Trace.SUPPRESS_TIMESTAMPS | psycopg.pq.Trace.REGRESS_MODE)

        def checkin(dbapi_connection: Any, *_: object) -> None:
            dbapi_connection.pgconn.untrace()

        event.listen(db.writer.pool, "checkout", checkout)
        event.listen(db.writer.pool, "checkin", checkin)
        try:
            yield sent
        finally:
            event.remove(db.writer.pool, "checkout", checkout)
            event.remove(db.writer.pool, "checkin", checkin)
        trace.seek(0)
        statements: list[str] = []
        for line in trace:
            side, _, message, *rest = line.rstrip("\n").split("\t")
            quoted = re.findall(r'"((?:[^"]|"")*)"', rest[0]) if rest else []
            if side == "F" and message in ("Query", "Parse"):  # Parse: "name" "text" …
                statements.append(quoted[message == "Parse"])
            elif side == "F" and message == "Bind" and quoted[1]:  # a prepared statement
                statements.append(f"prepared {quoted[1]}")
            elif side == "B" and message == "ReadyForQuery":
                sent.append("; ".join(statements))
                statements = []


@contextmanager
def db_connection(db: Database) -> Iterator[Connection]:
    """A Core connection of ``db``'s writer in a transaction (rolled back)."""
    with db.writer.connect() as connection:
        yield connection
        connection.rollback()


def _setup(db: Database) -> tuple[int, int, int, int]:
    """Two players with 100.00 each, a table, an open coup: (player, player, table, coup)."""
    with db.write() as session:
        one = auth.create_player(session, username="ann", password_hash="-", lang="en",
                                 welcome=10_000).id
        two = auth.create_player(session, username="bob", password_hash="-", lang="en",
                                 welcome=10_000).id
        table = store.create_table(session, name="rows", rules=RuleSet(), betting_seconds=15)
        coup = first_coup(session, table)
    return one, two, table.id, coup


def _apply(db: Database, table: int, coup: int, ops: list[store.BetOp]) -> list[store.BetResult]:
    with db.write() as session:
        return store.apply_bets(session, table_id=table, coup_id=coup, round_no=1,
                                rules=RuleSet(), ops=ops)


def _mask(stored: str) -> str:
    return re.sub(r"\d", "9", stored)


def test_batch_rows_read_back_as_the_orm_writes_them(db: Database) -> None:
    ann, bob, table, coup = _setup(db)
    began = datetime.now(UTC)
    first = _apply(db, table, coup, [
        store.BetOp(ann, BetKind.PUNTO, 2_000, "k1"),
        store.BetOp(bob, BetKind.BANCO, 5_000),
        store.BetOp(ann, BetKind.EGALITE, key="k2",
                    group=((BetKind.EGALITE, 1_000), (BetKind.LION_PUNTO, 1_000))),
        store.BetOp(bob, BetKind.BANCO, key="k3", withdraw=True),
        store.BetOp(bob, BetKind.PUNTO, 20_000),  # more than bob has left
    ])
    assert [type(result).__name__ for result in first] == ["dict"] * 4 + ["BetRefused"]
    assert isinstance(first[4], BetRefused) and first[4].code == "insufficient-balance"
    second = _apply(db, table, coup, [
        store.BetOp(ann, BetKind.PUNTO, 1_000, "k4"),  # the stored bet raised: an UPDATE
        store.BetOp(ann, BetKind.PUNTO, 2_000, "k1"),  # a replay
        store.BetOp(ann, BetKind.PUNTO, 3_000, "k1"),  # the same key, another bet
        store.BetOp(bob, BetKind.BANCO, 1_000, "k5"),  # withdrawn earlier, placed again
    ])
    assert isinstance(second[1], store.Replayed) and second[1] == first[0]
    assert type(second[2]).__name__ == "IdempotencyConflict"
    assert second[0]["total"] == 3_000 and second[0]["balance"] == 10_000 - 2_000 - 2_000 - 1_000
    with db.write() as session:  # one request written by the ORM, to compare the texts
        bet = session.scalars(select(BetRecord.id).where(
            BetRecord.coup_id == coup, BetRecord.player_id == ann,
            BetRecord.kind == BetKind.PUNTO.value)).one()
        session.add(BetRequest(player_id=ann, idempotency_key="orm", fingerprint="f",
                               coup_id=coup, bet_id=bet, response=dict(first[0])))

    with db.read() as session:
        bets = {(bet.player_id, bet.kind): bet for bet in session.scalars(select(BetRecord))}
        assert {key: (bet.stake, bet.status) for key, bet in bets.items()} == {
            (ann, "punto"): (3_000, "active"), (ann, "egalite"): (1_000, "active"),
            (ann, "lion-punto"): (1_000, "active"), (bob, "banco"): (1_000, "active")}
        requests = {request.idempotency_key: request
                    for request in session.scalars(select(BetRequest))}
        for key, answer, bet in (("k1", first[0], (ann, "punto")), ("k3", first[3], (bob, "banco")),
                                 ("k4", second[0], (ann, "punto")),
                                 ("k5", second[3], (bob, "banco"))):
            assert requests[key].response == answer  # JSON read back equal
            assert requests[key].bet_id == bets[bet].id  # the ids given back are the rows'
            assert requests[key].coup_id == coup
        assert requests["k2"].fingerprint == f"batch:{table}:egalite=1000,lion-punto=1000"
        moves = session.execute(select(LedgerTransaction.reason, LedgerTransaction.bet_id,
                                       LedgerTransaction.player_id, LedgerTransaction.created_at)
                                .where(LedgerTransaction.coup_id == coup)
                                .order_by(LedgerTransaction.id)).all()
        assert [(reason, bet) for reason, bet, _, _ in moves] == [
            ("stake", bets[(ann, "punto")].id), ("stake", bets[(ann, "egalite")].id),
            ("stake", bets[(ann, "lion-punto")].id), ("stake", bets[(bob, "banco")].id),
            ("withdrawal", bets[(bob, "banco")].id),  # the first batch, in player order
            ("stake", bets[(ann, "punto")].id), ("stake", bets[(bob, "banco")].id)]
        for transaction_id, in session.execute(select(LedgerTransaction.id).where(
                LedgerTransaction.coup_id == coup)):
            amounts = session.scalars(select(LedgerEntry.amount).where(
                LedgerEntry.transaction_id == transaction_id)).all()
            assert len(amounts) == 2 and sum(amounts) == 0
        assert ledger.audit(session).ok
        # timestamps: what the ORM gives back for its own rows, and the time of the batch
        orm_time = session.scalars(select(Player.created_at)).first()
        assert orm_time is not None
        for stamp in [requests["k1"].created_at, bets[(ann, "punto")].placed_at,
                      *(created for *_, created in moves)]:
            assert type(stamp) is type(orm_time) and stamp.tzinfo == orm_time.tzinfo
            aware = stamp if stamp.tzinfo else stamp.replace(tzinfo=UTC)
            assert began - timedelta(seconds=1) <= aware <= datetime.now(UTC)
        # stored text: the JSON exactly as the ORM writes it; on SQLite the DATETIME text too
        stored = dict(session.execute(text(
            "SELECT idempotency_key, CAST(response AS TEXT) FROM bet_requests")).all())
        assert stored["k1"] == stored["orm"]
        if session.bind is not None and session.bind.dialect.name == "sqlite":
            orm_text = session.execute(text("SELECT created_at FROM players")).scalars().first()
            for query in ("SELECT created_at FROM bet_requests WHERE idempotency_key = 'k1'",
                          "SELECT placed_at FROM bets", "SELECT created_at FROM "
                          "ledger_transactions WHERE coup_id IS NOT NULL"):
                for value in session.execute(text(query)).scalars():
                    assert _mask(value) == _mask(orm_text)


def test_a_closed_coup_refuses_the_batch_and_replays_stored_keys(db: Database) -> None:
    ann, bob, table, coup = _setup(db)
    placed = _apply(db, table, coup, [store.BetOp(ann, BetKind.PUNTO, 2_000, "k1")])
    with db.write() as session:
        store.close_coup(session, coup)
    later = _apply(db, table, coup, [store.BetOp(ann, BetKind.PUNTO, 2_000, "k1"),
                                     store.BetOp(bob, BetKind.BANCO, 2_000, "k2")])
    assert later[0] == placed[0] and isinstance(later[0], store.Replayed)
    assert isinstance(later[1], BetRefused) and later[1].code == "table-closed"
    with db.read() as session:
        assert session.scalars(select(BetRequest.idempotency_key)).all() == ["k1"]
        assert ledger.audit(session).ok


def test_a_postgresql_batch_reads_and_writes_in_three_statements(pg_db: Database) -> None:
    """Issue 21: each round trip costs the server's thread CPU (psycopg, the socket, the
    wake-up); a batch's statements are the coup with the stored keys, the wallets and spots
    with the new ids drawn, and the one write, whatever the batch holds (new bets, a group, a
    withdrawal, a key): with ``BEGIN`` and ``COMMIT``, five round trips."""
    db = pg_db
    ann, bob, table, coup = _setup(db)
    _apply(db, table, coup, [store.BetOp(bob, BetKind.BANCO, 5_000)])
    with _round_trips(db) as sent, db.write() as session:
        results = store.apply_bets(session, table_id=table, coup_id=coup, round_no=1,
                                   rules=RuleSet(), ops=[
            store.BetOp(ann, BetKind.PUNTO, 2_000, "k1"),
            store.BetOp(ann, BetKind.EGALITE, key="k2",
                        group=((BetKind.EGALITE, 1_000), (BetKind.LION_PUNTO, 1_000))),
            store.BetOp(bob, BetKind.BANCO, key="k3", withdraw=True)])
    assert all(isinstance(result, dict) for result in results)
    assert len(sent) == 5, sent
    assert sent[0] == "BEGIN" and sent[-1] == "COMMIT", sent
    with db.read() as session:
        assert ledger.audit(session).ok


def test_the_batch_read_with_its_session_check_gives_what_the_two_reads_gave(
        pg_db: Database) -> None:
    """Issue 21: on PostgreSQL the desk reads the coup, the stored keys and the batch's
    sessions in one query (:func:`store.read_coup`); the sessions found are those
    :func:`auth.lookup_tokens` finds (a suspended player's left out), a stored key is
    replayed, and with the bet the batch is three statements in all (five round trips)."""
    db = pg_db
    ann, bob, table, coup = _setup(db)
    with db.write() as session:
        tokens = [auth.open_session(session, ann), auth.open_session(session, bob)]
    placed = _apply(db, table, coup, [store.BetOp(ann, BetKind.PUNTO, 2_000, "k1")])
    with db.write() as session:
        session.execute(text("UPDATE players SET suspended = true WHERE id = :bob"),
                        {"bob": bob})
    limits = GuardSettings()
    ops = [store.BetOp(ann, BetKind.PUNTO, 2_000, "k1"), store.BetOp(ann, BetKind.BANCO, 1_000)]
    with _round_trips(db) as sent, db.write() as session:
        read = store.read_coup(session, table_id=table, coup_id=coup, ops=ops,
                               token_hashes={auth.token_hash(t) for t in tokens})
        found = auth.lookup_tokens(session, tokens, limits=limits, rows=read.sessions)
        results = store.apply_bets(session, table_id=table, coup_id=coup, round_no=1,
                                   rules=RuleSet(), ops=ops, read=read)
    with db.read() as session:
        assert found == auth.lookup_tokens(session, tokens, limits=limits)
    assert set(found) == {tokens[0]} and found[tokens[0]].player.id == ann
    assert isinstance(results[0], store.Replayed) and results[0] == placed[0]
    assert isinstance(results[1], dict) and results[1]["bet"] == "banco"
    assert len(sent) == 5, sent  # BEGIN, the read, the wallets, the write, COMMIT


def test_packed_arrays_reach_postgresql_as_the_values_they_pack(pg_db: Database) -> None:
    """Issue 21: the batch's columns are packed into binary arrays by ``bulk.packed`` (not
    psycopg's per-value dumper); PostgreSQL reads back exactly the values packed — NULLs,
    the empty array, text beyond ASCII, the edges of each integer type, timestamps to the
    microsecond — and a value a type cannot hold is left to psycopg, which refuses it."""
    moment = datetime(2026, 12, 1, 22, 50, 1, 123456, tzinfo=UTC)
    cases: list[tuple[str, list[Any]]] = [
        ("INTEGER", [1, -2, None, 2**31 - 1, -(2**31)]), ("INTEGER", []),
        ("BIGINT", [2**63 - 1, -(2**63), 0, None]), ("TEXT", ["ab", "é€😀", "", None]),
        ("TIMESTAMP WITH TIME ZONE", [moment, None, moment - timedelta(days=9000)])]
    with db_connection(pg_db) as connection:
        for kind, values in cases:
            sent = bulk.packed(values, kind)
            assert isinstance(sent, bulk.Packed), kind
            back = bulk.pg_execute(connection, f"SELECT CAST(%b AS {kind}[])", (sent,))[0][0]
            assert back == values, kind
        assert bulk.packed([2**31], "INTEGER") == [2**31]  # psycopg's own dumper takes it
        assert bulk.packed([datetime(2026, 1, 1)], "TIMESTAMP WITH TIME ZONE") == [
            datetime(2026, 1, 1)]  # naive: not packed


@pytest.fixture
def sqlite_db(sqlite_url: str) -> Iterator[Database]:
    yield from migrated_database(sqlite_url)


def test_an_sqlite_batch_on_the_bare_connection_writes_what_the_session_writes(
        sqlite_db: Database) -> None:
    """Issue 21, third pass: the desk's SQLite batch runs in ``Database.run_batch`` (``BEGIN
    IMMEDIATE`` … ``COMMIT`` on the driver's connection, no ORM session): the session check and
    its renewal, the bets and their replay give what the session's way gives, and the rows
    read back through the ORM."""
    db = sqlite_db
    ann, bob, table, coup = _setup(db)
    with db.write() as session:
        tokens = [auth.open_session(session, ann), auth.open_session(session, bob)]
    limits = GuardSettings()
    later = datetime.now(UTC) + timedelta(minutes=5)  # the renewal's moment, as the desk's
    ops = [store.BetOp(ann, BetKind.PUNTO, 2_000, "k1"), store.BetOp(bob, BetKind.BANCO, 1_000)]

    def batch(connection: object) -> tuple[dict[str, auth.TokenLookup], list[store.BetResult]]:
        from sqlalchemy import Connection
        assert isinstance(connection, Connection)
        found = auth.lookup_tokens(connection, tokens, limits=limits)
        auth.renew_sessions(connection, tokens[:1], now=later)
        return found, store.apply_bets(connection, table_id=table, coup_id=coup, round_no=1,
                                       rules=RuleSet(), ops=ops)

    found, results = db._batch_call(batch)
    with db.read() as session:
        assert found == auth.lookup_tokens(session, tokens, limits=limits)
        renewed = session.scalars(select(LoginSession.last_seen_at).where(
            LoginSession.token_hash == auth.token_hash(tokens[0]))).one()
        assert renewed.replace(tzinfo=UTC) == later
        rows = session.execute(select(BetRecord.player_id, BetRecord.kind, BetRecord.stake)
                               .order_by(BetRecord.player_id)).all()
        assert [tuple(row) for row in rows] == [(ann, "punto", 2_000), (bob, "banco", 1_000)]
        assert ledger.audit(session).ok
    assert [result["balance"] for result in results if isinstance(result, dict)] == [
        8_000, 9_000]
    again = _apply(db, table, coup, ops[:1])  # the session's way replays the key
    assert isinstance(again[0], store.Replayed) and again[0] == results[0]


def test_an_sqlite_batch_that_fails_writes_nothing(sqlite_db: Database) -> None:
    """``Database.run_batch``'s transaction is rolled back whole when its work raises."""
    db = sqlite_db
    ann, _, table, coup = _setup(db)

    def batch(connection: object) -> None:
        from sqlalchemy import Connection
        assert isinstance(connection, Connection)
        store.apply_bets(connection, table_id=table, coup_id=coup, round_no=1,
                         rules=RuleSet(), ops=[store.BetOp(ann, BetKind.PUNTO, 2_000, "k1")])
        raise RuntimeError("after the writes")

    with pytest.raises(RuntimeError):
        db._batch_call(batch)
    with db.read() as session:
        assert session.scalars(select(BetRecord.id)).all() == []
        assert session.scalars(select(BetRequest.id)).all() == []
        assert ledger.wallet_balance(session, ann) == 10_000
    assert db._batch_call(lambda connection: 1) == 1  # the connection is usable again


@pytest.mark.parametrize("answer", [
    {"bet": "banco", "stake": 500, "total": 1500, "my_bets": {"punto": 200, "banco": 1500},
     "balance": 7000, "coup_id": 3, "round_no": 9},
    {"bet": "lion-punto", "stake": 100, "total": 100, "my_bets": {}, "balance": 0,
     "coup_id": 1, "round_no": 1},
    {"bet": "punto", "stake": True, "total": 1, "my_bets": {"punto": 1}, "balance": 5,
     "coup_id": 1, "round_no": 1},  # a bool is not a number here: json.dumps writes it
    {"bet": "punto", "stake": 100, "total": 100, "my_bets": {"punto": 1.5}, "balance": 5,
     "coup_id": 1, "round_no": 1},
    {"bet": 'pun"to', "stake": 100, "total": 100, "my_bets": {}, "balance": 5, "coup_id": 1,
     "round_no": 1},
    {"stake": 100, "bet": "punto", "total": 100, "my_bets": {}, "balance": 5, "coup_id": 1,
     "round_no": 1},  # another order: json.dumps keeps it
    {"bet": "banco", "stake": 2500},  # a withdrawal's
    {"placed": {"egalite": 1000, "lion-punto": 1000}, "my_bets": {"egalite": 1000},
     "balance": 1, "coup_id": 2, "round_no": 2},  # a group's
])
def test_a_stored_answer_is_the_text_json_dumps_writes(answer: dict[str, Any]) -> None:
    """The idempotency record's text (``store.answer_json``, written without ``json.dumps``
    for a placed bet's answer) is exactly ``json.dumps``' text, whatever the answer holds."""
    assert store.answer_json(answer) == json.dumps(answer)
    assert isinstance(store.answer_json(answer), bulk.JsonText)


def test_a_spot_passed_under_one_table_rules_is_judged_again_under_others(
        sqlite_db: Database) -> None:
    """B4, M2: the spots the batch remembers as passed are remembered per rules — a spot
    another table's rules passed (Punto and Banco together; a stake within a higher maximum)
    is still refused by rules that forbid it, in a later batch and in the same one."""
    ann, bob, table, coup = _setup(sqlite_db)
    lenient = RuleSet()
    strict = replace(lenient, allow_punto_and_banco=False)

    def apply(rules: RuleSet, ops: list[store.BetOp]) -> list[str]:
        with sqlite_db.write() as session:
            return [result.code if isinstance(result, BetRefused) else "ok"
                    for result in store.apply_bets(session, table_id=table, coup_id=coup,
                                                   round_no=1, rules=rules, ops=ops)]

    assert apply(lenient, [store.BetOp(ann, BetKind.PUNTO, 1_000),
                           store.BetOp(ann, BetKind.BANCO, 1_000)]) == ["ok", "ok"]
    # bob's spot becomes the very spot ann's had: passed under the lenient rules, not these
    assert apply(strict, [store.BetOp(bob, BetKind.PUNTO, 1_000),
                          store.BetOp(bob, BetKind.BANCO, 1_000)]) == ["ok", "punto-and-banco"]
    assert apply(lenient, [store.BetOp(bob, BetKind.BANCO, 1_000)]) == ["ok"]
    assert apply(strict, [store.BetOp(bob, BetKind.PUNTO, 1_000)]) == ["punto-and-banco"]
