"""The live table at casino scale: many players on one table, bets in the last seconds.

Starts one or two ``puntobanco serve`` processes on 127.0.0.1 (a fresh SQLite file, a throw-away
PostgreSQL cluster with ``--postgres``, or ``--database-url``). The players are written into the
database **before** the clock starts (one bulk transaction, one shared bcrypt hash at 4 rounds,
a session token each), so sign-up cost is not measured. Then one client process drives them
all with asyncio: every player watches table 1 on a WebSocket of its own and, in every betting
window, places ``--bets`` bets over HTTP/1.1 keep-alive (128 shared connections, requests
written by hand: httpx cost the client more CPU than the server) at random moments of
the last ``--spread`` seconds before the deadline, each naming the coup it saw open and an
idempotency key, as the page does. With two processes, half the players use each.

Prints, per run: bets accepted per second in the spread, bet acknowledgement p50/p99/max,
refusals, "no more bets" lag (``bets-closed`` at the first socket minus the announced deadline),
deadline → the player's own ``settlement`` and ``round-settled`` at the **last** socket p50/max,
the servers' RSS (and per connected player), their CPU and the client's own CPU (who saturated).
Bounded: at most ``--seconds`` per run. ``--matrix`` runs 100/1,000/5,000 players on SQLite and
PostgreSQL with one process, and 1,000 players on PostgreSQL with two (each player's socket
and bets on one of them, alternately; the first process started deals the table).

Run: ``.venv/bin/python bench/bench_server.py [--players 100] [--rounds 3] [--postgres]
[--processes 2] [--matrix]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import random
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import httpx
from websockets.asyncio.client import ClientConnection, connect

import pg_watch

PASSWORD = "bench-operator"
KINDS = ("punto", "banco", "egalite")
#: keep-alive connections the bets share by default (player n uses connection n mod connections,
#: which is on the same server as the player, since both go round the processes in the same
#: order). A browser has a connection of its own: ``--connections 0`` gives each player one.
CONNECTIONS = 128


@dataclass
class Figures:
    latencies: list[float] = field(default_factory=list)
    refused: dict[str, int] = field(default_factory=dict)
    rates: list[float] = field(default_factory=list)
    close_lags: list[float] = field(default_factory=list)
    settled_last: list[float] = field(default_factory=list)
    accepted: int = 0
    rounds: int = 0
    examples: dict[str, str] = field(default_factory=dict)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


# --- the database and the servers ----------------------------------------------------------


def pg_binary(name: str) -> str | None:
    """A PostgreSQL program: on PATH, else Debian's newest ``/usr/lib/postgresql/*/bin``."""
    found = shutil.which(name)
    if found:
        return found
    for candidate in sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"), reverse=True):
        return str(candidate)
    return None


