"""The double-entry ledger: every movement of money is one transaction of two entries.

:func:`transfer` (one move) and :func:`post` (many, for a settlement) are the only functions
that move money. Each move is a
:class:`~puntobanco.server.db.models.LedgerTransaction` with its reason, coup, bet and player, one
entry out of the source account (−amount) and one into the target (+amount), and updates both
cached balances with atomic ``UPDATE … SET balance = balance + :amount`` statements, so
concurrent writers never lose an update. With ``require_funds`` the debit is conditional
(``… WHERE balance >= :amount``): a wallet can never go below zero, even when two tables take
money from it at the same moment.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple, cast

from sqlalchemy import Connection, Table, bindparam, func, select, text, update
from sqlalchemy.orm import Session

from puntobanco.errors import BetRefused, ErrorCode
from puntobanco.money import format_cents
from puntobanco.server.db import bulk
from puntobanco.server.db.models import (
    Account,
    LedgerEntry,
    LedgerTransaction,
    Timestamp,
    utcnow,
)

ISSUER_CODE = "play-money"


def wallet_code(player_id: int) -> str:
    return f"wallet:{player_id}"


def in_play_code(table_id: int) -> str:
    return f"in-play:{table_id}"


def house_code(table_id: int) -> str:
    return f"house:{table_id}"


def ensure_account(session: Session, code: str, *, kind: str, player_id: int | None = None,
                   table_id: int | None = None) -> Account:
    """The account with this code, created (with a zero balance) if it does not exist yet."""
    account = session.scalars(select(Account).where(Account.code == code)).one_or_none()
    if account is None:
        account = Account(code=code, kind=kind, player_id=player_id, table_id=table_id, balance=0)
        session.add(account)
        session.flush()
    return account


def account_id(session: Session, code: str) -> int:
    """The id of an existing account."""
    return session.execute(select(Account.id).where(Account.code == code)).scalar_one()


def balance(session: Session, code: str) -> int:
    """An account's cached balance, in cents."""
    return session.execute(select(Account.balance).where(Account.code == code)).scalar_one()


def wallet_balance(session: Session, player_id: int) -> int:
    return balance(session, wallet_code(player_id))


class Move(NamedTuple):
    """One transfer to post: ``amount`` cents from account ``source`` to account ``target``
    (a positive amount: :func:`post` refuses any other before it writes anything). A tuple,
    not a frozen dataclass: a batch of bets makes one a bet, and the dataclass's ``__init__``
    (``object.__setattr__`` a field) cost ~1.3 µs of the event loop each (issue 21, sixth
    pass)."""

    source: int
    target: int
    amount: int
    reason: str
    coup_id: int | None = None
    bet_id: int | None = None
    player_id: int | None = None


def _positive(moves: Sequence[Move]) -> None:
    for move in moves:
        if move.amount <= 0:
            raise ValueError(f"A transfer moves a positive amount, not {move.amount}.")


@dataclass(frozen=True, slots=True)
class Moved:
    """A transfer made: both accounts' balances after it."""

    source_balance: int
    target_balance: int


def _journal(writes: bulk.Writes, moves: Sequence[Move]) -> None:
    """Write each move's transaction and its two entries (balances are the caller's)."""
    now = utcnow()
    ids = writes.insert_with_ids(TRANSACTIONS, _TRANSACTION_COLUMNS, [
        (m.reason, m.coup_id, m.bet_id, m.player_id, now) for m in moves])
    writes.insert(_ENTRIES, _ENTRY_COLUMNS, [
        entry for move, transaction_id in zip(moves, ids, strict=True)
        for entry in ((transaction_id, move.source, -move.amount),
                      (transaction_id, move.target, move.amount))])


_TRANSACTION_COLUMNS = ("reason", "coup_id", "bet_id", "player_id", "created_at")
_ENTRY_COLUMNS = ("transaction_id", "account_id", "amount")


