"""A real ``puntobanco serve`` for the browser tests that need the whole server (SQLite in a
folder of the test's), started once it answers and stopped at the end."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

OPERATOR_PASSWORD = "e2e-operator-pass"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def served(folder: Path, *, timeout: float = 60) -> Iterator[str]:
    """``serve`` on a free port with its database in ``folder``; yields its base URL. A server
    that does not answer within ``timeout`` fails the test with the end of its log."""
    port = free_port()
    with (folder / "serve.log").open("w") as log:
        process = subprocess.Popen(
            [sys.executable, "-c", "from puntobanco.cli import main; main()", "serve",
             "--port", str(port), "--database-url", f"sqlite:///{folder / 'table.sqlite3'}"],
            stdout=log, stderr=subprocess.STDOUT,
            env={**os.environ, "PUNTOBANCO_OPERATOR_PASSWORD": OPERATOR_PASSWORD})
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + timeout
            while True:
                try:
                    httpx.get(f"{url}/api/tables", timeout=2)
                    break
                except httpx.HTTPError:
                    if process.poll() is not None or time.monotonic() > deadline:
                        pytest.fail("the server did not start: "
                                    + (folder / "serve.log").read_text()[-2000:])
                    time.sleep(0.1)
            yield url
        finally:
            process.terminate()
            process.wait(30)
