"""The event loop thread's CPU per bet sent on the WebSocket (issue 21, third pass).

Starts ``puntobanco serve`` (a fresh SQLite file each time, the players made by ``puntobanco
players create``), connects ``--players`` sockets written by hand (``bench_load.Socket``) and,
in each of ``--rounds`` betting windows, has every player send ``--bets`` bets on its socket at
random moments of ``--spread`` seconds ending 0.3 s before the deadline. It reads the CPU of the
server's **main thread** — the event loop: reading the frame, checking the bet, queueing it,
answering it — and of its other threads (the database writer), from
``/proc/<pid>/task/<tid>/stat``, from the first bet of a window to its last answer, and prints
each per accepted bet. The database transaction runs on the other thread; the only broadcast in
that span is ``bet-totals`` (the same in every run).

``--a DIR`` / ``--b DIR``: two source trees (``src`` folders) to compare, run alternately
(A, B, A, B, ...; ``--pairs`` of them) so that the machine's load falls on both alike; by
default only this worktree's ``src``. A tree made by ``git archive <commit> src | tar -x -C
DIR`` measures an earlier commit.

``--mode http`` (issue 21, fourth pass): each player sends its bets as ``POST
/api/tables/1/bets`` on a keep-alive connection of its own instead (``bench_load.place``); the
socket still gets the table's messages. ``--uvicorn '{"http": "httptools"}' --uvicorn-b '{}'``
compares uvicorn's own HTTP protocol (every bet through ASGI) with ``serve``'s.

Run: ``.venv/bin/python bench/bench_socket_loop.py [--players 200] [--bets 8] [--rounds 3]
[--a /tmp/base/src --b src --pairs 2] [--mode http]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_load import (
    LAUNCH,
    PASSWORD,
    TICK,
    Http,
    Round,
    Run,
    Socket,
    bet_key,
    descendants,
    make_players,
    place,
)
from bench_server import free_port, wait_ready

HERE = Path(__file__).resolve().parent


def thread_cpu(pid: int) -> tuple[float, float]:
    """CPU seconds of ``pid``'s main thread and of its other threads."""
    main = rest = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        ticks = int(fields[11]) + int(fields[12])
        if int(task.name) == pid:
            main += ticks
        else:
            rest += ticks
    return main / TICK, rest / TICK


async def windows(run: Run, pid: int, port: int, sessions: list[tuple[int, str]], *,
                  rounds: int, bets: int, spread: float) -> list[tuple[int, float, float]]:
    """(accepted, main thread s, other threads s) for each measured window."""
    loop = asyncio.get_running_loop()
    sockets: list[Socket] = []
    for first in range(0, len(sessions), 250):
        made = await asyncio.gather(*(loop.create_connection(
            lambda token=token, n=n: Socket(run, n, f"/ws/tables/1?token={token}",
                                            f"127.0.0.1:{port}"),
            "127.0.0.1", port) for n, (_, token) in enumerate(sessions[first:first + 250],
                                                               start=first)))
        for _, protocol in made:
            await protocol.ready
            sockets.append(protocol)
    lines: list[Http] = []
    if run.mode == "http":
        for first in range(0, len(sessions), 250):
            lines += [line for _, line in await asyncio.gather(*(loop.create_connection(
                Http, "127.0.0.1", port) for _ in sessions[first:first + 250]))]
    posted: list[asyncio.Future[None]] = []
    figures: list[tuple[int, float, float]] = []
    while len(figures) < rounds:
        this = await asyncio.wait_for(run.opened.get(), 60)
        start = this.deadline - 0.3 - spread - time.time()
        if start < 0.3:  # joined in the middle of a window
            continue
        await asyncio.sleep(start)
        before, accepted_before = thread_cpu(pid), this.accepted
        sent = 0
        for n, socket in enumerate(sockets):
            for b in range(bets):
                kind = ("banco", "punto")[(n + b) % 2]

                def send(socket: Socket = socket, kind: str = kind, this: Round = this,
                         n: int = n) -> None:
                    if lines:  # --mode http
                        posted.append(asyncio.ensure_future(place(
                            run, socket, lines[n], sessions[n][1], this, kind)))
                        return
                    key = bet_key(this.coup_id)
                    run.sent_at[key] = time.perf_counter()
                    this.sent += 1
                    socket.send(b'{"type":"bet","key":"' + key.encode() + b'","coup_id":'
                                + str(this.coup_id).encode() + b',"bet":"' + kind.encode()
                                + b'","stake":1000}')

                loop.call_later(random.random() * spread, send)
                sent += 1
        await asyncio.sleep(spread)
        ends = loop.time() + 5
        while (this.sent < sent or run.sent_at or not all(done.done() for done in posted)
               ) and loop.time() < ends:
            await asyncio.sleep(0.002)
        posted.clear()
        after = thread_cpu(pid)
        figures.append((this.accepted - accepted_before, after[0] - before[0],
                        after[1] - before[1]))
        print(f"    coup {this.coup_id}: {this.accepted - accepted_before} of {sent} accepted,"
              f" refused {run.refused or 'none'}; main thread "
              f"{1e6 * (after[0] - before[0]) / max(1, this.accepted - accepted_before):.0f}"
              f" µs/bet, other threads "
              f"{1e6 * (after[1] - before[1]) / max(1, this.accepted - accepted_before):.0f}"
              f" µs/bet", flush=True)
    for socket in sockets:
        if socket.transport is not None:
            socket.transport.close()
    for line in lines:
        if line.transport is not None:
            line.transport.close()
    return figures


