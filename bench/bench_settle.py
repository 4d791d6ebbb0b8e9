"""What a round costs besides its bets (issue 21): "no more bets" and the settlement, per part.

The load client (``bench_load.py``) sees the settlement only as the time from the deadline to
the last socket's ``round-settled``, with everything else of the server mixed in. This bench
runs the engine's steps of one round alone, in one process, on a real database: ``--players``
players with credited wallets (``bench_store.seed``), each with a Banco and a Punto bet of
10 € on the coup (as ``bench_load.py`` bets, written before the clock by ``store.apply_bets``),
then what ``TableDealer.close_round`` and ``deal_and_settle`` do, each step timed in thread CPU
(``time.thread_time``) and wall time:

* ``close``: ``settle.close_coup_with_bets`` in one write transaction (the database thread);
* ``core bets``: the core takes the bets the database holds (``Table.place_spots``, each
  spot checked again), closes, and gives them back for the settlement (the event loop's
  thread);
* ``deal``: the core deals, ``store.record_deal`` and the coup's JSON;
* ``settle``: the core settles, then ``settle.settle_coup`` and the coup's JSON in one write
  transaction (the database thread);
* ``messages``: every bettor's ``settlement`` message written (``messages.settlement_text``,
  the loop).

The garbage collector is set as a serving process sets it (``live/collector.py``: the young
generations only; without that, a full collection fell in one step or another from run to run
and moved tens of ms between them). ``--rounds`` rounds on the same players (the first warms
the caches and is not counted); the ledger is audited at the end. Run:
``.venv/bin/python bench/bench_settle.py [--players 5000] [--rounds 4] [--sqlite-only]``.
On PostgreSQL a third figure is the cluster's own CPU in the step (its processes'
``/proc/<pid>/schedstat``).
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import random
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from bench_load import descendants
from bench_server import Postgres, pg_binary, print_audit
from bench_store import seed
from puntobanco.bets import BetKind
from puntobanco.rules import RuleSet
from puntobanco.server.db import recall, settle, store
from puntobanco.server.db.engine import Database, migrate
from puntobanco.server.db.models import CoupRecord
from puntobanco.server.live import collector
from puntobanco.server.live import messages as msg
from puntobanco.table import Table

T = TypeVar("T")
STAKE = 1_000


class Timer:
    """Thread CPU and wall seconds per step, summed over the counted rounds; with ``other``
    (a clock of another process's CPU: PostgreSQL's), that clock's seconds too."""

    def __init__(self, other: Callable[[], float] | None = None) -> None:
        self.cpu: dict[str, float] = defaultdict(float)
        self.wall: dict[str, float] = defaultdict(float)
        self.spent: dict[str, float] = defaultdict(float)
        self.other = other
        self.counting = False

    def __call__(self, step: str, work: Callable[[], T]) -> T:
        other = self.other() if self.other is not None and self.counting else 0.0
        cpu, wall = time.thread_time(), time.perf_counter()
        result = work()
        if self.counting:
            self.cpu[step] += time.thread_time() - cpu
            self.wall[step] += time.perf_counter() - wall
            if self.other is not None:  # read after the clocks: /proc costs this thread
                self.spent[step] += self.other() - other
        return result


def cluster_cpu(postmaster: int) -> float:
    """CPU seconds of a PostgreSQL cluster's live processes, to the nanosecond
    (``/proc/<pid>/schedstat``; :func:`bench_load.tree_cpu`'s ``/proc/<pid>/stat`` counts 10 ms
    ticks): the bench's pooled connections live through the run."""
    total = 0
    for pid in descendants(postmaster):
        try:
            total += int(Path(f"/proc/{pid}/schedstat").read_text().split()[0])
        except (OSError, IndexError, ValueError):
            continue
    return total / 1e9


