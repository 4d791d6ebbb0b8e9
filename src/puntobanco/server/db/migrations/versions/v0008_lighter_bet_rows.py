"""The rows every bet and every settled line writes carry fewer foreign keys and indexes
(issue 21).

A bet wrote five rows (its bet, its idempotency record, a ledger transaction and its two
entries) whose foreign keys cost the database a dozen lookups of their parents: on PostgreSQL
each one a query of the trigger queue, 47 % of its CPU for a batch; the settlement of 5,000
players (~55,000 rows) took 1.2 s of PostgreSQL's time, mostly those checks. The keys of
``bets``, ``bet_requests``, ``ledger_transactions``, ``ledger_entries`` and
``settlement_lines`` are dropped, and so are the indexes no query uses: a ledger
transaction's by coup, bet and player, an entry's by transaction, and a settlement line's by
coup (``uq_settlement_lines_order`` begins with it).

Integrity is kept by the only code that writes these rows (``docs/server.md``, "Issue 21,
fourth pass"): each row names parents the same transaction read or wrote first (the coup read
``FOR SHARE`` as open, or moved ``dealt → settled``; the bets read from it or just inserted;
the wallets locked ``FOR UPDATE``, a bet only for a player whose wallet was found; a
transaction's entries in the statement that inserts it),
``ledger.post`` refuses a move naming an account that does not exist, no code deletes a
player, coup, bet, account or ledger transaction, and ``ledger.audit`` reports any row whose
parent is missing (``tests/server/test_money_rows.py``).

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

#: (table, column, parent table) of every foreign key dropped, in the order they are dropped
KEYS = (
    ("bets", "coup_id", "coups"),
    ("bets", "player_id", "players"),
    ("ledger_entries", "transaction_id", "ledger_transactions"),
    ("ledger_entries", "account_id", "accounts"),
    ("ledger_transactions", "coup_id", "coups"),
    ("ledger_transactions", "bet_id", "bets"),
    ("ledger_transactions", "player_id", "players"),
    ("bet_requests", "player_id", "players"),
    ("bet_requests", "coup_id", "coups"),
    ("bet_requests", "bet_id", "bets"),
    ("settlement_lines", "coup_id", "coups"),
    ("settlement_lines", "bet_id", "bets"),
    ("settlement_lines", "player_id", "players"),
)
#: (table, column) of every one-column index dropped
INDEXES = (
    ("ledger_entries", "transaction_id"),
    ("ledger_transactions", "coup_id"),
    ("ledger_transactions", "bet_id"),
    ("ledger_transactions", "player_id"),
    ("settlement_lines", "coup_id"),
)


def _tables() -> list[str]:
    return list(dict.fromkeys(table for table, _, _ in KEYS))


def upgrade() -> None:
    for table, column in INDEXES:
        op.drop_index(f"ix_{table}_{column}", table_name=table)
    for table in _tables():  # SQLite copies the table: one copy for all its keys
        with op.batch_alter_table(table) as batch:
            for name, column, parent in KEYS:
                if name == table:
                    batch.drop_constraint(op.f(f"fk_{table}_{column}_{parent}"),
                                          type_="foreignkey")


def downgrade() -> None:
    for table in reversed(_tables()):
        with op.batch_alter_table(table) as batch:
            for name, column, parent in KEYS:
                if name == table:
                    batch.create_foreign_key(op.f(f"fk_{table}_{column}_{parent}"), parent,
                                             [column], ["id"])
    for table, column in INDEXES:
        op.create_index(f"ix_{table}_{column}", table, [column])
