"""Reports and the audit log (operators only): hold against the theoretical house edge per
table, shoe and UTC day over any period, as JSON or CSV (``docs/operator.md``)."""

from __future__ import annotations

import csv
import io
import re
from collections import defaultdict
from collections.abc import Callable, Iterable
from datetime import UTC, date, datetime, timedelta
from typing import Annotated, Any, Literal, TypeVar

from fastapi import APIRouter, Query
from fastapi.responses import Response
from pydantic import BaseModel
from sqlalchemy.orm import Session

from puntobanco.errors import PuntoBancoError
from puntobanco.rules import RuleSet
from puntobanco.server.api.deps import CasinoDep, Operator
from puntobanco.server.api.schemas import ERRORS, Id
from puntobanco.server.db import admin, audit, reports
from puntobanco.server.db.audit import epoch_ms
from puntobanco.server.hold import KINDS, Tally, players, summarise, summarise_series
from puntobanco.server.settings import table_rules_from_json

#: a row id in a query (bounded, so that no database is asked about a number it cannot hold)
RowId = Annotated[int, Query(ge=0, le=2**31 - 1)]

router = APIRouter(prefix="/api", tags=["reports"], responses=ERRORS)

Format = Literal["json", "csv"]


class Figures(BaseModel):
    bets: int
    handle: int
    house_win: int
    hold: float | None
    theoretical_edge: float | None
    expected_win: float
    sd: float
    z: float | None
    band: list[float] | None
    band_win: list[float] | None
    tail: float | None
    band_method: Literal["exact", "lattice", "saddlepoint"] | None


class Lion(BaseModel):
    handle: int
    house_win: int
    hold: float | None
    handle_share: float | None
    win_share: float | None


class Summary(Figures):
    coups: int
    lion: Lion
    by_bet: dict[str, Figures]


class TableLine(Summary):
    table_id: int
    name: str


class ShoeLine(Summary):
    shoe_id: int
    shoe_no: int
    started_at: int
    cumulative_band: list[float] | None = None


class DayLine(Summary):
    day: str
    cumulative_band: list[float] | None = None


class TablesReport(BaseModel):
    start: str | None
    end: str | None
    tables: list[TableLine]
    total: Summary
    by_day: list[DayLine]


class TableReport(BaseModel):
    table_id: int
    name: str
    start: str | None
    end: str | None
    total: Summary
    by_shoe: list[ShoeLine]
    by_day: list[DayLine]


class AuditLine(BaseModel):
    id: int
    at: int
    operator_id: int
    operator: str
    action: str
    target_kind: str
    target_id: int | None
    target_name: str | None = None
    before: dict[str, Any] | None
    after: dict[str, Any] | None


_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def period(start: str | None, end: str | None) -> tuple[datetime | None, datetime | None]:
    """``from`` and ``to`` (UTC days ``YYYY-MM-DD``, both included) as ``[start, end)``; a
    period running to the last day there is (9999-12-31) has no end.

    Only ISO's extended calendar date is a day here: ``date.fromisoformat`` also reads
    ``20261201`` and ``2026-W01-1``, which the API does not promise (issue 18).

    >>> period("2026-12-01", "2026-12-01")[1]
    datetime.datetime(2026, 12, 2, 0, 0, tzinfo=datetime.timezone.utc)
    >>> period(None, "9999-12-31")
    (None, None)
    """
    try:
        first, last = (None if day is None or day == "" else _day(day) for day in (start, end))
    except ValueError:
        raise PuntoBancoError("Dates are written YYYY-MM-DD.", code="bad-period") from None
    if first is not None and last is not None and first > last:
        raise PuntoBancoError("The period's first day comes after its last.", code="bad-period")
    return (None if first is None else datetime.combine(first, datetime.min.time(), UTC),
            None if last is None or last == date.max
            else datetime.combine(last + timedelta(days=1), datetime.min.time(), UTC))


def _day(text: str) -> date:
    if not _DAY.fullmatch(text):
        raise ValueError(text)
    return date.fromisoformat(text)