def transfer(
    session: Session,
    source: int,
    target: int,
    amount: int,
    *,
    reason: str,
    coup_id: int | None = None,
    bet_id: int | None = None,
    player_id: int | None = None,
    require_funds: bool = False,
) -> Moved:
    """Move ``amount`` cents from account ``source`` to account ``target`` (ids).

    With ``require_funds`` a source holding less than ``amount`` refuses the move with
    ``insufficient-balance`` and changes nothing.
    """
    move = Move(source, target, amount, reason, coup_id, bet_id, player_id)
    _positive([move])
    source_balance = take(session, source, amount, require_funds=require_funds)
    target_balance = give(session, target, amount)
    writes = bulk.Writes(session.connection())
    _journal(writes, [move])
    writes.flush()
    return Moved(source_balance, target_balance)


def take(session: Session, account: int, amount: int, *, require_funds: bool = True) -> int:
    """Debit an account's cached balance for a move journaled by :func:`post` (``applied``);
    returns the balance after it. With ``require_funds`` the debit is conditional
    (``… WHERE balance >= :amount``) and a short account refuses with ``insufficient-balance``,
    changing nothing."""
    params = {"account": account, "amount": amount}
    statement = _TAKE_IF_FUNDED if require_funds else _TAKE
    balance_after = session.connection().execute(statement, params).scalar_one_or_none()
    if balance_after is None:
        available = session.execute(select(Account.balance).where(Account.id == account)).scalar_one()
        raise BetRefused(f"{format_cents(amount)} is more than the {format_cents(available)} "
                         "available.", code=ErrorCode.INSUFFICIENT_BALANCE, available=available)
    return int(balance_after)


def give(session: Session, account: int, amount: int) -> int:
    """Credit an account's cached balance (see :func:`take`); returns the balance after it."""
    return int(session.connection().execute(_GIVE, {"account": account, "amount": amount})
               .scalar_one())


def short_of(amount: int, available: int) -> BetRefused:
    """The refusal of a debit the account cannot cover."""
    return BetRefused(f"{format_cents(amount)} is more than the {format_cents(available)} "
                      "available.", code="insufficient-balance")


# Built once: the hot path of every bet runs them through SQLAlchemy's statement cache, as Core
# statements (an ORM update would also look for the rows in the session each time).
_ACCOUNTS = cast(Table, Account.__table__)
TRANSACTIONS = cast(Table, LedgerTransaction.__table__)
_ENTRIES = cast(Table, LedgerEntry.__table__)
_TAKE = (update(_ACCOUNTS).where(_ACCOUNTS.c.id == bindparam("account"))
         .values(balance=_ACCOUNTS.c.balance - bindparam("amount"))
         .returning(_ACCOUNTS.c.balance))
_TAKE_IF_FUNDED = _TAKE.where(_ACCOUNTS.c.balance >= bindparam("amount"))
_GIVE = (update(_ACCOUNTS).where(_ACCOUNTS.c.id == bindparam("account"))
         .values(balance=_ACCOUNTS.c.balance + bindparam("amount"))
         .returning(_ACCOUNTS.c.balance))


def post(session: Session | Connection, moves: Sequence[Move], *, applied: Collection[int] = (),
         writes: bulk.Writes | None = None, locked: Collection[int] = ()) -> None:
    """Post many transfers at once (a settlement, a batch of bets): every one its own
    transaction of two entries, and each account's balance changed by one update (in account
    order, so that two writers never wait on each other in opposite orders). No funds check:
    take money from a wallet with :func:`take` (conditional) first and name that account in
    ``applied``, whose balance this call then leaves alone.

    With ``writes``, the caller's :class:`~puntobanco.server.db.bulk.Writes` (the caller
    flushes it); draw the ids of the ``len(moves)`` new :data:`TRANSACTIONS` with its own.
    ``locked``: accounts the caller already holds ``FOR UPDATE`` (read in account order).
    """
    if not moves:
        return
    _positive(moves)
    own = writes is None
    if writes is None:
        writes = bulk.Writes(bulk.connection_of(session))
    _journal(writes, moves)
    deltas: dict[int, int] = defaultdict(int)
    for move in moves:
        deltas[move.source] -= move.amount
        deltas[move.target] += move.amount
    changes = [(account, delta) for account, delta in sorted(deltas.items())
               if delta and account not in applied]
    connection = writes.connection
    if changes and writes.postgresql:  # locked in account order first
        accounts = [account for account, _ in changes]
        if not set(accounts) <= set(locked):
            found = connection.exec_driver_sql(_LOCK_ACCOUNTS, (accounts,)).all()
            _all_found(accounts, [account for account, in found])
        writes.add(_ADD_TO_BALANCES, (bulk.packed(accounts, "INTEGER"),
                                      bulk.packed([delta for _, delta in changes], "BIGINT")))
    elif changes:  # one statement, many parameter sets, in account order
        changed = bulk.changed(connection, "UPDATE accounts SET balance = balance + ? WHERE id = ?",
                               [(delta, account) for account, delta in changes])
        if changed != len(changes):
            _all_found([account for account, _ in changes], [
                account for account, in bulk.execute(
                    connection, "SELECT id FROM accounts WHERE id IN "
                    "(SELECT value FROM json_each(?))",
                    (bulk.json_list(account for account, _ in changes),))])
    if own:
        writes.flush()


