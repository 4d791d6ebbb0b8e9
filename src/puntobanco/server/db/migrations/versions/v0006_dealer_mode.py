"""Dealer mode: the dealer role, a table's dealing mode, dealers' tables and the entered cards.

Revision ID: 0006
Revises: 0005 (chained after 0004 and 0005 at the merges with main; written on 0002)
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.drop_constraint(op.f("ck_players_role"), type_="check")
        batch.create_check_constraint(op.f("ck_players_role"),
                                      "role IN ('player', 'operator', 'dealer')")
    op.add_column("tables", sa.Column("dealing", sa.String(length=8), nullable=False,
                                      server_default="server"))
    op.add_column("shoes", sa.Column("dealing", sa.String(length=8), nullable=False,
                                     server_default="server"))
    op.add_column("shoes", sa.Column("cut_card_coup", sa.Integer(), nullable=True))
    op.add_column("shoes", sa.Column("last_coup_no", sa.Integer(), nullable=True))
    op.create_table(
        "dealer_tables",
        sa.Column("dealer_id", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["dealer_id"], ["players.id"], ondelete="CASCADE",
                                name=op.f("fk_dealer_tables_dealer_id_players")),
        sa.ForeignKeyConstraint(["table_id"], ["tables.id"], ondelete="CASCADE",
                                name=op.f("fk_dealer_tables_table_id_tables")),
        sa.PrimaryKeyConstraint("dealer_id", "table_id", name=op.f("pk_dealer_tables")),
    )
    op.create_table(
        "dealer_entries",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("shoe_id", sa.Integer(), nullable=False),
        sa.Column("coup_id", sa.Integer(), nullable=True),
        sa.Column("kind", sa.String(length=10), nullable=False),
        sa.Column("card", sa.String(length=3), nullable=True),
        sa.Column("side", sa.String(length=6), nullable=True),
        sa.Column("position", sa.Integer(), nullable=True),
        sa.Column("count", sa.Integer(), nullable=True),
        sa.Column("status", sa.String(length=10), nullable=False),
        sa.Column("dealer_id", sa.Integer(), nullable=True),
        sa.Column("entered_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("kind IN ('card', 'burn', 'counted', 'cut-card', 'last-coup')",
                           name=op.f("ck_dealer_entries_kind")),
        sa.CheckConstraint("status IN ('ok', 'mistyped', 'void')",
                           name=op.f("ck_dealer_entries_status")),
        sa.ForeignKeyConstraint(["table_id"], ["tables.id"],
                                name=op.f("fk_dealer_entries_table_id_tables")),
        sa.ForeignKeyConstraint(["shoe_id"], ["shoes.id"],
                                name=op.f("fk_dealer_entries_shoe_id_shoes")),
        sa.ForeignKeyConstraint(["coup_id"], ["coups.id"],
                                name=op.f("fk_dealer_entries_coup_id_coups")),
        sa.ForeignKeyConstraint(["dealer_id"], ["players.id"],
                                name=op.f("fk_dealer_entries_dealer_id_players")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_dealer_entries")),
    )
    op.create_index("ix_dealer_entries_shoe_id", "dealer_entries", ["shoe_id"])
    op.create_index("ix_dealer_entries_coup_id", "dealer_entries", ["coup_id"])


def downgrade() -> None:
    op.drop_index("ix_dealer_entries_coup_id", table_name="dealer_entries")
    op.drop_index("ix_dealer_entries_shoe_id", table_name="dealer_entries")
    op.drop_table("dealer_entries")
    op.drop_table("dealer_tables")
    with op.batch_alter_table("shoes") as batch:
        batch.drop_column("last_coup_no")
        batch.drop_column("cut_card_coup")
        batch.drop_column("dealing")
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("dealing")
    op.execute("UPDATE players SET role = 'player' WHERE role = 'dealer'")
    with op.batch_alter_table("players") as batch:
        batch.drop_constraint(op.f("ck_players_role"), type_="check")
        batch.create_check_constraint(op.f("ck_players_role"), "role IN ('player', 'operator')")
