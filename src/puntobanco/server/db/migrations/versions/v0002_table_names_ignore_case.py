"""Table names are unique ignoring case: the ``name_key`` column (the name case-folded).

A database made before this may hold two names differing only in case ("QA1", "qa1"): the
later table (higher id) is renamed "<name> (<id>)", so that every key is unique.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

MAX_NAME = 64


def upgrade() -> None:
    op.add_column("tables", sa.Column("name_key", sa.String(length=255), nullable=True))
    tables = sa.table("tables", sa.column("id", sa.Integer()), sa.column("name", sa.String()),
                      sa.column("name_key", sa.String()))
    connection = op.get_bind()
    rows = connection.execute(sa.select(tables.c.id, tables.c.name).order_by(tables.c.id)).all()
    keys = {name.casefold() for _, name in rows}  # each first holder keeps its name
    kept: set[str] = set()
    for table_id, original in rows:
        name = original
        if original.casefold() in kept:
            tries = 0
            while name.casefold() in keys:
                tries += 1
                suffix = f" ({table_id})" if tries == 1 else f" ({table_id}.{tries})"
                name = original[:MAX_NAME - len(suffix)] + suffix
            keys.add(name.casefold())
        kept.add(name.casefold())
        connection.execute(sa.update(tables).where(tables.c.id == table_id)
                           .values(name=name, name_key=name.casefold()))
    with op.batch_alter_table("tables") as batch:
        batch.alter_column("name_key", existing_type=sa.String(length=255), nullable=False)
        batch.create_unique_constraint(op.f("uq_tables_name_key"), ["name_key"])


def downgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.drop_constraint(op.f("uq_tables_name_key"), type_="unique")
        batch.drop_column("name_key")
