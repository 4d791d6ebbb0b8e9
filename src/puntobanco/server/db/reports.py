"""The reports' SQL: settled coups added up per table, shoe and UTC day (SQLite and PostgreSQL).

One query: per settled coup, its whole stake, bet count and house win on each bet kind (a coup
with no bet counts as a coup with zeros); then per (table, shoe, day) and per distinct stake
vector T (the coup's stake on each kind) the number of coups and the sums of the bet counts and
wins. The standard deviation and the band need the vectors themselves
(:mod:`puntobanco.server.hold`, :mod:`puntobanco.server.holdband`); coups with the same stakes
come back as one line. The maths is not here: rows come back as :class:`ReportRow` with a
:class:`~puntobanco.server.hold.Tally`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from sqlalchemy import ColumnElement, Select, and_, case, func, select
from sqlalchemy.orm import Session

from puntobanco.server.db.models import (
    CoupRecord,
    GameTable,
    LedgerEntry,
    LedgerTransaction,
    Player,
    SettlementLineRecord,
    ShoeRecord,
)
from puntobanco.server.hold import KINDS, PlayerCoup, PlayerShoe, Tally


@dataclass(frozen=True, slots=True)
class ReportRow:
    """The settled coups of one shoe of one table on one UTC day."""

    table_id: int
    shoe_id: int
    day: str
    tally: Tally


@dataclass(frozen=True, slots=True)
class ShoeInfo:
    id: int
    table_id: int
    shoe_no: int
    rules: dict[str, Any]
    started_at: datetime


def _day(session: Session, column: Any) -> ColumnElement[Any]:
    """The UTC calendar day of a timestamp column."""
    if session.get_bind().dialect.name == "postgresql":
        return func.date(func.timezone("UTC", column))
    return func.date(column)  # SQLite keeps the UTC time as text: its first ten characters


def _label(kind: str) -> str:
    return kind.replace("-", "_")


def tally_rows(session: Session, *, start: datetime | None = None, end: datetime | None = None,
               table_id: int | None = None) -> list[ReportRow]:
    """Every (table, shoe, day) group of coups settled in ``[start, end)``, oldest first."""
    line = SettlementLineRecord
    day = _day(session, CoupRecord.settled_at).label("day")
    columns: list[Any] = [CoupRecord.id.label("coup_id"), CoupRecord.table_id, CoupRecord.shoe_id,
                          day]
    for kind in KINDS:
        on_kind = line.kind == kind
        name = _label(kind)
        columns += [func.coalesce(func.sum(case((on_kind, line.stake), else_=0)), 0).label(f"t_{name}"),
                    func.coalesce(func.sum(case((on_kind, 1), else_=0)), 0).label(f"n_{name}"),
                    func.coalesce(func.sum(case((on_kind, -line.net), else_=0)), 0).label(f"w_{name}")]
    conditions = _coup_conditions(start, end, table_id)
    per_coup = (select(*columns).select_from(CoupRecord)
                .outerjoin(line, line.coup_id == CoupRecord.id)
                .where(and_(*conditions))
                .group_by(CoupRecord.id, CoupRecord.table_id, CoupRecord.shoe_id, day)
                .subquery("per_coup"))
    vector = [per_coup.c[f"t_{_label(kind)}"] for kind in KINDS]
    outer: list[Any] = [per_coup.c.table_id, per_coup.c.shoe_id, per_coup.c.day, *vector,
                        func.count().label("coups")]
    for kind in KINDS:
        name = _label(kind)
        outer += [func.sum(per_coup.c[f"{p}_{name}"]).label(f"{p}_{name}") for p in "nw"]
    query: Select[Any] = (select(*outer).group_by(per_coup.c.table_id, per_coup.c.shoe_id,
                                                  per_coup.c.day, *vector)
                          .order_by(per_coup.c.day, per_coup.c.table_id, per_coup.c.shoe_id))
    groups: dict[tuple[int, int, str], _Group] = {}
    names = [_label(kind) for kind in KINDS]
    for row in session.execute(query).mappings():
        day_value = row["day"]
        day_text = day_value.isoformat() if isinstance(day_value, date) else str(day_value)[:10]
        key = (int(row["table_id"]), int(row["shoe_id"]), day_text)
        group = groups.get(key)
        if group is None:
            group = groups[key] = _Group()
        coups = int(row["coups"])
        stakes = tuple(int(row[f"t_{name}"]) for name in names)
        group.coups += coups
        group.stakes[stakes] = group.stakes.get(stakes, 0) + coups
        for index, name in enumerate(names):
            group.bets[index] += int(row[f"n_{name}"])
            group.handle[index] += coups * stakes[index]
            group.win[index] += int(row[f"w_{name}"])
    return [ReportRow(table_id, shoe_id, day, Tally(
        coups=group.coups, bets=dict(zip(KINDS, group.bets, strict=True)),
        handle=dict(zip(KINDS, group.handle, strict=True)),
        win=dict(zip(KINDS, group.win, strict=True)), stakes=group.stakes))
        for (table_id, shoe_id, day), group in groups.items()]


@dataclass(slots=True)
class _Group:
    coups: int = 0
    bets: list[int] = field(default_factory=lambda: [0] * len(KINDS))
    handle: list[int] = field(default_factory=lambda: [0] * len(KINDS))
    win: list[int] = field(default_factory=lambda: [0] * len(KINDS))
    stakes: dict[tuple[int, ...], int] = field(default_factory=dict)


def shoes(session: Session, ids: Sequence[int]) -> dict[int, ShoeInfo]:
    """The shoes of some report rows: number, rules and start."""
    if not ids:
        return {}
    found = session.execute(select(ShoeRecord.id, ShoeRecord.table_id, ShoeRecord.shoe_no,
                                   ShoeRecord.rules, ShoeRecord.started_at)
                            .where(ShoeRecord.id.in_(sorted(set(ids))))).all()
    return {row.id: ShoeInfo(row.id, row.table_id, row.shoe_no, dict(row.rules), row.started_at)
            for row in found}


def table_names(session: Session) -> dict[int, str]:
    return {int(i): n for i, n in session.execute(select(GameTable.id, GameTable.name)
                                                   .order_by(GameTable.id))}


def _coup_conditions(start: datetime | None, end: datetime | None,
                     table_id: int | None) -> list[ColumnElement[bool]]:
    conditions = [CoupRecord.status == "settled"]
    if start is not None:
        conditions.append(CoupRecord.settled_at >= start)
    if end is not None:
        conditions.append(CoupRecord.settled_at < end)
    if table_id is not None:
        conditions.append(CoupRecord.table_id == table_id)
    return conditions


def player_shoes(session: Session, *, start: datetime | None = None,
                 end: datetime | None = None, table_id: int | None = None) -> list[PlayerShoe]:
    """Each player's bets per shoe over the coups settled in ``[start, end)``: coups, bets,
    stake per kind and the house's win."""
    line = SettlementLineRecord
    columns: list[Any] = [line.player_id, CoupRecord.shoe_id,
                          func.count(func.distinct(CoupRecord.id)).label("coups"),
                          func.count().label("bets"), func.sum(-line.net).label("win")]
    columns += [func.coalesce(func.sum(case((line.kind == kind, line.stake), else_=0)), 0)
                .label(f"t_{_label(kind)}") for kind in KINDS]
    query = (select(*columns).select_from(line).join(CoupRecord, CoupRecord.id == line.coup_id)
             .where(and_(*_coup_conditions(start, end, table_id)))
             .group_by(line.player_id, CoupRecord.shoe_id))
    return [PlayerShoe(int(row[0]), int(row[1]), int(row[2]), int(row[3]),
                       tuple(int(value) for value in row[5:]), int(row[4]))
            for row in session.execute(query)]


