"""The load client of issue 21: what one bet costs the server, everything included.

One asyncio process drives N players against ``puntobanco serve`` on 127.0.0.1 (a fresh SQLite
file, or a database of a throw-away PostgreSQL cluster, ``bench_server.Postgres``):

* the players are made by ``puntobanco players create --sessions-file`` (one bcrypt hash for
  all, a session each: no sign-up nor log-in is measured);
* each player holds one WebSocket (and, with ``--mode http``, one keep-alive HTTP/1.1
  connection), from one of ``--addresses`` loopback addresses; both are written by hand over
  asyncio protocols (a WebSocket frame parsed in a few lines, a message's type read from its
  first bytes, JSON decoded only when a figure needs it), so the client spends little CPU;
* in each of ``--rounds`` betting windows every player places ``--bets`` bets at random
  moments of the last ``--spread`` seconds before the deadline (the last at 50 ms before it),
  each naming the coup it saw open, with an idempotency key: on the socket
  (``{"type": "bet", ...}``, ``--mode socket``) or ``POST /api/tables/1/bets``
  (``--mode http``).

It prints, per run: bets sent, accepted, refused (by code), unanswered; the acknowledgement
p50/p99/max; ``bets-closed`` after the announced deadline at the first and at the last socket;
deadline → the last socket's ``round-settled`` (and its player's ``settlement``); the server's
RSS per player; and **CPU per accepted bet** read from ``/proc/<pid>/stat`` (utime + stime of
every server process, threads included) over the betting window (round-opened → bets-closed)
and over the whole round (round-opened → the next round-opened: dealing, settlement, every
message), beside PostgreSQL's processes and the client's own CPU per bet. With ``--profile``,
the server runs ``bench/profiler.py`` and the summary says which component its CPU went to
(one process only).

``--time-writes`` (one process) adds each kind of write transaction's CPU on its thread (the
desk's batches, the closes, the settlements: ``Database._write_call`` and ``_write_core_call``
timed with ``time.thread_time``).

Run: ``.venv/bin/python bench/bench_load.py --players 1000 [--postgres] [--workers 2]
[--mode http] [--profile] [--time-writes]``; ``--matrix`` runs the issue's targets.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import gc
import json
import os
import platform
import random
import re
import resource
import signal
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_server import Postgres, free_port, percentile, wait_ready

PASSWORD = "bench-operator"
KINDS = ("banco", "punto")
TICK = os.sysconf("SC_CLK_TCK")

#: ``puntobanco serve`` with the socket caps raised (every bench player connects from a few
#: loopback addresses, and 5,000 need more than the 2,000 sockets shipped), and, with
#: ``PB_BENCH_PROFILE``, the bench's sampling profiler; ``PB_BENCH_UVICORN`` (JSON) overrides
#: uvicorn options (``{"loop": "asyncio"}`` measures without uvloop); with
#: ``PB_BENCH_TIME_WRITES`` (a file), each write transaction's CPU on its thread, by its work.
LAUNCH = """
import dataclasses, json, os, sys
sys.path.insert(0, os.environ["PB_BENCH_DIR"])
import profiler
profiler.start()
import logging
logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s %(message)s")
logging.getLogger("puntobanco.server.live.desk").setLevel(logging.INFO)
from puntobanco.server import app, settings
from puntobanco.cli import main, serve
if os.environ.get("PB_BENCH_SWITCH_MS"):  # measure another GIL switch interval
    app.SWITCH_INTERVAL = float(os.environ["PB_BENCH_SWITCH_MS"]) / 1000
serve.UVICORN_OPTIONS.update(json.loads(os.environ.get("PB_BENCH_UVICORN") or "{}"))
if os.environ.get("PB_BENCH_TIME_WRITES"):  # the write thread's CPU per transaction
    import atexit, collections, threading, time
    from puntobanco.server.db import engine as db_engine
    spent = collections.defaultdict(lambda: [0, 0.0])
    def timed(call):
        def wrapper(self, work):
            began = time.thread_time()
            try:
                return call(self, work)
            finally:
                name = getattr(work, "__qualname__", None) or getattr(
                    getattr(work, "func", None), "__qualname__", "?")
                spent[name][0] += 1
                spent[name][1] += time.thread_time() - began
        return wrapper
    for name in ("_write_call", "_write_core_call"):
        if hasattr(db_engine.Database, name):
            setattr(db_engine.Database, name, timed(getattr(db_engine.Database, name)))
    def dump():
        with open(os.environ["PB_BENCH_TIME_WRITES"], "w") as out:
            json.dump({name: list(value) for name, value in spent.items()}, out)
    def dumping():
        while True:
            time.sleep(1.0)
            dump()
    threading.Thread(target=dumping, daemon=True).start()
    atexit.register(dump)
