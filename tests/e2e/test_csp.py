"""Issue 9: the page works under its Content-Security-Policy in Chromium — no CSP violation
reported while it loads, signs up, and receives the table over its WebSocket."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.server.support import LiveServer, fast_settings

pytestmark = pytest.mark.e2e


@pytest.fixture
def live(tmp_path: Path, chromium_path: str) -> Iterator[LiveServer]:
    server = LiveServer(fast_settings(f"sqlite:///{tmp_path / 'pb.sqlite3'}",
                                      betting_seconds=2)).start()
    try:
        yield server
    finally:
        server.stop()


def test_the_page_runs_under_its_csp_without_a_violation(browser: Any, live: LiveServer) -> None:
    context = browser.new_context(locale="en-GB")
    page = context.new_page()
    console: list[str] = []
    page.on("console", lambda message: console.append(message.text))
    page.goto(live.url + "/")
    page.wait_for_selector("body[data-ready=true]")
    page.fill("#auth-username", "csp_check")
    page.fill("#auth-password", "lion-bonus-2000")
    page.click("#auth-submit")
    page.wait_for_selector("#app:not([hidden])")
    page.wait_for_function("() => document.querySelector('#balance').dataset.cents === '100000'")
    page.wait_for_timeout(500)  # the socket's snapshot and first messages arrive
    violations = [text for text in console if "Content Security Policy" in text]
    assert violations == []
    assert live.app.state.guards.sockets.total >= 1  # the page's WebSocket passed the CSP
    context.close()