def player_coups(session: Session, *, start: datetime | None = None,
                 end: datetime | None = None, table_id: int | None = None) -> list[PlayerCoup]:
    """Every coup each player bet on (settled in ``[start, end)``), by player then opening."""
    line = SettlementLineRecord
    query = (select(line.player_id, CoupRecord.table_id, CoupRecord.opened_at,
                    CoupRecord.settled_at).select_from(line)
             .join(CoupRecord, CoupRecord.id == line.coup_id)
             .where(and_(*_coup_conditions(start, end, table_id)))
             .group_by(line.player_id, CoupRecord.id, CoupRecord.table_id, CoupRecord.opened_at,
                       CoupRecord.settled_at)
             .order_by(line.player_id, CoupRecord.opened_at, CoupRecord.id))
    return [PlayerCoup(player, table, opened, settled or opened)
            for player, table, opened, settled in session.execute(query)]


#: the ledger's reasons that bring money to a player's wallet from outside the tables
DROP_REASONS = ("welcome", "credit")


def player_drops(session: Session, *, start: datetime | None = None,
                 end: datetime | None = None) -> dict[int, int]:
    """Per player, the money credited to the wallet in ``[start, end)`` (a welcome or an
    operator's credit: the chips bought, as it were), cents."""
    conditions = [LedgerTransaction.reason.in_(DROP_REASONS), LedgerEntry.amount > 0,
                  LedgerTransaction.player_id.is_not(None)]
    if start is not None:
        conditions.append(LedgerTransaction.created_at >= start)
    if end is not None:
        conditions.append(LedgerTransaction.created_at < end)
    query = (select(LedgerTransaction.player_id, func.sum(LedgerEntry.amount))
             .join(LedgerTransaction, LedgerTransaction.id == LedgerEntry.transaction_id)
             .where(and_(*conditions)).group_by(LedgerTransaction.player_id))
    return {int(player or 0): int(amount) for player, amount in session.execute(query)}


def player_names(session: Session, ids: Sequence[int]) -> dict[int, str]:
    if not ids:
        return {}
    return {int(i): n for i, n in session.execute(
        select(Player.id, Player.username).where(Player.id.in_(sorted(set(ids)))))}
