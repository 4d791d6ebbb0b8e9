"""Fixtures of the server tests: database URLs (an SQLite file, or a throw-away PostgreSQL 15
cluster) and a live server on them.

The PostgreSQL cluster is made with the machine's ``initdb``/``pg_ctl`` (run as the ``postgres``
user when the tests run as root, as in CI), on a free port, in a temporary directory; each test
gets a database of its own. Tests that ask for it are skipped, with the reason, only when the
PostgreSQL binaries are absent.
"""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from puntobanco.server.live.clock import ManualClock

from .support import LiveServer, clocked_settings, fast_settings, free_port

PG_USER = "puntobanco"
_database_numbers = itertools.count(1)


def _pg_binary(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    for candidate in sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"), reverse=True):
        return str(candidate)
    return None


class PostgresCluster:
    """A PostgreSQL cluster of its own, on 127.0.0.1, stopped and deleted at the end."""

    def __init__(self) -> None:
        initdb, pg_ctl = _pg_binary("initdb"), _pg_binary("pg_ctl")
        if initdb is None or pg_ctl is None:
            pytest.skip("PostgreSQL binaries (initdb, pg_ctl) are not installed")
        self.pg_ctl = pg_ctl
        self.as_root = os.geteuid() == 0
        self.root = Path(tempfile.mkdtemp(prefix="pb-pg-"))
        self.data = self.root / "data"
        self.data.mkdir()
        if self.as_root:
            shutil.chown(self.root, "postgres")
            shutil.chown(self.data, "postgres")
        self.port = free_port()
        self._run([initdb, "-D", str(self.data), "-A", "trust", "-U", PG_USER, "-E", "UTF8",
                   "--no-sync"])
        options = (f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 "
                   "-c fsync=off -c synchronous_commit=off -c full_page_writes=off")
        self._run([pg_ctl, "-D", str(self.data), "-o", options, "-l", str(self.root / "log"),
                   "-w", "-t", "60", "start"])

    def _run(self, command: list[str]) -> None:
        if self.as_root:
            command = ["runuser", "-u", "postgres", "--", *command]
        subprocess.run(command, check=True, capture_output=True, timeout=120)

    def url(self, database: str = "postgres") -> str:
        return f"postgresql+psycopg://{PG_USER}@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        import psycopg

        name = f"test_{os.getpid()}_{next(_database_numbers)}"
        with psycopg.connect(f"host=127.0.0.1 port={self.port} user={PG_USER} dbname=postgres",
                             autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self) -> None:
        try:
            self._run([self.pg_ctl, "-D", str(self.data), "-m", "fast", "stop"])
        finally:
            shutil.rmtree(self.root, ignore_errors=True)


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[PostgresCluster]:
    cluster = PostgresCluster()
    try:
        yield cluster
    finally:
        cluster.stop()


def _sqlite_file(tmp_path: Path) -> str:
    """An SQLite file in a folder that exists: ``serve`` refuses a database in a missing folder
    (issue 20) — only its default ``./var/`` is made on demand."""
    (tmp_path / "var").mkdir(exist_ok=True)
    return f"sqlite:///{tmp_path / 'var' / 'puntobanco.sqlite3'}"


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return _sqlite_file(tmp_path)


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The same test on an SQLite file and on PostgreSQL."""
    if request.param == "sqlite":
        return _sqlite_file(tmp_path)
    cluster: PostgresCluster = request.getfixturevalue("pg_cluster")
    return cluster.new_database()


@pytest.fixture
def server(db_url: str) -> Iterator[LiveServer]:
    """A live server on SQLite or PostgreSQL, with a 1.5 s betting window."""
    live = LiveServer(fast_settings(db_url, betting_seconds=1.5)).start()
    try:
        yield live
    finally:
        live.stop()


@pytest.fixture
def sqlite_server(sqlite_url: str) -> Iterator[LiveServer]:
    live = LiveServer(fast_settings(sqlite_url, betting_seconds=1.5)).start()
    try:
        yield live
    finally:
        live.stop()



@pytest.fixture
def clocked_server(db_url: str) -> Iterator[LiveServer]:
    """A live server on SQLite or PostgreSQL whose betting windows end when the test says
    (``end_betting``): the rounds' clock is a :class:`ManualClock`."""
    live = LiveServer(clocked_settings(db_url), clock=ManualClock()).start()
    try:
        yield live
    finally:
        live.stop()


@pytest.fixture
def clocked_sqlite_server(sqlite_url: str) -> Iterator[LiveServer]:
    live = LiveServer(clocked_settings(sqlite_url), clock=ManualClock()).start()
    try:
        yield live
    finally:
        live.stop()
