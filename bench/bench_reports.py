"""The operator's reports over a year of play: how long the SQL aggregation (``db/reports.py``)
and the maths (``server/hold.py``, the bands of ``server/holdband.py``) take, for the whole
room, one table by shoe and by day, and every player.

Seeds a fresh SQLite file (or ``--database-url``, an empty database) with ``--tables`` tables
and ``--coups`` settled coups spread over 365 UTC days, 80 coups to a shoe, each coup with one
to six bets of random kinds and stakes (settlement lines written directly: the figures measure
the reading, not the dealing), then times the reports as ``GET /api/reports/tables…`` builds
them (best of ``--repeat``); the two reports also as ``api/reports.py`` answers them, as the
console asks (JSON: per-bet bands for the total only) and with every line's per-bet bands (CSV).

Run: ``.venv/bin/python bench/bench_reports.py [--coups 100000] [--tables 3]``.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import shutil
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import create_engine, insert
from sqlalchemy.orm import Session

from puntobanco.rules import RuleSet
from puntobanco.server.api.reports import table_figures, tables_figures
from puntobanco.server.db import reports, store
from puntobanco.server.db.engine import migrate
from puntobanco.server.db.models import (
    BetRecord,
    CoupRecord,
    Player,
    SettlementLineRecord,
    ShoeRecord,
)
from puntobanco.server.hold import KINDS, players, summarise
from puntobanco.server.settings import table_rules_from_json, table_rules_to_json

COUPS_PER_SHOE = 80
START = datetime(2025, 1, 1, tzinfo=UTC)


def seed(url: str, *, coups: int, tables: int, rng: random.Random) -> None:
    migrate(url)
    engine = create_engine(url)
    rules_json = table_rules_to_json(RuleSet(), betting_seconds=15)
    with Session(engine) as session, session.begin():
        table_ids = [store.create_table(session, name=f"Bench {n}", rules=RuleSet(),
                                        betting_seconds=15).id for n in range(tables)]
        session.execute(insert(Player), [
            {"id": 1000 + n, "username": f"p{n}", "username_key": f"p{n}", "password_hash": "x",
             "role": "player", "lang": "en", "created_at": START} for n in range(50)])
        coup_id = bet_id = 0
        per_table = coups // tables
        for table_id in table_ids:
            for shoe_no in range(1, per_table // COUPS_PER_SHOE + 2):
                first = (shoe_no - 1) * COUPS_PER_SHOE
                count = min(COUPS_PER_SHOE, per_table - first)
                if count <= 0:
                    break
                shoe = ShoeRecord(table_id=table_id, shoe_no=shoe_no, card_order="", salt="00",
                                  commitment="0" * 64, rules=rules_json, cut_index=298, burned=3,
                                  status="finished", started_at=START)
                session.add(shoe)
                session.flush()
                coup_rows, bet_rows, line_rows = [], [], []
                for number in range(count):
                    coup_id += 1
                    moment = START + timedelta(seconds=(first + number) * 365 * 86400 / per_table)
                    coup_rows.append({"id": coup_id, "table_id": table_id, "shoe_id": shoe.id,
                                      "round_no": first + number + 1,
                                      "coup_in_shoe": number + 1, "last_coup": False,
                                      "status": "settled", "opened_at": moment,
                                      "settled_at": moment})
                    for seq, player in enumerate(rng.sample(range(1000, 1050),
                                                            rng.randint(1, 6))):
                        bet_id += 1
                        kind = rng.choice(KINDS)
                        stake = rng.choice((1000, 2500, 5000, 10000))
                        outcome = rng.random()
                        net = -stake if outcome < 0.5 else (0 if outcome < 0.55 else stake)
                        bet_rows.append({"id": bet_id, "coup_id": coup_id, "player_id": player,
                                         "kind": kind, "stake": stake, "status": "settled",
                                         "placed_at": moment})
                        line_rows.append({"coup_id": coup_id, "bet_id": bet_id,
                                          "player_id": player, "seq": seq, "kind": kind,
                                          "stake": stake, "net": net,
                                          "outcome": "lose" if net < 0 else "win",
                                          "returned": max(0, stake + net), "pays": "1:1",
                                          "detail": "bench"})
                session.execute(insert(CoupRecord), coup_rows)
                session.execute(insert(BetRecord), bet_rows)
                session.execute(insert(SettlementLineRecord), line_rows)
    engine.dispose()


def best_of(repeat: int, work: object) -> tuple[float, object]:
    """The best CPU time of ``repeat`` runs (this process's: the database's own work on
    PostgreSQL is not in it; wall time is too noisy on a shared machine), and the result."""
    best, result = float("inf"), None
    for _ in range(repeat):
        began = time.process_time()
        result = work()  # type: ignore[operator]
        best = min(best, time.process_time() - began)
    return best, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--coups", type=int, default=100_000)
    parser.add_argument("--tables", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--database-url", default=None)
    options = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="pb-bench-reports-"))
    url = options.database_url or f"sqlite:///{folder / 'reports.sqlite3'}"
    began = time.perf_counter()
    seed(url, coups=options.coups, tables=options.tables, rng=random.Random(11))
    print(f"seeded {options.coups:,} coups on {options.tables} tables in "
          f"{time.perf_counter() - began:.1f} s ({url.split(':')[0]})")
    engine = create_engine(url)

    def room() -> object:
        with Session(engine) as session:
            rows = reports.tally_rows(session)
            shoes = reports.shoes(session, [row.shoe_id for row in rows])
            parsed = {i: table_rules_from_json(s.rules)[0] for i, s in shoes.items()}
            return len(rows), summarise((row.tally, parsed[row.shoe_id]) for row in rows)

    def one_table() -> object:
        with Session(engine) as session:
            rows = reports.tally_rows(session, table_id=1)
            shoes = reports.shoes(session, [row.shoe_id for row in rows])
            parsed = {i: table_rules_from_json(s.rules)[0] for i, s in shoes.items()}
            days: dict[str, list[object]] = {}
            for row in rows:
                days.setdefault(row.day, []).append((row.tally, parsed[row.shoe_id]))
            return [summarise(part) for part in days.values()]  # type: ignore[arg-type]

    def by_shoe() -> object:
        with Session(engine) as session:
            rows = reports.tally_rows(session, table_id=1)
            shoes = reports.shoes(session, [row.shoe_id for row in rows])
            parsed = {i: table_rules_from_json(s.rules)[0] for i, s in shoes.items()}
            found: dict[int, list[object]] = {}
            for row in rows:
                found.setdefault(row.shoe_id, []).append((row.tally, parsed[row.shoe_id]))
            return [summarise(part) for part in found.values()]  # type: ignore[arg-type]

    def players_year() -> object:
        with Session(engine) as session:
            found = reports.player_shoes(session)
            shoes = reports.shoes(session, [shoe.shoe_id for shoe in found])
            parsed = {i: table_rules_from_json(s.rules)[0] for i, s in shoes.items()}
            return players(found, reports.player_coups(session), parsed.__getitem__,
                           reports.player_drops(session))

    def one_month() -> object:
        with Session(engine) as session:
            rows = reports.tally_rows(session, start=START + timedelta(days=90),
                                      end=START + timedelta(days=120))
            return len(rows)

    def page(every: bool) -> object:  # GET /api/reports/tables/1 (JSON; every: or CSV)
        with Session(engine) as session:
            return table_figures(session, 1, None, None, bet_bands=every)

    def room_page(every: bool) -> object:  # GET /api/reports/tables
        with Session(engine) as session:
            return tables_figures(session, None, None, bet_bands=every)

    room()  # the exact theory of the rules, once (cached)
    for name, work in (("one table's report, JSON as the console asks it", lambda: page(False)),
                       ("one table's report, every line's per-bet bands (CSV, ?bet_bands=true)",
                        lambda: page(True)),
                       ("the room's report, JSON", lambda: room_page(False)),
                       ("the room's report, every line's per-bet bands (CSV)",
                        lambda: room_page(True))):
        seconds, _ = best_of(options.repeat, work)
        print(f"{name}, all year: {seconds * 1000:.0f} ms")
    seconds, (groups, figures) = best_of(options.repeat, room)  # type: ignore[misc]
    print(f"room, all year: {seconds * 1000:.0f} ms ({groups:,} table/shoe/day groups, "
          f"{figures['coups']:,} coups, {figures['bets']:,} bets)")
    seconds, days = best_of(options.repeat, one_table)
    print(f"one table by day, all year: {seconds * 1000:.0f} ms ({len(days):,} days)")  # type: ignore[arg-type]
    seconds, found = best_of(options.repeat, by_shoe)
    print(f"one table by shoe, all year: {seconds * 1000:.0f} ms ({len(found):,} shoes)")  # type: ignore[arg-type]
    seconds, found = best_of(options.repeat, players_year)
    print(f"every player, all year: {seconds * 1000:.0f} ms ({len(found):,} players)")  # type: ignore[arg-type]
    seconds, groups = best_of(options.repeat, one_month)
    print(f"room, 30 days: {seconds * 1000:.0f} ms ({groups} groups)")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print("CPU times of this process, best of the runs")
    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs, load average {load:.1f}")
    engine.dispose()
    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