if os.environ.get("PB_BENCH_PHASES"):  # the loop thread's CPU by phase of a round
    import round_phases
    round_phases.install()
if os.environ.get("PB_BENCH_PLAIN_FRAMES"):  # measure without api/frames.py
    from puntobanco.server.api import frames
    frames.writer = lambda websocket, send: websocket.send_text
shipped = settings.ServerSettings
def raised(**options):
    guard = dataclasses.replace(settings.GuardSettings(), sockets_total=50_000,
                                sockets_per_address=50_000)
    return shipped(**{"guard": guard, **options})
settings.ServerSettings = raised
main()
"""


# --- processes and their CPU ---------------------------------------------------------------


def descendants(root: int) -> list[int]:
    """``root`` and every process below it."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo += children.get(pid, [])
    return found


def cpu_seconds(pids: list[int], *, loop_only: bool = False) -> float:
    """CPU seconds (user + system) of the processes ``pids``, every thread; with
    ``loop_only``, of their main threads only (a server's event loop runs there; the database
    calls run on other threads)."""
    total = 0
    for pid in pids:
        path = f"/proc/{pid}/task/{pid}/stat" if loop_only else f"/proc/{pid}/stat"
        try:
            fields = Path(path).read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / TICK


def tree_cpu(root: int) -> float:
    """CPU seconds of a process and everything below it, those that ended too: its own, its
    waited-for children's (``cutime``, ``cstime``: PostgreSQL's postmaster reaps every backend
    that ended) and its live descendants' — a list of processes taken at the start missed the
    backends PostgreSQL started later (a pool's new connections), so PostgreSQL's CPU looked
    like 5-12 µs a bet."""
    try:
        fields = Path(f"/proc/{root}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    own = sum(int(value) for value in fields[11:15]) / TICK
    return own + cpu_seconds([pid for pid in descendants(root) if pid != root])


def rss_mib(pids: list[int]) -> float:
    total = 0.0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) / 1024
        except OSError:
            continue
    return total


def own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


@dataclass
class Meters:
    """CPU seconds of the servers, PostgreSQL and this client at one moment."""

    server: float
    database: float
    client: float
    #: the servers' event loop threads (the rest of ``server`` is their database threads)
    loop: float = 0.0

    @classmethod
    def read(cls, servers: list[int], database: list[int]) -> Meters:
        """``database``: PostgreSQL's postmaster (its whole tree is counted), or nothing."""
        return cls(cpu_seconds(servers), sum(tree_cpu(root) for root in database), own_cpu(),
                   cpu_seconds(servers, loop_only=True))

    def __sub__(self, other: Meters) -> Meters:
        return Meters(self.server - other.server, self.database - other.database,
                      self.client - other.client, self.loop - other.loop)


# --- the client's connections --------------------------------------------------------------