def post_settlement(connection: Connection, *, coup_id: int, in_play: int, house: int) -> None:
    """Post a settled coup's moves as :func:`post` posts them — each its transaction of two
    entries (out of the source, into the target), the transactions in the lines' order and
    within a line ``house-pay`` before ``payout``, each account's balance changed once — but
    derived by the database from the coup's settlement lines, written first by the caller in
    this transaction (issue 21, seventh pass: 3,000 moves a round of 2,000 bets built,
    converted and bound one by one in Python cost more than the database's own work; the
    rows are the same, ``tests/server/test_settlement_rows.py``). A line lost moves its stake
    in-play → house (``house-win``); one won or returned moves its net winnings house →
    in-play (``house-pay``, when positive), then what it returns in-play → wallet
    (``payout``). Every amount is positive: the caller checked each line's.

    On PostgreSQL the accounts are locked in id order first, as :func:`post` locks them, and
    the rest is one statement; on SQLite (one writer) the entries and balances find the new
    transactions by their ids, which SQLite gives one after the other."""
    params = {"coup": coup_id, "in_play": in_play, "house": house, "now": utcnow()}
    if bulk.is_postgresql(connection):
        connection.execute(_LOCK_SETTLED, params)
        connection.execute(_SETTLEMENT_PG, params)
        return
    inserted = connection.execute(_TRANSACTIONS_SQLITE, params)
    last, count = inserted.lastrowid, inserted.rowcount
    if not count:
        return
    entries = connection.execute(_ENTRIES_SQLITE, {**params, "first": last - count + 1,
                                                   "last": last})
    last, count = entries.lastrowid, entries.rowcount
    connection.execute(_SETTLEMENT_BALANCES, {"first": last - count + 1, "last": last})


#: a settlement's moves, one row per (line, move): ``n`` orders a line's moves
_SETTLEMENT_MOVES = (
    "(SELECT 0 AS n, 'house-win' AS reason UNION ALL SELECT 1, 'house-pay' "
    "UNION ALL SELECT 2, 'payout') AS m ON (m.n = 0 AND l.outcome = 'lose') OR (m.n = 1 AND "
    "l.outcome <> 'lose' AND l.net > 0) OR (m.n = 2 AND l.outcome <> 'lose')")
_SETTLEMENT_TRANSACTIONS = (
    "INSERT INTO ledger_transactions (reason, coup_id, bet_id, player_id, created_at) "
    f"SELECT m.reason, l.coup_id, l.bet_id, l.player_id, :now FROM settlement_lines AS l JOIN "
    f"{_SETTLEMENT_MOVES} WHERE l.coup_id = :coup ORDER BY l.id, m.n{{}}")
#: each move's reason, bet, player, amount, source and target, in the moves' order
_SETTLEMENT_MOVE_ROWS = (
    "SELECT m.reason, l.bet_id, l.player_id, CASE m.n WHEN 0 THEN l.stake WHEN 1 THEN l.net "
    "ELSE l.returned END AS amount, CASE m.n WHEN 1 THEN :house ELSE :in_play END AS source, "
    "CASE m.n WHEN 0 THEN :house WHEN 1 THEN :in_play ELSE (SELECT w.id FROM accounts AS w "
    "WHERE w.player_id = l.player_id AND w.kind = 'wallet') END AS target "
    f"FROM settlement_lines AS l JOIN {_SETTLEMENT_MOVES} WHERE l.coup_id = :coup "
    "ORDER BY l.id, m.n")