FromQ = Annotated[str | None, Query(alias="from", max_length=10,
                                    description="first UTC day, YYYY-MM-DD (included)")]
ToQ = Annotated[str | None, Query(alias="to", max_length=10,
                                  description="last UTC day, YYYY-MM-DD (included)")]
FormatQ = Annotated[Format, Query(description="json, or csv for a download")]


class _Rules:
    """Each shoe's rules, read once per report."""

    def __init__(self, shoes: dict[int, reports.ShoeInfo]) -> None:
        self.shoes = shoes
        self._parsed: dict[int, RuleSet] = {}

    def of(self, shoe_id: int) -> RuleSet:
        if shoe_id not in self._parsed:
            self._parsed[shoe_id] = table_rules_from_json(self.shoes[shoe_id].rules)[0]
        return self._parsed[shoe_id]

    def parts(self, rows: Iterable[reports.ReportRow]) -> list[tuple[Tally, RuleSet]]:
        return [(row.tally, self.of(row.shoe_id)) for row in rows]


def _series(key: str, groups: list[tuple[Any, list[reports.ReportRow]]],
            rules: _Rules, *, bet_bands: bool) -> list[dict[str, Any]]:
    """A chart's lines in order (shoes or days), each with its cumulative band."""
    found = summarise_series([rules.parts(part) for _, part in groups], bet_bands=bet_bands)
    return [{key: name, **figures} for (name, _), figures in zip(groups, found, strict=True)]


def _read(session: Session, start: datetime | None, end: datetime | None,
          table_id: int | None) -> tuple[list[reports.ReportRow], _Rules, dict[int, str]]:
    rows = reports.tally_rows(session, start=start, end=end, table_id=table_id)
    return (rows, _Rules(reports.shoes(session, [row.shoe_id for row in rows])),
            reports.table_names(session))


#: the reports' other answer, for the OpenAPI document (``?format=csv``)
CSV_ANSWER: dict[int | str, dict[str, Any]] = {200: {"content": {"text/csv": {
    "schema": {"type": "string"}}}, "description": "JSON, or with format=csv a CSV download"}}


_Key = TypeVar("_Key", int, str)


def _grouped(rows: Iterable[reports.ReportRow], key: Callable[[reports.ReportRow], _Key]
             ) -> dict[_Key, list[reports.ReportRow]]:
    """The rows by table, shoe or day, each group in the rows' order."""
    groups: dict[_Key, list[reports.ReportRow]] = defaultdict(list)
    for row in rows:
        groups[key(row)].append(row)
    return groups


def _day_of(row: reports.ReportRow) -> str:
    return row.day


#: ``?bet_bands=true``: each line's per-bet bands in the JSON too
BetBandsQ = Annotated[bool, Query(description=(
    "each line's bands and tails per bet kind too (the total always has them, the CSV has them "
    "on every line); without it a line's by_bet band, band_win, tail and band_method are null"))]


def tables_figures(session: Session, start: str | None, end: str | None, *,
                   bet_bands: bool) -> dict[str, Any]:
    """``GET /api/reports/tables``' answer: every table, the room's total and its days.

    The per-bet bands (five of a line's six exact bands, most of a report's CPU) are computed
    for the total always, for each table and day line only with ``bet_bands``: the console shows
    the total's per bet, the CSV every line's."""
    begin, stop = period(start, end)
    rows, rules, names = _read(session, begin, stop, None)
    by_table, days = _grouped(rows, lambda row: row.table_id), _grouped(rows, _day_of)
    return {"start": start, "end": end,
            "tables": [{"table_id": table_id, "name": name,
                        **summarise(rules.parts(by_table.get(table_id, [])),
                                    bet_bands=bet_bands)}
                       for table_id, name in names.items()],
            "total": summarise(rules.parts(rows)),
            "by_day": _series("day", sorted(days.items()), rules, bet_bands=bet_bands)}


