"""Issue 8, "Several processes, one PostgreSQL database": two ``puntobanco serve`` processes on
one throw-away PostgreSQL serve the same tables (``live/cluster.py``, docs/server.md).

Players bet through both processes; each process's sockets get every event and the table's
totals count both processes' bets; an operator's action taken on one process acts on the other.
Then the dealing process is SIGKILLed in a betting window: the other takes the table over within
5 s, the interrupted round is void and every stake in it refunded (the documented rule: a round
not dealt is void), no coup is dealt twice, every accepted bet — whichever process took it — is
settled once or refunded, the ledger audit holds and every shoe verifies.

No test waits for a betting window: the members run on hand-moved clocks (live/clock.py), either
two servers in this process on one :class:`ManualClock`, or two processes (that a test may kill)
each on its own, moved through its standard input (``support.serve_clocked``). Only the lock
campaign and the processes' reports keep real time, as in production.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import logging
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import httpx
import psycopg
import pytest
from sqlalchemy import select, text
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from puntobanco.cards import parse_cards
from puntobanco.rules import RuleSet
from puntobanco.server.api.ws import CLOSE_UNAUTHORIZED
from puntobanco.server.db.auth import token_hash
from puntobanco.server.db.engine import Database, migrate
from puntobanco.server.db.models import (
    BetRecord,
    CoupRecord,
    ShoeRecord,
)
from puntobanco.server.fair import RecordedCoup, check_shoe
from puntobanco.server.live import cluster
from puntobanco.server.live import messages as msg
from puntobanco.server.live.clock import ManualClock
from puntobanco.server.live.cluster import Cluster, LeadershipLost, libpq_url, pack
from puntobanco.server.live.desk import BetDesk
from puntobanco.server.live.hub import Client
from puntobanco.server.settings import table_rules_from_json

from .conftest import PostgresCluster
from .support import (
    OPERATOR_PASSWORD,
    ClockedProcess,
    LiveServer,
    Player,
    Watcher,
    answers,
    check_books,
    clocked_settings,
    free_port,
    lines_and_refunds,
    run_coroutine,
    running,
    running_clocked,
    serve_clocked,
    wait_until,
)

COMMAND = [sys.executable, "-c", "from puntobanco.cli import main; main()", "serve"]

Accepted = dict[tuple[int, int, str], int]
T = TypeVar("T")


def _bettor(url: str, player: Player, table: int, stop: threading.Event, accepted: Accepted,
            lock: threading.Lock) -> None:
    kinds = ["punto", "banco", "lion-banco"]
    turn = 0
    with httpx.Client(base_url=url, timeout=5, headers=player.headers) as http:
        while not stop.is_set():
            turn += 1
            kind = kinds[turn % len(kinds)]
            try:
                answer = http.post(f"/api/tables/{table}/bets", json={
                    "bet": kind, "stake": 1000, "idempotency_key": uuid.uuid4().hex})
            except httpx.HTTPError:  # its server was killed
                return
            if answer.status_code == 200:
                body = answer.json()
                with lock:
                    key = (player.id, body["coup_id"], kind)
                    accepted[key] = max(accepted.get(key, 0), body["total"])
            time.sleep(0.15)


@contextlib.contextmanager
def _betting(bettors: list[tuple[str, Player]], table: int,
             accepted: Accepted) -> Iterator[threading.Lock]:
    """Each (server, player) bets in a thread of its own until the block ends; the bets
    accepted go into ``accepted``, read under the lock yielded."""
    stop, lock = threading.Event(), threading.Lock()
    threads = [threading.Thread(target=_bettor, args=(url, player, table, stop, accepted, lock))
               for url, player in bettors]
    for thread in threads:
        thread.start()
    try:
        yield lock
    finally:
        stop.set()
        for thread in threads:
            thread.join(30)


@contextlib.contextmanager
def _clocked_pair(url: str, **changes: Any) -> Iterator[tuple[LiveServer, LiveServer]]:
    """Two servers on one PostgreSQL database, each with its own application, event loop, lock
    and relay connections (two members of the cluster, as two processes are), in this process
    and on one hand-moved clock: their betting windows end when the test says
    (``end_betting``), never by waiting. The first holds every table it starts with. The
    cluster's lock campaign keeps real time (live/clock.py); it retries every 0.25 s here."""
    clock = ManualClock()
    settings = clocked_settings(url, cluster_retry_seconds=0.25, **changes)
    with running(settings, clock=clock) as first, running(settings, clock=clock) as second:
        yield first, second


@dataclass(frozen=True)
class HandDealt:
    """A hand-dealt table created through the first server, its dealer and a player."""

    table: int
    dealer: Player
    player: Player


def _hand_dealt_table(first: str, second: str) -> HandDealt:
    """A one-deck hand-dealt table made on the server at ``first``, served by ``second`` too,
    with a dealer account assigned to it and signed in, and a player ``ann``."""
    http = httpx.Client(base_url=first, timeout=30)
    boss = Player.from_answer(http.post("/api/login", json={
        "username": "operator", "password": OPERATOR_PASSWORD}).json())
    made = http.post("/api/tables", headers=boss.headers, json={
        "name": "Live", "dealing": "dealer", "rules": {"decks": 1, "cut_card": 14}})
    assert made.status_code == 201, made.text
    table = made.json()["id"]
    account = http.post("/api/dealers", headers=boss.headers, json={
        "username": "croupier", "password": "secret1", "lang": "en"})
    assert account.status_code == 201, account.text
    assert http.put(f"/api/dealers/{account.json()['id']}/tables", headers=boss.headers,
                    json={"tables": [table]}).status_code == 200
    dealer = Player.from_answer(http.post("/api/login", json={
        "username": "croupier", "password": "secret1"}).json())
    ann = Player.from_answer(http.post("/api/signup", json={
        "username": "ann", "password": "secret1"}).json())
    http.close()
    wait_until(lambda: httpx.get(f"{second}/api/tables/{table}").status_code == 200,
               timeout=60)
    return HandDealt(table, dealer, ann)