class Postgres:
    """A throw-away PostgreSQL cluster (initdb/pg_ctl; as ``postgres`` when run as root), with
    durable commits unless ``durable=False`` (fsync off: what is measured is then the server's
    CPU, not the disk). :attr:`missing` says why there is none (the binaries are not there).

    Its settings are PostgreSQL 15's defaults but ``max_connections = 200`` (shared_buffers 128
    MB, wal_buffers 4 MB, max_wal_size 1 GB, checkpoint_timeout 5 min, synchronous_commit and
    fsync on): the README's PostgreSQL figures are taken with them. A new cluster runs no
    checkpoint during a 5,000-player ``bench_load`` run (69 MiB of log, ~75 s), so its commits
    never meet one, as a server's sometimes do (``docs/server.md``, "Issue 21, sixth pass").
    A durable cluster starts with its files flushed (``initdb`` without ``--no-sync``, a
    ``CHECKPOINT`` after ``CREATE DATABASE``): ~25 MB of them were otherwise written back by the
    kernel about 30 s later, in the first burst of bets, on the disk the commits flush to.
    ``PB_BENCH_PG_SETTINGS="name=value ..."`` adds settings to try; ``PB_BENCH_PG_WATCH=1``
    prints what the cluster did with its log (``pg_watch.py``)."""

    missing = "needs PostgreSQL's initdb and pg_ctl (on PATH or in /usr/lib/postgresql)"

    def __init__(self, *, durable: bool = True) -> None:
        initdb, pg_ctl = pg_binary("initdb"), pg_binary("pg_ctl")
        if initdb is None or pg_ctl is None:
            raise SystemExit(f"PostgreSQL {self.missing}")
        self.pg_ctl = pg_ctl
        self.root = Path(tempfile.mkdtemp(prefix="pb-bench-pg-"))
        data = self.root / "data"
        data.mkdir()
        if os.geteuid() == 0:
            shutil.chown(self.root, "postgres")
            shutil.chown(data, "postgres")
        self.port = free_port()
        if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
            # a bench stopped by ``timeout`` or ``kill``: its ``finally`` stops the cluster
            # (the default action ended the process at once and left the cluster running,
            # busy with the query it had been sent)
            signal.signal(signal.SIGTERM, _exit_on_term)
        # durable: initdb flushes its files (~25 MB), so that the kernel does not write them
        # back ~30 s later (dirty_expire_centisecs), in the first burst of a load bench
        self._run([initdb, "-D", str(data), "-A", "trust", "-U", "bench", "-E", "UTF8",
                   *([] if durable else ["--no-sync"])])
        self.durable = durable
        # durable commits (fsync on, synchronous_commit on): the server's real cost
        sync = [] if durable else ["fsync=off", "synchronous_commit=off"]
        # PB_BENCH_PG_SETTINGS="name=value ...": settings to try (A/B), after the others
        tried = os.environ.get("PB_BENCH_PG_SETTINGS", "").split()
        options = " ".join(f"-c {setting}" for setting in [
            "listen_addresses=127.0.0.1", "max_connections=200", *sync,
            *pg_watch.settings(), *tried])
        self._run([pg_ctl, "-D", str(data), "-o", f"-p {self.port} -k {self.root} {options}",
                   "-l", str(self.root / "log"), "-w", "-t", "60", "start"])
        self.data = data
        self.count = 0
        #: PB_BENCH_PG_WATCH=1: the log's growth, checkpoints, slow commits (bench/pg_watch.py)
        self.watch = (pg_watch.Watch(self.port, self.root / "log") if pg_watch.settings()
                      else None)

    def _run(self, command: list[str]) -> None:
        if os.geteuid() == 0:
            command = ["runuser", "-u", "postgres", "--", *command]
        subprocess.run(command, check=True, capture_output=True, timeout=120)

    def new_database(self) -> str:
        import psycopg

        self.count += 1
        name = f"bench{self.count}"
        with psycopg.connect(f"host=127.0.0.1 port={self.port} user=bench dbname=postgres",
                             autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
            if self.durable:  # its pages written and flushed now, not in the bench
                connection.execute("CHECKPOINT")
        return f"postgresql+psycopg://bench@127.0.0.1:{self.port}/{name}"

    def stop(self) -> None:
        try:
            if self.watch is not None:
                self.watch.stop()
            self._run([self.pg_ctl, "-D", str(self.data), "-m", "fast", "stop"])
        finally:
            shutil.rmtree(self.root, ignore_errors=True)


def _exit_on_term(signum: int, _frame: object) -> None:
    raise SystemExit(128 + signum)


def seed_players(url: str, players: int) -> list[tuple[int, str]]:
    """Migrate, then write the players, their wallets (credited) and a session each, in one
    transaction: the documented bulk path that keeps bcrypt out of the figures."""
    from sqlalchemy import create_engine
    from sqlalchemy.orm import Session

    from puntobanco.server.db import auth
    from puntobanco.server.db.engine import migrate

    migrate(url)
    hashed = auth.hash_password("bench-secret", rounds=4)
    engine = create_engine(url)
    made: list[tuple[int, str]] = []
    try:
        with Session(engine) as session, session.begin():
            for number in range(players):
                player = auth.create_player(session, username=f"bench{number}",
                                            password_hash=hashed, lang="en",
                                            welcome=10_000_000)
                made.append((player.id, auth.open_session(session, player.id)))
    finally:
        engine.dispose()
    return made


def bench_table(session: Any, name: str = "bench") -> tuple[int, int]:
    """A table (the default rules, 15 s windows) and its first shoe's row, without cards (the
    benches that use it write bets, never a deal), in ``session``'s transaction: (table id,
    shoe id)."""
    from puntobanco.rules import RuleSet
    from puntobanco.server.db import store
    from puntobanco.server.db.models import ShoeRecord

    table = store.create_table(session, name=name, rules=RuleSet(), betting_seconds=15.0)
    shoe = ShoeRecord(table_id=table.id, shoe_no=1, card_order="", salt="-", commitment="-",
                      rules=table.rules_json(), cut_index=0, burned=0)
    session.add(shoe)
    session.flush()
    return table.id, shoe.id


def print_audit(db: Any) -> None:
    """The ledger audit of ``db`` (a ``Database``) after a bench's writes, in one line."""
    from puntobanco.server.db import ledger

    with db.read() as session:
        books = ledger.audit(session)
    print(f"  ledger audit: {'balanced' if books.ok else books}")


#: ``puntobanco serve`` with the socket caps raised: 5,000 players need more than the 2,000
#: sockets shipped, and every bench player connects from 127.0.0.1 (as through a reverse proxy);
#: the other limits (bets per player, body size, sessions) stay as shipped.
LAUNCH = """
import dataclasses
from puntobanco.server import settings
from puntobanco.cli import main
shipped = settings.ServerSettings
def raised(**options):
    guard = dataclasses.replace(settings.GuardSettings(), sockets_total=50_000,
                                sockets_per_address=50_000)
    return shipped(**options, guard=guard)
settings.ServerSettings = raised
main()
"""


def start_server(database: str, port: int, betting_seconds: float,
                 log: IO[str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", LAUNCH, "serve", "--port",
         str(port), "--database-url", database, "--betting-seconds", str(betting_seconds),
         "--card-seconds", "0", "--closed-seconds", "0", "--result-seconds", "1"],
        env={**os.environ, "PUNTOBANCO_OPERATOR_PASSWORD": PASSWORD},
        stdout=subprocess.DEVNULL, stderr=log, text=True)


def wait_ready(url: str, server: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 90
    while True:
        try:
            if httpx.get(f"{url}/api/tables", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if server.poll() is not None or time.monotonic() > deadline:
            raise SystemExit("the server did not start (its log is kept)")
        time.sleep(0.1)


def process_figures(pid: int) -> tuple[float, float]:
    """(RSS in MiB, CPU seconds) of a process."""
    rss = 0.0
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            rss = int(line.split()[1]) / 1024
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return rss, cpu


def system_seconds(pid: int) -> float:
    """The CPU seconds a process spent in the kernel (sockets, threads' wake-ups, fsync)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[12]) / os.sysconf("SC_CLK_TCK")


# --- the client ----------------------------------------------------------------------------


class Round:
    """What the sockets saw of one coup."""

    def __init__(self, coup_id: int, deadline: float) -> None:
        self.coup_id = coup_id
        self.deadline = deadline  # epoch seconds
        self.closed_at: float | None = None
        self.settled = 0  # sockets that got round-settled
        self.last = 0.0  # epoch seconds: the last settlement or round-settled to arrive


class Player:
    def __init__(self, player_id: int, token: str, base: str, line: int) -> None:
        self.id = player_id
        self.token = token
        self.base = base
        self.line = line  # the connection its bets go on


async def watch(player: Player, ws: ClientConnection, rounds: dict[int, Round],
                opened: asyncio.Queue[Round]) -> None:
    """Read a socket; only the messages the figures need are decoded."""
    import json

    async for text in ws:
        assert isinstance(text, str)
        head = text[:40]
        if '"round-opened"' in head:
            message = json.loads(text)
            coup = message["coup_id"]
            if coup not in rounds:
                rounds[coup] = Round(coup, message["deadline"] / 1000)
                opened.put_nowait(rounds[coup])
        elif '"bets-closed"' in head:
            coup = json.loads(text)["coup_id"]
            if coup in rounds and rounds[coup].closed_at is None:
                rounds[coup].closed_at = time.time()
        elif '"settlement"' in head or '"round-settled"' in head:
            coup = json.loads(text)["coup_id"]
            if coup in rounds:
                this = rounds[coup]
                this.last = time.time()
                if '"round-settled"' in head:
                    this.settled += 1


class Line:
    """One keep-alive HTTP/1.1 connection written by hand: httpx costs the client more CPU per
    request than the server spends on it, and the client must not be what saturates."""

    def __init__(self, base: str) -> None:
        host, port = base.removeprefix("http://").split(":")
        self.host, self.port = host, int(port)
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.lock = asyncio.Lock()

    async def post(self, path: str, token: str, body: bytes) -> tuple[int, bytes]:
        async with self.lock:
            for attempt in range(3):
                try:
                    if self.writer is None:
                        self.reader, self.writer = await asyncio.open_connection(self.host,
                                                                                 self.port)
                    assert self.reader is not None
                    self.writer.write(
                        f"POST {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
                        f"Authorization: Bearer {token}\r\nContent-Type: application/json\r\n"
                        f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
                    head = await self.reader.readuntil(b"\r\n\r\n")
                    status = int(head[9:12])
                    length = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
                    return status, await self.reader.readexactly(length)
                except (OSError, asyncio.IncompleteReadError, IndexError):
                    # the server closed an idle connection: again, with the same key (safe)
                    self.writer = None
                    if attempt == 2:
                        raise
            raise AssertionError("unreachable")


async def bet(lines: list[Line], player: Player, coup: int, kind: str,
              figures: Figures) -> None:
    import json

    body = json.dumps({"bet": kind, "stake": 1000, "coup_id": coup,
                       "idempotency_key": uuid.uuid4().hex}).encode()
    line = lines[player.line]
    began = time.perf_counter()
    try:
        status, text = await line.post("/api/tables/1/bets", player.token, body)
    except (OSError, asyncio.IncompleteReadError, IndexError):
        figures.refused["connection"] = figures.refused.get("connection", 0) + 1
        return
    elapsed = time.perf_counter() - began
    if status == 200:
        figures.latencies.append(elapsed)
        figures.accepted += 1
    else:
        error = json.loads(text)["error"]
        code = error["code"]
        if code not in figures.refused:
            figures.examples[code] = f"{error['message']} (after {elapsed:.3f} s)"
        figures.refused[code] = figures.refused.get(code, 0) + 1


async def bet_later(delay: float, *args: object) -> None:
    await asyncio.sleep(delay)
    await bet(*args)  # type: ignore[arg-type]


async def drive(players: list[Player], rounds_wanted: int, bets: int, spread: float,
                margin: float, seconds: float) -> Figures:
    figures = Figures()
    rounds: dict[int, Round] = {}
    opened: asyncio.Queue[Round] = asyncio.Queue()
    lines = [Line(players[n % len(players)].base)
             for n in range(max(p.line for p in players) + 1)]
    sockets: list[ClientConnection] = []
    for index in range(0, len(players), 200):  # connect in waves
        sockets += await asyncio.gather(*(
            connect(f"{p.base.replace('http', 'ws')}/ws/tables/1?token={p.token}",
                    open_timeout=60, max_queue=None) for p in players[index:index + 200]))
    print(f"  ({len(sockets)} sockets connected)", flush=True)
    readers = [asyncio.create_task(watch(p, ws, rounds, opened))
               for p, ws in zip(players, sockets, strict=True)]
    try:
        await asyncio.wait_for(_rounds(lines, players, rounds, opened, rounds_wanted, bets,
                                       spread, margin, figures), seconds)
    except TimeoutError:
        print(f"  (stopped after {seconds:.0f} s)")
    finally:
        closed = [ws.close_code for ws in sockets if ws.close_code is not None]
        if closed:  # a cap (4429) or a client too slow (1013): the figures would lie
            print(f"  ({len(closed)} sockets closed by the server, codes {sorted(set(closed))})")
        for task in readers:
            task.cancel()
        for ws in sockets:  # no closing handshakes: the servers are stopped next
            ws.transport.abort()
    return figures


async def _rounds(lines: list[Line], players: list[Player], rounds: dict[int, Round],
                  opened: asyncio.Queue[Round], wanted: int, bets: int, spread: float,
                  margin: float, figures: Figures) -> None:
    first = True
    while figures.rounds < wanted:
        this = await opened.get()
        start = this.deadline - margin - spread - time.time()
        if start < 0:
            if first:  # joined in the middle of a window: wait for the next one
                first = False
                continue
            start = 0
        first = False
        accepted_before = figures.accepted
        tasks = [asyncio.create_task(bet_later(start + random.random() * spread, lines, player,
                                               this.coup_id, KINDS[n % 3], figures))
                 for player in players for n in range(bets)]
        await asyncio.gather(*tasks)
        figures.rates.append((figures.accepted - accepted_before) / spread)
        while this.settled < len(players):
            await asyncio.sleep(0.05)
            if time.time() > this.deadline + 30:
                break
        if this.closed_at is not None:
            figures.close_lags.append(this.closed_at - this.deadline)
        if this.settled == len(players):
            figures.settled_last.append(this.last - this.deadline)
        figures.rounds += 1
        print(f"  (round {figures.rounds}: coup {this.coup_id}, {figures.accepted} accepted)",
              flush=True)


def run_one(*, players: int, processes: int, database: str, rounds: int, bets: int,
            betting_seconds: float, spread: float, seconds: float, label: str,
            connections: int = CONNECTIONS) -> None:
    began = time.monotonic()
    made = seed_players(database, players)
    print(f"  ({players} players written in {time.monotonic() - began:.1f} s)", flush=True)
    ports = [free_port() for _ in range(processes)]
    servers = []
    try:
        for port in ports:
            log = open(Path(tempfile.gettempdir()) / f"pb-bench-server-{port}.log", "w")  # noqa: SIM115
            print(f"  (server log: {log.name})", flush=True)
            servers.append(start_server(database, port, betting_seconds, log))
            wait_ready(f"http://127.0.0.1:{port}", servers[-1])
        everyone = [Player(pid, token, f"http://127.0.0.1:{ports[n % processes]}",
                           n % connections)
                    for n, (pid, token) in enumerate(made)]
        before = [process_figures(s.pid)[1] for s in servers]
        kernel_before = sum(system_seconds(s.pid) for s in servers)
        usage = resource.getrusage(resource.RUSAGE_SELF)
        began = time.monotonic()
        figures = asyncio.run(drive(everyone, rounds, bets, spread, 0.3, seconds))
        wall = time.monotonic() - began
        after = resource.getrusage(resource.RUSAGE_SELF)
        server_figures = [process_figures(s.pid) for s in servers]
        kernel = sum(system_seconds(s.pid) for s in servers) - kernel_before
    finally:
        for server in servers:
            server.terminate()
        for server in servers:
            server.wait(60)
    client_cpu = (after.ru_utime - usage.ru_utime + after.ru_stime - usage.ru_stime) / wall
    server_cpu = sum(cpu - b for (_, cpu), b in zip(server_figures, before, strict=True)) / wall
    rss = sum(r for r, _ in server_figures)
    lat = [1000 * v for v in figures.latencies]
    print(f"{label}: {players} players, {processes} process(es), {figures.rounds} rounds, "
          f"{bets} bets each in the last {spread:g} s of a {betting_seconds:g} s window")
    print(f"  accepted {figures.accepted}, refused {figures.refused or 'none'}; "
          f"accepted/s in the spread: median {statistics.median(figures.rates or [0]):.0f}")
    for code, example in figures.examples.items():
        print(f"  first {code}: {example}")
    print(f"  bet ack p50 {percentile(lat, 0.5):.0f} ms, p99 {percentile(lat, 0.99):.0f} ms, "
          f"max {max(lat or [0]):.0f} ms")
    lags = [1000 * v for v in figures.close_lags]
    done = [1000 * v for v in figures.settled_last]
    print(f"  bets-closed after the deadline: max {max(lags or [float('nan')]):.0f} ms; "
          f"deadline -> settlement + round-settled at the last socket: p50 "
          f"{percentile(done, 0.5):.0f} ms, max {max(done or [float('nan')]):.0f} ms")
    sent = figures.accepted + sum(figures.refused.values())
    print(f"  server RSS {rss:.0f} MiB ({1024 * rss / players:.0f} KiB per player); CPU: "
          f"servers {100 * server_cpu:.0f} % ({100 * kernel / wall:.0f} % in the kernel), "
          f"client {100 * client_cpu:.0f} % of one core; server CPU per bet sent (all its "
          f"work / bets) {1000 * server_cpu * wall / max(1, sent):.2f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--players", type=int, default=100)
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--bets", type=int, default=2, help="bets per player per round")
    parser.add_argument("--betting-seconds", type=float, default=6.0)
    parser.add_argument("--spread", type=float, default=2.0,
                        help="the bets fall in the last SPREAD seconds before the deadline")
    parser.add_argument("--seconds", type=float, default=120, help="bound on each run")
    parser.add_argument("--connections", type=int, default=CONNECTIONS,
                        help="keep-alive HTTP connections the bets share (0: one per player, "
                             "as browsers)")
    parser.add_argument("--postgres", action="store_true", help="a throw-away PostgreSQL")
    parser.add_argument("--database-url", default=None)
    parser.add_argument("--matrix", action="store_true",
                        help="100/1,000/5,000 players; SQLite and PostgreSQL")
    args = parser.parse_args()
    if args.processes != 1 and not (args.postgres or (args.database_url or "").startswith(
            "postgres")):  # several processes share a PostgreSQL database only
        raise SystemExit("--processes 2 needs PostgreSQL (--postgres or a postgresql "
                         "--database-url): one process serves an SQLite file.")
    resource.setrlimit(resource.RLIMIT_NOFILE, (65536, 65536)) if resource.getrlimit(
        resource.RLIMIT_NOFILE)[1] >= 65536 else None
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores; Python "
          f"{platform.python_version()}; load average {os.getloadavg()[0]:.1f} at the start")
    cluster = Postgres() if args.postgres or args.matrix else None
    workdir = Path(tempfile.mkdtemp(prefix="pb-bench-"))
    runs: list[tuple[int, str, int]]
    if args.matrix:
        runs = [(n, db, 1) for db in ("sqlite", "postgresql") for n in (100, 1000, 5000)]
        runs.append((1000, "postgresql", 2))
    else:
        db = "postgresql" if args.postgres or (args.database_url or "").startswith("postgres") \
            else "sqlite"
        runs = [(args.players, db, args.processes)]
    try:
        for number, (players, db, processes) in enumerate(runs):
            if args.database_url and not args.matrix:
                url = args.database_url
            elif db == "postgresql":
                assert cluster is not None
                url = cluster.new_database()
            else:
                url = f"sqlite:///{workdir / f'bench{number}.sqlite3'}"
            run_one(players=players, processes=processes, database=url, rounds=args.rounds,
                    bets=args.bets, betting_seconds=args.betting_seconds, spread=args.spread,
                    seconds=args.seconds, label=db,
                    connections=args.connections or players)
    finally:
        if cluster is not None:
            cluster.stop()
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
