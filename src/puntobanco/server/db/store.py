"""The writes of the game: tables, shoes, coups and bets (their end, settlement or void, is
:mod:`puntobanco.server.db.settle`'s), each in the caller's transaction
(:meth:`puntobanco.server.db.engine.Database.run_write` gives one per call).

Money moves only through :func:`puntobanco.server.db.ledger.transfer`:

=============  =======================  ===========================================
reason         from → to                when
=============  =======================  ===========================================
``stake``      wallet → in-play         a bet is placed (or raised)
``withdrawal`` in-play → wallet         a bet is withdrawn while betting is open (L4)
``house-pay``  house → in-play          a bet wins: its net winnings
``payout``     in-play → wallet         a bet wins (stake + net) or is returned (stake)
``house-win``  in-play → house          a bet loses: its stake
``refund``     in-play → wallet         a round is void (the server stopped before the deal)
=============  =======================  ===========================================

so a settled coup leaves its table's in-play account where it found it.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy import Connection, Table, select, update
from sqlalchemy.orm import Session

from puntobanco.bets import (
    BetKind,
    verify_spot,
    verify_stake,
)
from puntobanco.coup import Coup
from puntobanco.errors import BetRefused, PuntoBancoError, TableStateError
from puntobanco.rules import RuleSet
from puntobanco.server.db import auth, bulk, ledger
from puntobanco.server.db.models import (
    BetRecord,
    BetRequest,
    CoupRecord,
    GameTable,
    ShoeRecord,
    table_name_key,
    utcnow,
)
from puntobanco.server.fair import order_text
from puntobanco.server.messages import IdempotencyConflict  # the server-only errors' module
from puntobanco.server.settings import table_rules_from_json, table_rules_to_json
from puntobanco.shoe import Shoe

log = logging.getLogger("puntobanco.server.db.store")

#: A spot's bets as the core keeps them.
SpotBets = dict[BetKind, int]
#: the bets in their order (L6), as a tuple: iterating the enum itself costs more
_KINDS = tuple(BetKind)


@dataclass(frozen=True, slots=True)
class TableSettings:
    """A table as the dealer needs it: the rules the next shoe uses and the betting window."""

    id: int
    name: str
    rules: RuleSet
    betting_seconds: float

    def rules_json(self) -> dict[str, Any]:
        return table_rules_to_json(self.rules, betting_seconds=self.betting_seconds)


def table_settings(row: GameTable) -> TableSettings:
    rules, seconds = table_rules_from_json(row.rules, base_seconds=row.betting_seconds)
    return TableSettings(row.id, row.name, rules, seconds)


def load_table(session: Session, table_id: int) -> TableSettings:
    return table_settings(session.get_one(GameTable, table_id))


def create_table(session: Session, *, name: str, rules: RuleSet,
                 betting_seconds: float) -> TableSettings:
    """A new table with its in-play and house accounts."""
    row = GameTable(name=name, name_key=table_name_key(name),
                    rules=table_rules_to_json(rules, betting_seconds=betting_seconds),
                    betting_seconds=betting_seconds)
    session.add(row)
    session.flush()
    ledger.ensure_account(session, ledger.in_play_code(row.id), kind="in-play", table_id=row.id)
    ledger.ensure_account(session, ledger.house_code(row.id), kind="house", table_id=row.id)
    return table_settings(row)


def find_table_named(session: Session, name: str) -> int | None:
    """The id of the table called ``name``, ignoring case, if there is one."""
    return session.scalars(select(GameTable.id).where(
        GameTable.name_key == table_name_key(name))).first()


def update_table(session: Session, table_id: int, data: Mapping[str, Any]) -> TableSettings:
    """Change some of a table's settings (they apply from its next shoe).

    The change is laid over the stored JSON and the whole is read again, so a table whose
    stored settings the core now refuses (an older server accepted them) can be repaired.
    """
    row = session.get(GameTable, table_id)
    if row is None:
        raise LookupError(table_id)
    merged = dict(row.rules) if isinstance(row.rules, Mapping) else {}
    for key, value in data.items():
        old = merged.get(key)
        if key == "limits" and isinstance(old, Mapping) and isinstance(value, Mapping):
            limits = dict(old)
            if {"lion-punto", "lion-banco"} & set(value):  # one Lion limit (L3): the new one
                limits.pop("lion-punto", None)
                limits.pop("lion-banco", None)
            merged[key] = {**limits, **value}
        else:
            merged[key] = value
    rules, seconds = table_rules_from_json(merged, base_seconds=row.betting_seconds)
    row.rules = table_rules_to_json(rules, betting_seconds=seconds)
    row.betting_seconds = seconds
    return TableSettings(row.id, row.name, rules, seconds)


def table_rows(session: Session) -> list[tuple[int, str, dict[str, Any]]]:
    """Every table's id, name and stored settings, unread (a bad one must not hide the rest)."""
    return [(row.id, row.name, dict(row.rules) if isinstance(row.rules, Mapping) else {})
            for row in session.scalars(select(GameTable).order_by(GameTable.id))]


