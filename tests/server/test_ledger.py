"""The books after many coups with random bets, on SQLite and on PostgreSQL.

Several players bet at random on two tables at once (their one wallet shared by both tables):
valid and invalid bets, raises, withdrawals, retried idempotency keys, all sent concurrently.
Afterwards money was neither lost, created nor counted twice: the ledger sums to zero, every
transaction is a balanced pair, every balance is the sum of its entries, each wallet is its
credits plus the nets of its settlement lines, and every stored line is what the core settles
for the stored bets and cards (B*, L5, L6).
"""

from __future__ import annotations

import random
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor

from sqlalchemy import create_engine, func, select
from sqlalchemy.orm import Session

from puntobanco.server.db.models import Account, CoupRecord, SettlementLineRecord

from .support import LiveServer, Player, check_books, fast_settings, running

KINDS = ["punto", "banco", "egalite", "lion-punto", "lion-banco"]
STAKES = [1000, 1000, 2000, 2500, 5000, 10_000, 50_000, 200_000, 500_000, 950, 1050, 0]
REFUSALS = {"below-minimum", "above-maximum", "both-lion-sides", "not-chip-multiple",
            "insufficient-balance", "non-positive-stake", "no-such-bet", "table-closed"}


def _random_actions(live: LiveServer, player: Player, table_id: int, rng: random.Random,
                    log: list[tuple[int, str]]) -> None:
    for _ in range(rng.randint(1, 4)):
        roll = rng.random()
        if roll < 0.15:
            answer = live.http.delete(f"/api/tables/{table_id}/bets/{rng.choice(KINDS)}",
                                      headers=player.headers)
        elif roll < 0.3:
            key = str(uuid.UUID(int=rng.getrandbits(128)))
            bet, stake = rng.choice(KINDS), rng.choice(STAKES)
            answers = [live.bet(player, table_id, bet, stake, key=key) for _ in range(2)]
            if answers[0].status_code == 200:
                assert answers[1].json() == answers[0].json()  # the retry counted once
            answer = answers[0]
        else:
            answer = live.bet(player, table_id, rng.choice(KINDS), rng.choice(STAKES))
        code = "ok" if answer.status_code == 200 else answer.json()["error"]["code"]
        log.append((answer.status_code, code))


def _drive_table(live: LiveServer, table_id: int, players: list[Player], rounds: int,
                 seed: int, log: list[tuple[int, str]]) -> None:
    rng = random.Random(seed)
    watcher = live.watch(table_id, players[0])
    try:
        for _ in range(rounds):
            opened = watcher.next("round-opened")
            seeds = [rng.getrandbits(32) for _ in players]
            with ThreadPoolExecutor(len(players)) as pool:
                list(pool.map(lambda args: _random_actions(live, args[0], table_id,
                                                           random.Random(args[1]), log),
                              zip(players, seeds, strict=True)))
            watcher.of_coup("round-settled", opened["coup_id"])
    finally:
        watcher.close()


def test_money_is_never_lost_created_or_counted_twice(db_url: str) -> None:
    rounds = 10
    log: list[tuple[int, str]] = []
    with running(fast_settings(db_url, betting_seconds=0.8)) as live:
        players = [live.signup(f"player{i}") for i in range(4)]
        boss = live.operator()
        live.http.post(f"/api/players/{players[0].id}/credit", json={"amount": 400_000},
                       headers=boss.headers)
        drivers = [threading.Thread(target=_drive_table,
                                    args=(live, table_id, players, rounds, table_id, log))
                   for table_id in (1, 2)]
        for driver in drivers:
            driver.start()
        for driver in drivers:
            driver.join(300)
        balances = {p.id: live.balance(p) for p in players}
    codes = {code for _, code in log}
    assert "ok" in codes and codes <= REFUSALS | {"ok"}, codes
    assert len([c for c in log if c[1] != "ok"]) > 5  # the refusals were exercised too
    figures = check_books(db_url)  # audit + the core's settlement of every stored coup
    assert figures["settled"] >= 2 * rounds
    assert figures["active_bets"] == 0 and set(figures["in_play"].values()) == {0}
    engine = create_engine(db_url)
    with Session(engine) as session:
        nets = dict(session.execute(select(SettlementLineRecord.player_id,
                                           func.sum(SettlementLineRecord.net))
                                    .group_by(SettlementLineRecord.player_id)).all())
        for index, player in enumerate(players):
            credits = 100_000 + (400_000 if index == 0 else 0)
            assert balances[player.id] == credits + int(nets.get(player.id, 0)), player
        house = dict(session.execute(select(Account.table_id, Account.balance)
                                     .where(Account.kind == "house")).all())
        per_table = dict(session.execute(
            select(CoupRecord.table_id, func.sum(SettlementLineRecord.net))
            .join(CoupRecord, CoupRecord.id == SettlementLineRecord.coup_id)
            .group_by(CoupRecord.table_id)).all())
        for table_id, won in house.items():
            assert table_id is not None and won == -int(per_table.get(table_id, 0))
    engine.dispose()
