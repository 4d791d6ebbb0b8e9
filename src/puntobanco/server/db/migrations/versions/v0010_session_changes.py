"""One row that counts every change that can end a session (issue 21, fifth pass).

Every batch of bets checked its requests' sessions with a query of ``sessions`` joined to
``players`` (by a 64-character hash: ~12 µs a bet on SQLite, the largest statement of a batch
after its ``COMMIT``). The sessions a batch has seen live are now remembered by the server
with this count as it was when they were read: while the count has not moved, no session was
deleted (a log-out, a log-out everywhere, a suspension's, another process's ``operator-password``)
and no player's ``suspended`` changed, so a remembered session is still live until its own
lifetimes say otherwise, and the batch reads this one row instead
(``db/auth.py``, ``KnownSessions``). The count is kept by the database itself, triggers on
``sessions`` and ``players``, so that a change made by any process or tool is seen.

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

#: (trigger, its event) — each adds one to ``session_changes.serial``
TRIGGERS = (
    ("tr_sessions_deleted", "AFTER DELETE ON sessions"),
    ("tr_sessions_changed", "AFTER UPDATE OF token_hash, player_id, created_at ON sessions"),
    ("tr_players_suspended", "AFTER UPDATE OF suspended ON players"),
    ("tr_players_deleted", "AFTER DELETE ON players"),
)
BUMP = "UPDATE session_changes SET serial = serial + 1"


def upgrade() -> None:
    op.create_table(
        "session_changes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("serial", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_session_changes")),
    )
    op.execute("INSERT INTO session_changes (id, serial) VALUES (1, 0)")
    if op.get_bind().dialect.name == "postgresql":
        op.execute("CREATE FUNCTION session_changed() RETURNS trigger LANGUAGE plpgsql AS "
                   f"$$ BEGIN {BUMP}; RETURN NULL; END $$")
        for name, event in TRIGGERS:
            op.execute(f"CREATE TRIGGER {name} {event} FOR EACH STATEMENT "
                       "EXECUTE FUNCTION session_changed()")
    else:
        for name, event in TRIGGERS:
            op.execute(f"CREATE TRIGGER {name} {event} BEGIN {BUMP}; END")


def downgrade() -> None:
    postgresql = op.get_bind().dialect.name == "postgresql"
    for name, event in reversed(TRIGGERS):
        table = event.rsplit(" ", 1)[1]
        op.execute(f"DROP TRIGGER {name} ON {table}" if postgresql else f"DROP TRIGGER {name}")
    if postgresql:
        op.execute("DROP FUNCTION session_changed()")
    op.drop_table("session_changes")