def all_tables(session: Session) -> list[TableSettings]:
    return [table_settings(row) for row in session.scalars(select(GameTable).order_by(GameTable.id))]


# --- shoes and coups ----------------------------------------------------------------------


def create_shoe(session: Session, *, table_id: int, shoe_no: int, shoe: Shoe, salt: str,
                commitment: str, rules_json: dict[str, Any]) -> int:
    """Record a new shoe with its secret order and salt; its commitment is public from now."""
    row = ShoeRecord(table_id=table_id, shoe_no=shoe_no, card_order=order_text(shoe.order),
                     salt=salt, commitment=commitment, rules=rules_json,
                     cut_index=shoe.cut_index, burned=len(shoe.burned), status="dealing")
    session.add(row)
    session.flush()
    return row.id


def finish_shoe(session: Session, shoe_id: int) -> ShoeRecord:
    """Mark a shoe finished: from now on its salt and order are revealed."""
    row = session.get_one(ShoeRecord, shoe_id)
    if row.status != "finished":
        row.status = "finished"
        row.finished_at = utcnow()
    return row


def open_coup(session: Session, *, table_id: int, shoe_id: int, round_no: int,
              coup_in_shoe: int, last_coup: bool) -> int:
    row = CoupRecord(table_id=table_id, shoe_id=shoe_id, round_no=round_no,
                     coup_in_shoe=coup_in_shoe, last_coup=last_coup, status="open")
    session.add(row)
    session.flush()
    return row.id


def close_coup(session: Session, coup_id: int) -> None:
    move_coup(session, coup_id, "open", "closed")


def record_deal(session: Session, coup_id: int, coup: Coup, *, first_card: int) -> None:
    """Store every card of a dealt coup, in dealing order."""
    move_coup(session, coup_id, "closed", "dealt", cards=order_text([c for _, c in coup.dealing_order()]),
          first_card=first_card, punto_cards=order_text(coup.punto),
          banco_cards=order_text(coup.banco), punto_total=coup.punto_total,
          banco_total=coup.banco_total, winner=coup.winner.value, natural=coup.natural,
          margin=coup.margin, dealt_at=utcnow())


def move_coup(session: Session | Connection, coup_id: int, before: str, after: str,
              **values: Any) -> None:
    """Move a coup from one status to the next; the conditional update is the guard."""
    result = session.execute(update(CoupRecord)
                             .where(CoupRecord.id == coup_id, CoupRecord.status == before)
                             .values(status=after, **values))
    if result.rowcount != 1:  # type: ignore[attr-defined]
        raise TableStateError(f"Coup {coup_id} is not {before}: it cannot become {after}.",
                              code="bad-coup-status")


# --- bets ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BetOp:
    """One bet (``stake`` more on ``kind``) or withdrawal (of the whole ``kind``) of a batch."""

    player_id: int
    kind: BetKind
    stake: int = 0
    key: str | None = None
    withdraw: bool = False
    #: a withdrawal made for the player by the house (an operator's suspension): ledger reason
    #: ``refund``, the bet ``refunded``
    refund: bool = False
    #: several stakes placed all or nothing (``POST …/bets/batch``); ``kind``/``stake`` unused
    group: tuple[tuple[BetKind, int], ...] = ()

    def fingerprint(self, table_id: int) -> str:
        if self.group:
            return f"batch:{table_id}:" + ",".join(
                f"{kind.value}={stake}" for kind, stake in sorted(
                    self.group, key=lambda item: item[0].value))
        if self.withdraw:
            return f"withdraw:{table_id}:{self.kind.value}"
        return f"{table_id}:{self.kind.value}:{self.stake}"


class Replayed(dict[str, Any]):
    """A stored answer sent again for a repeated idempotency key (nothing was written)."""


def idempotent_answer(stored: tuple[str, dict[str, Any]] | None, fingerprint: str
                      ) -> Replayed | IdempotencyConflict | None:
    """The one idempotency check (issue 9, 17): a request whose key is stored (``stored``: the
    first request's fingerprint and answer) gets that answer again when it is the same request,
    a conflict when it is another; ``None``: the key is new. The batch asks it of every keyed
    operation, and the desk of a keyed request refused before any batch (a retry after the
    close).

    >>> idempotent_answer(("1:banco:2500", {"stake": 2500}), "1:banco:2500")
    {'stake': 2500}
    >>> type(idempotent_answer(("1:banco:2500", {}), "1:banco:5000")).__name__
    'IdempotencyConflict'
    """
    if stored is None:
        return None
    first_print, answer = stored
    if first_print == fingerprint:
        return Replayed(answer)
    return IdempotencyConflict("This idempotency key was already used for a different bet.")


