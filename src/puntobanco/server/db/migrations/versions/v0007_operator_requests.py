"""Idempotent operator money actions: the operator's idempotency keys and their answers.

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "operator_requests",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("operator_id", sa.Integer(), nullable=False),
        sa.Column("idempotency_key", sa.String(length=100), nullable=False),
        sa.Column("fingerprint", sa.String(length=80), nullable=False),
        sa.Column("response", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["operator_id"], ["players.id"],
                                name=op.f("fk_operator_requests_operator_id_players")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_operator_requests")),
        sa.UniqueConstraint("operator_id", "idempotency_key", name="uq_operator_requests_key"),
    )


def downgrade() -> None:
    op.drop_table("operator_requests")
