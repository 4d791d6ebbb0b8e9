"""The live table under load: bets per second, bet latency and settlement time per round.

Starts ``puntobanco serve`` in a process of its own on 127.0.0.1 with a fresh SQLite file (or
``--database-url``), signs up ``--players`` players, and has each of them watch table 1 on its
WebSocket and, in every betting window, place bets over HTTP as fast as the answers come (up to
``--bets`` each), for ``--rounds`` rounds. Bounded: at most ``--seconds`` in all.

Prints: accepted bets per second during the windows, the p50/p99 latency of a bet, the time from
"no more bets" to the last card pushed (the deal recorded and shown) and from the coup on the
table to "round settled" (the settlement of every spot in one transaction, then the pushes).

Run: ``.venv/bin/python bench/bench_server.py [--players 20] [--rounds 8] [--bets 25]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from websockets.asyncio.client import connect

PASSWORD = "bench-operator"


@dataclass
class Figures:
    latencies: list[float] = field(default_factory=list)
    refused: dict[str, int] = field(default_factory=dict)
    window_rates: list[float] = field(default_factory=list)
    deal_seconds: list[float] = field(default_factory=list)
    settle_seconds: list[float] = field(default_factory=list)
    accepted: int = 0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


async def player_round(http: httpx.AsyncClient, token: str, quota: int, stop: asyncio.Event,
                       figures: Figures, counts: list[int]) -> None:
    headers = {"Authorization": f"Bearer {token}"}
    for number in range(quota):
        if stop.is_set():
            return
        began = time.perf_counter()
        answer = await http.post("/api/tables/1/bets", headers=headers,
                                 json={"bet": ("punto", "banco", "egalite")[number % 3],
                                       "stake": 1000})
        elapsed = time.perf_counter() - began
        if answer.status_code == 200:
            figures.latencies.append(elapsed)
            counts[0] += 1
        else:
            code = answer.json()["error"]["code"]
            figures.refused[code] = figures.refused.get(code, 0) + 1
            if code == "table-closed":
                return


async def run(url: str, players: int, rounds: int, bets: int, seconds: float) -> Figures:
    figures = Figures()
    limits = httpx.Limits(max_connections=players + 8, max_keepalive_connections=players + 8)
    async with httpx.AsyncClient(base_url=url, timeout=60, limits=limits) as http:
        boss = (await http.post("/api/login", json={"username": "operator",
                                                    "password": PASSWORD})).json()
        boss_headers = {"Authorization": f"Bearer {boss['token']}"}

        async def signup(number: int) -> str:
            answer = (await http.post("/api/signup", json={"username": f"bench{number}",
                                                           "password": "bench-secret"})).json()
            await http.post(f"/api/players/{answer['player']['id']}/credit",
                            json={"amount": 10_000_000}, headers=boss_headers)
            token: str = answer["token"]
            return token

        tokens = await asyncio.gather(*(signup(n) for n in range(players)))
        sockets = [await connect(f"{url.replace('http', 'ws')}/ws/tables/1?token={t}")
                   for t in tokens]
        try:
            await asyncio.wait_for(_rounds(http, sockets, tokens, rounds, bets, figures), seconds)
        except TimeoutError:
            print(f"(stopped after {seconds:.0f} s)")
        finally:
            for ws in sockets:
                await ws.close()
    return figures


async def _rounds(http: httpx.AsyncClient, sockets: list[object], tokens: list[str], rounds: int,
                  bets: int, figures: Figures) -> None:
    """Bet in every window; the first socket's messages are timestamped as they arrive."""
    arrivals: asyncio.Queue[tuple[float, dict[str, object]]] = asyncio.Queue()
    reader = asyncio.create_task(_stamp(sockets[0], arrivals))
    drains = [asyncio.create_task(_drain(ws)) for ws in sockets[1:]]
    stop = asyncio.Event()
    betting: asyncio.Future[list[None]] | None = None
    counts = [0]
    stamps: dict[str, float] = {}
    try:
        while len(figures.settle_seconds) < rounds:
            stamp, message = await arrivals.get()
            kind = str(message["type"])
            stamps[kind] = stamp
            if kind == "round-opened":
                stop.clear()
                counts = [0]
                betting = asyncio.gather(*(player_round(http, t, bets, stop, figures, counts)
                                           for t in tokens))
            elif betting is None:
                continue
            elif kind == "bets-closed":
                stop.set()
                await betting
                window = stamps["bets-closed"] - stamps["round-opened"]
                figures.window_rates.append(counts[0] / max(window, 1e-9))
                figures.accepted += counts[0]
            elif kind == "coup-dealt":
                figures.deal_seconds.append(stamp - stamps["bets-closed"])
            elif kind == "round-settled":
                figures.settle_seconds.append(stamp - stamps["coup-dealt"])
                betting = None
    finally:
        for task in (reader, *drains):
            task.cancel()


async def _stamp(ws: object, arrivals: asyncio.Queue[tuple[float, dict[str, object]]]) -> None:
    async for text in ws:  # type: ignore[attr-defined]
        arrivals.put_nowait((time.perf_counter(), json.loads(text)))


async def _drain(ws: object) -> None:
    async for _ in ws:  # type: ignore[attr-defined]
        pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--players", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--bets", type=int, default=25, help="bets per player per round, at most")
    parser.add_argument("--betting-seconds", type=float, default=3.0)
    parser.add_argument("--seconds", type=float, default=180, help="bound on the whole run")
    parser.add_argument("--database-url", default=None)
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="pb-bench-"))
    database = args.database_url or f"sqlite:///{workdir / 'bench.sqlite3'}"
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(
        [sys.executable, "-c", "from puntobanco.cli import main; main()", "serve", "--port",
         str(port), "--database-url", database, "--betting-seconds", str(args.betting_seconds),
         "--card-seconds", "0", "--closed-seconds", "0", "--result-seconds", "0.2"],
        env={**os.environ, "PUNTOBANCO_OPERATOR_PASSWORD": PASSWORD},
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{url}/api/tables", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if server.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"the server did not start: {server.stderr and server.stderr.read()}")
            time.sleep(0.1)
        print(f"machine: {platform.machine()}, {os.cpu_count()} cores; Python "
              f"{platform.python_version()}; database: {database.split(':')[0]}")
        print(f"{args.players} players on one table, up to {args.bets} bets each per "
              f"{args.betting_seconds:g} s window, {args.rounds} rounds, no card pacing")
        figures = asyncio.run(run(url, args.players, args.rounds, args.bets, args.seconds))
    finally:
        server.terminate()
        server.wait(60)
    latencies = [1000 * v for v in figures.latencies]
    print(f"accepted bets: {figures.accepted} (refused: {figures.refused or 'none'})")
    if figures.window_rates:
        print(f"bets per second while the window is open: median "
              f"{statistics.median(figures.window_rates):.0f}, best {max(figures.window_rates):.0f}")
    if latencies:
        print(f"bet latency: p50 {percentile(latencies, 0.5):.1f} ms, "
              f"p99 {percentile(latencies, 0.99):.1f} ms")
    if figures.settle_seconds:
        print(f"no more bets -> coup on the table: median "
              f"{1000 * statistics.median(figures.deal_seconds):.1f} ms")
        print(f"coup on the table -> round settled (all spots, one transaction): median "
              f"{1000 * statistics.median(figures.settle_seconds):.1f} ms, max "
              f"{1000 * max(figures.settle_seconds):.1f} ms over {len(figures.settle_seconds)} "
              "rounds")


if __name__ == "__main__":
    main()