#: What a batch answers for each operation: the bet answer (``docs/api.md``), or the refusal.
BetResult = dict[str, Any] | PuntoBancoError


def apply_bets(session: Session | Connection, *, table_id: int, coup_id: int, round_no: int,
               rules: RuleSet, ops: Sequence[BetOp], read: CoupRead | None = None,
               ) -> list[BetResult]:
    """Apply a batch of bets and withdrawals to an open coup, in the caller's transaction (an
    ORM session's, or a bare connection's: the desk's batch, on SQLite in ``BEGIN IMMEDIATE``
    on the driver's connection, on PostgreSQL on a Core connection).
    ``read``: its first read made already (:func:`read_coup`, for at least these ``ops``).

    The coup's row is read first, ``FOR SHARE`` on PostgreSQL: while this transaction runs,
    the close (``open → closed``, an ``UPDATE`` of that row) waits for it, and once the close
    has committed this read finds the coup closed and every operation is refused
    ``table-closed``. So a batch is wholly in the coup or wholly refused, whichever process
    wrote it; on SQLite, ``BEGIN IMMEDIATE`` orders the two writers the same way.

    Each operation is checked as the single-bet path did: its idempotency key first (a stored
    answer is replayed, a different bet with the same key is refused), then the spot as a whole
    by the core (:func:`puntobanco.bets.verify_spot`: M3, B4, L1, L3) against the database's
    bets of this coup and the batch's earlier operations, then the wallet's balance (the
    batch's wallets and the table's in-play account are read locked in id order, in the query
    that reads the players' bets, and every balance changes once, at the end, by
    :func:`ledger.post`). Two reads (on PostgreSQL the second also draws the ids the batch may
    need: issue 21, one round trip less; the desk's batch reads both in one,
    :func:`read_coup` with ``lock``) and ONE statement writing everything
    (:class:`~puntobanco.server.db.bulk.Writes`).
    A refused operation writes nothing. Operations run in player order (each player's in the
    order given), so wallets are locked in one order.
    """
    results: list[BetResult | None] = [None] * len(ops)
    order = sorted(range(len(ops)), key=lambda i: ops[i].player_id)
    players = sorted({op.player_id for op in ops})
    connection = bulk.connection_of(session)
    if read is not None:
        status, in_play, stored = read.status, read.in_play, read.stored
    else:
        status, in_play, stored = _coup_and_requests(
            connection, table_id, coup_id, {(op.player_id, op.key) for op in ops
                                            if op.key is not None})
    spots: dict[int, dict[BetKind, list[Any]]] = {}  # player -> kind -> [id|None, stake, status]
    wallets: dict[int, int] = {}
    balances: dict[int, int] = {}
    drawn: list[Any] = [None, None]  # the new bets' and ledger transactions' ids drawn
    if status == "open":
        if not in_play:
            raise LookupError(f"table {table_id} has no in-play account")
        if read is not None and read.spots is not None:  # locked with the coup's read
            locked = read.spots
        elif bulk.is_postgresql(connection):
            locked = _LOCK_SPOTS.run(connection, (
                *_draws(ops), coup_id, bulk.packed(players, "INTEGER"), in_play))
        else:
            locked = _LOCK_SPOTS.run(connection, (coup_id, bulk.json_list(players), in_play))
        for player, wallet, balance, bet_id, kind, stake, bet_status, *ids in locked:
            if player is None:  # the in-play account (and on PostgreSQL the ids drawn)
                drawn = ids or drawn
                continue
            wallets[player] = wallet
            balances[wallet] = balance
            if bet_id is not None:
                spots.setdefault(player, {})[BetKind(kind)] = [bet_id, stake, bet_status]
        if any(player not in wallets for player in players):  # no foreign key (0008)
            raise LookupError("no wallet for player "
                              f"{', '.join(str(p) for p in players if p not in wallets)}: "
                              "nothing is written")
    moves: list[tuple[BetOp, list[Any]]] = []  # (op, its bet's row state), for the journal
    requests: list[tuple[BetOp, list[Any], str, str]] = []
    for index in order:
        op = ops[index]
        fingerprint = op.fingerprint(table_id)
        if op.key is not None and (again := idempotent_answer(
                stored.get((op.player_id, op.key)), fingerprint)) is not None:
            results[index] = again
            continue
        if status != "open":
            results[index] = BetRefused("No more bets: the table is not open for betting.",
                                        code="table-closed")
            continue
        spot = spots.get(op.player_id)
        if spot is None:  # the player's first bet this coup (most): nothing live yet
            spot = spots[op.player_id] = {}
            live: dict[BetKind, int] = {}
        else:
            live = {kind: row[1] for kind, row in spot.items()
                    if row[2] == "active" and row[1] > 0}
        try:
            if op.withdraw:
                if op.kind not in live:
                    raise BetRefused(f"There is no {op.kind.value} bet on this spot to "
                                     "withdraw.", code="no-such-bet")
                row = spot[op.kind]
                amount = row[1]
                wallet = wallets[op.player_id]
                balance = balances[wallet] = balances[wallet] + amount
                row[1], row[2] = 0, "refunded" if op.refund else "withdrawn"
                moves.append((BetOp(op.player_id, op.kind, amount, op.key, withdraw=True,
                                    refund=op.refund), row))
                del live[op.kind]
                answer = {"bet": op.kind.value, "stake": amount}
            elif op.group:  # all or nothing: the spot with every stake, their sum paid once
                wanted = dict(live)
                for each, stake in op.group:
                    verify_stake(each, stake)
                    wanted[each] = wanted.get(each, 0) + stake
                verify_spot(wanted, rules)
                wallet = wallets[op.player_id]
                whole = sum(stake for _, stake in op.group)
                if balances[wallet] < whole:
                    raise ledger.short_of(whole, balances[wallet])
                balance = balances[wallet] = balances[wallet] - whole
                for each, stake in op.group:
                    row = spot.get(each) or [None, 0, "active"]
                    if row[2] != "active":
                        row[1], row[2] = 0, "active"
                    row[1] += stake
                    spot[each] = row
                    moves.append((BetOp(op.player_id, each, stake), row))
                live = wanted
                answer = {"placed": {each.value: stake for each, stake in op.group}}
            else:
                verify_stake(op.kind, op.stake)
                wanted = {**live, op.kind: live.get(op.kind, 0) + op.stake}
                _verify_spot(wanted, rules)
                wallet = wallets[op.player_id]
                if balances[wallet] < op.stake:
                    raise ledger.short_of(op.stake, balances[wallet])
                balance = balances[wallet] = balances[wallet] - op.stake
                row = spot.get(op.kind) or [None, 0, "active"]
                if row[2] != "active":  # withdrawn earlier this round, placed again
                    row[1], row[2] = 0, "active"
                row[1] += op.stake
                spot[op.kind] = row
                moves.append((op, row))
                live = wanted
                answer = {"bet": op.kind.value, "stake": op.stake, "total": row[1]}
        except PuntoBancoError as refusal:
            results[index] = refusal
            continue
        answer.update({"my_bets": _my_bets(live), "balance": balance, "coup_id": coup_id,
                       "round_no": round_no})
        results[index] = answer
        if op.key is not None:
            stored[(op.player_id, op.key)] = (fingerprint, answer)
            requests.append((op, row, answer_json(answer), fingerprint))
    _write_bets(connection, coup_id=coup_id, in_play=in_play, wallets=wallets, spots=spots,
                moves=moves, requests=requests, drawn=drawn)
    return [result for result in results if result is not None]