class Socket(asyncio.Protocol):
    """One player's WebSocket: the handshake and the frames, by hand."""

    def __init__(self, run: Run, player: int, path: str, host: str) -> None:
        self.run, self.player, self.path, self.host = run, player, path, host
        self.buffer = b""
        self.open = False
        self.ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.transport: asyncio.Transport | None = None
        self.closed_code: int | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # uvloop's is not a subclass
        key = base64.b64encode(os.urandom(16)).decode()
        transport.write(f"GET {self.path} HTTP/1.1\r\nHost: {self.host}\r\nUpgrade: websocket\r\n"
                        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                        "Sec-WebSocket-Version: 13\r\n\r\n".encode())

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        if not self.open:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            if not self.buffer.startswith(b"HTTP/1.1 101"):
                self.ready.set_exception(ConnectionError(self.buffer[:200].decode("latin-1")))
                return
            self.open = True
            self.buffer = self.buffer[end + 4:]
            self.ready.set_result(None)
        buffer, at, size = self.buffer, 0, len(self.buffer)
        while size - at >= 2:
            opcode, length = buffer[at] & 0x0F, buffer[at + 1] & 0x7F
            start = at + 2
            if length == 126:
                if size - at < 4:
                    break
                length, start = struct.unpack_from("!H", buffer, at + 2)[0], at + 4
            elif length == 127:
                if size - at < 10:
                    break
                length, start = struct.unpack_from("!Q", buffer, at + 2)[0], at + 10
            if size - start < length:
                break
            payload = buffer[start:start + length]
            at = start + length
            if opcode == 1:
                self.run.message(self, payload)
            elif opcode == 8:
                self.closed_code = struct.unpack("!H", payload[:2])[0] if length >= 2 else 1005
            elif opcode == 9:
                self.send(payload, opcode=10)
        self.buffer = buffer[at:]

    def send(self, payload: bytes, *, opcode: int = 1) -> None:
        """A client frame: masked, with the all-zero mask (the payload is then unchanged)."""
        assert self.transport is not None
        size = len(payload)
        if size < 126:
            head = bytes((0x80 | opcode, 0x80 | size))
        else:
            head = bytes((0x80 | opcode, 0x80 | 126)) + struct.pack("!H", size)
        self.transport.write(head + b"\0\0\0\0" + payload)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.ready.done():
            self.ready.set_exception(exc or ConnectionError("closed"))
        if self.closed_code is None:
            self.closed_code = 1006


class Http(asyncio.Protocol):
    """One player's keep-alive HTTP/1.1 connection; its requests go one after the other."""

    def __init__(self) -> None:
        self.buffer = b""
        self.waiting: asyncio.Future[tuple[int, bytes]] | None = None
        self.transport: asyncio.Transport | None = None
        self.lock = asyncio.Lock()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # uvloop's is not a subclass

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        end = self.buffer.find(b"\r\n\r\n")
        if end < 0 or self.waiting is None:
            return
        head = self.buffer[:end].lower()
        length = int(head.split(b"content-length:")[1].split(b"\r\n")[0])
        if len(self.buffer) < end + 4 + length:
            return
        body = self.buffer[end + 4:end + 4 + length]
        self.buffer = self.buffer[end + 4 + length:]
        waiting, self.waiting = self.waiting, None
        waiting.set_result((int(head[9:12]), body))

    def connection_lost(self, exc: Exception | None) -> None:
        if self.waiting is not None and not self.waiting.done():
            self.waiting.set_exception(exc or ConnectionError("closed"))
        self.transport = None

    async def post(self, request: bytes) -> tuple[int, bytes]:
        async with self.lock:
            assert self.transport is not None
            self.waiting = asyncio.get_running_loop().create_future()
            self.transport.write(request)
            return await self.waiting


# --- one run -------------------------------------------------------------------------------


@dataclass
class Round:
    coup_id: int
    deadline: float  # epoch seconds
    opened_at: float
    meters_open: Meters
    meters_closed: Meters | None = None
    meters_next: Meters | None = None
    closed_first: float | None = None
    closed_last: float | None = None
    closed_seen: int = 0
    settled: int = 0
    last_settled: float = 0.0
    sent: int = 0
    accepted: int = 0
    measured: bool = False
    #: it opened once every socket was connected: its CPU is the round's alone (a round that
    #: opened while sockets still connected counted their connections too, up to 1 s of CPU)
    clean: bool = False