def _step_until(processes: tuple[ClockedProcess, ...], condition: Callable[[], object], *,
                timeout: float = 60) -> None:
    """Move the processes' clocks on one second at a time until ``condition()`` holds: a
    round's pauses (under a second here) end, and a 15 s window is seen open long before it
    ends, however slowly the machine goes (``timeout`` bounds a failure only)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("the condition did not come true in time")
        for process in processes:
            process.advance(1.0)
        time.sleep(0.05)


def _snapshot(url: str, table: int) -> dict[str, Any]:
    data: dict[str, Any] = httpx.get(f"{url}/api/tables/{table}", timeout=5).json()
    return data


def test_issue8_two_processes_share_the_tables_and_one_takes_over_when_the_dealer_dies(
        pg_cluster: PostgresCluster) -> None:
    """The two processes run on hand-moved clocks (``serve_clocked``), moved together: a
    round's window lasts until both processes took bets in it, so the kill lands in a window
    where both did, whatever the machine's load. The takeover's 5 s bound is real time: it is
    the lock campaign's (live/cluster.py), which keeps the wall clock."""
    url = pg_cluster.new_database()
    accepted: Accepted = {}
    with serve_clocked(url) as first, serve_clocked(url) as second:
        first_url, second_url = first.url, second.url

        def end_betting() -> None:  # the dealer's window, and the follower's desk
            for process in (first, second):
                process.end_betting()

        http = httpx.Client(base_url=first_url, timeout=30)
        boss = Player.from_answer(http.post("/api/login", json={
            "username": "operator", "password": OPERATOR_PASSWORD}).json())
        made = http.post("/api/tables", headers=boss.headers, json={
            "name": "Quick", "rules": {"decks": 1, "cut_card": 20}})
        assert made.status_code == 201, made.text
        table = made.json()["id"]
        # a table created on one process is served by the other
        wait_until(lambda: httpx.get(f"{second_url}/api/tables/{table}").status_code == 200,
                   timeout=60)
        players = [Player.from_answer(http.post("/api/signup", json={
            "username": f"duo{index}", "password": "secret1"}).json()) for index in range(6)]
        through_first = {p.id for p in players[:3]}
        watcher = Watcher(f"ws://{second_url[7:]}/ws/tables/{table}?token={players[3].token}")
        bettors = [(first_url if index < 3 else second_url, player)
                   for index, player in enumerate(players)]

        def both_bet(coup: int, lock: threading.Lock) -> bool:
            with lock:
                who = {player for (player, at, _), _ in accepted.items() if at == coup}
            return bool(who & through_first) and bool(who - through_first)

        try:
            # the second process's socket gets the dealer's events, its player's own messages
            # (its settlement) and totals that count the bets taken by the first process
            with _betting(bettors, table, accepted) as lock:
                opened = watcher.next("round-opened", timeout=60)

                def watcher_bet() -> bool:
                    with lock:
                        return any(player == players[3].id and at == opened["coup_id"]
                                   for (player, at, _) in accepted)

                wait_until(lambda: both_bet(opened["coup_id"], lock) and watcher_bet(),
                           timeout=60)
            # the bettors stopped, the window still open: the totals catch up with every bet
            taken = sum(stake for (_, coup, _), stake in accepted.items()
                        if coup == opened["coup_id"])
            watcher.next("bet-totals", timeout=60, where=lambda m: m["coup_id"] == opened[
                "coup_id"] and sum(m["totals"].values()) == taken)
            end_betting()
            watcher.of_coup("round-settled", opened["coup_id"], timeout=60)
            # the player's own settlement, before or after the table's news
            if not [m for m in watcher.seen if m["type"] == "settlement"
                    and m["coup_id"] == opened["coup_id"]]:
                watcher.of_coup("settlement", opened["coup_id"], timeout=60)
            with _betting(bettors, table, accepted) as lock:
                # an operator's action on one process acts on the other: a credit reaches the
                # player's socket on the second process; a pause asked on the second process
                # (which does not deal) reaches the dealer
                credit = http.post(f"/api/players/{players[3].id}/credit", headers=boss.headers,
                                   json={"amount": 500})
                assert credit.status_code == 200, credit.text
                assert watcher.next("balance", where=lambda m: m.get("reason") == "credit",
                                    timeout=60)["amount"] == 500
                paused = httpx.post(f"{second_url}/api/tables/{table}/pause", headers=boss.headers)
                assert paused.status_code == 200, paused.text
                wait_until(lambda: _snapshot(first_url, table)["paused"], timeout=60)
                resumed = httpx.post(f"{second_url}/api/tables/{table}/resume",
                                     headers=boss.headers)
                assert resumed.status_code == 200, resumed.text
                wait_until(lambda: not _snapshot(first_url, table)["paused"], timeout=60)
                # a rename on the first is served by the second; a player suspended on the first
                # loses their socket on the second
                renamed = http.patch(f"/api/tables/{table}", headers=boss.headers,
                                     json={"name": "Quick two"})
                assert renamed.status_code == 200, renamed.text
                wait_until(lambda: _snapshot(second_url, table)["name"] == "Quick two", timeout=60)
                idle = Player.from_answer(http.post("/api/signup", json={
                    "username": "duo-idle", "password": "secret1"}).json())
                elsewhere = Watcher(f"ws://{second_url[7:]}/ws/tables/{table}?token={idle.token}")
                elsewhere.next("snapshot", timeout=60)
                suspended = http.post(f"/api/players/{idle.id}/suspend", headers=boss.headers)
                assert suspended.status_code == 200, suspended.text
                with pytest.raises(ConnectionError):
                    elsewhere.next("never-sent", timeout=60)
                elsewhere.close()

                # kill the dealing process (the first: it took every lock at its start) in a
                # betting window where both processes took bets
                end_betting()  # the pause after the result: the next round opens
                killed = watcher.next("round-opened", timeout=60,
                                      where=lambda m: m["coup_id"] > opened["coup_id"])
                killed_coup = killed["coup_id"]
                wait_until(lambda: both_bet(killed_coup, lock), timeout=60)
                first.process.send_signal(signal.SIGKILL)
                killed_at = time.monotonic()
                first.process.wait(30)

                def coup_status() -> str:
                    status: str = httpx.get(f"{second_url}/api/coups/{killed_coup}").json()["status"]
                    return status

                wait_until(lambda: coup_status() not in ("open", "closed"), timeout=60,
                           step=0.05)
                took_over = time.monotonic() - killed_at
                print(f"takeover in {took_over:.2f} s")
                assert took_over < 5, took_over
                assert coup_status() == "void"  # a round not dealt is void, its stakes refunded
                # the second process deals on: new rounds, bets taken and settled
                after = watcher.next("round-opened", timeout=60,
                                     where=lambda m: m["coup_id"] > killed_coup)
                second.end_betting()
                watcher.of_coup("round-settled", after["coup_id"], timeout=60)
        finally:
            watcher.close()
        second.process.send_signal(signal.SIGINT)  # a clean stop: its open round is voided
        second.process.wait(60)
    _audit(url, accepted, killed_coup)