#: the spots :func:`verify_spot` passed, per table rules (its id → the rules, held so the id
#: stays theirs, and the spots): a pure function of the two, and a crowd's spots are a few
#: (``{banco: 1000}`` again and again), so a bet asks the core once per distinct spot (~2.8 µs
#: a bet on the event loop, ~0.5 the lookup; issue 21, sixth pass)
_PASSED: dict[int, tuple[RuleSet, set[tuple[tuple[BetKind, int], ...]]]] = {}
#: the most rules and spots remembered (all forgotten beyond)
_MOST_RULES, _MOST_SPOTS = 64, 10_000


def _verify_spot(wanted: dict[BetKind, int], rules: RuleSet) -> None:
    """:func:`verify_spot`, its passes remembered (:data:`_PASSED`); a refusal is the core's,
    raised each time."""
    spot = tuple(wanted.items())
    entry = _PASSED.get(id(rules))
    if entry is not None and entry[0] is rules and spot in entry[1]:
        return
    verify_spot(wanted, rules)
    if entry is None or entry[0] is not rules or len(entry[1]) >= _MOST_SPOTS:
        if len(_PASSED) >= _MOST_RULES:
            _PASSED.clear()
        entry = _PASSED[id(rules)] = (rules, set())
    entry[1].add(spot)


def _my_bets(live: Mapping[BetKind, int]) -> dict[str, int]:
    """A spot's live bets as an answer's ``my_bets``: by name, in payment order (L6), none at
    zero. (A spot holds one bet most often: taken as it is, without asking the five kinds.)"""
    if len(live) == 1:
        for kind, stake in live.items():
            return {kind.value: stake} if stake else {}
    return {kind.value: live[kind] for kind in _KINDS if live.get(kind)}