@dataclass
class Run:
    players: int
    mode: str
    servers: list[int]
    database: list[int]
    rounds: dict[int, Round] = field(default_factory=dict)
    order: list[int] = field(default_factory=list)
    sent_at: dict[str, float] = field(default_factory=dict)
    #: when each bet left this client (epoch seconds), and each refused bet's lead: how long
    #: before the announced deadline it was sent (negative: after it), by refusal code
    sent_wall: dict[str, float] = field(default_factory=dict)
    refused_lead: dict[str, list[float]] = field(default_factory=dict)
    acks: list[float] = field(default_factory=list)
    refused: dict[str, int] = field(default_factory=dict)
    examples: dict[str, str] = field(default_factory=dict)
    opened: asyncio.Queue[Round] = field(default_factory=asyncio.Queue)
    #: called once every socket is connected (the profile counts from there)
    on_connected: Callable[[], None] | None = None
    connected: bool = False
    #: the longest this client's own event loop was late to a 5 ms tick during the rounds:
    #: an acknowledgement read that late was late here, not at the server
    lag: float = 0.0
    #: ``bet-totals`` messages read, at every socket together (one socket write each)
    totals: int = 0

    def message(self, socket: Socket, payload: bytes) -> None:
        head = payload[:24]
        if head.startswith(b'{"type":"bet-totals"'):
            self.totals += 1
        elif head.startswith(b'{"type":"bet-accepted"'):
            at = payload.find(b'"key":"', 22) + 7
            key = payload[at:at + 32].decode()
            began = self.sent_at.pop(key, None)
            self.sent_wall.pop(key, None)
            if began is not None:
                self.acks.append(time.perf_counter() - began)
                coup = int(key[:8], 16)
                if coup in self.rounds:
                    self.rounds[coup].accepted += 1
        elif head.startswith(b'{"type":"bet-refused"'):
            answer = json.loads(payload)
            self.sent_at.pop(answer["key"], None)
            self.refuse(answer["error"], answer["key"])
        elif head.startswith(b'{"type":"round-opened"'):
            answer = json.loads(payload)
            coup = answer["coup_id"]
            if coup not in self.rounds:
                now = time.time()
                meters = Meters.read(self.servers, self.database)
                if self.order:
                    self.rounds[self.order[-1]].meters_next = meters
                self.rounds[coup] = Round(coup, answer["deadline"] / 1000, now, meters,
                                          clean=self.connected)
                self.order.append(coup)
                self.opened.put_nowait(self.rounds[coup])
        elif head.startswith(b'{"type":"bets-closed"'):
            coup = json.loads(payload)["coup_id"]
            found = self.rounds.get(coup)
            if found is not None:
                now = time.time()
                if found.closed_first is None:
                    found.closed_first = now
                    found.meters_closed = Meters.read(self.servers, self.database)
                found.closed_last = now
                found.closed_seen += 1
        elif head.startswith(b'{"type":"round-settled"') or head.startswith(
                b'{"type":"settlement"'):
            coup = json.loads(payload)["coup_id"]
            found = self.rounds.get(coup)
            if found is not None:
                found.last_settled = time.time()
                if head.startswith(b'{"type":"round-settled"'):
                    found.settled += 1

    def refuse(self, error: dict[str, str], key: str | None = None) -> None:
        code = error["code"]
        if code not in self.refused:
            self.examples[code] = error["message"]
        self.refused[code] = self.refused.get(code, 0) + 1
        sent = None if key is None else self.sent_wall.pop(key, None)
        found = None if key is None else self.rounds.get(int(key[:8], 16))
        if sent is not None and found is not None:
            self.refused_lead.setdefault(code, []).append(found.deadline - sent)


def bet_key(coup: int) -> str:
    """32 hex digits, the coup's id first (the answer names its round without JSON)."""
    return f"{coup:08x}{os.urandom(12).hex()}"


async def place(run: Run, socket: Socket, http: Http | None, token: str, coup: Round,
                kind: str) -> None:
    key = bet_key(coup.coup_id)
    coup.sent += 1
    if http is None:
        run.sent_at[key] = time.perf_counter()
        run.sent_wall[key] = time.time()
        socket.send(b'{"type":"bet","key":"' + key.encode() + b'","coup_id":'
                    + str(coup.coup_id).encode() + b',"bet":"' + kind.encode()
                    + b'","stake":1000}')
        return
    body = (b'{"bet":"' + kind.encode() + b'","stake":1000,"coup_id":'
            + str(coup.coup_id).encode() + b',"idempotency_key":"' + key.encode() + b'"}')
    request = (b"POST /api/tables/1/bets HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
               + token.encode() + b"\r\nContent-Type: application/json\r\nContent-Length: "
               + str(len(body)).encode() + b"\r\n\r\n" + body)
    began = time.perf_counter()
    sent = time.time()
    try:
        status, answer = await http.post(request)
    except (OSError, ConnectionError):
        run.refused["connection"] = run.refused.get("connection", 0) + 1
        return
    if status == 200:
        run.acks.append(time.perf_counter() - began)
        coup.accepted += 1
    else:
        run.sent_wall[key] = sent
        run.refuse(json.loads(answer)["error"], key)