def serve_and_measure(source: Path, *, players: int, bets: int, rounds: int, spread: float,
                      folder: Path, uvicorn: str, switch_ms: str = "", mode: str = "socket"
                      ) -> tuple[float, float]:
    url = f"sqlite:///{folder / f'loop{time.monotonic_ns()}.sqlite3'}"
    env = {**os.environ, "PYTHONPATH": str(source), "PUNTOBANCO_OPERATOR_PASSWORD": PASSWORD,
           "PB_BENCH_DIR": str(HERE), "PB_BENCH_UVICORN": uvicorn, "PB_BENCH_PROFILE": "",
           "PB_BENCH_SWITCH_MS": switch_ms}
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = str(source)  # the players are made by the same tree
    try:
        sessions, _ = make_players(url, players, folder)
    finally:
        if old is None:
            os.environ.pop("PYTHONPATH")
        else:
            os.environ["PYTHONPATH"] = old
    port = free_port()
    log = open(folder / f"server-{port}.log", "w")  # noqa: SIM115
    server = subprocess.Popen(
        [sys.executable, "-c", LAUNCH, "serve", "--port", str(port), "--database-url", url,
         "--betting-seconds", str(spread + 2.5), "--closed-seconds", "0",
         "--card-seconds", "0.05", "--result-seconds", "0.5"],
        env=env, stdout=subprocess.DEVNULL, stderr=log)
    try:
        wait_ready(f"http://127.0.0.1:{port}", server)  # type: ignore[arg-type]
        run = Run(players, mode, descendants(server.pid), [])
        run.opened = asyncio.Queue()
        figures = asyncio.run(windows(run, server.pid, port, sessions, rounds=rounds,
                                      bets=bets, spread=spread))
    finally:
        server.terminate()
        server.wait(60)
        log.close()
    accepted = sum(f[0] for f in figures) or 1
    return 1e6 * sum(f[1] for f in figures) / accepted, 1e6 * sum(f[2] for f in figures) / accepted


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--bets", type=int, default=8, help="bets per player per window")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--spread", type=float, default=1.5)
    parser.add_argument("--mode", choices=("socket", "http"), default="socket",
                        help="how the bets are sent (the table's messages come on the socket)")
    parser.add_argument("--a", type=Path, default=HERE.parent / "src")
    parser.add_argument("--b", type=Path)
    parser.add_argument("--pairs", type=int, default=1)
    parser.add_argument("--uvicorn", default="", help="uvicorn options as JSON (both runs)")
    parser.add_argument("--uvicorn-b", default=None, help="uvicorn options of B (default: "
                        "--uvicorn): B may be the same tree with other options")
    parser.add_argument("--switch-ms-b", default="", help="B's GIL switch interval in ms "
                        "(default: app.py's)")
    args = parser.parse_args()
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores; Python "
          f"{platform.python_version()}; load average {os.getloadavg()[0]:.1f}; "
          f"{args.players} sockets, {args.bets} bets each per window, {args.rounds} windows "
          f"per server, bets sent by {args.mode}", flush=True)
    runs = [("A", args.a, args.uvicorn)]
    if args.b is not None or args.uvicorn_b is not None or args.switch_ms_b:
        runs.append(("B", args.b or args.a,
                     args.uvicorn if args.uvicorn_b is None else args.uvicorn_b))
    folder = Path(tempfile.mkdtemp(prefix="pb-loop-"))
    results: dict[str, list[tuple[float, float]]] = {name: [] for name, _, _ in runs}
    for _pair in range(args.pairs):
        for name, source, uvicorn in runs:
            print(f"  {name} ({source}{f', uvicorn {uvicorn}' if uvicorn else ''}):",
                  flush=True)
            results[name].append(serve_and_measure(
                source.resolve(), players=args.players, bets=args.bets, rounds=args.rounds,
                spread=args.spread, folder=folder, uvicorn=uvicorn,
                switch_ms=args.switch_ms_b if name == "B" else "", mode=args.mode))
    for name, figures in results.items():
        mains = [f[0] for f in figures]
        rests = [f[1] for f in figures]
        print(f"{name}: event loop thread {' '.join(f'{v:.0f}' for v in mains)} µs per accepted "
              f"bet (median {statistics.median(mains):.0f}); other threads "
              f"{' '.join(f'{v:.0f}' for v in rests)} (median {statistics.median(rests):.0f})")
    print(f"(server logs in {folder}; load average {os.getloadavg()[0]:.1f} at the end)")


if __name__ == "__main__":
    main()
