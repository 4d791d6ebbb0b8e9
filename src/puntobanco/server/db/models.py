"""The database schema as SQLAlchemy 2 models (the Alembic migrations create exactly this).

Money is integer cents (``BigInteger``). The ledger is double-entry: every movement of money is a
:class:`LedgerTransaction` with exactly two :class:`LedgerEntry` rows that sum to zero, and an
account's cached ``balance`` always equals the sum of its entries. Accounts:

``wallet:<player>``     a player's play money;
``in-play:<table>``     stakes on a table's current coup, from the bet until its settlement;
``house:<table>``       the table's bank: what it won and paid;
``play-money``          the issuer of play money (welcome credits and operator credits).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    CheckConstraint,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    false,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def utcnow() -> datetime:
    """The current time, timezone-aware UTC."""
    return datetime.now(UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


Timestamp = DateTime(timezone=True)


#: the roles of an account; a dealer drives the hand-dealt tables assigned to it (docs/dealer.md)
ROLES = ("player", "operator", "dealer")


class Player(Base):
    """A person who plays (or the operator). Passwords are stored as bcrypt hashes only."""

    __tablename__ = "players"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    username: Mapped[str] = mapped_column(String(32))
    #: the username in lower case: usernames are unique ignoring case
    username_key: Mapped[str] = mapped_column(String(32), unique=True)
    password_hash: Mapped[str] = mapped_column(String(100))
    role: Mapped[str] = mapped_column(String(16), default="player")
    lang: Mapped[str] = mapped_column(String(2), default="fr")
    created_at: Mapped[datetime] = mapped_column(Timestamp, default=utcnow)
    #: what the name looks like (``usernames.skeleton``): look-alike names are refused
    username_skeleton: Mapped[str | None] = mapped_column(String(64), index=True)
    #: a suspended player cannot sign in or bet (docs/operator.md; migration 0005)
    suspended: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())

    __table_args__ = (CheckConstraint("role IN ('player', 'operator', 'dealer')", name="role"),)


class LoginSession(Base):
    """A login: the token itself is only ever given to the client; its SHA-256 is stored."""

    __tablename__ = "sessions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(Timestamp, default=utcnow)
    #: the session's last use (renewed at most every few minutes): it ends when unused too long
    last_seen_at: Mapped[datetime | None] = mapped_column(Timestamp)


class SessionChanges(Base):
    """One row counting every change that can end a session: a session deleted or changed, a
    player's ``suspended`` changed or a player deleted — kept by the database's triggers
    (migration 0010), so a change by any process is counted. A session read live while
    ``serial`` had a value is still live, its lifetimes allowing, while ``serial`` keeps it
    (``db/auth.py``, ``KnownSessions``)."""

    __tablename__ = "session_changes"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    serial: Mapped[int] = mapped_column(BigInteger)


def table_name_key(name: str) -> str:
    """What makes two table names the same: the name case-folded ("QA1" and "qa1" clash)."""
    return name.casefold()


class GameTable(Base):
    """A table: its settings (the ``rules`` JSON of ``docs/api.md``; the next shoe uses them)."""

    __tablename__ = "tables"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    #: the name case-folded (:func:`table_name_key`): table names are unique ignoring case
    name_key: Mapped[str] = mapped_column(String(255), unique=True)
    rules: Mapped[dict[str, Any]] = mapped_column(JSON)
    betting_seconds: Mapped[float] = mapped_column(Float, default=15.0)
    created_at: Mapped[datetime] = mapped_column(Timestamp, default=utcnow)
    #: paused by the operator: the dealer opens no new round (migration 0005)
    paused: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    #: "server" (the server shuffles and deals) or "dealer" (a person deals a physical shoe)
    dealing: Mapped[str] = mapped_column(String(8), default="server", server_default="server")


#: PostgreSQL keeps half of each page of these tables free (migration 0009, issue 21): a row's
#: new version then fits beside the old one, a "HOT" update that writes no index entry. A
#: wallet's balance changes at every bet and settlement and a bet's status at its settlement;
#: on full pages 90 % of the balance updates and every bet's wrote a new entry in each of the
#: table's indexes (3-4), and the 5,000-player settlement took 0.2-0.4 s more of PostgreSQL.
HALF_FREE = {"postgresql_with": {"fillfactor": 50}}


def one_of(column: str, *values: str) -> str:
    """A check that ``column`` holds one of ``values``, as comparisons: SQLite builds a
    temporary index for an ``IN`` list of three or more at every run of the statement, so at
    every row of an ``executemany`` (~2.5 µs a bet row or ledger transaction; migration 0011).

    >>> one_of("status", "open", "shut")
    "status = 'open' OR status = 'shut'"
    """
    return " OR ".join(f"{column} = '{value}'" for value in values)


class Account(Base):
    """A ledger account; ``balance`` caches the sum of its entries (checked by the tests)."""

    __tablename__ = "accounts"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    code: Mapped[str] = mapped_column(String(40), unique=True)
    kind: Mapped[str] = mapped_column(String(16))
    player_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"), index=True)
    table_id: Mapped[int | None] = mapped_column(ForeignKey("tables.id"), index=True)
    balance: Mapped[int] = mapped_column(BigInteger, default=0)

    __table_args__ = (
        CheckConstraint("kind IN ('wallet', 'in-play', 'house', 'issuer')", name="kind"),
        CheckConstraint("kind <> 'wallet' OR balance >= 0", name="wallet_not_negative"),
        HALF_FREE,
    )


class ShoeRecord(Base):
    """A shoe: its secret order and salt, and the commitment published before it is dealt."""

    __tablename__ = "shoes"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("tables.id"), index=True)
    shoe_no: Mapped[int] = mapped_column(Integer)
    #: the whole order, burned cards first, as canonical card texts joined by spaces
    card_order: Mapped[str] = mapped_column(Text)
    salt: Mapped[str] = mapped_column(String(64))
    commitment: Mapped[str] = mapped_column(String(64))
    #: the rules JSON the shoe is dealt with
    rules: Mapped[dict[str, Any]] = mapped_column(JSON)
    cut_index: Mapped[int] = mapped_column(Integer)
    burned: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16), default="dealing")
    started_at: Mapped[datetime] = mapped_column(Timestamp, default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(Timestamp)
    #: "server" (order committed before dealing) or "dealer" (cards recorded as entered)
    dealing: Mapped[str] = mapped_column(String(8), default="server", server_default="server")
    #: a hand-dealt shoe: the coup during which the cut card came out, the last coup called
    cut_card_coup: Mapped[int | None] = mapped_column(Integer)
    last_coup_no: Mapped[int | None] = mapped_column(Integer)

    __table_args__ = (
        UniqueConstraint("table_id", "shoe_no", name="uq_shoes_table_shoe_no"),
        CheckConstraint("status IN ('dealing', 'finished')", name="status"),
    )


class CoupRecord(Base):
    """One round of a table: open for bets, closed, dealt, then settled exactly once (or void).

    The ``status`` column is the settlement guard: settling moves it from ``dealt`` to
    ``settled`` with a conditional update, so a retried settlement cannot pay twice.
    """

    __tablename__ = "coups"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("tables.id"))
    shoe_id: Mapped[int] = mapped_column(ForeignKey("shoes.id"), index=True)
    round_no: Mapped[int] = mapped_column(Integer)
    coup_in_shoe: Mapped[int] = mapped_column(Integer)
    last_coup: Mapped[bool] = mapped_column(Boolean, default=False)
    status: Mapped[str] = mapped_column(String(16), default="open")
    #: every card in dealing order (P, B, P, B, then the third cards), space separated
    cards: Mapped[str | None] = mapped_column(Text)
    #: how many cards of the shoe's order had been used before this coup's first card
    first_card: Mapped[int | None] = mapped_column(Integer)
    punto_cards: Mapped[str | None] = mapped_column(String(12))
    banco_cards: Mapped[str | None] = mapped_column(String(12))
    punto_total: Mapped[int | None] = mapped_column(Integer)
    banco_total: Mapped[int | None] = mapped_column(Integer)
    winner: Mapped[str | None] = mapped_column(String(8))
    natural: Mapped[bool | None] = mapped_column(Boolean)
    margin: Mapped[int | None] = mapped_column(Integer)
    opened_at: Mapped[datetime] = mapped_column(Timestamp, default=utcnow)
    dealt_at: Mapped[datetime | None] = mapped_column(Timestamp)
    settled_at: Mapped[datetime | None] = mapped_column(Timestamp)

    __table_args__ = (
        UniqueConstraint("table_id", "round_no", name="uq_coups_table_round_no"),
        CheckConstraint("status IN ('open', 'closed', 'dealt', 'settled', 'void')", name="status"),
        #: the reports pick coups by the time they were settled (migration 0005)
        Index("ix_coups_settled_at", "settled_at"),
    )


class BetRecord(Base):
    """A player's bet of one kind on one coup; ``stake`` is its current whole stake."""

    __tablename__ = "bets"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    #: no foreign keys (migration 0008, issue 21): the batch that writes a bet read its coup
    #: ``FOR SHARE`` as open and its player's wallet; ``ledger.audit`` checks them
    coup_id: Mapped[int] = mapped_column(Integer)
    #: no index of its own (migration 0012): a player's coups are found from their wallet's
    #: stakes (``recall.recent_coups``)
    player_id: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(12))
    stake: Mapped[int] = mapped_column(BigInteger)
    status: Mapped[str] = mapped_column(String(12), default="active")
    placed_at: Mapped[datetime] = mapped_column(Timestamp, default=utcnow)

    __table_args__ = (
        UniqueConstraint("coup_id", "player_id", "kind", name="uq_bets_coup_player_kind"),
        CheckConstraint("stake >= 0", name="stake_not_negative"),
        CheckConstraint(one_of("status", "active", "withdrawn", "settled", "refunded"),
                        name="status"),
        HALF_FREE,
    )