def answer_json(answer: Mapping[str, Any]) -> bulk.JsonText:
    """A bet's answer as the text ``json.dumps`` gives it, stored for its idempotency key: the
    answer of a bet (``bet``, ``stake``, ``total``, ``my_bets`` of kind names and cents, then
    ``balance``, ``coup_id``, ``round_no``) written by one format (``json.dumps`` cost ~4 µs
    a bet on the event loop, issue 21's sixth pass), any other answer by ``json.dumps``.

    >>> answer = {"bet": "banco", "stake": 500, "total": 1500, "my_bets": {"punto": 200,
    ...           "banco": 1500}, "balance": 7000, "coup_id": 3, "round_no": 9}
    >>> answer_json(answer) == json.dumps(answer)
    True
    """
    if tuple(answer) == _PLAIN_KEYS:
        kind, stake, total, mine, balance, coup, round_no = answer.values()
        if (kind.__class__ is str and kind in KIND_NAMED and int is stake.__class__ is total.__class__
                is balance.__class__ is coup.__class__ is round_no.__class__):
            bets = []
            for name, cents in mine.items():
                if name not in KIND_NAMED or cents.__class__ is not int:
                    break
                bets.append(f'"{name}": {cents}')
            else:
                return bulk.JsonText(
                    f'{{"bet": "{kind}", "stake": {stake}, "total": {total}, "my_bets": '
                    f'{{{", ".join(bets)}}}, "balance": {balance}, "coup_id": {coup}, '
                    f'"round_no": {round_no}}}')
    return bulk.JsonText(json.dumps(answer))


#: a bet's kind by its stored name (``BetKind(name)`` costs ~7 µs: 10,000 bets a settlement)
KIND_NAMED = {kind.value: kind for kind in BetKind}
#: the keys of a placed bet's answer, in their order (:func:`answer_json`)
_PLAIN_KEYS = ("bet", "stake", "total", "my_bets", "balance", "coup_id", "round_no")


def _write_bets(connection: Connection, *, coup_id: int, in_play: int, wallets: Mapping[int, int],
                spots: Mapping[int, Mapping[BetKind, list[Any]]],
                moves: Sequence[tuple[BetOp, list[Any]]],
                requests: Sequence[tuple[BetOp, list[Any], str, str]],
                drawn: Sequence[Any] = (None, None)) -> None:
    """Write what :func:`apply_bets` decided: new and changed bet rows, the ledger pairs (the
    wallets already debited or credited), the idempotency records."""
    if not moves:
        return
    touched: dict[int, tuple[int, BetKind, list[Any]]] = {}
    for op, row in moves:
        touched[id(row)] = (op.player_id, op.kind, row)
    new = [(player, kind, row) for player, kind, row in touched.values() if row[0] is None]
    writes = bulk.Writes(connection)
    writes.drawn(_BETS, drawn[0])
    writes.drawn(ledger.TRANSACTIONS, drawn[1])
    writes.reserve([(_BETS, len(new)), (ledger.TRANSACTIONS, len(moves))])
    now = utcnow()
    if new:
        ids = writes.insert_with_ids(_BETS, _BET_COLUMNS, [
            (coup_id, player, kind.value, row[1], row[2], now) for player, kind, row in new])
        for (_, _, row), bet_id in zip(new, ids, strict=True):
            row[0] = bet_id
    fresh = {id(row) for _, _, row in new}
    changed = [row for key, (_, _, row) in touched.items() if key not in fresh]
    if changed and writes.postgresql:
        writes.add(_UPDATE_BETS_PG, tuple(bulk.packed(column, kind) for column, kind in zip(
            zip(*changed, strict=True), ("INTEGER", "BIGINT", "TEXT"), strict=True)))
    elif changed:
        bulk.execute(writes.connection, "UPDATE bets SET stake = ?, status = ? WHERE id = ?",
                     [(stake, status, bet) for bet, stake, status in changed])
    ledger.post(connection, [
        ledger.Move(in_play, wallets[op.player_id], op.stake,
                    "refund" if op.refund else "withdrawal", coup_id, row[0],
                    op.player_id) if op.withdraw else
        ledger.Move(wallets[op.player_id], in_play, op.stake, "stake", coup_id, row[0],
                    op.player_id)
        for op, row in moves], writes=writes, locked={in_play, *wallets.values()})
    writes.insert(_REQUESTS, _REQUEST_COLUMNS, [
        (op.player_id, op.key, fingerprint, coup_id, row[0], answer, now)
        for op, row, answer, fingerprint in requests])
    writes.flush()


