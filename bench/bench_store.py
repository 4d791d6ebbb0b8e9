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

Run: ``.venv/bin/python bench/bench_store.py [--players 1000] [--scale 1] [--sqlite-only]
[--dump DIR]``.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import tempfile
import time
from pathlib import Path
from typing import Any

from sqlalchemy import insert, select, text, update

from bench_server import Postgres, pg_binary  # the same throw-away cluster, fsync off
from puntobanco.bets import BetKind
from puntobanco.rules import RuleSet
from puntobanco.server.db import ledger, store
from puntobanco.server.db.engine import Database, migrate
from puntobanco.server.db.models import Account, CoupRecord, Player, ShoeRecord

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
        table = store.create_table(session, name="bench", rules=RuleSet(),
                                   betting_seconds=15.0)
        shoe = ShoeRecord(table_id=table.id, shoe_no=1, card_order="", salt="-",
                          commitment="-", rules=table.rules_json(), cut_index=0, burned=0)
        session.add(shoe)
        session.flush()
        return ids, table.id, shoe.id


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
        with db.read() as session:
            books = ledger.audit(session)
        print(f"  ledger audit: {'balanced' if books.ok else books}")
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--scale", type=float, default=1.0,
                        help="multiply the number of batches of each size")
    parser.add_argument("--sqlite-only", action="store_true")
    parser.add_argument("--dump", type=Path, help="write the stored rows to DIR/<db>.txt")
    args = parser.parse_args()
    print(f"Python {platform.python_version()}; load average {os.getloadavg()[0]:.2f} on "
          f"{os.cpu_count()} cores at the start")
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