def test_issue8_a_dealer_whose_lock_connection_is_lost_stops_dealing_at_once(
        pg_cluster: PostgresCluster) -> None:
    """Split brain: the dealing process's lock connection is cut (its backend terminated) in
    a betting window. That process stops dealing (its next dealer write is fenced off anyway)
    and a process that holds the lock — the other, or this one again after reconnecting —
    recovers the table; rounds go on, no coup number is dealt twice, every accepted bet is
    settled once or refunded and the books hold. The two members run on one hand-moved clock:
    the window stays open until the cut, whatever the machine's load."""
    url = pg_cluster.new_database()
    accepted: Accepted = {}
    db = Database(url, threads=1)

    def holders() -> set[int]:
        with db.read() as session:
            return set(session.execute(text(
                "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted "
                "AND objsubid = 2 AND objid = 1")).scalars())

    try:
        with _clocked_pair(url) as (first, second):
            players = [first.signup(f"cut{index}") for index in range(4)]
            through_first = {p.id for index, p in enumerate(players) if index % 2}
            watcher = second.watch(1)
            try:
                with _betting([(first.url if index % 2 else second.url, player)
                               for index, player in enumerate(players)], 1,
                              accepted) as lock:

                    def both_bet(coup: int) -> bool:
                        with lock:
                            who = {player for (player, at, _), _ in accepted.items()
                                   if at == coup}
                        return bool(who & through_first) and bool(who - through_first)

                    def some_bet(coup: int) -> bool:
                        with lock:
                            return any(at == coup for (_, at, _) in accepted)

                    opened = watcher.next("round-opened", timeout=60)
                    for _ in range(2):
                        coup = opened["coup_id"]
                        # bets through both members in each round cut: in the second, the
                        # member whose lock was cut first follows the round the other opened,
                        # even when it noticed the cut only after that round opened
                        wait_until(lambda cut=coup: both_bet(cut), timeout=60)
                        (before,) = holders()
                        with db.write() as session:
                            session.execute(text("SELECT pg_terminate_backend(:pid)"),
                                            {"pid": before})

                        # the terminated backend leaves pg_locks a moment later: wait for the
                        # lock to be held again, by another backend (the SIGKILL test holds the
                        # 5 s bound; this one bounds a failure only)
                        def taken_over(old: int = before) -> bool:
                            found = holders()
                            return len(found) == 1 and found != {old}

                        wait_until(taken_over, timeout=60, step=0.05)
                        # the interrupted round, not dealt, is void, and play goes on under
                        # the new holder
                        wait_until(lambda cut=coup: httpx.get(f"{second.url}/api/coups/{cut}")
                                   .json()["status"] == "void", timeout=60)
                        opened = watcher.next("round-opened", timeout=60,
                                              where=lambda m, cut=coup: m["coup_id"] > cut)
                    wait_until(lambda: some_bet(opened["coup_id"]), timeout=60)
                    second.end_betting()  # one clock for both: the holder deals
                    watcher.of_coup("round-settled", opened["coup_id"], timeout=60)
            finally:
                watcher.close()
    finally:
        db.close()
    _audit(url, accepted, None)


def _on_loop(server: LiveServer, work: Callable[[], T]) -> T:
    """``work()`` run on ``server``'s event loop (its thread), as its own code runs there."""
    cluster = server.casino.cluster
    assert cluster is not None
    loop = cluster._tasks[0].get_loop()
    done: concurrent.futures.Future[T] = concurrent.futures.Future()
    loop.call_soon_threadsafe(lambda: done.set_result(work()))
    return done.result(timeout=30)