#: each transaction's two entries: ``{}``, where the transactions come from and which
_SETTLEMENT_ENTRIES = (
    "INSERT INTO ledger_entries (transaction_id, account_id, amount) "
    "SELECT t.id, CASE WHEN s.side = 0 THEN (CASE t.reason WHEN 'house-pay' THEN :house "
    "ELSE :in_play END) ELSE (CASE t.reason WHEN 'house-win' THEN :house "
    "WHEN 'house-pay' THEN :in_play ELSE (SELECT w.id FROM accounts AS w "
    "WHERE w.player_id = t.player_id AND w.kind = 'wallet') END) END, "
    "(CASE t.reason WHEN 'house-win' THEN l.stake WHEN 'house-pay' THEN l.net "
    "ELSE l.returned END) * (2 * s.side - 1) "
    "{} JOIN settlement_lines AS l ON l.bet_id = t.bet_id "
    "CROSS JOIN (SELECT 0 AS side UNION ALL SELECT 1) AS s "
    "{} ORDER BY t.id, s.side")
_SETTLEMENT_BALANCES = text(
    "UPDATE accounts SET balance = balance + (SELECT SUM(e.amount) FROM ledger_entries AS e "
    "WHERE e.account_id = accounts.id AND e.id BETWEEN :first AND :last) "
    "WHERE id IN (SELECT account_id FROM ledger_entries WHERE id BETWEEN :first AND :last "
    "GROUP BY account_id HAVING SUM(amount) <> 0)")
#: PostgreSQL: the moves (:data:`_SETTLEMENT_MOVE_ROWS`) with their transactions' ids drawn in
#: their order, each transaction, its entries and the balances written from them at once
_SETTLEMENT_PG = text(
    f"WITH o AS MATERIALIZED ({_SETTLEMENT_MOVE_ROWS}), "
    "v AS (SELECT nextval(s.seq) AS id, o.* FROM o CROSS JOIN (SELECT "
    "CAST(pg_get_serial_sequence('ledger_transactions', 'id') AS regclass) AS seq OFFSET 0) "
    "AS s), "
    "t AS (INSERT INTO ledger_transactions (id, reason, coup_id, bet_id, player_id, "
    "created_at) SELECT id, reason, :coup, bet_id, player_id, :now FROM v), "
    "e AS (INSERT INTO ledger_entries (transaction_id, account_id, amount) "
    "SELECT id, account, amount FROM (SELECT id, 0 AS side, source AS account, "
    "-amount AS amount FROM v UNION ALL SELECT id, 1, target, amount FROM v) AS x "
    "ORDER BY id, side) "
    "UPDATE accounts SET balance = accounts.balance + d.delta FROM (SELECT account, "
    "CAST(SUM(amount) AS BIGINT) AS delta FROM (SELECT source AS account, -amount AS amount "
    "FROM v UNION ALL SELECT target, amount FROM v) AS y GROUP BY account "
    "HAVING SUM(amount) <> 0) AS d WHERE accounts.id = d.account"
).bindparams(bindparam("now", type_=Timestamp))
_TRANSACTIONS_SQLITE = text(_SETTLEMENT_TRANSACTIONS.format("")).bindparams(
    bindparam("now", type_=Timestamp))
_ENTRIES_SQLITE = text(_SETTLEMENT_ENTRIES.format(
    "FROM ledger_transactions AS t", "WHERE t.id BETWEEN :first AND :last"))
#: the accounts a settlement changes, locked in id order (PostgreSQL)
_LOCK_SETTLED = text(
    "SELECT id FROM accounts WHERE id = :in_play OR id = :house OR (kind = 'wallet' AND "
    "player_id IN (SELECT player_id FROM settlement_lines WHERE coup_id = :coup AND "
    "outcome <> 'lose')) ORDER BY id FOR UPDATE")


def _all_found(accounts: Collection[int], found: Collection[int]) -> None:
    """Refuse a post naming an account that does not exist: the entries name their accounts
    without a foreign key (migration 0008), so this is where an entry's account is checked;
    ``locked`` and ``applied`` accounts were read by the caller's transaction already."""
    missing = sorted(set(accounts) - set(found))
    if missing:
        raise LookupError(f"no account {', '.join(map(str, missing))}: nothing is posted")