class BetRequest(Base):
    """An idempotency key a player sent with a bet, and the answer it got (sent again on retry)."""

    __tablename__ = "bet_requests"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int] = mapped_column(Integer)
    idempotency_key: Mapped[str] = mapped_column(String(100))
    #: table, bet and stake of the request: the same key with another bet is refused
    fingerprint: Mapped[str] = mapped_column(String(80))
    coup_id: Mapped[int] = mapped_column(Integer)
    bet_id: Mapped[int] = mapped_column(Integer)
    response: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(Timestamp, default=utcnow)

    __table_args__ = (
        UniqueConstraint("player_id", "idempotency_key", name="uq_bet_requests_player_key"),
    )


class OperatorRequest(Base):
    """An idempotency key an operator sent with a money action (a credit), and the answer it
    got: a retried click or request is answered again and moves no money (issue 18)."""

    __tablename__ = "operator_requests"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    operator_id: Mapped[int] = mapped_column(ForeignKey("players.id"))
    idempotency_key: Mapped[str] = mapped_column(String(100))
    #: the action, its target and amount: the same key for another action is refused
    fingerprint: Mapped[str] = mapped_column(String(80))
    response: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(Timestamp, default=utcnow)

    __table_args__ = (
        UniqueConstraint("operator_id", "idempotency_key", name="uq_operator_requests_key"),
    )


