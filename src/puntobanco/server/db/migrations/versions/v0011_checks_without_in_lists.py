"""The checks of the rows every bet and settlement writes compare instead of listing (issue 21,
sixth pass).

``bets.status IN ('active', …)`` and ``ledger_transactions.reason IN ('welcome', …)``: SQLite
(3.40) evaluates an ``IN`` of three or more constants by building a small temporary index of
the list once per run of the statement, and an ``executemany`` of a batch's rows runs the
statement once per row, so each bet row and each ledger transaction paid it again: ~2.5–3 µs
of the event loop's CPU a row, a bet's ~5.5 µs (more than its wallet's update). The same
checks written as ``status = 'active' OR status = …`` accept and refuse exactly the same values
(both columns are ``NOT NULL``) at the cost of a few comparisons. SQLite copies the two tables
(``batch_alter_table``, as migration 0008); PostgreSQL replaces the constraints (checking the
rows once), so both keep the models' schema.

Revision ID: 0011
Revises: 0010
"""

from __future__ import annotations

from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

#: (table, column, constraint's name, its values)
CHECKS = (
    ("bets", "status", "ck_bets_status", ("active", "withdrawn", "settled", "refunded")),
    ("ledger_transactions", "reason", "ck_ledger_transactions_reason",
     ("welcome", "credit", "stake", "withdrawal", "payout", "house-win", "house-pay",
      "refund")),
)


def compared(column: str, values: tuple[str, ...]) -> str:
    """The check as comparisons (what the models declare: ``db/models.py``)."""
    return " OR ".join(f"{column} = '{value}'" for value in values)


def listed(column: str, values: tuple[str, ...]) -> str:
    """The check as an ``IN`` list (before this revision)."""
    return f"{column} IN ({', '.join(repr(value) for value in values)})"


def _replace(*, up: bool) -> None:
    for table, column, name, values in CHECKS:
        with op.batch_alter_table(table) as batch:  # SQLite: one copy of the table
            batch.drop_constraint(op.f(name), type_="check")
            batch.create_check_constraint(
                op.f(name), compared(column, values) if up else listed(column, values))


def upgrade() -> None:
    _replace(up=True)


def downgrade() -> None:
    _replace(up=False)
