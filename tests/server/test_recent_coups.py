"""A player's recent coups (``GET /api/me/coups``, ``recall.recent_coups``) without an index
of the bets by player (migration 0012, issue 21's sixth pass): found from the player's
wallet's stakes, on SQLite and PostgreSQL — every coup the player still has a bet on
(active, settled, refunded by a void round), none they withdrew to nothing, none of another
player's, newest first, as many as asked."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from alembic import command
from sqlalchemy import create_engine, inspect, update

from puntobanco.bets import BetKind
from puntobanco.rules import RuleSet
from puntobanco.server.db import auth, recall, settle, store
from puntobanco.server.db.engine import Database, alembic_config, migrate
from puntobanco.server.db.models import CoupRecord

from .support import first_coup, migrated_database


@pytest.fixture
def db(db_url: str) -> Iterator[Database]:
    yield from migrated_database(db_url)


def _bets(db: Database, table: int, coup: int, ops: list[store.BetOp]) -> None:
    with db.write() as session:
        results = store.apply_bets(session, table_id=table, coup_id=coup, round_no=coup,
                                   rules=RuleSet(), ops=ops)
    assert all(isinstance(result, dict) for result in results), results


def _next_coup(db: Database, table: int, coup: int, round_no: int) -> int:
    with db.write() as session:
        session.execute(update(CoupRecord).where(CoupRecord.id == coup)
                        .values(status="settled"))
        shoe = session.get_one(CoupRecord, coup).shoe_id
        return store.open_coup(session, table_id=table, shoe_id=shoe, round_no=round_no,
                               coup_in_shoe=round_no, last_coup=False)


def test_L6_recent_coups_are_the_coups_the_player_still_has_a_bet_on(db: Database) -> None:
    with db.write() as session:
        ann, bob = (auth.create_player(session, username=name, password_hash="-", lang="en",
                                       welcome=100_000).id for name in ("ann", "bob"))
        table = store.create_table(session, name="recall", rules=RuleSet(), betting_seconds=15)
        coup = first_coup(session, table)
    kept = []
    _bets(db, table.id, coup, [store.BetOp(ann, BetKind.BANCO, 2_000),
                               store.BetOp(bob, BetKind.PUNTO, 1_000)])
    kept.append(coup)  # settled
    coup = _next_coup(db, table.id, coup, 2)  # ann bets and withdraws it all: not recalled
    _bets(db, table.id, coup, [store.BetOp(ann, BetKind.PUNTO, 1_000)])
    _bets(db, table.id, coup, [store.BetOp(ann, BetKind.PUNTO, withdraw=True)])
    coup = _next_coup(db, table.id, coup, 3)  # withdrawn, then placed again: recalled
    _bets(db, table.id, coup, [store.BetOp(ann, BetKind.PUNTO, 1_000)])
    _bets(db, table.id, coup, [store.BetOp(ann, BetKind.PUNTO, withdraw=True)])
    _bets(db, table.id, coup, [store.BetOp(ann, BetKind.EGALITE, 1_000)])
    kept.append(coup)
    coup = _next_coup(db, table.id, coup, 4)  # only bob bets
    _bets(db, table.id, coup, [store.BetOp(bob, BetKind.BANCO, 1_000)])
    coup = _next_coup(db, table.id, coup, 5)  # a void round: the refunded bet is recalled
    _bets(db, table.id, coup, [store.BetOp(ann, BetKind.LION_BANCO, 1_000),
                               store.BetOp(ann, BetKind.BANCO, 1_000)])
    with db.write() as session:
        settle.void_coup(session, table_id=table.id, coup_id=coup)
    kept.append(coup)
    coup = _next_coup(db, table.id, coup, 6)  # open, a bet raised: recalled once
    _bets(db, table.id, coup, [store.BetOp(ann, BetKind.BANCO, 1_000),
                               store.BetOp(ann, BetKind.BANCO, 1_000)])
    kept.append(coup)
    with db.read() as session:
        assert [c["id"] for c in recall.recent_coups(session, ann, limit=20)] == kept[::-1]
        assert [c["id"] for c in recall.recent_coups(session, ann, limit=2)] == kept[:1:-1]
        assert recall.recent_coups(session, ann, limit=20)[0]["my_bets"] == {"banco": 2_000}
        assert [c["id"] for c in recall.recent_coups(session, bob, limit=20)] == [
            kept[0] + 3, kept[0]]


def test_the_bets_carry_no_index_by_player_up_and_down(db_url: str) -> None:
    """Migration 0012 drops ``ix_bets_player_id`` (one scattered index entry a bet) and
    gives it back going down."""
    migrate(db_url)
    engine = create_engine(db_url)
    try:
        assert "ix_bets_player_id" not in {ix["name"] for ix in inspect(engine).get_indexes("bets")}
        command.downgrade(alembic_config(db_url), "0011")
        assert "ix_bets_player_id" in {ix["name"] for ix in inspect(engine).get_indexes("bets")}
        migrate(db_url)
        assert "ix_bets_player_id" not in {ix["name"] for ix in inspect(engine).get_indexes("bets")}
    finally:
        engine.dispose()
