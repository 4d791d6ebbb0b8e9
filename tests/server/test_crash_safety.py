"""Issue 9, standing defence: crash safety. ``puntobanco serve`` (its own process) runs five
tables with short pacing while ten players bet and withdraw on all of them with idempotency
keys; the server is SIGKILLed at random moments (in betting windows, after "no more bets",
mid-deal, around settlement), restarted, killed again, … over at least 50 coups. Then the
restart's recovery runs once more and the books are audited:

- every bet the server accepted (an answer 200) is in the database with at least that stake,
  settled exactly once (one settlement line, the core's) when its coup was dealt, refunded when
  its round was cut short — the documented rule (docs/server.md, "Stops and crashes");
- the ledger audit holds (wallet = sum of its entries, every transaction balanced, no wallet
  below zero), money is conserved (what the issuer handed out is in wallets and houses) and no
  stake is left in play;
- every shoe verifies: its commitment, and every recorded coup is what its order deals.
"""

from __future__ import annotations

import random
import signal
import threading
import time
import uuid

import httpx
from sqlalchemy import func, select

from puntobanco.bets import BetKind
from puntobanco.cards import parse_cards
from puntobanco.server.db import ledger, recovery
from puntobanco.server.db.engine import Database
from puntobanco.server.db.models import (
    Account,
    BetRecord,
    CoupRecord,
    LedgerEntry,
    ShoeRecord,
)
from puntobanco.server.fair import RecordedCoup, check_shoe
from puntobanco.server.settings import table_rules_from_json

from .support import OPERATOR_PASSWORD, Player, check_books, lines_and_refunds
from .test_recovery import serve

PLAYERS = 10
MIN_COUPS = 50
PACING = ("--betting-seconds", "1", "--closed-seconds", "0.05", "--card-seconds", "0.05",
          "--result-seconds", "0.05")
KINDS = [kind.value for kind in BetKind]


def _bettor(url: str, player: Player, tables: list[int], seed: int, stop: threading.Event,
            accepted: dict[tuple[int, int, str], int], lock: threading.Lock) -> None:
    rng = random.Random(seed)
    with httpx.Client(base_url=url, timeout=5, headers=player.headers) as http:
        while not stop.is_set():
            table = rng.choice(tables)
            kind = rng.choice(KINDS)
            try:
                if rng.random() < 0.15:
                    answer = http.delete(f"/api/tables/{table}/bets/{kind}")
                    if answer.status_code == 200:
                        with lock:
                            accepted.pop((player.id, answer.json()["coup_id"], kind), None)
                    continue
                stake = rng.choice((1000, 1500, 2000, 3000))
                answer = http.post(f"/api/tables/{table}/bets", json={
                    "bet": kind, "stake": stake, "idempotency_key": uuid.uuid4().hex})
            except httpx.HTTPError:  # the server was killed
                time.sleep(0.05)
                continue
            if answer.status_code == 200:
                body = answer.json()
                with lock:
                    key = (player.id, body["coup_id"], kind)
                    accepted[key] = max(accepted.get(key, 0), body["total"])
            else:
                time.sleep(0.02)


def test_sigkill_at_random_moments_loses_no_bet_and_no_money(sqlite_url: str) -> None:
    rng = random.Random(2024)
    accepted: dict[tuple[int, int, str], int] = {}
    lock = threading.Lock()
    players: list[Player] = []
    tables: list[int] = []
    kills = 0
    while True:
        with serve(sqlite_url, *PACING) as (process, url):
            http = httpx.Client(base_url=url, timeout=30)
            if not players:
                boss = Player.from_answer(http.post("/api/login", json={
                    "username": "operator", "password": OPERATOR_PASSWORD}).json())
                for index in range(3):  # one-deck shoes: they end (and are revealed) often
                    made = http.post("/api/tables", headers=boss.headers, json={
                        "name": f"Quick {index}", "rules": {"decks": 1, "cut_card": 20}})
                    assert made.status_code == 201, made.text
                tables = [table["id"] for table in http.get("/api/tables").json()]
                for index in range(PLAYERS):
                    answer = http.post("/api/signup", json={"username": f"crash{index}",
                                                            "password": "secret1"})
                    assert answer.status_code == 201, answer.text
                    players.append(Player.from_answer(answer.json()))
            stop = threading.Event()
            threads = [threading.Thread(target=_bettor, args=(url, player, tables, seed, stop,
                                                              accepted, lock))
                       for seed, player in enumerate(players, start=100 * kills)]
            for thread in threads:
                thread.start()
            time.sleep(rng.uniform(0.5, 3.5))  # a random moment of the round
            process.send_signal(signal.SIGKILL)
            process.wait(30)
            kills += 1
            stop.set()
            for thread in threads:
                thread.join(30)
            http.close()
        if kills >= 5 and _coups(sqlite_url) >= MIN_COUPS:
            break
    _recover(sqlite_url, tables)
    _audit(sqlite_url, accepted, kills)