class SettlementLineRecord(Base):
    """One settled bet, as the core settled it; ``seq`` is its place in the spot's L6 order."""

    __tablename__ = "settlement_lines"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    #: no index of its own: ``uq_settlement_lines_order`` begins with it
    coup_id: Mapped[int] = mapped_column(Integer)
    bet_id: Mapped[int] = mapped_column(Integer, unique=True)
    player_id: Mapped[int] = mapped_column(Integer, index=True)
    seq: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(12))
    stake: Mapped[int] = mapped_column(BigInteger)
    outcome: Mapped[str] = mapped_column(String(8))
    net: Mapped[int] = mapped_column(BigInteger)
    returned: Mapped[int] = mapped_column(BigInteger)
    pays: Mapped[str] = mapped_column(String(32))
    detail: Mapped[str] = mapped_column(String(32))

    __table_args__ = (
        UniqueConstraint("coup_id", "player_id", "seq", name="uq_settlement_lines_order"),
    )


class LedgerTransaction(Base):
    """One movement of money: its reason, and the coup, bet and player it concerns."""

    __tablename__ = "ledger_transactions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    reason: Mapped[str] = mapped_column(String(16))
    #: coup, bet and player carry neither foreign keys nor indexes (migration 0008: no query
    #: looks a transaction up by them; what the game recalls is in ``settlement_lines``)
    coup_id: Mapped[int | None] = mapped_column(Integer)
    bet_id: Mapped[int | None] = mapped_column(Integer)
    player_id: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(Timestamp, default=utcnow)

    __table_args__ = (
        CheckConstraint(one_of("reason", "welcome", "credit", "stake", "withdrawal", "payout",
                               "house-win", "house-pay", "refund"), name="reason"),
    )


