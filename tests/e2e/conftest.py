"""Fixtures for the browser tests: Debian's Chromium driven by Playwright for Python.

Playwright cannot download its own browsers on this machine kind, so the tests launch the
``chromium`` on PATH (``make test`` installs Debian's package when it is missing) and are skipped
only when there is none.
"""

from __future__ import annotations

import functools
import http.server
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

STATIC_DIR = Path(__file__).resolve().parents[2] / "src" / "puntobanco" / "server" / "static"
OUTPUT_DIR = Path(__file__).resolve().parents[2] / "test-output"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


#: Where ``make browser`` (scripts/install-chromium.sh) says why Chromium could not be had.
UNAVAILABLE_NOTE = OUTPUT_DIR / "chromium-unavailable.txt"


@pytest.fixture(scope="session")
def chromium_path() -> str:
    path = shutil.which("chromium")
    if path is None:
        reason = (UNAVAILABLE_NOTE.read_text(encoding="utf-8").strip()
                  if UNAVAILABLE_NOTE.is_file() else "make test installs it")
        pytest.skip(f"Debian's chromium is not installed ({reason})")
    return path


@pytest.fixture(scope="session")
def browser(chromium_path: str) -> Iterator[Any]:
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium_path, headless=True,
                                              args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture(scope="session")
def output_dir() -> Path:
    OUTPUT_DIR.mkdir(parents=True, exist_ok=True)
    return OUTPUT_DIR


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="session")
def static_url() -> Iterator[str]:
    """The page's files served as they are (no backend): for testing its pure modules."""
    handler = functools.partial(_QuietHandler, directory=str(STATIC_DIR))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
