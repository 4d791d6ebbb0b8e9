"""Issue 21: what one group commit of the desk costs on PostgreSQL, on each side of the socket.

The table's real ``BetDesk`` on an event loop (uvloop, as the server) writes batches of
``--sizes`` bets (each a plain Punto or Banco bet with an idempotency key and the player's
session token, as ``api/fastbets.take_bet`` submits them over the socket) into one open coup of a
throw-away PostgreSQL cluster (fsync off). Every batch is the server's own transaction
(``Database.run_write`` on the write thread). Printed per batch size:

* **write thread**: CPU of ``Database._write_call`` (``time.thread_time`` around each call: the
  checkout, the batch's statements, the commit; mean and median of the batches) per batch and
  per bet — the figure the issue's profile calls "the db thread";
* **process**: this process's whole CPU per bet (the loop's side too: submitting, answering);
* **PostgreSQL**: CPU of the cluster's processes (``/proc``, utime + stime: the backend, the
  WAL writer, …) per bet.

``--repeat`` rounds of every size, in turn (A B A B: a loaded machine's drift spreads over both).
``--ab WAY`` writes every other batch the other way named (the way before a change, patched in
by the bench: A/B interleaved batch by batch in one process, the fairest comparison on a shared
machine); two versions of the code can also be compared by running it alternately with
``PYTHONPATH`` pointing at each tree's ``src``. Run: ``.venv/bin/python
bench/bench_pg_batch.py [--sizes 1,13,100] [--batches 200] [--repeat 2] [--ab WAY]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

sys.path.insert(0, str(Path(__file__).parent))
from bench_load import tree_cpu
from bench_server import Postgres, bench_table
from puntobanco.bets import BetKind
from puntobanco.rules import RuleSet
from puntobanco.server.db import store
from puntobanco.server.db.engine import Database, migrate
from puntobanco.server.db.players import create_players
from puntobanco.server.live.desk import BetDesk
from puntobanco.server.live.hub import Hub

T = TypeVar("T")


class Timed(Database):
    """The server's database, with the write thread's CPU of each call added up."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.calls = 0
        self.cpu = 0.0
        #: each call's CPU, seconds
        self.each: list[float] = []

    def _write_call(self, work: Callable[..., T]) -> tuple[T, bool]:
        began = time.thread_time()
        try:
            return super()._write_call(work)
        finally:
            self._count(time.thread_time() - began)

    def _write_core_call(self, work: Callable[..., T]) -> T:  # issue 21's way, if there
        began = time.thread_time()
        try:
            return super()._write_core_call(work)  # type: ignore[misc]
        finally:
            self._count(time.thread_time() - began)

    def _count(self, spent: float) -> None:
        self.cpu += spent
        self.calls += 1
        self.each.append(spent)


def cluster_pids(root: Path) -> list[int]:
    """The postmaster of the cluster whose data directory is under ``root``."""
    return [int((root / "data" / "postmaster.pid").read_text().split()[0])]


def cpu_of(pids: list[int]) -> float:
    """CPU seconds of these postmasters' whole trees (backends that ended included)."""
    return sum(tree_cpu(pid) for pid in pids)


def statements_through_sqlalchemy(_db: Database) -> Callable[[], None]:
    """The batch's statements through ``Connection.exec_driver_sql``, as before issue 21's
    ``bulk.pg_execute``; gives back the undo."""
    from puntobanco.server.db import bulk

    kept = bulk.pg_execute

    def through(connection: Any, statement: str, params: Any = ()) -> list[Any]:
        result = connection.exec_driver_sql(statement, params)
        return list(result) if result.returns_rows else []

    bulk.pg_execute = through

    def undo() -> None:
        bulk.pg_execute = kept
    return undo


def through_the_session(db: Database) -> Callable[[], None]:
    """The desk's PostgreSQL batch in an ORM session, as before issue 21's
    ``Database.run_write_core``."""
    def in_a_session(work: Callable[..., T], *, essential: bool = False) -> Any:
        return db.run_write(work, essential=essential)

    db.run_write_core = in_a_session  # type: ignore[method-assign]

    def undo() -> None:
        del db.run_write_core
    return undo


def psycopg_arrays(_db: Database) -> Callable[[], None]:
    """Every array dumped by psycopg value by value, as before issue 21's ``bulk.packed``."""
    from puntobanco.server.db import bulk

    kept = bulk.packed
    bulk.packed = lambda values, kind: list(values)  # type: ignore[assignment]

    def undo() -> None:
        bulk.packed = kept
    return undo


#: ``--ab``: the other way of a batch, applied to every other batch (name → apply, giving undo)
WAYS: dict[str, Callable[[Database], Callable[[], None]]] = {
    "sqlalchemy-statements": statements_through_sqlalchemy,
    "session": through_the_session,
    "psycopg-arrays": psycopg_arrays,
}


