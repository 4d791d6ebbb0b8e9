"""Helpers for the server tests: a real uvicorn server in a thread, players, a WebSocket watcher,
and the books (the ledger audit and the core's settlement of every recorded coup)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import os
import queue
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

import httpx
import uvicorn
from sqlalchemy import create_engine, func, select
from sqlalchemy.orm import Session
from websockets.sync.client import ClientConnection, connect

from puntobanco.bets import BetKind, settle_spot
from puntobanco.cards import parse_cards
from puntobanco.cli.serve import UVICORN_OPTIONS
from puntobanco.coup import Coup
from puntobanco.rules import RuleSet
from puntobanco.server.app import create_app
from puntobanco.server.db import ledger, store
from puntobanco.server.db.engine import Database, make_engines, migrate
from puntobanco.server.db.models import (
    Account,
    BetRecord,
    CoupRecord,
    LedgerEntry,
    LedgerTransaction,
    SettlementLineRecord,
    ShoeRecord,
)
from puntobanco.server.live.casino import Casino
from puntobanco.server.live.clock import ManualClock
from puntobanco.server.settings import GuardSettings, ServerSettings, table_rules_from_json

T = TypeVar("T")
OPERATOR_PASSWORD = "operator-secret"
#: Tests sign up many players from one address and hammer bets on purpose: the rate limits are
#: raised for them (tests/server/test_hostile.py checks the real defaults).
TEST_GUARD = GuardSettings(login_per_address=(10_000, 1000.0), login_per_account=(1000, 100.0),
                           bets_per_player=(100_000, 10_000.0))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def fast_settings(database_url: str, **changes: Any) -> ServerSettings:
    """Settings for tests: a short betting window, no pause after closing, no card pacing,
    cheap password hashing."""
    values: dict[str, Any] = {"database_url": database_url, "betting_seconds": 1.0,
                              "closed_seconds": 0.0, "card_seconds": 0.0, "result_seconds": 0.05,
                              "bcrypt_rounds": 4, "operator_password": OPERATOR_PASSWORD,
                              "guard": TEST_GUARD}
    values.update(changes)
    return ServerSettings(**values)


class LiveServer:
    """The real application served by uvicorn on 127.0.0.1, in a background thread."""

    def __init__(self, settings: ServerSettings, *, clock: ManualClock | None = None) -> None:
        self.settings = settings
        #: the rounds' clock when the test moves it (``end_betting``), else the wall clock
        self.clock = clock
        self.app = create_app(settings, clock=clock)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.ws_url = f"ws://127.0.0.1:{self.port}"
        # uvicorn as ``puntobanco serve`` runs it (no compression: the table socket's frames
        # are then read the short way, api/wsread.py, as in production)
        config = uvicorn.Config(self.app, host="127.0.0.1", port=self.port, **UVICORN_OPTIONS)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.http = httpx.Client(base_url=self.url, timeout=30)

    def start(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 60
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the server did not start")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(60)
        self.http.close()

    def end_betting(self) -> None:
        """End the betting window (or the pause after a result) under way, on a server on a
        :class:`ManualClock`: the clock moves past any deadline and the round goes on."""
        assert self.clock is not None, "the server runs on the wall clock"
        self.clock.advance(3600.0)

    @property
    def casino(self) -> Casino:
        casino: Casino = self.app.state.casino
        return casino

    def operator(self) -> Player:
        answer = self.http.post("/api/login", json={"username": "operator",
                                                    "password": OPERATOR_PASSWORD})
        assert answer.status_code == 200, answer.text
        return Player.from_answer(answer.json())

    def signup(self, username: str, *, lang: str = "en") -> Player:
        answer = self.http.post("/api/signup", json={"username": username, "password": "secret1",
                                                     "lang": lang})
        assert answer.status_code == 201, answer.text
        return Player.from_answer(answer.json())

    def balance(self, player: Player) -> int:
        answer = self.http.get("/api/me", headers=player.headers)
        assert answer.status_code == 200, answer.text
        value: int = answer.json()["balance"]
        return value

    def bet(self, player: Player, table_id: int, bet: str, stake: int,
            key: str | None = None) -> httpx.Response:
        body: dict[str, Any] = {"bet": bet, "stake": stake}
        if key is not None:
            body["idempotency_key"] = key
        return self.http.post(f"/api/tables/{table_id}/bets", json=body, headers=player.headers)

    def watch(self, table_id: int, player: Player | None = None) -> Watcher:
        token = f"?token={player.token}" if player else ""
        return Watcher(f"{self.ws_url}/ws/tables/{table_id}{token}")


def clocked_settings(database_url: str, **changes: Any) -> ServerSettings:
    """:func:`fast_settings` for a server on a :class:`ManualClock`: the betting window and
    the pause after a result last until the test ends them (``LiveServer.end_betting``), so
    that a request the test sends after a round is never taken by the next one."""
    return fast_settings(database_url, **{"betting_seconds": 15.0, "result_seconds": 1.0,
                                          **changes})


@contextlib.contextmanager
def running(settings: ServerSettings, *, clock: ManualClock | None = None
            ) -> Iterator[LiveServer]:
    server = LiveServer(settings, clock=clock).start()
    try:
        yield server
    finally:
        server.stop()


@contextlib.contextmanager
def running_clocked(database_url: str, **changes: Any) -> Iterator[LiveServer]:
    """:func:`running` with :func:`clocked_settings` on a :class:`ManualClock` of its own (a
    restart is a second block on the same database, with a clock of its own)."""
    with running(clocked_settings(database_url, **changes), clock=ManualClock()) as server:
        yield server


@dataclass(frozen=True)
class Player:
    token: str
    id: int
    username: str

    @classmethod
    def from_answer(cls, data: dict[str, Any]) -> Player:
        return cls(data["token"], data["player"]["id"], data["player"]["username"])

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


@dataclass
class Watcher:
    """A WebSocket client reading a table's messages on a thread of its own."""

    url: str
    messages: queue.Queue[dict[str, Any] | None] = field(default_factory=queue.Queue)
    seen: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._stack = contextlib.ExitStack()
        self.socket: ClientConnection = self._stack.enter_context(
            connect(self.url, open_timeout=30, legacy=False))
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            for text in self.socket:
                self.messages.put(json.loads(text))
        except Exception:  # the socket closed: the reader ends
            pass
        self.messages.put(None)

    def next(self, kind: str | None = None, *, timeout: float = 30,
             where: Callable[[dict[str, Any]], bool] | None = None) -> dict[str, Any]:
        """The next message (of ``kind``, matching ``where``); earlier ones are kept in ``seen``."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no {kind} message within {timeout} s")
            try:
                message = self.messages.get(timeout=left)
            except queue.Empty:
                continue
            if message is None:
                raise ConnectionError(f"the socket closed while waiting for {kind}")
            self.seen.append(message)
            if (kind is None or message["type"] == kind) and (where is None or where(message)):
                return message

    def of_coup(self, kind: str, coup_id: int, *, timeout: float = 30) -> dict[str, Any]:
        """The next message of ``kind`` about coup ``coup_id``."""
        return self.next(kind, timeout=timeout, where=lambda m: bool(m.get("coup_id") == coup_id))

    def send(self, message: dict[str, Any]) -> None:
        self.socket.send(json.dumps(message))

    def close(self) -> None:
        self._stack.close()
        self.thread.join(10)


def run_coroutine(coroutine: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(coroutine)`` on a thread of its own: after a browser test, Playwright's
    synchronous API keeps an event loop running on this worker's main thread, where
    ``asyncio.run`` refuses to start."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result(timeout=120)


@contextlib.contextmanager
def serve_process(database_url: str, *options: str
                  ) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """``puntobanco serve`` in a process of its own (so that a test can kill it), once it
    answers; killed at the end if still running. Yields the process and its base URL."""
    port = free_port()
    env = {**os.environ, "PUNTOBANCO_OPERATOR_PASSWORD": OPERATOR_PASSWORD}
    process = subprocess.Popen(
        [sys.executable, "-c", "from puntobanco.cli import main; main()", "serve", "--port",
         str(port), "--database-url", database_url, *options],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until(lambda: answers(url) or process.poll() is not None, timeout=60)
        assert process.poll() is None, process.communicate()
        yield process, url
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate(timeout=60)


@dataclass
class ClockedProcess:
    """A server process on a hand-moved clock (``tests/server/clocked_serve.py``)."""

    process: subprocess.Popen[str]
    url: str

    def advance(self, seconds: float) -> None:
        """Move the process's clock on by ``seconds`` (the process does it as it reads)."""
        assert self.process.stdin is not None
        self.process.stdin.write(f"advance {seconds}\n")
        self.process.stdin.flush()

    def end_betting(self) -> None:
        """End the betting window (or the pause) under way, as ``LiveServer.end_betting``."""
        self.advance(3600.0)