def _coups(url: str) -> int:
    db = Database(url, threads=1)
    try:
        with db.read() as session:
            return int(session.execute(select(func.count()).select_from(CoupRecord).where(
                CoupRecord.status.in_(("settled", "void")))).scalar_one())
    finally:
        db.close()


def _recover(url: str, tables: list[int]) -> None:
    """What a restart does before serving: void the undealt rounds, settle the dealt coup."""
    db = Database(url, threads=1)
    try:
        for table in tables:
            with db.write() as session:
                recovery.recover(session, table)
    finally:
        db.close()


def _audit(url: str, accepted: dict[tuple[int, int, str], int], kills: int) -> None:
    books = check_books(url)  # ledger invariants; every settled line is the core's
    assert books["active_bets"] == 0 and set(books["in_play"].values()) == {0}
    db = Database(url, threads=1)
    try:
        with db.read() as session:
            statuses = dict(session.execute(select(CoupRecord.id, CoupRecord.status)).all())
            assert not {s for s in statuses.values()} - {"settled", "void"}
            assert sum(1 for s in statuses.values() if s in ("settled", "void")) >= MIN_COUPS
            assert accepted, "no bet was accepted: the test did not test anything"
            seen_settled = seen_refunded = 0
            for (player, coup_id, kind), total in accepted.items():
                bet = session.execute(select(BetRecord).where(
                    BetRecord.coup_id == coup_id, BetRecord.player_id == player,
                    BetRecord.kind == kind)).scalar_one()
                if bet.status == "withdrawn":  # withdrawn later, the answer lost to a kill
                    continue
                assert bet.stake >= total, (bet.id, bet.stake, total)
                lines, refunds = lines_and_refunds(session, bet.id)
                if statuses[coup_id] == "settled":
                    assert (bet.status, lines, refunds) == ("settled", 1, 0), bet.id
                    seen_settled += 1
                else:
                    assert (bet.status, lines, refunds) == ("refunded", 0, 1), bet.id
                    seen_refunded += 1
            assert seen_settled > 0
            # money conserved: what the issuer handed out is in wallets and houses
            by_kind = dict(session.execute(select(Account.kind, func.sum(Account.balance))
                                           .group_by(Account.kind)).all())
            assert by_kind.get("in-play", 0) == 0
            assert by_kind["wallet"] + by_kind.get("house", 0) == -by_kind["issuer"]
            issuer = session.execute(select(Account.id).where(
                Account.code == ledger.ISSUER_CODE)).scalar_one()
            issued = session.execute(select(func.sum(LedgerEntry.amount)).where(
                LedgerEntry.account_id == issuer)).scalar_one()
            assert -issued == 100_000 * 10  # ten welcome credits, nothing else
            shoes = 0
            for shoe in session.scalars(select(ShoeRecord)):
                rules, _ = table_rules_from_json(shoe.rules)
                recorded = [RecordedCoup(c.coup_in_shoe, tuple(parse_cards(c.cards or "")))
                            for c in session.scalars(select(CoupRecord).where(
                                CoupRecord.shoe_id == shoe.id, CoupRecord.status != "void")
                                .order_by(CoupRecord.coup_in_shoe))]
                verdict = check_shoe(commitment_hex=shoe.commitment, salt_hex=shoe.salt,
                                     order=tuple(parse_cards(shoe.card_order)), rules=rules,
                                     coups=recorded)
                assert verdict.ok, (shoe.id, verdict.reason)
                shoes += 1
            assert shoes >= 5 and kills >= 5
            print(f"crash safety: {kills} kills, {len(statuses)} coups, {shoes} shoes, "
                  f"{seen_settled} accepted bets settled, {seen_refunded} refunded")
    finally:
        db.close()