_LOCK_ACCOUNTS = ("SELECT id FROM accounts WHERE id = ANY(CAST(%b AS INTEGER[])) ORDER BY id "
                  "FOR UPDATE")
_ADD_TO_BALANCES = ("UPDATE accounts SET balance = accounts.balance + change.delta "
                    "FROM unnest(CAST(%b AS INTEGER[]), CAST(%b AS BIGINT[])) "
                    "AS change(id, delta) WHERE accounts.id = change.id")


@dataclass(frozen=True, slots=True)
class LedgerAudit:
    """What :func:`audit` found: empty lists and a zero total mean the books balance."""

    total: int
    unbalanced_transactions: list[int]
    wrong_balances: list[tuple[str, int, int]]  # (account code, cached balance, sum of entries)
    negative_wallets: list[str]
    #: rows naming a parent that does not exist, as ``"table.column"`` → the first ids found
    #: (the money's rows have no foreign keys since migration 0008: :data:`PARENTS`)
    orphans: dict[str, list[int]] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not (self.total or self.unbalanced_transactions or self.wrong_balances
                    or self.negative_wallets or self.orphans)


#: (table, column, parent table) of the references the database does not check (migration
#: 0008 dropped their foreign keys: the code that writes them does; :func:`audit` reports any
#: row they would have refused)
PARENTS = (
    ("bets", "coup_id", "coups"),
    ("bets", "player_id", "players"),
    ("ledger_entries", "transaction_id", "ledger_transactions"),
    ("ledger_entries", "account_id", "accounts"),
    ("ledger_transactions", "coup_id", "coups"),
    ("ledger_transactions", "bet_id", "bets"),
    ("ledger_transactions", "player_id", "players"),
    ("bet_requests", "player_id", "players"),
    ("bet_requests", "coup_id", "coups"),
    ("bet_requests", "bet_id", "bets"),
    ("settlement_lines", "coup_id", "coups"),
    ("settlement_lines", "bet_id", "bets"),
    ("settlement_lines", "player_id", "players"),
)


def orphans(session: Session) -> dict[str, list[int]]:
    """The rows of :data:`PARENTS` whose parent is missing: ``"table.column"`` → the ids of
    the first ten such rows (none: every reference holds)."""
    found: dict[str, list[int]] = {}
    for table, column, parent in PARENTS:
        ids = [row_id for row_id, in session.execute(text(
            f"SELECT c.id FROM {table} AS c WHERE c.{column} IS NOT NULL AND NOT EXISTS "
            f"(SELECT 1 FROM {parent} AS p WHERE p.id = c.{column}) ORDER BY c.id LIMIT 10"))]
        if ids:
            found[f"{table}.{column}"] = ids
    return found


def audit(session: Session) -> LedgerAudit:
    """Check the ledger's invariants: entries sum to zero overall and per transaction (each
    transaction has exactly two entries), and every account's balance is the sum of its entries.
    Every reference the database no longer checks holds (:func:`orphans`). Its queries must read
    one snapshot while a server writes (REPEATABLE READ on PostgreSQL).
    """
    total = session.execute(select(func.coalesce(func.sum(LedgerEntry.amount), 0))).scalar_one()
    unbalanced = list(session.scalars(
        select(LedgerEntry.transaction_id).group_by(LedgerEntry.transaction_id)
        .having((func.sum(LedgerEntry.amount) != 0) | (func.count() != 2))))
    missing = list(session.scalars(
        select(LedgerTransaction.id).where(~LedgerTransaction.id.in_(
            select(LedgerEntry.transaction_id)))))
    sums = dict(session.execute(
        select(LedgerEntry.account_id, func.sum(LedgerEntry.amount))
        .group_by(LedgerEntry.account_id)).all())
    wrong: list[tuple[str, int, int]] = []
    negative: list[str] = []
    for account in session.scalars(select(Account)):
        entries = int(sums.get(account.id, 0))
        if account.balance != entries:
            wrong.append((account.code, account.balance, entries))
        if account.kind == "wallet" and account.balance < 0:
            negative.append(account.code)
    return LedgerAudit(int(total), sorted(unbalanced + missing), wrong, negative,
                       orphans(session))
