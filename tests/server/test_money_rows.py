"""The rows of money without foreign keys (migration 0008, issue 21), on SQLite and PostgreSQL.

The rows every bet and settled line writes (``bets``, ``bet_requests``,
``ledger_transactions``, ``ledger_entries``, ``settlement_lines``) no longer make the
database look their parents up.
What keeps them whole instead: a move naming an account that does not exist is refused and
posts nothing; the audit reports any row whose parent is missing; a database written before
the migration keeps every row, and bets and settles as before after it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import create_engine, func, inspect, select, text
from sqlalchemy.orm import Session

from puntobanco.bets import BetKind, settle_spot
from puntobanco.cards import parse_cards
from puntobanco.coup import deal_coup
from puntobanco.rules import RuleSet
from puntobanco.server.db import auth, ledger, settle, store
from puntobanco.server.db.engine import Database, alembic_config, migrate
from puntobanco.server.db.models import (
    BetRecord,
    BetRequest,
    LedgerEntry,
    LedgerTransaction,
    SettlementLineRecord,
)
from puntobanco.server.db.players import create_players

from .conftest import PostgresCluster
from .support import first_coup, migrated_database

#: the tables whose foreign keys migration 0008 dropped
UNCHECKED = ("bets", "bet_requests", "ledger_transactions", "ledger_entries",
             "settlement_lines")


@pytest.fixture
def db(db_url: str) -> Iterator[Database]:
    yield from migrated_database(db_url)


def _table_with_players(db: Database) -> tuple[list[int], int, int]:
    """Two players with 100.00 each, a table and an open coup: (players, table, coup)."""
    with db.write() as session:
        players = [auth.create_player(session, username=name, password_hash="-", lang="en",
                                      welcome=10_000).id for name in ("ann", "bob")]
        table = store.create_table(session, name="rows", rules=RuleSet(), betting_seconds=15)
        coup = first_coup(session, table)
    return players, table.id, coup


def _bet(db: Database, table: int, coup: int, players: list[int]) -> None:
    with db.write() as session:
        results = store.apply_bets(session, table_id=table, coup_id=coup, round_no=1,
                                   rules=RuleSet(), ops=[
                                       store.BetOp(player, BetKind.BANCO, 2000, key=f"k{player}")
                                       for player in players])
    assert all(isinstance(result, dict) for result in results), results


def _counts(db: Database) -> dict[str, int]:
    with db.read() as session:
        return {model.__tablename__: session.scalar(select(func.count()).select_from(model)) or 0
                for model in (BetRecord, BetRequest, LedgerTransaction, LedgerEntry,
                              SettlementLineRecord)}


def test_a_move_naming_an_account_that_does_not_exist_posts_nothing(db: Database) -> None:
    """The entries name their account with no foreign key: ``ledger.post`` is the check."""
    players, table, coup = _table_with_players(db)
    before = _counts(db)
    with db.read() as session:
        in_play = ledger.account_id(session, ledger.in_play_code(table))
    with pytest.raises(LookupError, match="no account 987654"), db.write() as session:
        ledger.post(session, [ledger.Move(in_play, 987654, 500, "payout", coup, None,
                                          players[0])])
    assert _counts(db) == before
    with db.read() as session:
        assert ledger.audit(session).ok


@pytest.mark.parametrize("amount", [0, -500])
def test_a_move_of_no_or_negative_money_posts_nothing(db: Database, amount: int) -> None:
    """A move is a positive amount: ``ledger.post`` and ``ledger.transfer`` refuse any other
    before they write anything (a move is a plain tuple since issue 21's sixth pass: the check
    is theirs, not the move's), even among good moves."""
    players, table, coup = _table_with_players(db)
    before = _counts(db)
    with db.read() as session:
        in_play = ledger.account_id(session, ledger.in_play_code(table))
        wallet = ledger.account_id(session, ledger.wallet_code(players[0]))
    with pytest.raises(ValueError, match="positive amount"), db.write() as session:
        ledger.post(session, [ledger.Move(wallet, in_play, 500, "stake", coup, None, players[0]),
                              ledger.Move(wallet, in_play, amount, "stake", coup, None,
                                          players[0])])
    with pytest.raises(ValueError, match="positive amount"), db.write() as session:
        ledger.transfer(session, wallet, in_play, amount, reason="stake", player_id=players[0])
    assert _counts(db) == before
    with db.read() as session:
        assert ledger.audit(session).ok
        assert ledger.wallet_balance(session, players[0]) == 10_000


def test_a_batch_writes_bets_only_for_a_coup_and_players_that_exist(db: Database) -> None:
    """The bets name their coup and player with no foreign key: the batch's reads are the
    check. A coup that does not exist refuses every bet ``table-closed``; a player without a
    wallet fails the batch, and nothing of it is written."""
    players, table, coup = _table_with_players(db)
    before = _counts(db)
    with db.write() as session:
        results = store.apply_bets(session, table_id=table, coup_id=coup + 1000, round_no=1,
                                   rules=RuleSet(), ops=[store.BetOp(players[0], BetKind.BANCO,
                                                                     2000)])
    assert [getattr(result, "code", None) for result in results] == ["table-closed"]
    with pytest.raises(LookupError, match="no wallet for player 987654"), \
            db.write() as session:
        store.apply_bets(session, table_id=table, coup_id=coup, round_no=1, rules=RuleSet(),
                         ops=[store.BetOp(players[0], BetKind.BANCO, 2000),
                              store.BetOp(987654, BetKind.PUNTO, 2000)])
    assert _counts(db) == before
    with db.read() as session:
        assert ledger.audit(session).ok


def test_the_audit_reports_a_row_whose_parent_is_missing(db: Database) -> None:
    """Rows the database would have refused before migration 0008 are the audit's to find."""
    players, table, coup = _table_with_players(db)
    _bet(db, table, coup, players)
    with db.read() as session:
        assert ledger.audit(session).orphans == {}
    with db.write() as session:
        transaction, wallet = session.execute(text(
            "SELECT e.transaction_id, e.account_id FROM ledger_entries AS e "
            "ORDER BY e.id DESC LIMIT 1")).one()
        session.execute(text("UPDATE bet_requests SET coup_id = 424242"))
        session.execute(text("UPDATE ledger_transactions SET player_id = 424243 "
                             "WHERE id = :id"), {"id": transaction})
        session.execute(text("UPDATE ledger_entries SET account_id = 424244 "
                             "WHERE transaction_id = :id AND account_id = :wallet"),
                        {"id": transaction, "wallet": wallet})
    with db.read() as session:
        found = ledger.audit(session)
    assert not found.ok
    assert set(found.orphans) == {"bet_requests.coup_id", "ledger_transactions.player_id",
                                  "ledger_entries.account_id"}
    assert found.orphans["ledger_transactions.player_id"] == [transaction]
    assert len(found.orphans["bet_requests.coup_id"]) == 2


def test_upgrading_a_database_with_bets_keeps_every_row_and_drops_the_keys(
        db_url: str, tmp_path: Path) -> None:
    """A database written at revision 0007 (with foreign keys) migrates with its bets and
    ledger, balances, bets and settles after it; the downgrade puts the keys back."""
    if db_url.startswith("sqlite"):
        Path(db_url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
    command.upgrade(alembic_config(db_url), "0007")
    db = Database(db_url, threads=1)
    try:
        players, table, coup = _table_with_players(db)
        _bet(db, table, coup, players)
        before = _counts(db)
        db.close()
        engine = create_engine(db_url)
        assert all(inspect(engine).get_foreign_keys(name) for name in UNCHECKED)
        migrate(db_url)
        inspector = inspect(engine)
        assert [name for name in UNCHECKED if inspector.get_foreign_keys(name)] == []
        assert "ix_ledger_transactions_player_id" not in {
            index["name"] for index in inspector.get_indexes("ledger_transactions")}
        engine.dispose()
        db = Database(db_url, threads=1)
        assert _counts(db) == before
        with db.read() as session:
            assert ledger.audit(session).ok
        with db.write() as session:
            store.close_coup(session, coup)
        with db.write() as session:
            bets = {player: {BetKind.BANCO: 2000} for player in players}
            _settle_as_lost(session, table, coup, bets)
        with db.read() as session:
            assert ledger.audit(session).ok
            assert session.scalar(select(func.count()).select_from(SettlementLineRecord)) == 2
        db.close()
        command.downgrade(alembic_config(db_url), "0007")
        engine = create_engine(db_url)
        assert all(inspect(engine).get_foreign_keys(name) for name in UNCHECKED)
        engine.dispose()
    finally:
        db.close()


def test_a_settlement_changes_bets_and_wallets_without_new_index_entries(
        pg_cluster: PostgresCluster) -> None:
    """PostgreSQL: a settlement's updates of its bets' status and the wallets' balances are
    HOT (the new row version beside the old one, no index entry written: migration 0009),
    where on full pages none of the bets' were. (The transaction's counts may include the
    batch's just before it, not yet flushed to the statistics: HOT too.)"""
    url = pg_cluster.new_database()
    for db in migrated_database(url):
        with db.write() as session:
            made = create_players(session, [f"p{number}" for number in range(300)],
                                  password_hash="-", lang="en", welcome=10_000)
            players = [player.id for player in made]
            assert session.execute(text(
                "SELECT relname, reloptions FROM pg_class WHERE relname IN ('accounts', 'bets')"
                " ORDER BY relname")).all() == [("accounts", ["fillfactor=50"]),
                                                 ("bets", ["fillfactor=50"])]
        _, table, coup = _table_with_players(db)
        _bet(db, table, coup, players)
        with db.write() as session:
            store.close_coup(session, coup)
        with db.write() as session:
            _settle_as_lost(session, table, coup,
                            {player: {BetKind.BANCO: 2000} for player in players})
            changed = dict(session.execute(text(
                "SELECT relname, n_tup_upd - n_tup_hot_upd FROM pg_stat_xact_user_tables "
                "WHERE relname IN ('accounts', 'bets')")).all())
            updated = dict(session.execute(text(
                "SELECT relname, n_tup_upd FROM pg_stat_xact_user_tables "
                "WHERE relname IN ('accounts', 'bets')")).all())
        assert updated["bets"] == 300 and updated["accounts"] >= 300, (updated, changed)
        assert changed["bets"] == 0
        assert changed["accounts"] < updated["accounts"] / 10  # a page not yet pruned


def _settle_as_lost(session: Session, table: int, coup: int,
                    bets: dict[int, dict[BetKind, int]]) -> None:
    """Deal the coup as a Punto win and settle it (every Banco bet loses)."""
    coup_dealt = deal_coup(iter(parse_cards("9h 2c 9d 3s")))
    store.record_deal(session, coup, coup_dealt, first_card=0)
    lines = {player: settle_spot(spot, coup_dealt, RuleSet()) for player, spot in bets.items()}
    settle.settle_coup(session, table_id=table, coup_id=coup, bets=bets, lines=lines)
