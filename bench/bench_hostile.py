"""Hostile load (issue 9): a log-in flood and a socket flood, and what an honest caller sees.

Starts ``puntobanco serve`` (defaults: bcrypt cost 12, the default limits) on 127.0.0.1 with a
fresh SQLite file, then:

1. ``--logins`` wrong-password log-ins from ``--threads`` threads as fast as the answers come,
   while one honest client reads ``GET /api/tables`` every 50 ms: prints how the flood was
   answered (401 = a bcrypt was run, 429 = refused by the limits) and the honest latency.
   (Issue 9 measured before the limits: 200 wrong passwords took both cores, honest p50 7 s.)
2. ``--sockets`` anonymous WebSockets opened at once: prints how many were kept and how many
   closed with 4429, and the server's resident memory.

Run: ``.venv/bin/python bench/bench_hostile.py [--logins 200] [--threads 20] [--sockets 300]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def login_flood(url: str, logins: int, threads: int) -> None:
    codes: dict[int, int] = {}
    honest: list[float] = []
    done = threading.Event()
    lock = threading.Lock()

    def attack(count: int) -> None:
        with httpx.Client(base_url=url, timeout=120) as http:
            for _ in range(count):
                answer = http.post("/api/login", json={"username": "operator",
                                                       "password": "not-the-password"})
                with lock:
                    codes[answer.status_code] = codes.get(answer.status_code, 0) + 1

    def watch() -> None:
        with httpx.Client(base_url=url, timeout=120) as http:
            while not done.is_set():
                started = time.perf_counter()
                http.get("/api/tables")
                honest.append(time.perf_counter() - started)
                time.sleep(0.05)

    watcher = threading.Thread(target=watch)
    watcher.start()
    started = time.perf_counter()
    workers = [threading.Thread(target=attack, args=(logins // threads,)) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    took = time.perf_counter() - started
    done.set()
    watcher.join()
    honest.sort()
    print(f"log-in flood: {sum(codes.values())} wrong passwords in {took:.1f} s -> {codes} "
          f"(401: a bcrypt ran; 429: refused by the limits)")
    print(f"honest GET /api/tables meanwhile: n={len(honest)}, "
          f"p50 {1000 * statistics.median(honest):.1f} ms, "
          f"max {1000 * honest[-1]:.1f} ms")


async def socket_flood(ws_url: str, count: int, pid: int) -> None:
    kept, refused, other = [], 0, 0

    async def one() -> None:
        nonlocal refused, other
        try:
            socket_ = await connect(f"{ws_url}/ws/tables/1", open_timeout=30)
        except Exception:
            other += 1
            return
        try:
            await asyncio.wait_for(socket_.recv(), 10)  # the snapshot, or the close
            kept.append(socket_)
        except ConnectionClosed as closed:
            if closed.rcvd is not None and closed.rcvd.code == 4429:
                refused += 1
            else:
                other += 1

    await asyncio.gather(*(one() for _ in range(count)))
    print(f"socket flood: {count} anonymous sockets from one address -> {len(kept)} kept, "
          f"{refused} closed 4429, {other} other; server RSS {_rss_mb(pid):.0f} MB")
    await asyncio.gather(*(s.close() for s in kept))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--logins", type=int, default=200)
    parser.add_argument("--threads", type=int, default=20)
    parser.add_argument("--sockets", type=int, default=300)
    options = parser.parse_args()
    port = _free_port()
    url, ws_url = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "PUNTOBANCO_OPERATOR_PASSWORD": "bench-operator"}
        process = subprocess.Popen(
            [sys.executable, "-c", "from puntobanco.cli import main; main()", "serve",
             "--port", str(port), "--database-url", f"sqlite:///{folder}/pb.sqlite3"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    if httpx.get(f"{url}/api/tables", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline:
                    raise SystemExit("the server did not start")
                time.sleep(0.2)
            print(f"load average before: {os.getloadavg()[0]:.1f} (2 cores, shared)")
            login_flood(url, options.logins, options.threads)
            asyncio.run(socket_flood(ws_url, options.sockets, process.pid))
        finally:
            process.terminate()
            process.wait(30)


if __name__ == "__main__":
    main()
