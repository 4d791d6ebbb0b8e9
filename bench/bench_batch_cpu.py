"""Issue 21: what one of the desk's batches costs the server's CPU, everything in it included.

``BetDesk._write`` exactly as the batcher calls it — the hop to the write thread (or none),
the session tokens checked in the batch, ``store.apply_bets``, the commit, the answers — on a
real event loop (uvloop, the server's switch interval) that does nothing else, so the process's
CPU (``time.process_time``: every thread) over a batch is the batch's. ``--players`` players
with sessions and credited wallets, one table; batches of ``--sizes`` keyed bets (random
players, Punto or Banco, 10.00, each with its player's token, as ``api/fastbets.take_bet`` submits them; a new
coup when each player has bet twice), ``--batches`` of each size after two to warm up.
Prints µs of CPU per batch and per bet, the SQLite write-ahead log's frames written per batch
(``PRAGMA wal_checkpoint`` is not run: the frame count is read from the log's size), and the
ledger audit.

Run it on two versions of the code interleaved to compare them, e.g. the tree before a change
unpacked in /tmp/base (``git archive``): ``for i in 1 2; do PYTHONPATH=/tmp/base/src
.venv/bin/python bench/bench_batch_cpu.py; .venv/bin/python bench/bench_batch_cpu.py; done``.
``--ab session,thread,inline --repeat 3`` alternates the desk's ways of writing an SQLite batch
in one process. ``--postgresql`` runs it on a throw-away PostgreSQL cluster (fsync off) instead of SQLite.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import random
import sys
import tempfile
import time
from pathlib import Path

from sqlalchemy import update

from puntobanco.bets import BetKind
from puntobanco.rules import RuleSet
from puntobanco.server.app import SWITCH_INTERVAL
from puntobanco.server.db import ledger, store
from puntobanco.server.db.engine import Database, migrate
from puntobanco.server.db.models import CoupRecord
from puntobanco.server.db.players import create_players

sys.path.insert(0, str(Path(__file__).parent))
from bench_server import bench_table


async def batches(db: Database, people: list[tuple[int, str]], table_id: int, shoe_id: int,
                  sizes: list[int], count: int, wal: Path | None, ways: list[str], rate: float,
                  loop_busy: float) -> None:
    from puntobanco.server.live.desk import BetDesk, Pending
    from puntobanco.server.live.hub import Hub

    loop = asyncio.get_running_loop()
    desk = BetDesk(table_id=table_id, db=db, hub=Hub())
    round_no = 0
    bets_made: dict[int, int] = {}

    async def new_coup() -> None:
        nonlocal round_no
        round_no += 1
        previous = desk.coup_id

        def work(session: object) -> int:
            from sqlalchemy.orm import Session
            assert isinstance(session, Session)
            if previous is not None:
                session.execute(update(CoupRecord).where(CoupRecord.id == previous)
                                .values(status="closed"))
            return store.open_coup(session, table_id=table_id, shoe_id=shoe_id,
                                   round_no=round_no, coup_in_shoe=round_no, last_coup=False)

        coup = await db.run_write(work)
        desk.open(coup_id=coup, round_no=round_no, rules=RuleSet())
        bets_made.clear()

    await new_coup()
    burned = 0.0

    async def busy() -> None:  # the rest of the server's loop: sockets, fan-out (--loop-busy)
        nonlocal burned
        while True:
            began = time.thread_time()
            while time.thread_time() - began < 0.0002:
                sum(range(50))
            burned += time.thread_time() - began
            await asyncio.sleep(0.0002 * (1 - loop_busy) / loop_busy)

    burner = asyncio.ensure_future(busy()) if loop_busy else None
    n = 0
    draw = random.Random(21)
    sqlite = getattr(db, "sqlite", False)
    inline = getattr(db, "inline_batches", False)
    for size, way in [(size, way) for size in sizes for way in ways]:
        cpu = 0.0
        frames = 0
        done = 0
        db.sqlite = sqlite and way != "session"
        db.inline_batches = inline and way not in ("session", "thread")
        for batch_no in range(count + 2):
            batch = []
            for player, token in draw.sample(people, size):  # scattered, as in a crowd
                n += 1
                if bets_made.get(player, 0) >= 2:
                    await new_coup()
                bets_made[player] = bets_made.get(player, 0) + 1
                kind = BetKind.PUNTO if player % 2 else BetKind.BANCO
                batch.append(Pending(store.BetOp(player, kind, 1_000, f"k{n}"),
                                     loop.create_future(), token))
            wal_before = wal.stat().st_size if wal is not None and wal.exists() else 0
            if batch_no == 2:  # the first two warm the caches
                block = time.process_time()
                burned_before = burned
            if rate:
                await asyncio.sleep(1 / rate)
            began = time.process_time()
            await desk._write(batch)
            spent = time.process_time() - began
            wal_after = wal.stat().st_size if wal is not None and wal.exists() else 0
            for pending in batch:
                answer = pending.future.result()
                assert isinstance(answer, dict) and answer.get("coup_id") == desk.coup_id, answer
            if batch_no >= 2:  # the first two warm the caches
                cpu += spent
                done += 1
                if wal_after >= wal_before:  # no checkpoint cut the log meanwhile
                    frames += (wal_after - wal_before) // 4120
        spans = cpu
        if rate:  # every thread's CPU over the block: a checkpoint between batches too
            cpu = time.process_time() - block - (burned - burned_before)
        db.sqlite = sqlite
        label = f" ({way})" if way else ""
        print(f"  batch of {size:>4}{label}: {done} batches, {cpu / done * 1e6:7.0f} µs CPU "
              "per batch, "
              f"{cpu / done / size * 1e6:6.1f} µs per bet; "
              f"~{frames / done:.0f} log frames per batch"
              + (f" ({spans / done * 1e6:.0f} µs in the batches' own spans)"
                 if rate and not loop_busy else ""),
              flush=True)
    if burner is not None:
        burner.cancel()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--sizes", default="1,13,50")
    parser.add_argument("--batches", type=int, default=150)
    parser.add_argument("--postgresql", action="store_true")
    parser.add_argument("--ab", help="ways to alternate, each --batches batches of each size "
                        "in turn: 'session' writes an SQLite batch through Database.run_write's "
                        "ORM session on a write thread, as before issue 21's third pass; "
                        "'thread' through Database.run_batch on a write thread; 'inline' "
                        "as the server does (run_batch on the loop's thread when the write "
                        "lock is free)")
    parser.add_argument("--rate", type=float, default=0.0,
                        help="batches a second (a pause before each; 0: back to back); with "
                        "a rate the CPU is the process's over the whole block, the pauses "
                        "included (a checkpoint made between two batches is counted)")
    parser.add_argument("--loop-busy", type=float, default=0.0,
                        help="with --rate: the share of the loop's time spent on other work "
                        "(200 µs slices; its CPU is taken out): the GIL fight of the server")
    parser.add_argument("--repeat", type=int, default=1, help="--ab: rounds of the ways")
    args = parser.parse_args()
    try:
        import uvloop  # as the server runs

        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    except ImportError:
        pass
    sys.setswitchinterval(SWITCH_INTERVAL)
    sizes = [int(size) for size in args.sizes.split(",")]
    print(f"Python {platform.python_version()}; load average {os.getloadavg()[0]:.2f} on "
          f"{os.cpu_count()} cores; code from {Path(store.__file__).parents[3]}")
    with tempfile.TemporaryDirectory(prefix="pb-bench-batch-") as root:
        cluster = None
        if args.postgresql:
            from bench_server import Postgres

            cluster = Postgres(durable=False)
            url, wal = cluster.new_database(), None
        else:
            url, wal = f"sqlite:///{root}/bench.sqlite3", Path(f"{root}/bench.sqlite3-wal")
        try:
            migrate(url)
            db = Database(url, threads=4)
            with db.write() as session:
                made = create_players(session, [f"c{n}" for n in range(args.players)],
                                      password_hash="-", lang="en", welcome=10**8,
                                      sessions=True)
                table_id, shoe_id = bench_table(session, "b")
            people = [(one.id, one.token or "") for one in made]
            print(f"{'postgresql' if args.postgresql else 'sqlite'}: {args.players:,} players")
            asyncio.run(batches(db, people, table_id, shoe_id, sizes, args.batches, wal,
                                args.ab.split(",") * args.repeat if args.ab else [""],
                                args.rate, args.loop_busy))
            with db.read() as session:
                books = ledger.audit(session)
            print(f"  ledger audit: {'balanced' if books.ok else books}")
            db.close()
        finally:
            if cluster is not None:
                cluster.stop()


if __name__ == "__main__":
    main()