def table_figures(session: Session, table_id: int, start: str | None, end: str | None, *,
                  bet_bands: bool) -> dict[str, Any]:
    """``GET /api/reports/tables/{id}``' answer: one table's total, shoes and days (per-bet
    bands on the shoe and day lines only with ``bet_bands``, as :func:`tables_figures`)."""
    begin, stop = period(start, end)
    admin.table_row(session, table_id)
    rows, rules, names = _read(session, begin, stop, table_id)
    shoes, days = _grouped(rows, lambda row: row.shoe_id), _grouped(rows, _day_of)
    ordered = sorted(shoes.items(), key=lambda item: rules.shoes[item[0]].shoe_no)
    by_shoe = [{**line, "shoe_no": rules.shoes[line["shoe_id"]].shoe_no,
                "started_at": epoch_ms(rules.shoes[line["shoe_id"]].started_at)}
               for line in _series("shoe_id", ordered, rules, bet_bands=bet_bands)]
    by_day = _series("day", sorted(days.items()), rules, bet_bands=bet_bands)
    return {"table_id": table_id, "name": names[table_id], "start": start, "end": end,
            "total": summarise(rules.parts(rows)), "by_shoe": by_shoe, "by_day": by_day}


@router.get("/reports/tables", response_model=TablesReport, responses=CSV_ANSWER)
async def tables_report(casino: CasinoDep, _operator: Operator, start: FromQ = None,
                        end: ToQ = None, format: FormatQ = "json",
                        bet_bands: BetBandsQ = False) -> Any:
    """Every table over the period (all time without ``from``/``to``), and the whole room in
    all and per UTC day."""
    period(start, end)  # a bad period is refused before the database is asked
    every = bet_bands or format == "csv"
    found = await casino.db.run_read(lambda session: tables_figures(session, start, end,
                                                                    bet_bands=every))
    if format == "csv":
        lines = [{"group": "table", "table_id": t["table_id"], "name": t["name"], **t}
                 for t in found["tables"]]
        lines.append({"group": "total", **found["total"]})
        lines += [{"group": "day", **line} for line in found["by_day"]]
        return _csv(lines, f"tables-{start or 'all'}-{end or 'all'}.csv", (start, end))
    return found


@router.get("/reports/tables/{table_id}", response_model=TableReport, responses=CSV_ANSWER)
async def table_report(table_id: Id, casino: CasinoDep, _operator: Operator,
                       start: FromQ = None, end: ToQ = None, format: FormatQ = "json",
                       bet_bands: BetBandsQ = False) -> Any:
    """One table over the period: its total, each shoe and each UTC day."""
    period(start, end)
    every = bet_bands or format == "csv"
    found = await casino.db.run_read(lambda session: table_figures(session, table_id, start,
                                                                   end, bet_bands=every))
    if format == "csv":
        lines = [{"group": "total", **found["total"]}]
        lines += [{"group": "shoe", **line} for line in found["by_shoe"]]
        lines += [{"group": "day", **line} for line in found["by_day"]]
        return _csv(lines, f"table-{table_id}-{start or 'all'}-{end or 'all'}.csv",
                    (start, end))
    return found


CSV_COLUMNS = ("group", "table_id", "name", "shoe_id", "shoe_no", "day", "from", "to", "coups",
               "bets", "handle", "house_win", "hold", "theoretical_edge", "expected_win", "sd",
               "z", "band_low", "band_high", "tail", "band_method", "lion_hold",
               "lion_handle_share", "lion_win_share")
#: the figures each bet kind has its own columns for (``hold_banco``, ``tail_lion-punto`` …)
CSV_PER_BET = ("bets", "handle", "house_win", "hold", "theoretical_edge", "expected_win", "sd",
               "z", "band_low", "band_high", "tail")


