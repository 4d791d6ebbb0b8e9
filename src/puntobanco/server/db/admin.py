"""The operator's writes and reads that the game itself does not need: renaming and pausing
tables, suspending players (their sessions end), refunding a suspended player's open bets,
finding players and reading a player's history (``docs/operator.md``), and the cards a shoe
had left before a coup (the live view of a table another server process deals)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from puntobanco.cards import composition_of, parse_cards
from puntobanco.errors import PuntoBancoError, RuleSetError
from puntobanco.server.db import auth, ledger
from puntobanco.server.db.audit import epoch_ms
from puntobanco.server.db.models import (
    Account,
    BetRecord,
    CoupRecord,
    GameTable,
    LedgerEntry,
    LedgerTransaction,
    OperatorRequest,
    Player,
    ShoeRecord,
    table_name_key,
)
from puntobanco.server.fair import replayed
from puntobanco.server.messages import IdempotencyConflict
from puntobanco.server.messages import NotFound as NotFound  # server-only errors: one module
from puntobanco.server.settings import table_rules_from_json


def table_row(session: Session, table_id: int) -> GameTable:
    row = session.get(GameTable, table_id)
    if row is None:
        raise NotFound(f"There is no table {table_id}.")
    return row


def player_row(session: Session, player_id: int) -> Player:
    row = session.get(Player, player_id)
    if row is None:
        raise NotFound(f"There is no player {player_id}.")
    return row


def rename_table(session: Session, table_id: int, name: str) -> tuple[str, str]:
    """Rename a table (names unique ignoring case); returns the old and the new name."""
    row = table_row(session, table_id)
    taken = session.scalars(select(GameTable.id).where(
        GameTable.name_key == table_name_key(name), GameTable.id != table_id)).first()
    if taken is not None:
        raise PuntoBancoError(f"A table named {name!r} exists.", code="table-name-taken")
    before = row.name
    row.name, row.name_key = name, table_name_key(name)
    session.flush()
    return before, name


def set_paused(session: Session, table_id: int, paused: bool) -> bool:
    """Store whether a table is paused; returns what it was."""
    row = table_row(session, table_id)
    before = bool(row.paused)
    row.paused = paused
    return before


def paused_tables(session: Session) -> set[int]:
    return set(session.scalars(select(GameTable.id).where(GameTable.paused.is_(True))))


def set_suspended(session: Session, player_id: int, suspended: bool) -> bool:
    """Suspend (and end every session of) a player, or lift the suspension; returns the old flag.

    An operator cannot be suspended (an operator who could lock every operator out would leave
    the casino without one).
    """
    row = player_row(session, player_id)
    if row.role == "operator" and suspended:
        raise PuntoBancoError("An operator account cannot be suspended.",
                              code="operator-not-suspendable")
    before = bool(row.suspended)
    row.suspended = suspended
    if suspended:
        auth.end_sessions(session, player_id)  # the log-out-everywhere: every token stops
    return before


def is_suspended(session: Session, player_id: int) -> bool:
    return bool(session.scalars(select(Player.suspended).where(Player.id == player_id)).first())


def operator_answer(session: Session, operator_id: int, key: str,
                    fingerprint: str) -> dict[str, Any] | None:
    """The stored answer of an operator's earlier request with this idempotency key, or
    ``None`` when the key is new; the key used for another request is refused."""
    found = session.execute(select(OperatorRequest.fingerprint, OperatorRequest.response).where(
        OperatorRequest.operator_id == operator_id,
        OperatorRequest.idempotency_key == key)).one_or_none()
    if found is None:
        return None
    if found.fingerprint != fingerprint:
        raise IdempotencyConflict("This idempotency key was already used for another request.")
    return dict(found.response)


def store_operator_answer(session: Session, operator_id: int, key: str, fingerprint: str,
                          answer: dict[str, Any]) -> None:
    """Keep a request's answer under its idempotency key, in the request's own transaction
    (the same key sent at the same moment by two requests: one of them fails to commit)."""
    session.add(OperatorRequest(operator_id=operator_id, idempotency_key=key,
                                fingerprint=fingerprint, response=answer))
    session.flush()


def player_json(row: Player, balance: int) -> dict[str, Any]:
    return {"id": row.id, "username": row.username, "role": row.role, "lang": row.lang,
            "balance": balance, "suspended": bool(row.suspended),
            "created_at": epoch_ms(row.created_at)}


def find_players(session: Session, *, query: str | None = None, limit: int = 50,
                 offset: int = 0) -> tuple[int, list[dict[str, Any]]]:
    """Players whose name contains ``query`` (ignoring case), by id; and how many match."""
    condition = or_(Player.username_key.contains(query.lower(), autoescape=True)
                    ) if query else None
    counted = select(func.count()).select_from(Player)
    listed = (select(Player, Account.balance)
              .outerjoin(Account, (Account.player_id == Player.id) & (Account.kind == "wallet"))
              .order_by(Player.id).limit(limit).offset(offset))
    if condition is not None:
        counted, listed = counted.where(condition), listed.where(condition)
    total = session.execute(counted).scalar_one()
    return total, [player_json(row, balance or 0) for row, balance in session.execute(listed)]


def one_player(session: Session, player_id: int) -> dict[str, Any]:
    row = player_row(session, player_id)
    return player_json(row, ledger.wallet_balance(session, player_id))


def history(session: Session, player_id: int, *, limit: int = 100,
            before_id: int | None = None) -> list[dict[str, Any]]:
    """Every movement of the player's wallet, newest first: when, why, how much, the balance
    after it, and the table (by name) and coup (shoe number, coup in the shoe) it belongs to."""
    player_row(session, player_id)
    wallet = session.execute(select(Account.id).where(
        Account.code == ledger.wallet_code(player_id))).scalar_one()
    query = (select(LedgerEntry.id, LedgerEntry.amount, LedgerTransaction.reason,
                    LedgerTransaction.created_at, LedgerTransaction.coup_id,
                    LedgerTransaction.bet_id, CoupRecord.table_id, CoupRecord.round_no,
                    BetRecord.kind, GameTable.name, ShoeRecord.shoe_no,
                    CoupRecord.coup_in_shoe)
             .join(LedgerTransaction, LedgerTransaction.id == LedgerEntry.transaction_id)
             .outerjoin(CoupRecord, CoupRecord.id == LedgerTransaction.coup_id)
             .outerjoin(BetRecord, BetRecord.id == LedgerTransaction.bet_id)
             .outerjoin(GameTable, GameTable.id == CoupRecord.table_id)
             .outerjoin(ShoeRecord, ShoeRecord.id == CoupRecord.shoe_id)
             .where(LedgerEntry.account_id == wallet)
             .order_by(LedgerEntry.id.desc()).limit(limit))
    if before_id is not None:
        query = query.where(LedgerEntry.id < before_id)
    rows = session.execute(query).all()
    newest_first = []
    if rows:
        # the balance after each entry: the cached balance less the entries after it
        later = session.execute(select(func.coalesce(func.sum(LedgerEntry.amount), 0)).where(
            LedgerEntry.account_id == wallet, LedgerEntry.id > rows[0].id)).scalar_one()
        after = ledger.wallet_balance(session, player_id) - int(later)
        for row in rows:
            newest_first.append({"id": row.id, "at": epoch_ms(row.created_at),
                                 "reason": row.reason, "amount": row.amount, "balance": after,
                                 "table_id": row.table_id, "coup_id": row.coup_id,
                                 "round_no": row.round_no, "bet": row.kind,
                                 "table_name": row.name, "shoe_no": row.shoe_no,
                                 "coup_in_shoe": row.coup_in_shoe})
            after -= row.amount
    return newest_first


def usernames(session: Session, ids: list[int]) -> dict[int, str]:
    if not ids:
        return {}
    return {int(i): name for i, name in session.execute(
        select(Player.id, Player.username).where(Player.id.in_(ids)))}


def composition_before(session: Session, coup_id: int) -> tuple[int, ...] | None:
    """The cards a server-dealt shoe had left before coup ``coup_id`` (counted by value, index 0
    = tens and faces), read from the record only: the shoe's order replayed, as the recovery
    does (``db/recovery.recover`` reads the record, ``live/replay.py`` replays it), through the
    coups dealt before this one. ``None`` for a hand-dealt shoe (no recorded order), rules the
    core now refuses, or a record that does not replay. The answer does not depend on whether
    ``coup_id`` is dealt yet."""
    coup = session.get(CoupRecord, coup_id)
    if coup is None:
        return None
    shoe_row = session.get_one(ShoeRecord, coup.shoe_id)
    if shoe_row.dealing != "server":
        return None
    try:
        rules, _ = table_rules_from_json(shoe_row.rules)
    except RuleSetError:
        return None
    recorded = session.execute(select(CoupRecord.id, CoupRecord.cards).where(
        CoupRecord.shoe_id == shoe_row.id, CoupRecord.id < coup_id,
        CoupRecord.status.in_(("dealt", "settled")))
        .order_by(CoupRecord.coup_in_shoe, CoupRecord.id)).tuples()
    try:
        shoe = replayed(parse_cards(shoe_row.card_order), rules, recorded)
    except ValueError:
        return None
    return tuple(composition_of(shoe.remaining()))