async def drive(run: Run, port: int, sessions: list[tuple[int, str]], *, rounds: int,
                bets: int, spread: float, addresses: int, seconds: float) -> list[Socket]:
    loop = asyncio.get_running_loop()
    sockets: list[Socket] = []
    lines: list[Http | None] = []
    for first in range(0, len(sessions), 250):  # connect in waves
        wave = sessions[first:first + 250]
        made = await asyncio.gather(*(loop.create_connection(
            lambda token=token, n=n: Socket(run, n, f"/ws/tables/1?token={token}",
                                            f"127.0.0.1:{port}"),
            "127.0.0.1", port, local_addr=(f"127.0.{1 + n % addresses // 250}."
                                           f"{2 + n % addresses % 250}", 0))
            for n, (_, token) in enumerate(wave, start=first)))
        for _, protocol in made:
            await protocol.ready
            sockets.append(protocol)
        if run.mode == "http":
            lines += [protocol for _, protocol in await asyncio.gather(*(loop.create_connection(
                Http, "127.0.0.1", port, local_addr=(f"127.0.{1 + n % addresses // 250}."
                                                     f"{2 + n % addresses % 250}", 0))
                for n in range(first, first + len(wave))))]
    if run.mode != "http":
        lines = [None] * len(sockets)
    print(f"  ({len(sockets)} sockets connected)", flush=True)
    run.connected = True
    if run.on_connected is not None:
        run.on_connected()
    # the client stands for a thousand separate programs: one process's cyclic collector
    # pausing every socket at once would be a lag no real player has (its pauses were tens of
    # milliseconds with every socket's objects tracked), so its objects are frozen out of it
    gc.collect()
    gc.freeze()
    ticking = asyncio.ensure_future(_tick(run))
    ended = loop.time() + seconds
    done = 0
    skip_first = True
    while done < rounds and loop.time() < ended:
        try:
            this = await asyncio.wait_for(run.opened.get(), ended - loop.time())
        except TimeoutError:
            break
        start = this.deadline - spread - time.time()
        if (start < 0.2 or not this.clean) and skip_first:  # joined in the middle of a window,
            continue  # or it opened while sockets still connected
        skip_first = False
        this.measured = True
        for n, (socket, line) in enumerate(zip(sockets, lines, strict=True)):
            for b in range(bets):
                at = start + random.random() * (spread - 0.05)
                loop.call_later(max(0.0, at), lambda s=socket, h=line, t=sessions[n][1],
                                r=this, kind=KINDS[(n + b) % 2]: asyncio.ensure_future(
                                    place(run, s, h, t, r, kind)))
        while (this.settled < len(sockets) and time.time() < this.deadline + 30
               and loop.time() < ended):
            await asyncio.sleep(0.05)
        done += 1
        print(f"  (round {done}: coup {this.coup_id}, {this.accepted} of {this.sent} "
              f"accepted)", flush=True)
    # the next window opens: the last round's CPU is measured up to it
    deadline = loop.time() + 15
    while run.rounds[run.order[-1]].meters_next is None and loop.time() < deadline:
        await asyncio.sleep(0.05)
    ticking.cancel()
    return sockets


async def _tick(run: Run) -> None:
    """Measure how late this process's loop wakes up for a 5 ms sleep (``Run.lag``)."""
    loop = asyncio.get_running_loop()
    while True:
        began = loop.time()
        await asyncio.sleep(0.005)
        run.lag = max(run.lag, loop.time() - began - 0.005)


def read_sessions(path: Path) -> list[tuple[int, str]]:
    rows = [line.split() for line in path.read_text().splitlines()]
    return [(int(row[0]), row[2]) for row in rows]


def make_players(url: str, players: int, folder: Path) -> tuple[list[tuple[int, str]], float]:
    password, sessions = folder / "password", folder / "sessions"
    password.write_text("bench-players-1\n")
    began = time.monotonic()
    subprocess.run([sys.executable, "-c", "from puntobanco.cli import main; main()", "players",
                    "create", "--count", str(players), "--prefix", "load", "--lang", "en",
                    "--database-url", url, "--password-file", str(password),
                    "--sessions-file", str(sessions)], check=True, capture_output=True,
                   timeout=600)
    return read_sessions(sessions), time.monotonic() - began


