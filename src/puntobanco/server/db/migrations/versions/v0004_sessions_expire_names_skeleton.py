"""Sessions expire (``sessions.last_seen_at``) and look-alike usernames are refused
(``players.username_skeleton``, filled for the players already there).

Revision ID: 0004
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from puntobanco.server.usernames import skeleton

revision = "0004"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("sessions", sa.Column("last_seen_at", sa.DateTime(timezone=True), nullable=True))
    op.add_column("players", sa.Column("username_skeleton", sa.String(length=64), nullable=True))
    players = sa.table("players", sa.column("id", sa.Integer()), sa.column("username", sa.String()),
                       sa.column("username_skeleton", sa.String()))
    connection = op.get_bind()
    for player_id, username in connection.execute(sa.select(players.c.id, players.c.username)):
        connection.execute(sa.update(players).where(players.c.id == player_id)
                           .values(username_skeleton=skeleton(username)))
    op.create_index(op.f("ix_players_username_skeleton"), "players", ["username_skeleton"])


def downgrade() -> None:
    op.drop_index(op.f("ix_players_username_skeleton"), table_name="players")
    with op.batch_alter_table("players") as batch:
        batch.drop_column("username_skeleton")
    with op.batch_alter_table("sessions") as batch:
        batch.drop_column("last_seen_at")