def one_round(db: Database, timer: Timer, *, table_id: int, shoe_id: int, core: Table,
              players: list[int]) -> None:
    opened = core.open_round()
    with db.write() as session:
        coup_id = store.open_coup(session, table_id=table_id, shoe_id=shoe_id,
                                  round_no=opened.round_no, coup_in_shoe=opened.coup_in_shoe,
                                  last_coup=False)
    ops = [store.BetOp(player, kind, STAKE, None) for player in players
           for kind in (BetKind.BANCO, BetKind.PUNTO)]
    for first in range(0, len(ops), 1000):
        with db.write() as session:
            results = store.apply_bets(session, table_id=table_id, coup_id=coup_id,
                                       round_no=opened.round_no, rules=core.rules,
                                       ops=ops[first:first + 1000])
        assert not any(isinstance(result, Exception) for result in results), results[:3]

    def close() -> dict[int, store.SpotBets]:
        with db.write() as session:
            return settle.close_coup_with_bets(session, coup_id)

    held = timer("close", close)

    def core_bets() -> dict[int, store.SpotBets]:  # as TableDealer.close_round, deal_and_settle
        core.place_spots({str(player): spot for player, spot in held.items() if spot})
        core.close_bets()
        return {int(spot): spot_bets for spot, spot_bets in core.bets.items()}

    bets = timer("core bets", core_bets)

    def deal() -> None:
        dealt = core.deal()
        with db.write() as session:
            store.record_deal(session, coup_id, dealt.coup, first_card=0)
            recall.coup_json(session.get_one(CoupRecord, coup_id), shoe_no=1)

    timer("deal", deal)
    settled = timer("core settle", core.settle)
    lines = {int(spot): spot_lines for spot, spot_lines in settled.lines.items()}

    def settle_step() -> dict[int, int]:
        with db.write() as session:
            balances = settle.settle_coup(session, table_id=table_id, coup_id=coup_id,
                                          bets=bets, lines=lines)
            recall.coup_json(session.get_one(CoupRecord, coup_id), shoe_no=1)
            return balances

    balances = timer("settle", settle_step)

    def messages() -> None:  # as TableDealer.deal_and_settle (the sockets' writes left out)
        made: msg.LineTexts = {}
        for player, balance in balances.items():
            msg.settlement_text(coup_id, balance, lines[player], made)

    timer("messages", messages)


def run(name: str, url: str, *, players: int, rounds: int,
        other: Callable[[], float] | None = None) -> None:
    """``rounds`` rounds on ``url``; ``other``: PostgreSQL's CPU clock (:func:`cluster_cpu`)."""
    young, middle, _ = gc.get_threshold()
    gc.collect()
    gc.set_threshold(young, middle, collector.NEVER)  # as a serving process (no full ones)
    migrate(url)
    db = Database(url, threads=1)
    try:
        ids, table_id, shoe_id = seed(db, players)
        core = Table(RuleSet(), rng=random.Random(21))
        timer = Timer(other)
        for number in range(rounds + 1):
            timer.counting = number > 0
            one_round(db, timer, table_id=table_id, shoe_id=shoe_id, core=core, players=ids)
        print(f"{name}: {players:,} players, {2 * players:,} bets a round, {rounds} rounds; "
              "ms per round, thread CPU / wall" + (" / PostgreSQL's CPU:" if other else ":"))
        for step in [*timer.cpu, None]:
            figures = [timer.cpu[step] if step else sum(timer.cpu.values()),
                       timer.wall[step] if step else sum(timer.wall.values())]
            if other is not None:
                figures.append(timer.spent[step] if step else sum(timer.spent.values()))
            print(f"  {step or 'all':<12} " + " / ".join(f"{1000 * figure / rounds:8.1f}"
                                                        for figure in figures))
        print_audit(db)
    finally:
        db.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--sqlite-only", action="store_true")
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores; Python "
          f"{platform.python_version()}; load average {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as folder:
        run("sqlite", f"sqlite:///{Path(folder) / 'settle.sqlite3'}", players=args.players,
            rounds=args.rounds)
    if args.sqlite_only:
        return
    if pg_binary("initdb") is None:
        print("postgresql: skipped (no initdb on PATH)")
        return
    cluster = Postgres()
    try:
        postmaster = int((cluster.root / "data" / "postmaster.pid").read_text().split()[0])
        run("postgresql", cluster.new_database(), players=args.players, rounds=args.rounds,
            other=lambda: cluster_cpu(postmaster))
    finally:
        cluster.stop()


if __name__ == "__main__":
    main()
