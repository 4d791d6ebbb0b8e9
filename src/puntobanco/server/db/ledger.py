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
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import func, insert, select, update
from sqlalchemy.orm import Session

from puntobanco.errors import BetRefused, ErrorCode
from puntobanco.money import format_cents
from puntobanco.server.db.models import Account, LedgerEntry, LedgerTransaction, utcnow

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


@dataclass(frozen=True, slots=True)
class Move:
    """One transfer to post: ``amount`` cents from account ``source`` to account ``target``."""

    source: int
    target: int
    amount: int
    reason: str
    coup_id: int | None = None
    bet_id: int | None = None
    player_id: int | None = None

    def __post_init__(self) -> None:
        if self.amount <= 0:
            raise ValueError(f"A transfer moves a positive amount, not {self.amount}.")


@dataclass(frozen=True, slots=True)
class Moved:
    """A transfer made: both accounts' balances after it."""

    source_balance: int
    target_balance: int


def _journal(session: Session, moves: Sequence[Move]) -> None:
    """Write each move's transaction and its two entries (balances are the caller's)."""
    now = utcnow()
    ids = session.scalars(
        insert(LedgerTransaction).returning(LedgerTransaction.id, sort_by_parameter_order=True),
        [{"reason": m.reason, "coup_id": m.coup_id, "bet_id": m.bet_id,
          "player_id": m.player_id, "created_at": now} for m in moves]).all()
    session.execute(insert(LedgerEntry), [
        entry for move, transaction_id in zip(moves, ids, strict=True)
        for entry in ({"transaction_id": transaction_id, "account_id": move.source,
                       "amount": -move.amount},
                      {"transaction_id": transaction_id, "account_id": move.target,
                       "amount": move.amount})])


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
    debit = update(Account).where(Account.id == source)
    if require_funds:
        debit = debit.where(Account.balance >= amount)
    source_balance = session.execute(debit.values(balance=Account.balance - amount)
                                     .returning(Account.balance)).scalar_one_or_none()
    if source_balance is None:
        available = session.execute(select(Account.balance).where(Account.id == source)).scalar_one()
        raise BetRefused(f"{format_cents(amount)} is more than the {format_cents(available)} "
                         "available.", code=ErrorCode.INSUFFICIENT_BALANCE, available=available)
    target_balance = session.execute(update(Account).where(Account.id == target)
                                     .values(balance=Account.balance + amount)
                                     .returning(Account.balance)).scalar_one()
    _journal(session, [move])
    return Moved(source_balance, target_balance)


def post(session: Session, moves: Sequence[Move]) -> None:
    """Post many transfers at once (a settlement): every one its own transaction of two
    entries, and each account's balance changed by one update (in account order, so that two
    writers never wait on each other in opposite orders). No funds check: use :func:`transfer`
    to take money from a wallet.
    """
    if not moves:
        return
    _journal(session, moves)
    deltas: dict[int, int] = defaultdict(int)
    for move in moves:
        deltas[move.source] -= move.amount
        deltas[move.target] += move.amount
    for account, delta in sorted(deltas.items()):
        if delta:
            session.execute(update(Account).where(Account.id == account)
                            .values(balance=Account.balance + delta))


@dataclass(frozen=True, slots=True)
class LedgerAudit:
    """What :func:`audit` found: empty lists and a zero total mean the books balance."""

    total: int
    unbalanced_transactions: list[int]
    wrong_balances: list[tuple[str, int, int]]  # (account code, cached balance, sum of entries)
    negative_wallets: list[str]

    @property
    def ok(self) -> bool:
        return not (self.total or self.unbalanced_transactions or self.wrong_balances
                    or self.negative_wallets)


def audit(session: Session) -> LedgerAudit:
    """Check the ledger's invariants: entries sum to zero overall and per transaction (each
    transaction has exactly two entries), and every account's balance is the sum of its entries.
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
    return LedgerAudit(int(total), sorted(unbalanced + missing), wrong, negative)