def _csv(lines: list[dict[str, Any]], filename: str,
         period: tuple[str | None, str | None] = (None, None)) -> Response:
    """One row per line: amounts in cents, ratios as fractions (0.0123 = 1.23 %); ``from`` and
    ``to`` the period asked (empty: all time)."""
    per_kind = [f"{column}_{kind}" for kind in KINDS for column in CSV_PER_BET]
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=[*CSV_COLUMNS, *per_kind], extrasaction="ignore",
                            lineterminator="\n")
    writer.writeheader()
    for line in lines:
        row = {**_flat(line), "from": period[0], "to": period[1],
               "lion_hold": line["lion"]["hold"],
               "lion_handle_share": line["lion"]["handle_share"],
               "lion_win_share": line["lion"]["win_share"]}
        for kind, figures in line["by_bet"].items():
            row.update({f"{column}_{kind}": value for column, value in _flat(figures).items()
                        if column in CSV_PER_BET})
        writer.writerow({key: "" if value is None else _cell(value) for key, value in row.items()})
    return Response(out.getvalue(), media_type="text/csv; charset=utf-8",
                    headers={"Content-Disposition": f'attachment; filename="{filename}"'})


def _flat(figures: dict[str, Any]) -> dict[str, Any]:
    band = figures.get("band") or [None, None]
    return {**figures, "band_low": band[0], "band_high": band[1]}


def _cell(value: object) -> object:
    """A text that a spreadsheet would read as a formula is quoted (a table's name "=1+1")."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@"):
        return "'" + value
    return value


class PlayerLine(BaseModel):
    player_id: int
    username: str
    coups: int
    bets: int
    handle: int
    house_win: int
    hold: float | None
    theoretical_win: float
    theoretical_edge: float | None
    average_bet: float | None
    hours: float
    coups_per_hour: float | None
    drop: int
    win_per_drop: float | None


class PlayersReport(BaseModel):
    start: str | None
    end: str | None
    table_id: int | None
    players: list[PlayerLine]


PLAYER_COLUMNS = tuple(PlayerLine.model_fields)


@router.get("/reports/players", response_model=PlayersReport, responses=CSV_ANSWER)
async def players_report(casino: CasinoDep, _operator: Operator, start: FromQ = None,
                         end: ToQ = None, table_id: RowId | None = None,
                         format: FormatQ = "json") -> Any:
    """Each player over the period (at one table with ``table_id``): theoretical win, average
    bet, coups per hour, win per drop (``docs/operator.md``), highest theoretical win first."""
    begin, stop = period(start, end)

    def read(session: Session) -> dict[str, Any]:
        if table_id is not None:
            admin.table_row(session, table_id)
        shoes = reports.player_shoes(session, start=begin, end=stop, table_id=table_id)
        rules = _Rules(reports.shoes(session, [shoe.shoe_id for shoe in shoes]))
        found = players(shoes, reports.player_coups(session, start=begin, end=stop,
                                                    table_id=table_id),
                        rules.of, reports.player_drops(session, start=begin, end=stop))
        names = reports.player_names(session, [one["player_id"] for one in found])
        return {"start": start, "end": end, "table_id": table_id,
                "players": [{**one, "username": names[one["player_id"]]} for one in found]}

    found = await casino.db.run_read(read)
    if format == "csv":
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=["from", "to", "table_id", *PLAYER_COLUMNS],
                                lineterminator="\n")
        writer.writeheader()
        for one in found["players"]:
            writer.writerow({key: "" if value is None else _cell(value) for key, value in
                             {"from": start, "to": end, "table_id": table_id, **one}.items()})
        name = f"players-{table_id or 'all'}-{start or 'all'}-{end or 'all'}.csv"
        return Response(out.getvalue(), media_type="text/csv; charset=utf-8",
                        headers={"Content-Disposition": f'attachment; filename="{name}"'})
    return found


@router.get("/audit", response_model=list[AuditLine])
async def audit_log(casino: CasinoDep, _operator: Operator,
                    limit: Annotated[int, Query(ge=1, le=500)] = 100,
                    before_id: RowId | None = None,
                    action: Annotated[str | None, Query(max_length=32)] = None,
                    target_kind: Literal["table", "player"] | None = None,
                    target_id: RowId | None = None) -> list[dict[str, Any]]:
    """The audit log, newest first (read-only: nothing changes or deletes an entry)."""
    return await casino.db.run_read(lambda s: audit.entries(
        s, limit=limit, before_id=before_id, action=action, target_kind=target_kind,
        target_id=target_id))