class LedgerEntry(Base):
    """One side of a transaction: ``amount`` cents into (+) or out of (−) one account."""

    __tablename__ = "ledger_entries"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    #: no index: entries are read by account (``ix_ledger_entries_account``) or all at once
    transaction_id: Mapped[int] = mapped_column(Integer)
    account_id: Mapped[int] = mapped_column(Integer)
    amount: Mapped[int] = mapped_column(BigInteger)

    __table_args__ = (
        CheckConstraint("amount <> 0", name="amount_not_zero"),
        Index("ix_ledger_entries_account", "account_id", "id"),
    )


class DealerTable(Base):
    """A dealer account assigned to a hand-dealt table (the operator assigns them)."""

    __tablename__ = "dealer_tables"

    dealer_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"),
                                           primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"),
                                          primary_key=True)


class DealerEntry(Base):
    """Everything a dealer entered on a hand-dealt shoe, in order, with its time and dealer.

    ``kind``: ``card`` (a coup's card: ``side`` and ``position``), ``burn`` (a burned card seen),
    ``counted`` (``count`` cards burned face down), ``cut-card``, ``last-coup``. ``status``:
    ``ok``; ``mistyped`` (replaced by the next entry of the same place); ``void`` (a misdeal's).
    """

    __tablename__ = "dealer_entries"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("tables.id"))
    shoe_id: Mapped[int] = mapped_column(ForeignKey("shoes.id"), index=True)
    coup_id: Mapped[int | None] = mapped_column(ForeignKey("coups.id"), index=True)
    kind: Mapped[str] = mapped_column(String(10))
    card: Mapped[str | None] = mapped_column(String(3))
    side: Mapped[str | None] = mapped_column(String(6))
    position: Mapped[int | None] = mapped_column(Integer)
    count: Mapped[int | None] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(10), default="ok")
    dealer_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"))
    entered_at: Mapped[datetime] = mapped_column(Timestamp, default=utcnow)

    __table_args__ = (
        CheckConstraint("kind IN ('card', 'burn', 'counted', 'cut-card', 'last-coup')",
                        name="kind"),
        CheckConstraint("status IN ('ok', 'mistyped', 'void')", name="status"),
    )


class AuditEntry(Base):
    """One operator action: who, what, on which table or player, the state before and after.

    Written in the same transaction as the action itself; never changed afterwards
    (``docs/operator.md``; migration 0005).
    """

    __tablename__ = "audit_log"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    at: Mapped[datetime] = mapped_column(Timestamp, default=utcnow)
    operator_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    action: Mapped[str] = mapped_column(String(32))
    target_kind: Mapped[str] = mapped_column(String(16))
    target_id: Mapped[int | None] = mapped_column(Integer)
    before: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    after: Mapped[dict[str, Any] | None] = mapped_column(JSON)

    __table_args__ = (
        CheckConstraint("target_kind IN ('table', 'player')", name="target_kind"),
        Index("ix_audit_log_target", "target_kind", "target_id"),
    )