def test_issue17_a_member_that_notices_its_lost_lock_late_follows_the_round_dealt_meanwhile(
        pg_cluster: PostgresCluster) -> None:
    """A member whose table lock is cut while it believes it still deals the table may notice
    only after the other member took the lock over, voided the interrupted round and opened the
    next one (a slow lock check). Once it notices, it shows that round and takes bets in it at
    once, as the other member does, not from the next relayed event (which, on a hand-moved
    clock, never comes while the window is open). Its lock campaign is stopped here, so that
    it notices exactly when the test says (what the campaign would do: ``_lost_locks``)."""
    url = pg_cluster.new_database()
    with _clocked_pair(url) as (first, second):
        ann, bob = first.signup("ann"), first.signup("bob")
        here, there = first.watch(1, ann), second.watch(1, bob)  # watched on both: dealt
        try:
            cut = here.next("round-opened", timeout=60)["coup_id"]
            assert first.bet(ann, 1, "punto", 1000).status_code == 200
            cluster = first.casino.cluster
            assert cluster is not None and 1 in cluster.held
            _on_loop(first, lambda: cluster._tasks[1].cancel())  # it checks its locks no more
            with first.casino.db.write() as session:
                session.execute(text(
                    "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = "
                    "'advisory' AND granted AND objsubid = 2 AND objid = 1"))
            # the second member takes the table over: the cut round is void, the next opens;
            # the first member's sockets get it relayed while it still believes it deals
            opened = here.next("round-opened", timeout=60, where=lambda m: m["coup_id"] > cut)
            assert second.casino.dealers[1].following is False
            assert first.casino.dealers[1].following is False
            refused = first.bet(ann, 1, "punto", 1000)  # the fence: still believed its own
            assert refused.status_code == 409, refused.text
            _on_loop(first, cluster._lost_locks)  # now it notices
            assert first.casino.dealers[1].following is True
            table = first.http.get("/api/tables/1").json()
            assert (table["phase"], table["coup_id"]) == ("open", opened["coup_id"])
            for server, player in ((first, ann), (second, bob)):  # bets through both members
                answer = server.bet(player, 1, "banco", 2000)
                assert answer.status_code == 200, answer.text
                assert answer.json()["coup_id"] == opened["coup_id"]
            second.end_betting()  # one clock for both: the holder deals and settles both bets
            for watcher in (here, there):
                settled = watcher.of_coup("round-settled", opened["coup_id"], timeout=60)
                assert settled is not None
            assert httpx.get(f"{second.url}/api/coups/{cut}").json()["status"] == "void"
        finally:
            here.close()
            there.close()
    books = check_books(url)
    assert books["active_bets"] == 0 and set(books["in_play"].values()) == {0}


