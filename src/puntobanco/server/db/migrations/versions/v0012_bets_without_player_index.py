"""A bet row carries no index by player (issue 21, sixth pass).

``ix_bets_player_id`` took one entry a bet, on a page of its own for each player of a batch
(the index is ordered by player; a batch's players are a crowd's): ~7 of a batch of 30's 52
pages of log and ~5 µs of every bet on the event loop (SQLite, in-process A/B: 93.7 → 87.7
and 79.8 → 74.0 µs a bet). Its one reader, a player's recent coups (``GET /api/me/coups``,
``recall.recent_coups``), finds them from the player's wallet instead: each stake's ``stake``
transaction names its coup, and the wallet's entries are indexed by account
(``ix_ledger_entries_account``); the bets' unique key, which begins with the coup, says
whether a bet is still on it.

Revision ID: 0012
Revises: 0011
"""

from __future__ import annotations

from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.drop_index("ix_bets_player_id", table_name="bets")


def downgrade() -> None:
    op.create_index("ix_bets_player_id", "bets", ["player_id"])