def desk_batches(log: str) -> list[tuple[int, int, int]]:
    """(bets, batches, largest batch) of every coup a table's desk logged (``BetDesk.open``).

    >>> desk_batches("x desk table 1, coup 2: 2000 operations in 35 batches (largest 88)\\n")
    [(2000, 35, 88)]
    """
    return [(int(done), int(count), int(largest)) for done, count, largest in re.findall(
        r"coup \d+: (\d+) operations in (\d+) batches \(largest (\d+)\)", log)]


def run_one(*, url: str, label: str, players: int, workers: int, mode: str, rounds: int,
            bets: int, spread: float, betting_seconds: float, addresses: int, profile: bool,
            cluster: Postgres | None, uvicorn: str, folder: Path,
            plain_frames: bool = False, linger_ms: float | None = None,
            switch_ms: float | None = None, time_writes: bool = False,
            phases: bool = False) -> dict[str, float]:
    sessions, made_in = make_players(url, players, folder)
    print(f"  ({players} players made by `puntobanco players create` in {made_in:.1f} s)",
          flush=True)
    port = free_port()
    log = open(folder / f"server-{port}.log", "w")  # noqa: SIM115
    profile_path = folder / f"profile-{port}.json"
    writes_path = folder / f"writes-{port}.json"
    phases_path = folder / f"phases-{port}.json"
    env = {**os.environ, "PUNTOBANCO_OPERATOR_PASSWORD": PASSWORD,
           "PB_BENCH_DIR": str(Path(__file__).parent), "PB_BENCH_UVICORN": uvicorn,
           "PB_BENCH_PROFILE": str(profile_path) if profile else "",
           "PB_BENCH_PLAIN_FRAMES": "1" if plain_frames else "",
           "PB_BENCH_SWITCH_MS": "" if switch_ms is None else str(switch_ms),
           "PB_BENCH_TIME_WRITES": str(writes_path) if time_writes else "",
           "PB_BENCH_PHASES": str(phases_path) if phases else ""}
    command = [sys.executable, "-c", LAUNCH, "serve", "--port", str(port), "--database-url", url,
               "--betting-seconds", str(betting_seconds), "--closed-seconds", "0",
               "--card-seconds", "0.05", "--result-seconds", "1"]
    if workers > 1:
        command += ["--workers", str(workers)]
    if linger_ms is not None:
        command += ["--bet-linger-ms", str(linger_ms)]
    server = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=log)
    try:
        wait_ready(f"http://127.0.0.1:{port}", server)  # type: ignore[arg-type]
        time.sleep(1.0)  # the workers, if any, are up
        servers = descendants(server.pid)
        database = ([int((cluster.data / "postmaster.pid").read_text().split()[0])]
                    if cluster is not None and url.startswith("postgresql") else [])
        run = Run(players, mode, servers, database)
        if profile:  # counting starts once the players are connected
            run.on_connected = lambda: [os.kill(pid, signal.SIGUSR2) for pid in servers] and None
        began = Meters.read(servers, database)
        sockets = asyncio.run(_driven(run, port, sessions, rounds=rounds, bets=bets,
                                      spread=spread, addresses=addresses))
        rss = rss_mib(servers)
        if profile:
            for pid in servers:
                os.kill(pid, signal.SIGUSR2)
            time.sleep(0.5)
        total = Meters.read(servers, database) - began
    finally:
        server.terminate()
        server.wait(60)
        log.close()
    figures = report(run, sockets, label=label, rss=rss, total=total, players=players,
                     profile=json.loads(profile_path.read_text()) if profile and
                     profile_path.exists() else None)
    batches = desk_batches((folder / f"server-{port}.log").read_text())
    if batches:
        print("  the desks' group commits a round (live/desk.py's log): " + "; ".join(
            f"{done:,} bets in {count} batches ({done / count:.0f} a batch, largest {largest})"
            for done, count, largest in batches))
    if time_writes and writes_path.exists():
        accepted = sum(r.accepted for r in run.rounds.values()) or 1
        print("  write transactions, CPU of their thread (whole run; per accepted bet over "
              f"the {accepted} accepted):")
        for name, (calls, seconds) in sorted(json.loads(writes_path.read_text()).items(),
                                             key=lambda item: -item[1][1]):
            print(f"    {name}: {calls} calls, {1e6 * seconds / max(1, calls):,.0f} µs each, "
                  f"{1e6 * seconds / accepted:,.1f} µs per accepted bet")
    if phases and phases_path.exists():
        import round_phases
        print("  the event loop thread's CPU by phase of each round (ms; bench/round_phases.py):")
        round_phases.report(str(phases_path))
    return figures