async def window(db: Timed, desk: BetDesk, people: list[tuple[int, str]], size: int,
                 batches: int, pids: list[int], tag: str, ab: str | None,
                 ) -> dict[str, dict[str, float]]:
    """``batches`` batches of ``size`` bets each (every player bets once); with ``ab`` every
    other batch is written the other way. Figures per way."""
    spent: dict[str, list[float]] = {"as is": [], ab or "": []}
    process: dict[str, float] = {"as is": 0.0, ab or "": 0.0}
    postgres: dict[str, float] = {"as is": 0.0, ab or "": 0.0}
    accepted = 0
    for number in range(batches):
        way = ab if ab is not None and number % 2 else "as is"
        undo = WAYS[way](db) if way != "as is" else None
        chunk = people[number * size:(number + 1) * size]
        pg0 = cpu_of(pids)  # reading /proc costs this process: before its clock starts
        calls, process0 = db.calls, time.process_time()
        futures = [desk.submit(store.BetOp(player, BetKind.PUNTO if player % 2 else
                                           BetKind.BANCO, 1_000, f"{tag}-{player}"),
                               token=token) for player, token in chunk]
        for answer in await asyncio.gather(*futures, return_exceptions=True):
            accepted += isinstance(answer, dict) and "stake" in answer
        process[way] += time.process_time() - process0
        postgres[way] += cpu_of(pids) - pg0  # ticks of 10 ms: summed over many batches
        spent[way].extend(db.each[calls:])
        if undo is not None:
            undo()
    if accepted != size * batches:
        raise SystemExit(f"{size * batches - accepted} of {size * batches} bets refused: "
                         "the bench is wrong")
    found: dict[str, dict[str, float]] = {}
    for way, each in spent.items():
        if not each:
            continue
        each.sort()
        bets = size * len(each)
        found[way] = {"thread": sum(each) / len(each), "median": each[len(each) // 2],
                      "thread_bet": sum(each) / bets, "process_bet": process[way] / bets,
                      "pg_bet": postgres[way] / bets}
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="1,13,100", help="bets per batch, comma-separated")
    parser.add_argument("--batches", type=int, default=200,
                        help="batches per size and round (fewer for large sizes: at most "
                        "3,000 bets)")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--ab", choices=sorted(WAYS),
                        help="every other batch written this other way (A/B in one process)")
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    import puntobanco
    print(f"Python {platform.python_version()}, code from {Path(puntobanco.__file__).parent}; "
          f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores at the start")
    try:
        import uvloop

        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    except ImportError:
        pass
    cluster = Postgres(durable=False)
    try:
        url = cluster.new_database()
        migrate(url)
        db = Timed(url)
        most = max(min(args.batches, 3_000 // size) * size for size in sizes)
        with db.write() as session:
            made = create_players(session, [f"p{n}" for n in range(most)], password_hash="-",
                                  lang="en", welcome=10**9, sessions=True)
            table_id, shoe_id = bench_table(session)
        people = [(one.id, one.token or "") for one in made]

        async def run() -> dict[int, list[dict[str, dict[str, float]]]]:
            desk = BetDesk(table_id=table_id, db=db, hub=Hub(), linger=0.0)
            desk.start()
            found: dict[int, list[dict[str, dict[str, float]]]] = {size: [] for size in sizes}
            round_no = 0
            for turn in range(args.repeat + 1):  # the first turn warms the caches
                for size in sizes:
                    round_no += 1
                    with db.write() as session:
                        coup = store.open_coup(session, table_id=table_id, shoe_id=shoe_id,
                                               round_no=round_no, coup_in_shoe=round_no,
                                               last_coup=False)
                    desk.open(coup_id=coup, round_no=round_no, rules=RuleSet())
                    batches = min(args.batches, 3_000 // size) if turn else 5
                    figures = await window(db, desk, people, size, batches,
                                           cluster_pids(cluster.root), f"r{round_no}",
                                           args.ab if turn else None)
                    desk.close()
                    await desk.drain()
                    with db.write() as session:
                        store.close_coup(session, coup)
                    if turn:
                        found[size].append(figures)
            await desk.stop()
            return found

        found = asyncio.run(run())
        print("way | bets a batch | write thread per batch: mean (median) | per bet: write "
              "thread | process | PostgreSQL, µs")
        for size, runs in found.items():
            for way in runs[0]:
                def each(key: str, runs: list[dict[str, dict[str, float]]] = runs,
                         way: str = way) -> str:
                    return " · ".join(f"{1e6 * figures[way][key]:,.0f}" for figures in runs)
                medians = " · ".join(f"{1e6 * figures[way]['thread']:,.0f} "
                                     f"({1e6 * figures[way]['median']:,.0f})" for figures in runs)
                print(f"{way} | {size} | {medians} | {each('thread_bet')} | "
                      f"{each('process_bet')} | {each('pg_bet')}")
        db.close()
    finally:
        cluster.stop()
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