# The hot path's statements, written once (bulk.py says why not through SQLAlchemy's Core).
_BETS = cast(Table, BetRecord.__table__)
_REQUESTS = cast(Table, BetRequest.__table__)
_BET_COLUMNS = ("coup_id", "player_id", "kind", "stake", "status", "placed_at")
_REQUEST_COLUMNS = ("player_id", "idempotency_key", "fingerprint", "coup_id", "bet_id",
                    "response", "created_at")
#: the coup's status, read FOR SHARE (apply_bets says why), and the table's in-play account
_COUP_STATUS = bulk.Sql(
    "SELECT status, (SELECT id FROM accounts WHERE code = ?) FROM coups WHERE id = ?",
    "SELECT status, (SELECT id FROM accounts WHERE code = %s) FROM coups WHERE id = %s "
    "FOR SHARE OF coups")
#: the players' wallets and the table's in-play account, locked FOR UPDATE in id order on
#: PostgreSQL (an SQLite write transaction holds the whole database), with each player's bets
#: on the coup (a wallet once per bet); on PostgreSQL the in-play account's row also draws the ids the batch
#: may need (at most one bet a (player, kind) placed, one ledger transaction a stake), saving
#: :meth:`~puntobanco.server.db.bulk.Writes.reserve`'s round trip
#: (On SQLite the rows come in no order, each wallet found from the list of players: with
#: ``player_id IN (SELECT value FROM json_each(?)) OR a.id = ?`` and ``ORDER BY a.id`` SQLite
#: built a temporary index of the list twice and sorted the rows, ~1 µs a bet.)
_LOCK_SPOTS = bulk.Sql(
    "SELECT a.player_id, a.id, a.balance, b.id, b.kind, b.stake, b.status "
    "FROM json_each(?2) AS asked JOIN accounts AS a ON a.player_id = asked.value "
    "AND a.kind = 'wallet' LEFT JOIN bets AS b ON b.coup_id = ?1 AND b.player_id = a.player_id "
    "UNION ALL SELECT NULL, id, balance, NULL, NULL, NULL, NULL FROM accounts WHERE id = ?3",
    "SELECT a.player_id, a.id, a.balance, b.id, b.kind, b.stake, b.status, "
    f"CASE WHEN a.player_id IS NULL THEN {bulk.draw_ids(_BETS)} END, "
    f"CASE WHEN a.player_id IS NULL THEN {bulk.draw_ids(ledger.TRANSACTIONS)} END "
    "FROM accounts AS a LEFT JOIN LATERAL (SELECT id, kind, stake, status FROM bets "
    "WHERE coup_id = %s AND player_id = a.player_id OFFSET 0) AS b ON true "
    "WHERE (a.kind = 'wallet' AND a.player_id = ANY(CAST(%b AS INTEGER[]))) OR a.id = %s "
    "ORDER BY a.id FOR UPDATE OF a")
#: by (player, key) pairs: an IN list of players and one of keys made SQLite probe the index
#: for every player with every key (a million probes for a batch of 1,000)
_STORED_REQUESTS = bulk.Sql(
    "SELECT r.player_id, r.idempotency_key, r.fingerprint, r.response "
    "FROM json_each(?) AS asked JOIN bet_requests AS r "
    "ON r.player_id = json_extract(asked.value, '$[0]') "
    "AND r.idempotency_key = json_extract(asked.value, '$[1]')",
    "SELECT r.player_id, r.idempotency_key, r.fingerprint, r.response "
    "FROM unnest(CAST(%b AS INTEGER[]), CAST(%b AS TEXT[])) AS asked(player_id, key) "
    "CROSS JOIN LATERAL (SELECT player_id, idempotency_key, fingerprint, response "
    "FROM bet_requests WHERE player_id = asked.player_id AND idempotency_key = asked.key "
    "OFFSET 0) AS r")
#: :data:`_COUP_STATUS` and :data:`_STORED_REQUESTS` in one round trip
_COUP_AND_REQUESTS = bulk.Sql(
    "SELECT c.status, (SELECT id FROM accounts WHERE code = ?), k.* FROM coups AS c "
    f"LEFT JOIN ({_STORED_REQUESTS.sqlite}) AS k ON 1 = 1 WHERE c.id = ?",
    "SELECT c.status, (SELECT id FROM accounts WHERE code = %s), k.* FROM coups AS c "
    f"LEFT JOIN ({_STORED_REQUESTS.postgresql}) AS k ON true WHERE c.id = %s FOR SHARE OF c")
#: :data:`_COUP_STATUS`, :data:`_COUP_AND_REQUESTS` with the session lookup (:func:`read_coup`)
_COUP_SESSIONS_PG = (
    f"SELECT status, (SELECT id FROM accounts WHERE code = %s), {auth.LOOKUP_JSON_PG} "
    "FROM coups WHERE id = %s FOR SHARE OF coups")