async def _driven(run: Run, port: int, sessions: list[tuple[int, str]], **options: float
                  ) -> list[Socket]:
    run.opened = asyncio.Queue()
    return await drive(run, port, sessions, seconds=240, **options)  # type: ignore[arg-type]


def report(run: Run, sockets: list[Socket], *, label: str, rss: float, total: Meters,
           players: int, profile: dict[str, float] | None) -> dict[str, float]:
    measured = [r for r in run.rounds.values() if r.measured]
    sent = sum(r.sent for r in measured)
    accepted = sum(r.accepted for r in measured)
    unanswered = len(run.sent_at)
    acks = [1000 * v for v in run.acks]
    print(f"{label}: {players} players, {len(measured)} rounds, mode {run.mode}")
    print(f"  bets sent {sent}, accepted {accepted}, refused {run.refused or 'none'}, "
          f"unanswered {unanswered}; bet-totals read {run.totals} in all (at every socket, "
          f"the whole run: {run.totals / max(1, sent):.2f} per bet sent)")
    for code, example in run.examples.items():
        print(f"    first {code}: {example}")
    for code, leads in sorted(run.refused_lead.items()):  # the client's clock is the server's
        early = sorted(1000 * lead for lead in leads if lead > 0)
        print(f"    {code}: {len(early)} of {len(leads)} sent before the deadline"
              + (f" ({early[0]:.0f}–{early[-1]:.0f} ms before it)" if early else ""))
    print(f"  ack p50 {percentile(acks, 0.5):.0f} ms, p99 {percentile(acks, 0.99):.0f} ms, "
          f"max {max(acks or [0]):.0f} ms (the client's own loop at most {1000 * run.lag:.0f} ms "
          f"late)")
    first = [1000 * (r.closed_first - r.deadline) for r in measured if r.closed_first]
    last = [1000 * (r.closed_last - r.deadline) for r in measured if r.closed_last]
    settled = [1000 * (r.last_settled - r.deadline) for r in measured
               if r.settled >= len(sockets)]
    print(f"  bets-closed after the deadline: first socket max {max(first or [0]):.0f} ms, "
          f"last socket max {max(last or [0]):.0f} ms; settled at every socket: "
          f"{', '.join(f'{v:.0f}' for v in settled)} ms "
          f"({sum(1 for r in measured if r.settled >= len(sockets))} of {len(measured)} rounds)")
    window = [r.meters_closed - r.meters_open for r in measured if r.meters_closed]
    whole = [r.meters_next - r.meters_open for r in measured if r.meters_next]
    bets_w = sum(r.accepted for r in measured if r.meters_closed) or 1
    bets_r = sum(r.accepted for r in measured if r.meters_next) or 1

    def per(meters: list[Meters], attribute: str, bets: int) -> float:
        return 1e6 * sum(getattr(m, attribute) for m in meters) / bets

    figures = {"server_window_us": per(window, "server", bets_w),
               "loop_window_us": per(window, "loop", bets_w),
               "server_round_us": per(whole, "server", bets_r),
               "database_round_us": per(whole, "database", bets_r),
               "client_round_us": per(whole, "client", bets_r),
               "p99_ms": percentile(acks, 0.99)}
    answered = sent - unanswered
    figures["server_run_per_answer_us"] = 1e6 * total.server / max(1, answered)
    print(f"  server CPU per accepted bet: {figures['server_window_us']:.0f} µs over the "
          f"betting windows, {figures['server_round_us']:.0f} µs over the whole rounds; "
          f"PostgreSQL {figures['database_round_us']:.0f} µs; the client "
          f"{figures['client_round_us']:.0f} µs")
    print(f"  of the server's CPU per bet over the windows: the event loop thread "
          f"{figures['loop_window_us']:.0f} µs, the other threads (database calls) "
          f"{figures['server_window_us'] - figures['loop_window_us']:.0f} µs")
    print(f"  server RSS {rss:.0f} MiB ({1024 * rss / players:.0f} KiB per player); whole run "
          f"(connections and rounds): {figures['server_run_per_answer_us']:.0f} µs per bet "
          f"answered, server {total.server:.1f} s, PostgreSQL {total.database:.1f} s, client "
          f"{total.client:.1f} s of CPU; load average {os.getloadavg()[0]:.1f}")
    closed = [s.closed_code for s in sockets if s.closed_code is not None]
    if closed:
        print(f"  ({len(closed)} sockets closed by the server: {sorted(set(closed))})")
    if profile:
        own = profile.pop("(profiler)", 0.0)
        threads = {name: profile.pop(name, 0.0) for name in ("(main thread)",
                                                             "(other threads)")}
        booked = sum(profile.values()) or 1.0
        print(f"  where the server's CPU went ({booked:.1f} s sampled: the event loop's thread "
              f"{100 * threads['(main thread)'] / booked:.0f} %, the others "
              f"{100 * threads['(other threads)'] / booked:.0f} %; the profiler itself "
              f"{own:.1f} s):")
        for name, seconds in sorted(profile.items(), key=lambda item: -item[1]):
            print(f"    {100 * seconds / booked:4.0f} %  {1e6 * seconds / max(1, accepted):5.0f}"
                  f" µs/bet  {name}")
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--bets", type=int, default=2, help="bets per player per round")
    parser.add_argument("--spread", type=float, default=2.0)
    parser.add_argument("--betting-seconds", type=float, default=10.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--mode", choices=("socket", "http"), default="socket")
    parser.add_argument("--postgres", action="store_true")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--addresses", type=int, default=100, help="loopback addresses used")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--uvicorn", default="", help='uvicorn options as JSON, e.g. '
                        '\'{"loop": "asyncio", "http": "h11"}\'')
    parser.add_argument("--matrix", action="store_true", help="the issue's targets")
    parser.add_argument("--linger-ms", type=float,
                        help="serve --bet-linger-ms (default: serve's own)")
    parser.add_argument("--switch-ms", type=float,
                        help="the server's GIL switch interval in ms (default: app.py's)")
    parser.add_argument("--time-writes", action="store_true",
                        help="print each kind of write transaction's CPU on its thread (one "
                        "process)")
    parser.add_argument("--plain-frames", action="store_true",
                        help="without api/frames.py (each message framed per socket)")
    parser.add_argument("--phases", action="store_true",
                        help="print the event loop thread's CPU by phase of each round, the "
                        "messages and bytes each socket got (one process; round_phases.py)")
    args = parser.parse_args()
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores; Python "
          f"{platform.python_version()}; load average {os.getloadavg()[0]:.1f} at the start")
    try:
        import uvloop

        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())  # the client spends less
    except ImportError:
        pass
    runs: list[tuple[int, str, int, str, int, float, float]] = []
    if args.matrix:
        for db in ("sqlite", "postgresql"):
            runs.append((1000, db, 1, "socket", 2, 2.0, 10.0))
            runs.append((1000, db, 1, "http", 2, 2.0, 10.0))
        runs.append((1000, "postgresql", 2, "socket", 2, 2.0, 10.0))
        runs += [(5000, db, 1, "socket", 2, 5.0, 15.0) for db in ("sqlite", "postgresql")]
    else:
        runs.append((args.players, "postgresql" if args.postgres else "sqlite", args.workers,
                     args.mode, args.bets, args.spread, args.betting_seconds))
    cluster = Postgres() if any(run[1] == "postgresql" for run in runs) else None
    folder = Path(tempfile.mkdtemp(prefix="pb-load-"))
    try:
        for number, (players, db, workers, mode, bets, spread, seconds) in enumerate(runs):
            url = (cluster.new_database() if db == "postgresql" and cluster is not None
                   else f"sqlite:///{folder / f'load{number}.sqlite3'}")
            label = f"{db}{f', --workers {workers}' if workers > 1 else ''}"
            run_one(url=url, label=label, players=players, workers=workers, mode=mode,
                    rounds=args.rounds, bets=bets, spread=spread, betting_seconds=seconds,
                    addresses=args.addresses, profile=args.profile and workers == 1,
                    cluster=cluster, uvicorn=args.uvicorn, folder=folder,
                    plain_frames=args.plain_frames, linger_ms=args.linger_ms,
                    switch_ms=args.switch_ms, time_writes=args.time_writes and workers == 1,
                    phases=args.phases and workers == 1)
    finally:
        if cluster is not None:
            cluster.stop()
    print(f"(server logs in {folder})")


if __name__ == "__main__":
    main()