def test_issue17_a_followers_totals_count_the_bets_answered_after_no_more_bets_at_once(
        pg_cluster: PostgresCluster, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bet queued before "no more bets" is answered after it (the dealer drains its desk,
    then closes the coup), and its ``my-bets`` reaches the following member after the
    ``bets-closed``. The follower's ``bet-totals`` count it at once, before the coup's cards
    and result, as the dealer's do, not after the usual gap between two pushes (made 30 s
    here, so that a late push shows; the bet lingers in the dealer's desk until the close)."""
    monkeypatch.setattr("puntobanco.server.live.desk.TOTALS_SECONDS", 30.0)
    url = pg_cluster.new_database()
    with _clocked_pair(url) as (first, second):
        ann = first.signup("ann")
        watcher = second.watch(1, second.signup("bob"))  # on the follower
        try:
            coup = watcher.next("round-opened", timeout=60)["coup_id"]
            assert first.bet(ann, 1, "punto", 1000).status_code == 200
            # the follower pushes the coup's first change at once; the next waits its gap
            watcher.next("bet-totals", timeout=60, where=lambda m: m["coup_id"] == coup)
            hub = first.casino.dealers[1].hub
            assert isinstance(hub, cluster.ClusterHub)
            assert hub._may_wait()  # the window open: a bet's relay may wait for more
            desk = first.casino.dealers[1].desk
            desk.linger = 30.0  # the dealer's next batch is written at the close
            with concurrent.futures.ThreadPoolExecutor(1) as pool:
                queued = pool.submit(first.bet, ann, 1, "banco", 2000)
                wait_until(lambda: len(desk._queue) == 1)
                first.end_betting()  # one clock for both: the dealer closes, drains, deals
                assert queued.result(timeout=60).status_code == 200
                assert not hub._may_wait()  # closed: the last bets' relay goes at once
            watcher.of_coup("round-settled", coup, timeout=60)
            kinds = [m["type"] for m in watcher.seen]
            before_cards = watcher.seen[:kinds.index("card-dealt")]
            pushed = [m for m in before_cards
                      if m["type"] == "bet-totals" and m["coup_id"] == coup]
            assert sum(pushed[-1]["totals"].values()) == 3000, kinds
        finally:
            watcher.close()


def _audit(url: str, accepted: Accepted, killed_coup: int | None) -> None:
    books = check_books(url)  # ledger invariants; every settled line is the core's
    assert books["active_bets"] == 0 and set(books["in_play"].values()) == {0}
    db = Database(url, threads=1)
    try:
        with db.read() as session:
            statuses = dict(session.execute(select(CoupRecord.id, CoupRecord.status)).all())
            assert set(statuses.values()) <= {"settled", "void"}
            assert killed_coup is None or statuses[killed_coup] == "void"
            settled_after = [c for c, s in statuses.items()
                             if c > (killed_coup or 0) and s == "settled"]
            assert settled_after, "the second process settled nothing after the takeover"
            refunded_in_killed = 0
            for (player, coup_id, kind), total in accepted.items():  # no bet lost
                bet = session.execute(select(BetRecord).where(
                    BetRecord.coup_id == coup_id, BetRecord.player_id == player,
                    BetRecord.kind == kind)).scalar_one()
                assert bet.stake >= total, (bet.id, bet.stake, total)
                lines, refunds = lines_and_refunds(session, bet.id)
                if statuses[coup_id] == "settled":
                    assert (bet.status, lines, refunds) == ("settled", 1, 0), bet.id
                else:
                    assert (bet.status, lines, refunds) == ("refunded", 0, 1), bet.id
                    refunded_in_killed += coup_id == killed_coup
            # bets of both processes in the killed round
            assert killed_coup is None or refunded_in_killed >= 2
            for shoe in session.scalars(select(ShoeRecord)):  # no coup dealt twice; fair shoes
                coups = session.scalars(select(CoupRecord).where(
                    CoupRecord.shoe_id == shoe.id, CoupRecord.status != "void")
                    .order_by(CoupRecord.coup_in_shoe)).all()
                numbers = [c.coup_in_shoe for c in coups]
                assert numbers == list(range(1, len(numbers) + 1)), (shoe.id, numbers)
                rules, _ = table_rules_from_json(shoe.rules)
                verdict = check_shoe(
                    commitment_hex=shoe.commitment, salt_hex=shoe.salt,
                    order=tuple(parse_cards(shoe.card_order)), rules=rules,
                    coups=[RecordedCoup(c.coup_in_shoe, tuple(parse_cards(c.cards or "")))
                           for c in coups])
                assert verdict.ok, (shoe.id, verdict.reason)
    finally:
        db.close()


def test_issue8_workers_on_sqlite_are_refused_in_one_sentence(tmp_path: Path) -> None:
    result = subprocess.run([*COMMAND, "--workers", "2", "--port", str(free_port())],
                            cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith("puntobanco: ") and result.stderr.count("\n") == 1
    assert "--workers 2 needs PostgreSQL" in result.stderr


def test_issue8_a_relayed_message_longer_than_notify_allows_is_cut_and_joined() -> None:
    """NOTIFY carries at most 8,000 bytes: a longer item (a state with a long road, in any
    alphabet) is cut into parts under the limit and joined, in order with the others."""
    got: list[msg.RelayItem] = []

    async def on_item(item: msg.RelayItem) -> None:
        got.append(item)

    small = msg.PlayerMessage(table=1, player=7, text='{"type":"my-bets"}')
    large = msg.TableEvent(table=1, text="é\"ß" * 9_000 + "🂡" * 2_000, state=msg.DealerState(
        view={}, rules={}, seconds=15, paused=False))
    payloads = pack("elsewhere", [item.model_dump_json() for item in (small, large, small)])
    assert len(payloads) > 3 and all(len(p.encode()) <= 8_000 for p in payloads)
    receiver = Cluster("postgresql+psycopg://pb@127.0.0.1/pb", on_item=on_item)

    async def deliver() -> None:
        for payload in payloads:
            await receiver._received(payload)

    run_coroutine(deliver())
    assert got == [small, large, small]
    assert receiver.peers == 2  # someone else relays: this process relays from now on too


def _relayed(url: str, send: Callable[[Cluster], Awaitable[None]], count: int
             ) -> tuple[list[msg.RelayItem], list[float], int]:
    """Two members of a cluster on ``url``: ``send(sender)`` relays, the other gets ``count``
    items. The items got, when each came (seconds after ``send`` began), and the round trips
    the sender's relay connection made meanwhile (counted from libpq's trace of its
    protocol: each ``ReadyForQuery`` ends one)."""
    got: list[msg.RelayItem] = []
    times: list[float] = []
    began = time.monotonic()

    async def on_item(item: msg.RelayItem) -> None:
        got.append(item)
        times.append(time.monotonic() - began)

    async def unused(item: msg.RelayItem) -> None:
        raise AssertionError(f"the sender got its own item back: {item}")

    async def relay() -> int:
        nonlocal began
        sender, receiver = Cluster(url, on_item=unused), Cluster(url, on_item=on_item)
        await sender.start()
        await receiver.start()
        try:
            assert sender._notify is not None
            sender.peers = 2  # (counted every second otherwise)
            with tempfile.TemporaryFile("w+") as trace:
                sender._notify.pgconn.trace(trace.fileno())
                sender._notify.pgconn.set_trace_flags(
                    psycopg.pq.Trace.SUPPRESS_TIMESTAMPS | psycopg.pq.Trace.REGRESS_MODE)
                began = time.monotonic()
                await send(sender)
                deadline = time.monotonic() + 10
                while len(got) < count and time.monotonic() < deadline:
                    await asyncio.sleep(0.002)
                if sender._flushing is not None:  # its ReadyForQuery may come after the items
                    await asyncio.gather(sender._flushing, return_exceptions=True)
                sender._notify.pgconn.untrace()
                trace.seek(0)
                return sum(line.startswith("B") and "\tReadyForQuery" in line
                           for line in trace)
        finally:
            await sender.close()
            await receiver.close()

    round_trips = run_coroutine(relay())
    return got, times, round_trips


def test_issue21_what_a_moment_relays_is_one_round_trip_and_arrives_in_order(
        pg_cluster: PostgresCluster) -> None:
    """Issue 21 (``--workers 2``): what one turn of the event loop relays — here two small
    items around one too long for a notification, cut into parts — is sent to PostgreSQL in
    one round trip (one statement in autocommit, not ``BEGIN``, the notifications and
    ``COMMIT``: three round trips on the event loop for every batch of bets answered), and
    another process gets every item, whole and in order."""
    small, last = (msg.PlayerMessage(table=1, player=player, text='{"type":"my-bets"}')
                   for player in (7, 8))  # (PostgreSQL drops a payload repeated in a transaction)
    large = msg.TableEvent(table=1, text="é\"ß" * 9_000 + "🂡" * 2_000, state=msg.DealerState(
        view={}, rules={}, seconds=15, paused=False))

    async def send(sender: Cluster) -> None:
        for item in (small, large, last):
            sender.relay(item)

    got, _, round_trips = _relayed(pg_cluster.new_database(), send, 3)
    assert got == [small, large, last]
    assert round_trips == 1


def test_issue21_bets_relayed_in_the_window_wait_for_more_and_go_with_the_next_event(
        pg_cluster: PostgresCluster, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 21 (``--workers 2``): a bet's ``my-bets`` relayed while the window is open (it
    feeds the other processes' totals, pushed at most every 0.25 s) waits up to
    ``RELAY_LINGER`` for more: the batches answered 20 ms apart go in one round trip, not
    one each. An item that may not wait (a table event) takes the waiting ones along at
    once, in their order. (The wait is made 0.5 s here: a loaded machine's sleeps stay
    inside it.)"""
    monkeypatch.setattr(cluster, "RELAY_LINGER", 0.5)
    texts = [(player, msg.my_bets_text(3, {"banco": 1000}, 9000)) for player in range(1, 4)]
    bets = [cluster.player_item(1, player, text, text) for player, text in texts]
    event = msg.TableEvent(table=1, text='{"type":"bets-closed"}', state=msg.DealerState(
        view={}, rules={}, seconds=15, paused=False))

    async def lingering(sender: Cluster) -> None:
        for item in bets:
            sender.relay_text(item, linger=True)
            await asyncio.sleep(0.02)

    got, times, round_trips = _relayed(pg_cluster.new_database(), lingering, 3)
    assert [item.player for item in got if isinstance(item, msg.PlayerMessage)] == [1, 2, 3]
    assert round_trips == 1
    assert times[0] >= cluster.RELAY_LINGER  # the first waited for the others

    async def then_an_event(sender: Cluster) -> None:
        for item in bets[:2]:
            sender.relay_text(item, linger=True)
        await asyncio.sleep(0.01)
        sender.relay(event)

    got, times, round_trips = _relayed(pg_cluster.new_database(), then_an_event, 3)
    assert got[2] == event and [getattr(item, "player", None) for item in got] == [1, 2, None]
    assert round_trips == 1 and max(times) < cluster.RELAY_LINGER


def test_issue21_each_process_pushes_bet_totals_at_the_gap_of_the_whole_tables_sockets(
        sqlite_url: str) -> None:
    """Issue 21 (``--workers 2``): each process pushes its own ``bet-totals`` to its sockets,
    coalesced to at most ``TOTALS_SENDS`` socket writes a second. Counted with its own sockets
    only, two processes holding 500 each pushed every 0.5 s: twice the writes of one process
    holding 1,000. The gap is the whole table's (this process's sockets and the players the
    others report watching): 0.6 s after a push, 1,000 sockets in all, the next waits."""
    migrate(sqlite_url)
    db = Database(sqlite_url, threads=1)
    hub = cluster.ClusterHub(Cluster("postgresql+psycopg://pb@127.0.0.1/pb", on_item=_ignored),
                             1, lambda: None)
    here = [Client(None) for _ in range(500)]
    for client in here:
        hub.add(client)
    hub.seen_elsewhere("other", frozenset(range(1, 501)), 60.0)
    clock = ManualClock()

    def pushed() -> list[str]:
        texts = []
        while not here[0].queue.empty():
            text = here[0].queue.get_nowait()
            assert text is not None
            texts.append(text.split('"')[3])
        return texts

    async def window() -> tuple[list[str], list[str]]:
        desk = BetDesk(table_id=1, db=db, hub=hub, clock=clock)
        desk.open(coup_id=7, round_no=1, rules=RuleSet(), closes_at=clock.now() + 15)
        desk.apply_remote(1, 7, {"banco": 1000})  # the first change of a window: at once
        first = pushed()
        desk._sent_at = asyncio.get_running_loop().time() - 0.6
        desk.apply_remote(2, 7, {"punto": 1000})
        second = pushed()
        desk.flush_totals()  # (its timer, a moment later)
        return first, second

    try:
        first, second = run_coroutine(window())
    finally:
        db.close()
    assert hub.table_sockets() == 1000
    assert first == ["bet-totals"]
    assert second == []  # 0.6 s: under the 1 s gap of 1,000 sockets (0.5 s for 500)


async def _ignored(item: msg.RelayItem) -> None:
    pass


def test_issue8_serve_workers_runs_processes_sharing_one_port(
        pg_cluster: PostgresCluster, tmp_path: Path) -> None:
    """``serve --workers 2``: two processes on one port, both listening for the relay, one
    holding each table's lock (one process per table); Ctrl-C stops them all."""
    url = pg_cluster.new_database()
    port = free_port()
    env = {**os.environ, "PUNTOBANCO_OPERATOR_PASSWORD": OPERATOR_PASSWORD}
    process = subprocess.Popen([*COMMAND, "--workers", "2", "--port", str(port),
                                "--database-url", url], cwd=tmp_path, env=env, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        base = f"http://127.0.0.1:{port}"
        wait_until(lambda: answers(base) or process.poll() is not None, timeout=60)
        engine = Database(url, threads=1)
        try:
            def cluster() -> tuple[int, list[tuple[int, int]]]:
                with engine.read() as session:
                    listening = session.execute(text(
                        "SELECT count(*) FROM pg_stat_activity "
                        "WHERE application_name = 'puntobanco-cluster'")).scalar_one()
                    holders = [(int(table), int(pid)) for table, pid in session.execute(text(
                        "SELECT objid::bigint, pid FROM pg_locks WHERE locktype = 'advisory' "
                        "AND granted AND objsubid = 2 ORDER BY objid"))]
                    return int(listening), holders

            wait_until(lambda: cluster()[0] == 2, timeout=30)
            # each table is dealt by exactly one process (two started together may share them)
            assert [table for table, _ in cluster()[1]] == [1, 2]
        finally:
            engine.close()
        assert [t["name"] for t in httpx.get(f"{base}/api/tables").json()] == [
            "Sanremo", "Enghien"]
    finally:
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    assert "2 worker processes share the port" in out, (out, err)
    assert "Traceback" not in err, err


def test_issue8_a_hand_dealt_table_follows_its_dealer_to_the_process_the_page_uses(
        pg_cluster: PostgresCluster) -> None:
    """A hand-dealt table (docs/dealer.md) is dealt by the process holding its lock; the
    dealer's page may reach another process (``--workers``): its first action there is
    refused with one sentence ("try again in a moment") and the table is handed over, between
    two actions; the next try works. A player betting through the other process bets into the
    coup the dealer opened, and the dealer's close takes the bet."""
    url = pg_cluster.new_database()
    with _clocked_pair(url) as (first, second):
        live = _hand_dealt_table(first.url, second.url)
        table, dealer, ann = live.table, live.dealer, live.player

        def act(action: str, body: dict[str, Any] | None = None) -> httpx.Response:
            return second.http.post(f"/api/tables/{table}/dealer/{action}?lang=en",
                                    json=body or {}, headers=dealer.headers)

        first_try = act("shoe")
        assert first_try.status_code == 409, first_try.text
        assert first_try.json()["error"]["message"].endswith("try again in a moment.")
        # the hand-over takes a few of the lock campaign's rounds: the bound is for a failure
        answers: list[httpx.Response] = []
        wait_until(lambda: answers.append(act("shoe")) or answers[-1].status_code == 200,
                   timeout=60, step=0.1)
        assert act("burn", {"count": 1}).status_code == 200
        opened = act("open")
        assert opened.status_code == 200, opened.text
        coup_id = opened.json()["coup_id"]

        def bet() -> httpx.Response:
            return first.http.post(f"/api/tables/{table}/bets", headers=ann.headers,
                                   json={"bet": "banco", "stake": 1000, "coup_id": coup_id})

        # the first server learns of the opened coup through the relay
        bets: list[httpx.Response] = []
        wait_until(lambda: bets.append(bet()) or bets[-1].status_code == 200, timeout=60,
                   step=0.05)
        assert act("close").status_code == 200
        refused = bet()
        assert refused.status_code == 409 and refused.json()["error"]["code"] == "table-closed"
        db = Database(url, threads=1)
        try:
            with db.read() as session:
                stakes = session.execute(select(BetRecord.stake).where(
                    BetRecord.coup_id == coup_id, BetRecord.player_id == ann.id)).scalars().all()
        finally:
            db.close()
        assert stakes == [1000]
    check_books(url)


def test_issue8_a_dealer_write_is_fenced_by_the_lock_postgresql_holds(
        pg_cluster: PostgresCluster) -> None:
    """The fence asks PostgreSQL, not this process's memory: a table this process believes
    it holds, but whose lock ``pg_locks`` does not show granted to its lock connection, gets
    no dealer write (``LeadershipLost``, the transaction rolled back)."""
    with running_clocked(pg_cluster.new_database()) as live:
        cluster = live.casino.cluster
        assert cluster is not None and cluster.held == {1, 2}
        with live.casino.db.write() as session:
            cluster.fence(1)(session)  # held: the write may go on
        cluster.held.add(999)  # believed held, never locked
        with pytest.raises(LeadershipLost), live.casino.db.write() as session:
            cluster.fence(999)(session)
        cluster.held.discard(1)  # locked in PostgreSQL, but no longer believed held
        with pytest.raises(LeadershipLost), live.casino.db.write() as session:
            cluster.fence(1)(session)
        cluster.held.add(1)


def test_issue8_every_process_answers_the_same_live_view_and_ends_a_session_everywhere(
        pg_cluster: PostgresCluster) -> None:
    """Issue 8 (what stayed per process), with requests landing on either of two processes:
    the operator's live view of a table from the process that does not deal it equals the
    dealing process's during an open coup, exposure included (replayed from the shoe's recorded
    order); ``players`` and the view's ``watchers`` count both processes' sockets (a player on
    both counts once), and a process that stops reporting stops counting; a log-out, and a
    log-out everywhere, asked of one process closes the player's socket on the other at once,
    with 4401 as locally. The processes run on hand-moved clocks: the coup stays open, then
    stays in its pause after "no more bets", for as long as the test looks at it."""
    url = pg_cluster.new_database()
    stack = contextlib.ExitStack()
    with serve_clocked(url, closed_seconds=0.6, card_seconds=0.5) as first, \
            serve_clocked(url, closed_seconds=0.6, card_seconds=0.5) as second, stack:
        first_url, second_url = first.url, second.url

        def move_on() -> None:  # both clocks together: the dealer's, the follower's desk
            for process in (first, second):
                process.end_betting()

        http = httpx.Client(base_url=first_url, timeout=30)  # the first deals every table
        boss = Player.from_answer(http.post("/api/login", json={
            "username": "operator", "password": OPERATOR_PASSWORD}).json())
        ann, bob = (Player.from_answer(http.post("/api/signup", json={
            "username": name, "password": "secret1"}).json()) for name in ("ann", "bob"))
        # ann watches on both processes, bob on the second one only
        watchers = []
        for base, player in ((first_url, ann), (second_url, ann), (second_url, bob)):
            watcher = Watcher(f"ws://{base[7:]}/ws/tables/1?token={player.token}")
            stack.callback(watcher.close)
            watchers.append(watcher)
        news = watchers[2]  # bob's, on the process that does not deal

        def players(base: str) -> int:
            found: int = {t["id"]: t["players"] for t in
                          httpx.get(f"{base}/api/tables", timeout=30).json()}[1]
            return found

        wait_until(lambda: players(first_url) == players(second_url) == 2, timeout=60)

        # the live view, from either process, while both processes took bets in an open coup
        def views() -> list[dict[str, Any]]:
            return [httpx.get(f"{base}/api/operator/tables/1", headers=boss.headers,
                              timeout=30).json() for base in (first_url, second_url)]

        # a coup after the shoe's first: the follower replays recorded coups. The clocks move
        # a second at a time, the table looked at between two moves: the second coup's 15 s
        # window is seen open long before it could end
        wait_until(lambda: _snapshot(second_url, 1)["phase"] == "open", timeout=60)
        move_on()
        _step_until((first, second), lambda: (snapshot := _snapshot(second_url, 1))[
            "phase"] == "open" and snapshot["coup_in_shoe"] == 2)
        coup = _snapshot(second_url, 1)["coup_id"]
        for base, player, kind in ((first_url, ann, "banco"), (second_url, bob, "punto")):
            placed = httpx.post(f"{base}/api/tables/1/bets", headers=player.headers, timeout=30,
                                json={"bet": kind, "stake": 1000, "coup_id": coup})
            assert placed.status_code == 200, placed.text
        seen: list[list[dict[str, Any]]] = []
        wait_until(lambda: seen.append(views()) or (
            seen[-1][0]["coup_id"] == coup and len(seen[-1][0]["spots"]) == 2
            and seen[-1][0] == seen[-1][1]), timeout=60, step=0.1)
        dealing, following = seen[-1]
        assert dealing["table"]["phase"] == "open", dealing  # betting still open
        assert following["exposure"] is not None and following["exposure"]["stakes"] == 2000
        assert following["exposure"]["worst"] is not None
        assert [w["username"] for w in following["watchers"]] == ["ann", "bob"]
        assert following["table"]["players"] == 2
        # and once betting closed, in the pause before the first card (the coup is recorded
        # dealt: its own cards are put back, as the dealer's shoe does)
        move_on()
        news.of_coup("bets-closed", coup, timeout=60)
        wait_until(lambda: seen.append(views()) or (
            seen[-1][0]["coup_id"] == coup and seen[-1][0]["table"]["phase"] in ("closed", "dealt")
            and seen[-1][0] == seen[-1][1]), timeout=60, step=0.1)
        assert seen[-1][1]["exposure"] == following["exposure"]

        # a log-out on the first process closes that session's socket on the second (4401),
        # not the player's other session's; a log-out everywhere closes that one too
        other = Player.from_answer(http.post("/api/login", json={
            "username": "ann", "password": "secret1"}).json())
        sockets = [stack.enter_context(connect(
            f"ws://{second_url[7:]}/ws/tables/1?token={token}", open_timeout=30))
            for token in (ann.token, other.token)]
        for socket_ in sockets:
            assert json.loads(socket_.recv(timeout=30))["type"] == "snapshot"

        def closed_code(socket_: Any) -> int | None:
            """The close code of ``socket_``, closed within 30 s (a bound for a failure)."""
            deadline = time.monotonic() + 30
            with pytest.raises(ConnectionClosed) as closed:
                while True:  # the table's events flow meanwhile
                    socket_.recv(timeout=max(0.01, deadline - time.monotonic()))
            return None if closed.value.rcvd is None else closed.value.rcvd.code

        listener = stack.enter_context(psycopg.connect(libpq_url(url), autocommit=True))
        listener.execute("LISTEN puntobanco")  # what the processes tell each other
        assert http.post("/api/logout", headers=ann.headers).status_code == 200
        assert closed_code(sockets[0]) == CLOSE_UNAUTHORIZED
        relayed = ""
        for notice in listener.notifies(timeout=30):
            relayed += notice.payload
            if token_hash(ann.token) in relayed:
                break
        assert token_hash(ann.token) in relayed and ann.token not in relayed  # the hash only
        sockets[1].send(json.dumps({"type": "ping"}))
        assert any(json.loads(sockets[1].recv(timeout=30))["type"] == "pong" for _ in range(200))
        assert http.post("/api/logout-everywhere", headers=other.headers).status_code == 200
        assert closed_code(sockets[1]) == CLOSE_UNAUTHORIZED

        # the second process stops reporting (killed): its watchers are no longer counted
        # ann's sockets are closed everywhere; bob's, on the second process, is counted by both
        # (a report follows a change within a period)
        wait_until(lambda: players(first_url) == players(second_url) == 1, timeout=60)
        second.process.send_signal(signal.SIGKILL)
        second.process.wait(30)
        wait_until(lambda: players(first_url) == 0, timeout=60)


def test_issue17_S3_a_cut_card_in_the_middle_of_a_coup_survives_a_hand_over(
        pg_cluster: PostgresCluster, caplog: pytest.LogCaptureFixture) -> None:
    """Issue 17: a hand-dealt table whose dealer pressed the cut card between two cards of a
    coup is handed over to the other process (its dealer's page moved there): the new
    holder replays the record with the cut card inside that coup, takes the table (no
    bouncing, no ``table-out-of-service``, nothing logged as an error), and the 300 € bet of
    the next round is settled."""
    url = pg_cluster.new_database()
    caplog.set_level(logging.ERROR, logger="puntobanco")
    with _clocked_pair(url) as (first, second):
        live = _hand_dealt_table(first.url, second.url)
        table, dealer, ann = live.table, live.dealer, live.player

        def act(server: LiveServer, action: str, body: dict[str, Any] | None = None
                ) -> httpx.Response:
            return server.http.post(f"/api/tables/{table}/dealer/{action}?lang=en",
                                    json=body or {}, headers=dealer.headers)

        def ok(server: LiveServer, action: str, body: dict[str, Any] | None = None
               ) -> dict[str, Any]:
            """The action on ``server``, once the table is handed over to it."""
            tries: list[httpx.Response] = []
            wait_until(lambda: tries.append(act(server, action, body)) or
                       tries[-1].status_code == 200
                       or not tries[-1].text.endswith('try again in a moment."}}'),
                       timeout=60, step=0.1)
            assert tries[-1].status_code == 200, tries[-1].text
            data: dict[str, Any] = tries[-1].json()
            return data

        ok(second, "shoe")
        ok(second, "open")
        ok(second, "close")
        ok(second, "cards", {"card": "2c"})
        ok(second, "cut-card")
        for card in ("3d", "4c", "5d", "kc", "kd"):
            if ok(second, "cards", {"card": card})["step"]["complete"]:
                break
        ok(second, "settle")
        coup_id = ok(second, "open")["coup_id"]
        # the first server takes the bet once the relay told it of the round
        bets: list[httpx.Response] = []
        wait_until(lambda: bets.append(first.http.post(
            f"/api/tables/{table}/bets", headers=ann.headers,
            json={"bet": "banco", "stake": 30_000, "coup_id": coup_id})) or
            bets[-1].status_code == 200, timeout=60, step=0.05)
        state = ok(first, "close")  # the page moves to the first process
        assert state["spots"] == 1 and state["shoe"]["cut_card_out"]
        for card in ("9h", "2d", "kh", "5c"):
            ok(first, "cards", {"card": card})
        assert ok(first, "settle")["shoe"]["finished"]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text[-3000:]
    books = check_books(url)
    assert books["active_bets"] == 0 and set(books["in_play"].values()) == {0}
