"""The desk's database write: Python CPU per bet of ``store.apply_bets`` (issue 8).

A burst of bets saturates the server's one process, and the desk's write thread
(``live/desk.py`` → :func:`puntobanco.server.db.store.apply_bets`, one write transaction per
batch) holds the GIL for a third of it. This bench measures that write alone, without HTTP or
the event loop: ``--players`` players with credited wallets (written in bulk before the clock,
the ledger balanced), one table, one open coup (a new one every two bets per player, so spots
stay within the limits), then batches of 1, 10, 100 and 1,000 operations as the desk sends
them: plain bets (Punto or Banco by player, some Égalité and Lion), one in twenty a withdrawal,
four in five with an idempotency key and one in a hundred a key sent again (a replay). Each
batch is one ``Database.write()`` transaction (``BEGIN IMMEDIATE`` on SQLite), commit included,
as ``Database.run_write`` does.

Prints, per database and batch size: µs of this process's CPU per operation
(``time.process_time``: the Python side; PostgreSQL's own server process is not counted) and
µs of wall time per operation, and the ledger audit at the end. Random with a fixed seed, so
two runs write the same rows: ``--dump DIR`` writes every bet, request and ledger row
(timestamps left out) to ``DIR/<database>.txt`` to compare two versions of the code.

PostgreSQL: a throw-away cluster (initdb/pg_ctl on a free port, as the server tests make,
fsync off); skipped with a sentence when the binaries are missing. Bounded: about 10,000
operations per database (``--scale`` multiplies), well under a minute on a 2-core machine.

``--desk`` (issue 21) measures the whole group commit instead: the table's ``BetDesk`` on a
real event loop (uvloop, as the server) and the server's database threads and GIL switch
interval, every player betting twice at random moments at ``--rates`` bets a second, each bet
a task that spends ``--loop-work`` µs of the loop's CPU (the rest of a bet's road in the
server) and submits its bet with an idempotency key and the player's session token (checked
in the batch, as ``api/fastbets.take_bet`` sends it). Each ``--lingers`` setting in turn, on a
new coup: the process's CPU per bet (every thread; the loop work taken out), the answers'
p50/p99 and the batches. Compare the CPU: the latencies are the machine's queue when it is
loaded.

Run: ``.venv/bin/python bench/bench_store.py [--players 1000] [--scale 1] [--sqlite-only]
[--dump DIR]``; ``… --desk [--rates 500,1000] [--lingers 0,10,20] [--loop-work 100]
[--switch-ms 0.2] [--repeat 2]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import random
import tempfile
import time
from pathlib import Path
from typing import Any

from sqlalchemy import insert, select, text, update

from bench_server import (  # the same throw-away cluster, fsync off
    Postgres,
    bench_table,
    pg_binary,
    print_audit,
)
from puntobanco.bets import BetKind
from puntobanco.rules import RuleSet
from puntobanco.server.app import SWITCH_INTERVAL
from puntobanco.server.db import ledger, store
from puntobanco.server.db.engine import Database, migrate
from puntobanco.server.db.models import Account, CoupRecord, Player

#: batch size → batches measured (one more, first, warms the statement caches)
BATCHES = {1: 300, 10: 100, 100: 30, 1000: 5}
WELCOME = 100_000_000


def seed(db: Database, players: int) -> tuple[list[int], int, int]:
    """Players with credited wallets (in bulk, the ledger balanced), a table and its shoe:
    (player ids, table id, shoe id)."""
    with db.write() as session:
        connection = session.connection()
        connection.execute(insert(Player), [
            {"username": f"bench{n}", "username_key": f"bench{n}", "password_hash": "-",
             "role": "player", "lang": "en", "username_skeleton": f"bench{n}"}
            for n in range(players)])
        ids = list(session.scalars(select(Player.id).order_by(Player.id)))
        connection.execute(insert(Account), [
            {"code": ledger.wallet_code(player), "kind": "wallet", "player_id": player,
             "balance": 0} for player in ids])
        issuer = ledger.ensure_account(session, ledger.ISSUER_CODE, kind="issuer").id
        wallets = {int(player): account for player, account in session.execute(
            select(Account.player_id, Account.id).where(Account.kind == "wallet"))}
        ledger.post(session, [ledger.Move(issuer, wallets[player], WELCOME, "welcome",
                                          player_id=player) for player in ids])
        return ids, *bench_table(session)


class Feed:
    """The operations of the batches, as the desk would send them (random, seeded)."""

    def __init__(self, players: list[int]) -> None:
        self.players = players
        self.random = random.Random(8)
        self.kinds: dict[int, set[BetKind]] = {}
        self.sent: dict[int, list[store.BetOp]] = {}
        self.keys = 0

    def new_coup(self) -> None:
        self.kinds.clear()
        self.sent.clear()

    def op(self) -> store.BetOp:
        draw = self.random
        player = draw.choice(self.players)
        previous = self.sent.get(player, [])
        roll = draw.random()
        if roll < 0.01 and any(op.key for op in previous):
            return draw.choice([op for op in previous if op.key])  # a retry: the same key
        if roll < 0.06 and self.kinds.get(player):
            kind = draw.choice(sorted(self.kinds[player], key=lambda k: k.value))
            self.kinds[player].discard(kind)
            op = store.BetOp(player, kind, key=self._key(draw), withdraw=True)
        else:
            pick = draw.random()
            if pick < 0.1:
                kind, stake = BetKind.EGALITE, 1_000
            elif pick < 0.15:
                kind, stake = (BetKind.LION_PUNTO if player % 2 else BetKind.LION_BANCO), 1_000
            else:
                kind = BetKind.PUNTO if player % 2 else BetKind.BANCO
                stake = draw.choice((1_000, 2_000, 5_000, 10_000))
            self.kinds.setdefault(player, set()).add(kind)
            op = store.BetOp(player, kind, stake, self._key(draw))
        self.sent.setdefault(player, []).append(op)
        return op

    def _key(self, draw: random.Random) -> str | None:
        if draw.random() >= 0.8:
            return None
        self.keys += 1
        return f"key-{self.keys:08d}"


def run(name: str, url: str, *, players: int, scale: float, dump: Path | None) -> None:
    migrate(url)
    db = Database(url, threads=1)
    try:
        ids, table_id, shoe_id = seed(db, players)
        rules = RuleSet()
        feed = Feed(ids)
        round_no = 0

        def next_coup(previous: int | None) -> int:
            nonlocal round_no
            round_no += 1
            feed.new_coup()
            with db.write() as session:
                if previous is not None:
                    session.execute(update(CoupRecord).where(CoupRecord.id == previous)
                                    .values(status="closed"))
                return store.open_coup(session, table_id=table_id, shoe_id=shoe_id,
                                       round_no=round_no, coup_in_shoe=round_no,
                                       last_coup=False)

        coup = next_coup(None)
        print(f"{name}: {players:,} players")
        for size, count in BATCHES.items():
            count = max(1, round(count * scale))
            per_coup = max(1, 2 * players // size)  # about two operations per player a coup
            cpu = wall = 0.0
            done = refused = 0
            for batch_no in range(count + 1):
                if batch_no % per_coup == 0:
                    coup = next_coup(coup)
                ops = [feed.op() for _ in range(size)]
                cpu_began, wall_began = time.process_time(), time.perf_counter()
                with db.write() as session:
                    results = store.apply_bets(session, table_id=table_id, coup_id=coup,
                                               round_no=round_no, rules=rules, ops=ops)
                if batch_no:  # the first batch of a size warms the caches
                    cpu += time.process_time() - cpu_began
                    wall += time.perf_counter() - wall_began
                    done += size
                    refused += sum(isinstance(result, Exception) for result in results)
            print(f"  batch {size:>5,}: {count:>4} batches, {done:>6,} ops ({refused} refused): "
                  f"{cpu / done * 1e6:8.1f} µs CPU/op, {wall / done * 1e6:8.1f} µs wall/op")
        print_audit(db)
        if dump is not None:
            dump.mkdir(parents=True, exist_ok=True)
            write_dump(db, dump / f"{name}.txt")
    finally:
        db.close()


DUMPED = {
    "bets": "id, coup_id, player_id, kind, stake, status",
    "bet_requests": ("id, player_id, idempotency_key, fingerprint, coup_id, bet_id, "
                     "CAST(response AS TEXT)"),
    "ledger_transactions": "id, reason, coup_id, bet_id, player_id",
    "ledger_entries": "id, transaction_id, account_id, amount",
    "accounts": "id, code, kind, player_id, table_id, balance",
}


def write_dump(db: Database, path: Path) -> None:
    """Every row the bets wrote, in id order, timestamps left out (they differ run to run)."""
    lines: list[str] = []
    with db.read() as session:
        for table, columns in DUMPED.items():
            rows: Any = session.execute(text(f"SELECT {columns} FROM {table} ORDER BY id"))
            lines.extend(f"{table} {tuple(row)!r}" for row in rows)
    path.write_text("\n".join(lines) + "\n")
    print(f"  {len(lines):,} rows written to {path}")


# --- the desk at a steady rate: the batcher, its thread hop and its commits ------------------


def burn(microseconds: float) -> float:
    """Spend about ``microseconds`` of this thread's CPU in Python (the rest of a bet's road
    on the event loop: reading it, answering it, its share of the fan-out); the CPU spent."""
    began = time.thread_time()
    end = began + microseconds / 1e6
    while time.thread_time() < end:
        sum(range(50))
    return time.thread_time() - began


async def desk_window(db: Database, sessions: list[tuple[int, str]], table_id: int, coup: int,
                      *, rate: float, spread: float, linger: float, loop_work: float,
                      seed_no: int) -> dict[str, float]:
    """One betting window: every player bets twice (Banco or Punto, 10.00, with a key and its
    session token, as ``api/fastbets.take_bet`` submits) at random moments of ``spread``
    seconds, at ``rate`` bets a second on average; each bet a task of its own spending
    ``loop_work`` µs of the loop's CPU. Returns the process's CPU per bet (every thread,
    ``loop_work`` taken out), the answers' latency and the batches."""
    from puntobanco.server.live.desk import BetDesk
    from puntobanco.server.live.hub import Hub

    draw = random.Random(seed_no)
    bets = [(player, token, n) for player, token in sessions for n in range(2)]
    count = min(len(bets), round(rate * spread))
    bets = draw.sample(bets, count)
    moments = sorted(draw.uniform(0, spread) for _ in bets)
    desk = BetDesk(table_id=table_id, db=db, hub=Hub(), linger=linger)
    desk.start()
    desk.open(coup_id=coup, round_no=coup, rules=RuleSet())
    loop = asyncio.get_running_loop()
    latencies: list[float] = []
    burned = 0.0
    refused = 0
    tasks: set[asyncio.Task[None]] = set()

    async def place(player: int, token: str, n: int) -> None:
        nonlocal burned, refused
        began = loop.time()
        burned += burn(loop_work)
        kind = BetKind.PUNTO if player % 2 else BetKind.BANCO
        desk.check(kind, 1_000, coup)
        answer = await desk.submit(store.BetOp(player, kind, 1_000, f"k{coup}-{player}-{n}"),
                                   token=token)
        if not isinstance(answer, dict) or answer.get("coup_id") != coup:
            refused += 1
        latencies.append(loop.time() - began)

    def start(bet: tuple[int, str, int]) -> None:
        task = asyncio.ensure_future(place(*bet))
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    await asyncio.sleep(0.05)
    cpu = time.process_time()
    at = loop.time()
    for moment, bet in zip(moments, bets, strict=True):
        loop.call_at(at + moment, start, bet)
    await asyncio.sleep(spread)
    while tasks:
        await asyncio.gather(*tasks, return_exceptions=True)
    desk.close()
    await desk.drain()
    cpu = time.process_time() - cpu - burned
    await desk.stop()
    latencies.sort()
    return {"bets": count, "refused": refused, "cpu_us": 1e6 * cpu / count,
            "p50_ms": 1e3 * latencies[len(latencies) // 2],
            "p99_ms": 1e3 * latencies[int(0.99 * (len(latencies) - 1))],
            "batches": desk.batches}


def run_desk(name: str, url: str, *, players: int, rates: list[float], lingers: list[float],
             loop_work: float, switch: float, threads: int, repeat: int) -> None:
    """The desk's group commit at steady rates, each linger in turn (A/B, back to back)."""
    import sys

    from puntobanco.server.db.players import create_players

    sys.setswitchinterval(switch)
    migrate(url)
    db = Database(url, threads=threads)
    try:
        with db.write() as session:
            made = create_players(session, [f"desk{n}" for n in range(players)],
                                  password_hash="-", lang="en", welcome=WELCOME, sessions=True)
            table_id, shoe_id = bench_table(session)
        sessions = [(made_one.id, made_one.token or "") for made_one in made]
        round_no = 0
        print(f"{name}: the desk, {players:,} players, 2 bets each, Python's switch interval "
              f"{1e3 * sys.getswitchinterval():g} ms, {threads} read threads, {loop_work:g} µs "
              "of other loop work per bet")
        for rate in rates:
            for _turn in range(repeat):
                for linger in lingers:
                    round_no += 1
                    with db.write() as session:
                        coup = store.open_coup(session, table_id=table_id, shoe_id=shoe_id,
                                               round_no=round_no, coup_in_shoe=round_no,
                                               last_coup=False)
                    figures = asyncio.run(desk_window(
                        db, sessions, table_id, coup, rate=rate,
                        spread=2 * players / rate, linger=linger, loop_work=loop_work,
                        seed_no=round_no))
                    with db.write() as session:
                        session.execute(update(CoupRecord).where(CoupRecord.id == coup)
                                        .values(status="closed"))
                    print(f"  {rate:>6,.0f} bets/s, linger {1e3 * linger:4.1f} ms: "
                          f"{figures['cpu_us']:6.0f} µs CPU/bet, ack p50 "
                          f"{figures['p50_ms']:5.1f} ms p99 {figures['p99_ms']:5.1f} ms, "
                          f"{figures['batches']:5.0f} batches "
                          f"({figures['bets'] / max(1, figures['batches']):5.1f} bets each), "
                          f"{figures['refused']:.0f} refused; load "
                          f"{os.getloadavg()[0]:.1f}", flush=True)
        print_audit(db)
    finally:
        db.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--scale", type=float, default=1.0,
                        help="multiply the number of batches of each size")
    parser.add_argument("--sqlite-only", action="store_true")
    parser.add_argument("--dump", type=Path, help="write the stored rows to DIR/<db>.txt")
    parser.add_argument("--desk", action="store_true",
                        help="drive the table's desk (batcher, thread hop, group commit) at "
                        "steady rates instead of timing apply_bets alone")
    parser.add_argument("--rates", default="1000", help="--desk: bets a second, comma-separated")
    parser.add_argument("--lingers", default="0,5,10,20",
                        help="--desk: each batch's linger in ms, comma-separated (A/B in turn)")
    parser.add_argument("--loop-work", type=float, default=300.0,
                        help="--desk: µs of other CPU per bet on the event loop")
    parser.add_argument("--switch-ms", type=float,
                        help="--desk: sys.setswitchinterval in ms (default: the server's, "
                        "app.SWITCH_INTERVAL)")
    parser.add_argument("--threads", type=int, default=16, help="--desk: the read threads")
    parser.add_argument("--repeat", type=int, default=1, help="--desk: windows per setting")
    args = parser.parse_args()
    print(f"Python {platform.python_version()}; load average {os.getloadavg()[0]:.2f} on "
          f"{os.cpu_count()} cores at the start")
    if args.desk:
        try:
            import uvloop  # as the server runs

            asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
        except ImportError:
            pass
        options: dict[str, Any] = {
            "players": args.players, "rates": [float(r) for r in args.rates.split(",")],
            "lingers": [float(v) / 1e3 for v in args.lingers.split(",")],
            "loop_work": args.loop_work, "threads": args.threads, "repeat": args.repeat,
            "switch": SWITCH_INTERVAL if args.switch_ms is None else args.switch_ms / 1e3}
        with tempfile.TemporaryDirectory(prefix="pb-bench-desk-") as root:
            run_desk("sqlite", f"sqlite:///{root}/bench.sqlite3", **options)
        if not args.sqlite_only:
            cluster = Postgres()
            try:
                run_desk("postgresql", cluster.new_database(), **options)
            finally:
                cluster.stop()
        return
    with tempfile.TemporaryDirectory(prefix="pb-bench-store-") as root:
        run("sqlite", f"sqlite:///{root}/bench.sqlite3", players=args.players,
            scale=args.scale, dump=args.dump)
    if args.sqlite_only:
        return
    if pg_binary("initdb") is None or pg_binary("pg_ctl") is None:
        print(f"postgresql: skipped, the bench {Postgres.missing}.")
        return
    cluster = Postgres(durable=False)
    try:
        run("postgresql", cluster.new_database(), players=args.players, scale=args.scale,
            dump=args.dump)
    finally:
        cluster.stop()
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