_COUP_SESSIONS_REQUESTS_PG = (
    f"SELECT c.status, (SELECT id FROM accounts WHERE code = %s), {auth.LOOKUP_JSON_PG}, k.* "
    f"FROM coups AS c LEFT JOIN ({_STORED_REQUESTS.postgresql}) AS k ON true WHERE c.id = %s "
    "FOR SHARE OF c")
#: :data:`_COUP_SESSIONS_REQUESTS_PG` and :data:`_LOCK_SPOTS` in one query (``read_coup(lock=
#: True)``): the coup's row is locked ``FOR SHARE`` first — the wallets' subquery is LATERAL
#: to it and runs for its row only — then the wallets in id order, as by the two queries (a
#: void, which updates the coup and then credits wallets, never waits for a batch holding a
#: wallet); no wallet is locked unless the coup is open. The row without a player (the
#: in-play account's, or the coup's alone when nothing is locked) carries the sessions and the
#: stored requests, as JSON (psycopg parses them once); each row the :data:`_LOCK_SPOTS`
#: columns after them
_READ_AND_LOCK_PG = (
    "WITH c AS MATERIALIZED (SELECT status, (SELECT id FROM accounts WHERE code = %s) AS in_play, "
    f"{auth.LOOKUP_JSON_PG} AS sessions, (SELECT json_agg(json_build_array(k.player_id, "
    "k.idempotency_key, k.fingerprint, k.response)) FROM ("
    f"{_STORED_REQUESTS.postgresql}) AS k) AS stored FROM coups WHERE id = %s "
    "FOR SHARE OF coups) "
    "SELECT c.status, c.in_play, CASE WHEN w.player_id IS NULL THEN c.sessions END, "
    "CASE WHEN w.player_id IS NULL THEN c.stored END, w.* FROM c LEFT JOIN LATERAL ("
    "SELECT a.player_id, a.id, a.balance, b.id AS bet_id, b.kind, b.stake, b.status AS bet_status, "
    f"CASE WHEN a.player_id IS NULL THEN {bulk.draw_ids(_BETS)} END AS bets_drawn, "
    f"CASE WHEN a.player_id IS NULL THEN {bulk.draw_ids(ledger.TRANSACTIONS)} END "
    "AS lines_drawn FROM accounts AS a LEFT JOIN LATERAL (SELECT id, kind, stake, status "
    "FROM bets WHERE coup_id = %s AND player_id = a.player_id OFFSET 0) AS b ON true "
    "WHERE c.status = 'open' AND ((a.kind = 'wallet' AND a.player_id = "
    "ANY(CAST(%b AS INTEGER[]))) OR a.id = c.in_play) ORDER BY a.id FOR UPDATE OF a) AS w ON true")
_UPDATE_BETS_PG = ("UPDATE bets SET stake = changed.stake, status = changed.status "
                   "FROM unnest(CAST(%b AS INTEGER[]), CAST(%b AS BIGINT[]), "
                   "CAST(%b AS TEXT[])) AS changed(id, stake, status) "
                   "WHERE bets.id = changed.id")


def _draws(ops: Sequence[BetOp]) -> tuple[int, int]:
    """How many ids a batch's operations may need: a bet each (player, kind) placed, a ledger
    transaction each stake."""
    return (len({(op.player_id, kind) for op in ops if not op.withdraw
                 for kind in ([each for each, _ in op.group] if op.group else [op.kind])}),
            sum(len(op.group) if op.group else 1 for op in ops))


def _pairs(connection: Connection, asked: Collection[tuple[int, str]]) -> tuple[Any, ...]:
    """(player, key) pairs as :data:`_STORED_REQUESTS` takes them: two arrays, or one JSON
    text."""
    if bulk.is_postgresql(connection):
        players, keys = zip(*asked, strict=True)
        return bulk.packed(players, "INTEGER"), bulk.packed(keys, "TEXT")
    return (json.dumps(list(asked)),)


def _answers(connection: Connection, rows: Sequence[Sequence[Any]],
             ) -> dict[tuple[int, str], tuple[str, dict[str, Any]]]:
    """Stored requests' rows as (player, key) → (fingerprint, first answer)."""
    loads: Any = dict if bulk.is_postgresql(connection) else json.loads  # psycopg parses JSON
    return {(player, key): (fingerprint, dict(loads(response)))
            for player, key, fingerprint, response in rows}


