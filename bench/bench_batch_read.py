"""Issue 21: the desk's batch transaction on PostgreSQL, its session check read apart or in the
coup's read. One process, 1,000 batches of one keyed bet with its session token, in blocks of
25 alternating (A B, B A, …): (A) ``auth.lookup_tokens`` then ``store.apply_bets``, the session
check a statement of its own; (B) ``store.read_coup`` (the coup, the stored keys and the
sessions in one query), then ``apply_bets(read=…)``. Prints µs of this process's CPU per batch
(``time.process_time``: the Python and psycopg side; PostgreSQL's own process is not counted).
A throw-away cluster, fsync off. Run: ``.venv/bin/python bench/bench_batch_read.py``.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

from puntobanco.bets import BetKind
from puntobanco.rules import RuleSet
from puntobanco.server.db import auth, store
from puntobanco.server.db.engine import Database, migrate
from puntobanco.server.db.players import create_players
from puntobanco.server.settings import GuardSettings

sys.path.insert(0, str(Path(__file__).parent))
from bench_server import Postgres, bench_table

BLOCK, BLOCKS = 50, 20


def main() -> None:
    cluster = Postgres(durable=False)
    try:
        url = cluster.new_database()
        migrate(url)
        db = Database(url, threads=1)
        with db.write() as session:
            made = create_players(session, [f"m{n}" for n in range(BLOCK * BLOCKS)],
                                  password_hash="-", lang="en", welcome=10**8, sessions=True)
            table_id, shoe_id = bench_table(session, "b")
            coup = store.open_coup(session, table_id=table_id, shoe_id=shoe_id, round_no=1,
                                   coup_in_shoe=1, last_coup=False)
        people = [(one.id, one.token or "") for one in made]
        limits = GuardSettings()

        def apart(player: int, token: str, n: int) -> None:
            with db.write() as session:
                assert token in auth.lookup_tokens(session, {token}, limits=limits)
                store.apply_bets(session, table_id=table_id, coup_id=coup, round_no=1,
                                 rules=RuleSet(),
                                 ops=[store.BetOp(player, BetKind.PUNTO, 100, f"k{n}")])

        def folded(player: int, token: str, n: int) -> None:
            with db.write() as session:
                op = store.BetOp(player, BetKind.PUNTO, 100, f"k{n}")
                read = store.read_coup(session, table_id=table_id, coup_id=coup, ops=[op],
                                       token_hashes={auth.token_hash(token)})
                assert token in auth.lookup_tokens(session, {token}, limits=limits,
                                                   rows=read.sessions)
                store.apply_bets(session, table_id=table_id, coup_id=coup, round_no=1,
                                 rules=RuleSet(), ops=[op], read=read)

        ways: dict[str, Callable[[int, str, int], None]] = {"A": apart, "B": folded}
        cpu = {"A": 0.0, "B": 0.0}
        n = 0
        for block in range(BLOCKS):
            for name in ("A", "B") if block % 2 == 0 else ("B", "A"):
                start = time.process_time()
                for _ in range(BLOCK // 2):
                    player, token = people[n]
                    ways[name](player, token, n)
                    n += 1
                cpu[name] += time.process_time() - start
        batches = BLOCK * BLOCKS // 2  # each way
        print(f"A (session check apart): {cpu['A'] / batches * 1e6:.0f} µs CPU per batch; "
              f"B (in the coup's read): {cpu['B'] / batches * 1e6:.0f} µs")
        db.close()
    finally:
        cluster.stop()


if __name__ == "__main__":
    main()