@contextlib.contextmanager
def serve_clocked(database_url: str, **changes: Any) -> Iterator[ClockedProcess]:
    """A server in a process of its own (that a test may kill) on a hand-moved clock, with
    :func:`clocked_settings` changed by ``changes`` (JSON values), once it answers; killed at
    the end if still running."""
    port = free_port()
    script = os.path.join(os.path.dirname(__file__), "clocked_serve.py")
    process = subprocess.Popen(
        [sys.executable, script, database_url, str(port), json.dumps(changes)],
        stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until(lambda: answers(url) or process.poll() is not None, timeout=60)
        assert process.poll() is None, process.communicate()
        yield ClockedProcess(process, url)
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate(timeout=60)


def answers(url: str) -> bool:
    """The server at ``url`` answers ``GET /api/tables``."""
    try:
        return httpx.get(f"{url}/api/tables", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def wait_until(condition: Callable[[], object], *, timeout: float = 30, step: float = 0.02) -> None:
    """Poll ``condition()`` until it is true."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("the condition did not come true in time")
        time.sleep(step)


def place(session: Session, *, table_id: int, coup_id: int, player_id: int, kind: BetKind,
          stake: int, rules: RuleSet | None = None) -> dict[str, Any]:
    """One bet written as the server writes every bet: a batch of one through
    :func:`store.apply_bets` (the refusal, if any, raised)."""
    answer = store.apply_bets(session, table_id=table_id, coup_id=coup_id, round_no=0,
                              rules=rules or RuleSet(),
                              ops=[store.BetOp(player_id, kind, stake)])[0]
    if isinstance(answer, Exception):
        raise answer
    return answer


# --- the books ----------------------------------------------------------------------------


def check_books(url: str) -> dict[str, Any]:
    """Every ledger invariant, and every settled coup re-settled by the core.

    Returns figures the tests assert on: entry count, settled coup count, in-play balances.
    """
    # One snapshot for every query (a running server may commit a settlement between two of
    # them: under PostgreSQL's READ COMMITTED, or SQLite's driver-default autocommit reads, the
    # balances and the entries would disagree); the server's reader engine opens a real
    # transaction on SQLite, REPEATABLE READ does it on PostgreSQL.
    engine = (create_engine(url, isolation_level="REPEATABLE READ")
              if url.startswith("postgresql") else make_engines(url)[1])
    try:
        with Session(engine) as session:
            found = ledger.audit(session)
            assert found.ok, found
            in_play = dict(session.execute(select(Account.table_id, Account.balance)
                                           .where(Account.kind == "in-play")).all())
            # every settled coup: the stored lines are the core's settlement of the stored bets
            settled = session.scalars(select(CoupRecord).where(CoupRecord.status == "settled")).all()
            for coup in settled:
                shoe = session.get_one(ShoeRecord, coup.shoe_id)
                rules, _ = table_rules_from_json(shoe.rules)
                dealt = Coup(punto=tuple(parse_cards(coup.punto_cards or "")),
                             banco=tuple(parse_cards(coup.banco_cards or "")))
                spots: dict[int, dict[BetKind, int]] = {}
                for bet in session.scalars(select(BetRecord).where(
                        BetRecord.coup_id == coup.id, BetRecord.status == "settled")):
                    spots.setdefault(bet.player_id, {})[BetKind(bet.kind)] = bet.stake
                for player, spot in spots.items():
                    expected = [(line.bet.value, line.stake, line.outcome.value, line.net)
                                for line in settle_spot(spot, dealt, rules)]
                    stored = [(line.kind, line.stake, line.outcome, line.net)
                              for line in session.scalars(select(SettlementLineRecord).where(
                                  SettlementLineRecord.coup_id == coup.id,
                                  SettlementLineRecord.player_id == player)
                                  .order_by(SettlementLineRecord.seq))]
                    assert stored == expected, (coup.id, player, stored, expected)
            active = session.execute(select(func.count()).select_from(BetRecord).where(
                BetRecord.status == "active", BetRecord.stake > 0)).scalar_one()
            entries = session.execute(select(func.count()).select_from(LedgerEntry)).scalar_one()
            return {"entries": entries, "settled": len(settled), "in_play": in_play,
                    "active_bets": active}
    finally:
        engine.dispose()


def lines_and_refunds(session: Session, bet_id: int) -> tuple[int, int]:
    """How many settlement lines and refund transactions a bet has (a bet accepted is settled
    once or refunded once: (1, 0) or (0, 1))."""
    lines = session.execute(select(func.count()).select_from(SettlementLineRecord)
                            .where(SettlementLineRecord.bet_id == bet_id)).scalar_one()
    refunds = session.execute(select(func.count()).select_from(LedgerTransaction)
                              .where(LedgerTransaction.bet_id == bet_id,
                                     LedgerTransaction.reason == "refund")).scalar_one()
    return int(lines), int(refunds)


def wallet_entries(url: str, player_id: int) -> list[tuple[str, int]]:
    """(reason, amount) of every entry on a player's wallet, oldest first."""
    engine = create_engine(url)
    try:
        with Session(engine) as session:
            wallet = session.execute(select(Account.id).where(
                Account.code == ledger.wallet_code(player_id))).scalar_one()
            rows = session.execute(select(LedgerTransaction.reason, LedgerEntry.amount)
                                   .join(LedgerTransaction,
                                         LedgerTransaction.id == LedgerEntry.transaction_id)
                                   .where(LedgerEntry.account_id == wallet)
                                   .order_by(LedgerEntry.id)).all()
            return [(reason, amount) for reason, amount in rows]
    finally:
        engine.dispose()


def migrated_database(url: str) -> Iterator[Database]:
    """For a fixture: the database at ``url`` migrated, as one ``Database`` (one read thread)
    whose threads are stopped after the test."""
    migrate(url)
    database = Database(url, threads=1)
    try:
        yield database
    finally:
        database.close()


def first_coup(session: Session, table: store.TableSettings) -> int:
    """A shoe for ``table`` (no cards: the tests that write rows need none) and its first coup
    opened: the coup's id."""
    shoe = ShoeRecord(table_id=table.id, shoe_no=1, card_order="", salt="-", commitment="-",
                      rules=table.rules_json(), cut_index=0, burned=0)
    session.add(shoe)
    session.flush()
    return store.open_coup(session, table_id=table.id, shoe_id=shoe.id, round_no=1,
                           coup_in_shoe=1, last_coup=False)

