"""PostgreSQL keeps half of each page of ``accounts`` and ``bets`` free (issue 21).

A wallet's balance changes at every bet and every settlement, a bet's status at its
settlement. On full pages a new row version went to another page, and PostgreSQL wrote a new
entry in each of the table's indexes (accounts 4, bets 3): 90 % of the balance updates and all
of the bets' were such, a third of the 5,000-player settlement's PostgreSQL time. With half of
each page free the new version fits beside the old one (a "HOT" update: no index entry).

New pages follow the setting; a row on a page written before moves to one at its next update
(no table is rewritten here: ``VACUUM FULL`` would lock it). SQLite has no such setting.

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

TABLES = ("accounts", "bets")


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for table in TABLES:
            op.execute(f"ALTER TABLE {table} SET (fillfactor = 50)")


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for table in TABLES:
            op.execute(f"ALTER TABLE {table} RESET (fillfactor)")
