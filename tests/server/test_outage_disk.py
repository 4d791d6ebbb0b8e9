"""Issue 22: a full disk never holds a stake. SQLite's database on a small tmpfs (mounted as
root, unmounted at the end; skipped with the reason otherwise): new bets are refused 503
``storage-full`` before the free space falls below the reserve needed to settle the bets
already taken, and those are settled from it; a disk filled to the last byte by another file
refuses bets 503 and holds nothing once the file is deleted — the write-ahead log does not
fill it again, every accepted bet is settled or refunded exactly once, the books audit clean,
``integrity_check`` is ok, and dealing is back within 15 s. The sockets are told; the log has
one line per change of state and never "database busy, retrying"."""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import shutil
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from sqlalchemy import event

from .support import LiveServer, Player, Watcher, fast_settings, wait_until
from .test_outage import BACK_WITHIN, _bet_ids, _books_exactly_once, _outage_answer

#: the tmpfs holding the database (the database itself takes about 0.4 MB)
DISK_MB = 8


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs to fill needs root")
    if shutil.which("mount") is None:
        pytest.skip("mount(8) is not installed")
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={DISK_MB}m", "tmpfs",
                              str(disk)], capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], capture_output=True)


def _fill(path: Path, leave: int = 0) -> None:
    """Write ``path`` until the filesystem has at most ``leave`` bytes free."""
    chunk = b"\0" * 65536
    with path.open("ab") as filler:
        while True:
            free = os.statvfs(path.parent).f_bavail * os.statvfs(path.parent).f_frsize
            if free <= leave:
                break
            try:
                filler.write(chunk[:max(4096, min(len(chunk), free - leave))])
                filler.flush()
            except OSError as error:
                assert error.errno == errno.ENOSPC
                break


def _bet_round(server: LiveServer, players: list[Player], coups: set[int]
               ) -> tuple[int, list[int]]:
    """Each player bets on banco, tie and the Lion Bonus banker: (accepted, other statuses)."""
    taken, others = 0, []
    for player in players:
        for kind in ("banco", "egalite", "lion-banco"):
            answer = server.bet(player, 1, kind, 1000)
            if answer.status_code == 200:
                taken += 1
                coups.add(answer.json()["coup_id"])
            else:
                # 409 betting closed, 422 a box's maximum reached by the repeated bets
                assert answer.status_code in (409, 422, 503), answer.text
                if answer.status_code == 503:
                    _outage_answer(answer, "storage-full")
                others.append(answer.status_code)
    return taken, others


def test_issue22_a_full_disk_never_holds_a_stake(small_disk: Path,
                                                caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="puntobanco")
    database = small_disk / "pb.sqlite3"
    url = f"sqlite:///{database}"
    filler = small_disk / "filler"
    server = LiveServer(fast_settings(url, betting_seconds=1.5)).start()
    watcher: Watcher | None = None
    coups: set[int] = set()
    try:
        players = [server.signup(f"disk22p{n}") for n in range(5)]
        watcher = server.watch(1, players[0])
        health = server.http.get("/healthz").json()
        assert health["ready"] is True and health["disk"]["free_bytes"] > 0
        reserve = health["disk"]["reserve_bytes"]

        # 1. the reserve: the disk filled to a little above it; bets are taken, then refused
        # storage-full before the reserve is used up; the bets taken are settled from it
        watcher.next("round-opened")
        _fill(filler, leave=reserve + 160 * 1024)
        refused_at = None
        deadline = time.monotonic() + 30
        while refused_at is None and time.monotonic() < deadline:
            _, others = _bet_round(server, players, coups)
            if 503 in others:
                refused_at = time.monotonic()
            time.sleep(0.1)
        assert refused_at is not None, "the reserve never refused a bet"
        down = watcher.next("database", timeout=60)  # bounds a failure only
        assert down["available"] is False and down["code"] == "storage-full"
        state = server.http.get("/healthz").json()
        assert state["database"]["code"] == "storage-full"
        assert state["ready"] is True  # reachable: it serves the tables, refuses bets
        # the bets taken are settled: no coup of theirs stays open, closed or dealt
        wait_until(lambda: _coups_finished(database, coups), timeout=30, step=0.3)
        filler.unlink()
        back = watcher.next("database", timeout=BACK_WITHIN)
        assert back["available"] is True

        # 2. the disk filled to the last byte by another file, during betting
        watcher.next("round-opened", timeout=BACK_WITHIN)
        taken, _ = _bet_round(server, players[:2], coups)
        assert taken > 0
        _fill(filler)
        full_at = time.monotonic()
        while time.monotonic() - full_at < 6:  # bets refused 503, never a 500
            _bet_round(server, players, coups)
            time.sleep(0.3)
        assert server.http.get("/api/tables/1").status_code == 200
        filler.unlink()
        freed = time.monotonic()
        # dealing back: a window opens and takes bets within 15 s of the space being freed
        wait_until(lambda: _bet_round(server, players[:1], coups)[0] > 0,
                   timeout=BACK_WITHIN, step=0.3)
        assert time.monotonic() - freed < BACK_WITHIN
        wait_until(lambda: _coups_finished(database, coups), timeout=30, step=0.3)
        disk = server.http.get("/healthz").json()["disk"]
        assert disk["wal_bytes"] < 2 * 1024 * 1024, disk  # the log did not fill it again
    finally:
        if watcher is not None:
            watcher.close()
        server.stop()
        with contextlib.suppress(FileNotFoundError):
            filler.unlink()
    accepted = _bet_ids(url, coups)
    assert accepted
    _books_exactly_once(url, accepted)
    with contextlib.closing(sqlite3.connect(database)) as connection:
        assert connection.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    text = caplog.text
    assert "busy" not in text and "Traceback" not in text, text
    assert text.count("database storage full since") == 2, text
    assert text.count("database back after") == 2, text


def _coups_finished(database: Path, coups: set[int]) -> bool:
    if not coups:
        return True
    with contextlib.closing(sqlite3.connect(database, timeout=30)) as connection:
        marks = ",".join("?" * len(coups))
        left = connection.execute(f"SELECT count(*) FROM coups WHERE id IN ({marks}) AND "
                                  "status IN ('open', 'closed', 'dealt')", sorted(coups))
        return bool(left.fetchone()[0] == 0)


def test_issue22_the_health_endpoint_says_what_the_process_knows(tmp_path: Path) -> None:
    """``/healthz``: ready with the database reachable, the tables dealt here, the disk."""
    url = f"sqlite:///{tmp_path / 'pb.sqlite3'}"
    server = LiveServer(fast_settings(url)).start()
    try:
        answer = server.http.get("/healthz")
        assert answer.status_code == 200
        health = answer.json()
        assert health["ready"] is True
        assert health["database"]["available"] is True
        assert health["database"]["backend"] == "sqlite"
        assert health["tables"]["dealt_here"] == [1, 2]
        disk = health["disk"]
        assert disk["free_bytes"] > disk["reserve_bytes"] > 0
        # cheap: a probe asks the database nothing (a load balancer may ask every second)
        statements: list[str] = []
        engines = {server.casino.db.reader, server.casino.db.writer}

        def count(*args: object) -> None:
            statements.append(str(args[2]))

        for engine in engines:
            event.listen(engine, "before_cursor_execute", count)
        try:
            with httpx.Client(base_url=server.url) as client:
                for _ in range(100):
                    assert client.get("/healthz").status_code == 200
        finally:
            for engine in engines:
                event.remove(engine, "before_cursor_execute", count)
        assert len(statements) < 20, statements
    finally:
        server.stop()
