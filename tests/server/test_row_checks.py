"""Migration 0011 (issue 21, sixth pass): the checks of the rows every bet and settlement
writes — a bet's ``status``, a ledger transaction's ``reason`` — are comparisons, not ``IN``
lists (SQLite built a temporary index of the list for every row of an ``executemany``), and
they accept and refuse exactly what they did, on SQLite and PostgreSQL, up and down."""

from __future__ import annotations

import pytest
from alembic import command
from sqlalchemy import Engine, create_engine, text
from sqlalchemy.exc import IntegrityError

from puntobanco.server.db.engine import alembic_config, migrate

STATUSES = ("active", "withdrawn", "settled", "refunded")
REASONS = ("welcome", "credit", "stake", "withdrawal", "payout", "house-win", "house-pay",
           "refund")
BET = ("INSERT INTO bets (coup_id, player_id, kind, stake, status, placed_at) "
       "VALUES (1, :player, 'banco', 100, :value, '2026-12-02 06:00:00')")
MOVE = ("INSERT INTO ledger_transactions (reason, coup_id, bet_id, player_id, created_at) "
        "VALUES (:value, 1, 1, 1, '2026-12-02 06:00:00')")


def _refuses(engine: Engine, statement: str, value: str, player: int = 0) -> bool:
    try:
        with engine.begin() as connection:
            connection.execute(text(statement), {"value": value, "player": player})
    except IntegrityError:
        return True
    return False


def _holds_the_rules(engine: Engine, round_no: int) -> None:
    """Each value accepted and a few near misses refused (``round_no``: fresh players, so a
    bet row of an earlier round never clashes with the bets' unique key)."""
    for player, status in enumerate(STATUSES, start=10 * round_no):
        assert not _refuses(engine, BET, status, player)
    for reason in REASONS:
        assert not _refuses(engine, MOVE, reason)
    for bad in ("bogus", "Active", "active ", ""):
        assert _refuses(engine, BET, bad, 10 * round_no + 9)
        assert _refuses(engine, MOVE, bad)


def _sqlite_checks(engine: Engine) -> str:
    with engine.connect() as connection:
        return " ".join(connection.execute(text(
            "SELECT sql FROM sqlite_master WHERE name IN ('bets', 'ledger_transactions')"
        )).scalars())


def test_the_bet_and_ledger_checks_refuse_the_same_values_up_and_down(db_url: str) -> None:
    migrate(db_url)
    engine = create_engine(db_url)
    try:
        _holds_the_rules(engine, 1)
        if engine.dialect.name == "sqlite":
            assert "status = 'active' OR" in _sqlite_checks(engine)
        command.downgrade(alembic_config(db_url), "0010")
        _holds_the_rules(engine, 2)
        if engine.dialect.name == "sqlite":
            assert "IN ('active'" in _sqlite_checks(engine)
        migrate(db_url)
        _holds_the_rules(engine, 3)
    finally:
        engine.dispose()


def test_no_hot_row_check_is_an_in_list_on_sqlite(sqlite_url: str) -> None:
    """What SQLite evaluates per row of a batch: no ``IN`` list in the checks of ``bets`` and
    ``ledger_transactions`` (an ``IN`` list there cost ~2.5 µs a row)."""
    migrate(sqlite_url)
    engine = create_engine(sqlite_url)
    try:
        checks = _sqlite_checks(engine)
    finally:
        engine.dispose()
    assert "CHECK" in checks
    assert " IN (" not in checks


@pytest.mark.parametrize("revision", ["0010"])
def test_an_old_database_keeps_its_rows_through_0011(sqlite_url: str, revision: str) -> None:
    command.upgrade(alembic_config(sqlite_url), revision)
    engine = create_engine(sqlite_url)
    try:
        with engine.begin() as connection:
            connection.execute(text(BET), {"value": "settled", "player": 7})
            connection.execute(text(MOVE), {"value": "payout"})
        migrate(sqlite_url)
        with engine.connect() as connection:
            assert connection.execute(text(
                "SELECT player_id, status FROM bets")).all() == [(7, "settled")]
            assert connection.execute(text(
                "SELECT reason FROM ledger_transactions")).all() == [("payout",)]
    finally:
        engine.dispose()
