"""The reports' SQL: settled coups added up per table, shoe and UTC day (SQLite and PostgreSQL).

One query: per settled coup, its whole stake, bet count and house win on each bet kind (a coup
with no bet counts as a coup with zeros); then per (table, shoe, day) the sums of those and of
every product T_j·T_k, which the standard deviation needs (:mod:`puntobanco.server.hold`). The
maths is not here: rows come back as :class:`ReportRow` with a :class:`~puntobanco.server.hold.Tally`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from sqlalchemy import ColumnElement, Select, and_, case, func, select
from sqlalchemy.orm import Session

from puntobanco.server.db.models import CoupRecord, GameTable, SettlementLineRecord, ShoeRecord
from puntobanco.server.hold import KINDS, PAIRS, Tally


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
    conditions = [CoupRecord.status == "settled"]
    if start is not None:
        conditions.append(CoupRecord.settled_at >= start)
    if end is not None:
        conditions.append(CoupRecord.settled_at < end)
    if table_id is not None:
        conditions.append(CoupRecord.table_id == table_id)
    per_coup = (select(*columns).select_from(CoupRecord)
                .outerjoin(line, line.coup_id == CoupRecord.id)
                .where(and_(*conditions))
                .group_by(CoupRecord.id, CoupRecord.table_id, CoupRecord.shoe_id, day)
                .subquery("per_coup"))
    outer: list[Any] = [per_coup.c.table_id, per_coup.c.shoe_id, per_coup.c.day,
                        func.count().label("coups")]
    for kind in KINDS:
        name = _label(kind)
        outer += [func.sum(per_coup.c[f"{p}_{name}"]).label(f"{p}_{name}") for p in "tnw"]
    for a, b in PAIRS:
        outer.append(func.sum(per_coup.c[f"t_{_label(a)}"] * per_coup.c[f"t_{_label(b)}"])
                     .label(f"x_{_label(a)}__{_label(b)}"))
    query: Select[Any] = (select(*outer).group_by(per_coup.c.table_id, per_coup.c.shoe_id,
                                                  per_coup.c.day)
                          .order_by(per_coup.c.day, per_coup.c.table_id, per_coup.c.shoe_id))
    rows: list[ReportRow] = []
    for row in session.execute(query).mappings():
        kinds = {kind: _label(kind) for kind in KINDS}
        tally = Tally(
            coups=int(row["coups"]),
            bets={kind: int(row[f"n_{name}"]) for kind, name in kinds.items()},
            handle={kind: int(row[f"t_{name}"]) for kind, name in kinds.items()},
            win={kind: int(row[f"w_{name}"]) for kind, name in kinds.items()},
            cross={(a, b): int(row[f"x_{_label(a)}__{_label(b)}"]) for a, b in PAIRS})
        day_value = row["day"]
        day_text = day_value.isoformat() if isinstance(day_value, date) else str(day_value)[:10]
        rows.append(ReportRow(int(row["table_id"]), int(row["shoe_id"]), day_text, tally))
    return rows


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
