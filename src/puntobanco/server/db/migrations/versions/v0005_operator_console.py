"""The operator console: players can be suspended, tables paused, and every operator action is
kept in an audit log (docs/operator.md); the reports find coups by their settlement time.

Revision ID: 0005
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("suspended", sa.Boolean(), nullable=False,
                                   server_default=sa.false()))
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("paused", sa.Boolean(), nullable=False,
                                   server_default=sa.false()))
    op.create_table(
        "audit_log",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("operator_id", sa.Integer(), nullable=False),
        sa.Column("action", sa.String(length=32), nullable=False),
        sa.Column("target_kind", sa.String(length=16), nullable=False),
        sa.Column("target_id", sa.Integer(), nullable=True),
        sa.Column("before", sa.JSON(), nullable=True),
        sa.Column("after", sa.JSON(), nullable=True),
        sa.CheckConstraint("target_kind IN ('table', 'player')",
                           name=op.f("ck_audit_log_target_kind")),
        sa.ForeignKeyConstraint(["operator_id"], ["players.id"],
                                name=op.f("fk_audit_log_operator_id_players")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_audit_log")),
    )
    op.create_index("ix_audit_log_operator_id", "audit_log", ["operator_id"])
    op.create_index("ix_audit_log_target", "audit_log", ["target_kind", "target_id"])
    op.create_index("ix_coups_settled_at", "coups", ["settled_at"])


def downgrade() -> None:
    op.drop_index("ix_coups_settled_at", table_name="coups")
    op.drop_index("ix_audit_log_target", table_name="audit_log")
    op.drop_index("ix_audit_log_operator_id", table_name="audit_log")
    op.drop_table("audit_log")
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("paused")
    with op.batch_alter_table("players") as batch:
        batch.drop_column("suspended")
