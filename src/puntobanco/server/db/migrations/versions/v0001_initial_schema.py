"""The initial schema: players, sessions, tables, accounts, shoes, coups, bets, ledger.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "players",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("username", sa.String(length=32), nullable=False),
        sa.Column("username_key", sa.String(length=32), nullable=False),
        sa.Column("password_hash", sa.String(length=100), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("lang", sa.String(length=2), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("role IN ('player', 'operator')", name=op.f("ck_players_role")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_players")),
        sa.UniqueConstraint("username_key", name=op.f("uq_players_username_key")),
    )
    op.create_table(
        "tables",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("rules", sa.JSON(), nullable=False),
        sa.Column("betting_seconds", sa.Float(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tables")),
        sa.UniqueConstraint("name", name=op.f("uq_tables_name")),
    )
    op.create_table(
        "accounts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("code", sa.String(length=40), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=True),
        sa.Column("table_id", sa.Integer(), nullable=True),
        sa.Column("balance", sa.BigInteger(), nullable=False),
        sa.CheckConstraint("kind <> 'wallet' OR balance >= 0", name=op.f("ck_accounts_wallet_not_negative")),
        sa.CheckConstraint("kind IN ('wallet', 'in-play', 'house', 'issuer')", name=op.f("ck_accounts_kind")),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"], name=op.f("fk_accounts_player_id_players")),
        sa.ForeignKeyConstraint(["table_id"], ["tables.id"], name=op.f("fk_accounts_table_id_tables")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_accounts")),
        sa.UniqueConstraint("code", name=op.f("uq_accounts_code")),
    )
    op.create_index("ix_accounts_player_id", "accounts", ["player_id"])
    op.create_index("ix_accounts_table_id", "accounts", ["table_id"])

    op.create_table(
        "sessions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_sessions_player_id_players"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sessions")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_sessions_token_hash")),
    )
    op.create_index("ix_sessions_player_id", "sessions", ["player_id"])

    op.create_table(
        "shoes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("shoe_no", sa.Integer(), nullable=False),
        sa.Column("card_order", sa.Text(), nullable=False),
        sa.Column("salt", sa.String(length=64), nullable=False),
        sa.Column("commitment", sa.String(length=64), nullable=False),
        sa.Column("rules", sa.JSON(), nullable=False),
        sa.Column("cut_index", sa.Integer(), nullable=False),
        sa.Column("burned", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint("status IN ('dealing', 'finished')", name=op.f("ck_shoes_status")),
        sa.ForeignKeyConstraint(["table_id"], ["tables.id"], name=op.f("fk_shoes_table_id_tables")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_shoes")),
        sa.UniqueConstraint("table_id", "shoe_no", name="uq_shoes_table_shoe_no"),
    )
    op.create_index("ix_shoes_table_id", "shoes", ["table_id"])

    op.create_table(
        "coups",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("shoe_id", sa.Integer(), nullable=False),
        sa.Column("round_no", sa.Integer(), nullable=False),
        sa.Column("coup_in_shoe", sa.Integer(), nullable=False),
        sa.Column("last_coup", sa.Boolean(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("cards", sa.Text(), nullable=True),
        sa.Column("first_card", sa.Integer(), nullable=True),
        sa.Column("punto_cards", sa.String(length=12), nullable=True),
        sa.Column("banco_cards", sa.String(length=12), nullable=True),
        sa.Column("punto_total", sa.Integer(), nullable=True),
        sa.Column("banco_total", sa.Integer(), nullable=True),
        sa.Column("winner", sa.String(length=8), nullable=True),
        sa.Column("natural", sa.Boolean(), nullable=True),
        sa.Column("margin", sa.Integer(), nullable=True),
        sa.Column("opened_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("dealt_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("settled_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint(
            "status IN ('open', 'closed', 'dealt', 'settled', 'void')", name=op.f("ck_coups_status")
        ),
        sa.ForeignKeyConstraint(["shoe_id"], ["shoes.id"], name=op.f("fk_coups_shoe_id_shoes")),
        sa.ForeignKeyConstraint(["table_id"], ["tables.id"], name=op.f("fk_coups_table_id_tables")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_coups")),
        sa.UniqueConstraint("table_id", "round_no", name="uq_coups_table_round_no"),
    )
    op.create_index("ix_coups_shoe_id", "coups", ["shoe_id"])

    op.create_table(
        "bets",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("coup_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=12), nullable=False),
        sa.Column("stake", sa.BigInteger(), nullable=False),
        sa.Column("status", sa.String(length=12), nullable=False),
        sa.Column("placed_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "status IN ('active', 'withdrawn', 'settled', 'refunded')", name=op.f("ck_bets_status")
        ),
        sa.CheckConstraint("stake >= 0", name=op.f("ck_bets_stake_not_negative")),
        sa.ForeignKeyConstraint(["coup_id"], ["coups.id"], name=op.f("fk_bets_coup_id_coups")),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"], name=op.f("fk_bets_player_id_players")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_bets")),
        sa.UniqueConstraint("coup_id", "player_id", "kind", name="uq_bets_coup_player_kind"),
    )
    op.create_index("ix_bets_player_id", "bets", ["player_id"])

    op.create_table(
        "bet_requests",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("idempotency_key", sa.String(length=100), nullable=False),
        sa.Column("fingerprint", sa.String(length=80), nullable=False),
        sa.Column("coup_id", sa.Integer(), nullable=False),
        sa.Column("bet_id", sa.Integer(), nullable=False),
        sa.Column("response", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["bet_id"], ["bets.id"], name=op.f("fk_bet_requests_bet_id_bets")),
        sa.ForeignKeyConstraint(["coup_id"], ["coups.id"], name=op.f("fk_bet_requests_coup_id_coups")),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_bet_requests_player_id_players")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_bet_requests")),
        sa.UniqueConstraint("player_id", "idempotency_key", name="uq_bet_requests_player_key"),
    )
    op.create_table(
        "ledger_transactions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("reason", sa.String(length=16), nullable=False),
        sa.Column("coup_id", sa.Integer(), nullable=True),
        sa.Column("bet_id", sa.Integer(), nullable=True),
        sa.Column("player_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "reason IN ('welcome', 'credit', 'stake', 'withdrawal', 'payout', 'house-win', "
            "'house-pay', 'refund')",
            name=op.f("ck_ledger_transactions_reason"),
        ),
        sa.ForeignKeyConstraint(["bet_id"], ["bets.id"], name=op.f("fk_ledger_transactions_bet_id_bets")),
        sa.ForeignKeyConstraint(["coup_id"], ["coups.id"], name=op.f("fk_ledger_transactions_coup_id_coups")),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_ledger_transactions_player_id_players")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ledger_transactions")),
    )
    op.create_index("ix_ledger_transactions_bet_id", "ledger_transactions", ["bet_id"])
    op.create_index("ix_ledger_transactions_coup_id", "ledger_transactions", ["coup_id"])
    op.create_index("ix_ledger_transactions_player_id", "ledger_transactions", ["player_id"])

    op.create_table(
        "settlement_lines",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("coup_id", sa.Integer(), nullable=False),
        sa.Column("bet_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=12), nullable=False),
        sa.Column("stake", sa.BigInteger(), nullable=False),
        sa.Column("outcome", sa.String(length=8), nullable=False),
        sa.Column("net", sa.BigInteger(), nullable=False),
        sa.Column("returned", sa.BigInteger(), nullable=False),
        sa.Column("pays", sa.String(length=32), nullable=False),
        sa.Column("detail", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(["bet_id"], ["bets.id"], name=op.f("fk_settlement_lines_bet_id_bets")),
        sa.ForeignKeyConstraint(["coup_id"], ["coups.id"], name=op.f("fk_settlement_lines_coup_id_coups")),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_settlement_lines_player_id_players")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_settlement_lines")),
        sa.UniqueConstraint("bet_id", name=op.f("uq_settlement_lines_bet_id")),
        sa.UniqueConstraint("coup_id", "player_id", "seq", name="uq_settlement_lines_order"),
    )
    op.create_index("ix_settlement_lines_coup_id", "settlement_lines", ["coup_id"])
    op.create_index("ix_settlement_lines_player_id", "settlement_lines", ["player_id"])

    op.create_table(
        "ledger_entries",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("transaction_id", sa.Integer(), nullable=False),
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.CheckConstraint("amount <> 0", name=op.f("ck_ledger_entries_amount_not_zero")),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name=op.f("fk_ledger_entries_account_id_accounts")
        ),
        sa.ForeignKeyConstraint(
            ["transaction_id"],
            ["ledger_transactions.id"],
            name=op.f("fk_ledger_entries_transaction_id_ledger_transactions"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ledger_entries")),
    )
    op.create_index("ix_ledger_entries_account", "ledger_entries", ["account_id", "id"])
    op.create_index("ix_ledger_entries_transaction_id", "ledger_entries", ["transaction_id"])


def downgrade() -> None:
    op.drop_index("ix_ledger_entries_transaction_id", table_name="ledger_entries")
    op.drop_index("ix_ledger_entries_account", table_name="ledger_entries")

    op.drop_table("ledger_entries")
    op.drop_index("ix_settlement_lines_player_id", table_name="settlement_lines")
    op.drop_index("ix_settlement_lines_coup_id", table_name="settlement_lines")

    op.drop_table("settlement_lines")
    op.drop_index("ix_ledger_transactions_player_id", table_name="ledger_transactions")
    op.drop_index("ix_ledger_transactions_coup_id", table_name="ledger_transactions")
    op.drop_index("ix_ledger_transactions_bet_id", table_name="ledger_transactions")

    op.drop_table("ledger_transactions")
    op.drop_table("bet_requests")
    op.drop_index("ix_bets_player_id", table_name="bets")

    op.drop_table("bets")
    op.drop_index("ix_coups_shoe_id", table_name="coups")

    op.drop_table("coups")
    op.drop_index("ix_shoes_table_id", table_name="shoes")

    op.drop_table("shoes")
    op.drop_index("ix_sessions_player_id", table_name="sessions")

    op.drop_table("sessions")
    op.drop_index("ix_accounts_table_id", table_name="accounts")
    op.drop_index("ix_accounts_player_id", table_name="accounts")

    op.drop_table("accounts")
    op.drop_table("tables")
    op.drop_table("players")