def _stored_requests(connection: Connection, asked: Collection[tuple[int, str]],
                     ) -> dict[tuple[int, str], tuple[str, dict[str, Any]]]:
    """The stored requests of these (player, key) pairs: each one's (fingerprint, first
    answer)."""
    if not asked:
        return {}
    return _answers(connection, _STORED_REQUESTS.run(connection, _pairs(connection, asked)))


def _coup_and_requests(connection: Connection, table_id: int, coup_id: int,
                       asked: Collection[tuple[int, str]],
                       ) -> tuple[str | None, int, dict[tuple[int, str], tuple[str, dict[str, Any]]]]:
    """The coup's status (read ``FOR SHARE``), the table's in-play account and the stored
    requests of these (player, key) pairs, in one query."""
    code = ledger.in_play_code(table_id)
    if not asked:
        found = _COUP_STATUS.run(connection, (code, coup_id))
        return (found[0][0], found[0][1], {}) if found else (None, 0, {})
    rows = _COUP_AND_REQUESTS.run(connection, (code, *_pairs(connection, asked), coup_id))
    if not rows:  # no such coup: every operation is refused, stored answers still replayed
        return None, 0, _stored_requests(connection, asked)
    return rows[0][0], rows[0][1] or 0, _answers(connection, [row[2:] for row in rows
                                                               if row[2] is not None])


@dataclass(slots=True)
class CoupRead:
    """What :func:`apply_bets` reads first (the coup's status, read ``FOR SHARE``; the table's
    in-play account; the stored requests), read with the batch's session lookup."""

    status: str | None
    in_play: int
    stored: dict[tuple[int, str], tuple[str, dict[str, Any]]]
    #: the session lookup's rows (:data:`auth.LOOKUP_JSON_PG`); None: not read
    sessions: list[Any] | None
    #: the rows :data:`_LOCK_SPOTS` gives, locked by the same query (``read_coup(lock=True)``:
    #: every operation's player's wallet); None: not read
    spots: list[Any] | None = None


def read_coup(session: Session | Connection, *, table_id: int, coup_id: int,
              ops: Sequence[BetOp], token_hashes: Collection[str], lock: bool = False,
              ) -> CoupRead:
    """:func:`apply_bets`'s first read and the batch's session lookup in one round trip
    (PostgreSQL; issue 21): the stored requests of every operation's key, so of any
    operation the session check then keeps. With ``lock``, :func:`apply_bets`'s second read
    too (issue 21, seventh pass: one round trip less, ~60-90 µs of CPU a batch): the wallets
    of every operation's player and the in-play account locked ``FOR UPDATE`` in id order,
    after the coup's row ``FOR SHARE`` as before (:data:`_READ_AND_LOCK_PG`), with the spots
    and the ids the operations may need — those of an operation the session check refuses
    too (their wallets stay untouched, their ids a gap)."""
    connection = bulk.connection_of(session)
    code = ledger.in_play_code(table_id)
    asked = {(op.player_id, op.key) for op in ops if op.key is not None}
    hashes = bulk.packed(list(token_hashes), "TEXT")
    if lock:
        players = sorted({op.player_id for op in ops})
        pairs = _pairs(connection, asked) if asked else (
            bulk.packed([], "INTEGER"), bulk.packed([], "TEXT"))
        rows = bulk.pg_execute(connection, _READ_AND_LOCK_PG, (
            code, hashes, *pairs, coup_id, *_draws(ops), coup_id,
            bulk.packed(players, "INTEGER")))
        if not rows:  # no such coup: every operation is refused, stored answers still replayed
            return CoupRead(None, 0, _stored_requests(connection, asked), None, None)
        first = next((row for row in rows if row[4] is None), rows[0])
        return CoupRead(first[0], first[1] or 0, _answers(connection, first[3] or []),
                        first[2] or [], [row[4:] for row in rows if row[5] is not None])
    if asked:
        rows = bulk.pg_execute(connection, _COUP_SESSIONS_REQUESTS_PG, (
            code, hashes, *_pairs(connection, asked), coup_id))
    else:
        rows = bulk.pg_execute(connection, _COUP_SESSIONS_PG, (code, hashes, coup_id))
    if not rows:  # no such coup: every operation is refused, stored answers still replayed
        return CoupRead(None, 0, _stored_requests(connection, asked), None)
    return CoupRead(rows[0][0], rows[0][1] or 0,
                    _answers(connection, [row[3:] for row in rows
                                          if len(row) > 3 and row[3] is not None]),
                    rows[0][2] or [])


def find_requests(session: Session, asked: Sequence[tuple[int, str]]
                  ) -> dict[tuple[int, str], tuple[str, dict[str, Any]]]:
    """The stored requests of many (player, key) pairs in one query: each stored one's
    (fingerprint, first answer)."""
    if not asked:
        return {}
    return _stored_requests(session.connection(), set(asked))
