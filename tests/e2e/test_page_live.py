"""The player's page against a real server (issue 10): keyboard-only play with the betting
controls, a credit reaching an open page, the win/loss overlay, and a server restart while a bet
is on (the round voided, the page reconnecting by itself and saying what came back).

``puntobanco serve`` runs on a fresh SQLite file with an 8-second betting window; the restart
test stops it with SIGINT (the dealer voids the open round and refunds it) and starts it again
on the same port and file.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.e2e

WELCOME = 100_000
OPERATOR = "e2e-operator-pass"


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _call(url: str, body: dict[str, Any] | None = None, token: str | None = None, *,
          method: str | None = None) -> Any:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method or ("POST" if data else "GET"),
                                     headers={"Content-Type": "application/json"})
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


class Serve:
    """``puntobanco serve`` in a subprocess that can be stopped and started again."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        log = (self.folder / "serve.log").open("a")
        self.process = subprocess.Popen(
            [sys.executable, "-c", "from puntobanco.cli import main; main()", "serve",
             "--port", str(self.port),
             "--database-url", f"sqlite:///{self.folder / 'table.sqlite3'}",
             "--betting-seconds", "8", "--closed-seconds", "0.3", "--card-seconds", "0.15",
             "--result-seconds", "1.5"],
            stdout=log, stderr=subprocess.STDOUT,
            env={**os.environ, "PUNTOBANCO_OPERATOR_PASSWORD": OPERATOR})
        deadline = time.monotonic() + 40
        while True:
            try:
                _call(f"{self.url}/api/tables")
                return
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    pytest.fail("the server did not start:\n"
                                + (self.folder / "serve.log").read_text(errors="replace"))
                time.sleep(0.2)

    def stop(self) -> None:
        if self.process is None:
            return
        self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process = None


@pytest.fixture(scope="module")
def serve(tmp_path_factory: pytest.TempPathFactory, chromium_path: str) -> Iterator[Serve]:
    server = Serve(tmp_path_factory.mktemp("page-live"))
    server.start()
    try:
        yield server
    finally:
        server.stop()


def _player_page(browser: Any, serve: Serve, name: str, lang: str = "en") -> tuple[Any, Any, dict]:
    player = _call(f"{serve.url}/api/signup", {"username": f"{name}_{int(time.time() * 1000) % 10**7}",
                                                "password": "lion-bonus-2000", "lang": lang})
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-GB")
    context.add_init_script(f"localStorage.setItem('pb.token', {json.dumps(player['token'])});"
                            "localStorage.setItem('pb.table', '1');")
    page = context.new_page()
    page.goto(serve.url + "/")
    page.wait_for_selector("#app:not([hidden])")
    page.wait_for_selector("body[data-connection=open]")
    return context, page, player


def _wait_open(page: Any, seconds: float) -> None:
    page.wait_for_function(
        """(need) => {
          const secs = document.querySelector('.countdown-secs');
          return document.querySelector('#felt').dataset.phase === 'open' && secs
            && Number(secs.textContent) >= need;
        }""", arg=seconds, timeout=40_000)


def _tab_to(page: Any, selector: str, *, back: bool = False, limit: int = 40) -> list[str]:
    """Press Tab (or Shift+Tab) until the focus is on ``selector``; the kinds passed on the way."""
    passed = []
    for _ in range(limit):
        page.keyboard.press("Shift+Tab" if back else "Tab")
        kind, there = page.evaluate("""(s) => { const a = document.activeElement;
            return [a.matches('.chip-button') ? 'chip' : a.matches('.box-hit') ? 'box'
              : a.matches('.box-clear') ? 'clear' : a.matches('.control') ? 'control' : 'other',
              a.matches(s)]; }""", selector)
        passed.append(kind)
        if there:
            return passed
    raise AssertionError(f"Tab never reached {selector}: {passed}")


def _cents(page: Any, selector: str) -> int:
    return int(page.get_attribute(selector, "data-cents") or 0)


def test_issue10_keyboard_only_play_controls_credit_and_the_outcome(
        browser: Any, serve: Serve, output_dir: Path) -> None:
    context, page, player = _player_page(browser, serve, "keys")
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    # Tab order: the chips, then the boxes, then the controls.
    page.focus("#table-select")
    order = _tab_to(page, ".control-double")
    kinds = [k for i, k in enumerate(order) if k != "other" and (i == 0 or order[i - 1] != k)]
    assert kinds == ["chip", "box", "control"], order

    _wait_open(page, 7)
    page.focus("#table-select")
    _tab_to(page, ".chip-button[data-chip='1000']")
    page.keyboard.press("Enter")
    assert page.get_attribute(".chip-button[data-chip='1000']", "aria-pressed") == "true"
    assert page.get_attribute(".chip-button[data-chip='1000']", "aria-label") == "10 · Chip €10.00"
    _tab_to(page, "[data-box=banco] .box-hit")
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-box=banco] .box-mine[data-cents='1000']")
    assert _cents(page, "#balance") == WELCOME - 1000
    # Enter on the box's ×: the bet is cleared, and nothing more is charged.
    _tab_to(page, "[data-box=banco] .box-clear")
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-box=banco] .box-mine[data-cents='0']", state="attached")
    page.wait_for_function("() => document.querySelector('#balance').dataset.cents === '100000'")
    page.wait_for_timeout(300)
    assert _cents(page, "#balance") == WELCOME
    # Space on the box places a chip again; Double doubles it; Undo takes the last chip back.
    _tab_to(page, "[data-box=banco] .box-hit", back=True)
    page.keyboard.press(" ")
    page.wait_for_selector("[data-box=banco] .box-mine[data-cents='1000']")
    _tab_to(page, ".control-double")
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-box=banco] .box-mine[data-cents='2000']")
    assert _cents(page, "#staked") == 2000
    _tab_to(page, ".control-undo", back=True)
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-box=banco] .box-mine[data-cents='1000']")
    # A double that would break the Lion Bonus maximum (50 €) places nothing at all.
    page.focus("#table-select")
    _tab_to(page, ".chip-button[data-chip='5000']")
    page.keyboard.press("Enter")
    _tab_to(page, "[data-box=lion-banco] .box-hit")
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-box=lion-banco] .box-mine[data-cents='5000']")
    before = _cents(page, "#balance")
    _tab_to(page, ".control-double")
    page.keyboard.press("Enter")
    page.wait_for_selector("#message:not([hidden])")
    page.wait_for_timeout(300)
    assert _cents(page, "[data-box=banco] .box-mine") == 1000
    assert _cents(page, "[data-box=lion-banco] .box-mine") == 5000
    assert _cents(page, "#balance") == before
    me = _call(f"{serve.url}/api/me", token=player["token"])
    assert me["balance"] == before == WELCOME - 6000

    # A credit by the operator reaches the open page at once.
    operator = _call(f"{serve.url}/api/login", {"username": "operator", "password": OPERATOR})
    _call(f"{serve.url}/api/players/{player['player']['id']}/credit", {"amount": 2500},
          operator["token"])
    page.wait_for_function("(c) => document.querySelector('#balance').dataset.cents === c",
                           arg=str(before + 2500))
    page.wait_for_selector("#message.message-info:not([hidden])")
    assert page.text_content("#message") == "€25.00 credited to your balance."

    # The coup: the overlay shows the net amount, the screen reader hears the result.
    page.wait_for_selector("#outcome:not([hidden])", timeout=30_000)
    coup = _call(f"{serve.url}/api/me/coups?limit=1", token=player["token"])[0]
    net = sum(line["net"] for line in coup["settlement"])
    assert page.get_attribute("#outcome", "data-net") == str(net)
    page.screenshot(path=str(output_dir / "page-live-outcome.png"))
    page.wait_for_function("() => document.querySelector('#announce').textContent.length > 0")
    # Repeat, on the next round: the same bets again, in one request.
    _wait_open(page, 3)
    page.focus("#table-select")
    _tab_to(page, ".control-repeat")
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-box=lion-banco] .box-mine[data-cents='5000']")
    assert _cents(page, "[data-box=banco] .box-mine") == 1000
    assert errors == []
    context.close()


def test_issue10_a_restart_voids_the_round_and_the_page_says_what_came_back(
        browser: Any, serve: Serve, output_dir: Path) -> None:
    context, page, player = _player_page(browser, serve, "restart", lang="fr")
    _wait_open(page, 4)
    page.click(".chip-button[data-chip='5000']")
    page.click("[data-box=banco]")
    page.wait_for_selector("[data-box=banco] .box-mine[data-cents='5000']")
    assert _cents(page, "#balance") == WELCOME - 5000
    serve.stop()  # the dealer voids the open round and refunds it
    page.wait_for_selector("#connection.connection-down:not([hidden])", timeout=10_000)
    assert "Connexion perdue" in (page.text_content("#connection") or "")
    # A tap while the server is down says so in French (never "Failed to fetch").
    page.click("[data-box=punto]")
    page.wait_for_selector("#message:not([hidden])")
    assert "Serveur injoignable" in (page.text_content("#message") or "")
    serve.start()
    page.wait_for_selector("body[data-connection=open]", timeout=30_000)
    page.wait_for_function("(c) => document.querySelector('#balance').dataset.cents === c",
                           arg=str(WELCOME), timeout=15_000)
    page.wait_for_function("() => document.querySelector('#message').textContent"
                           ".startsWith('Coup annulé')", timeout=15_000)
    assert page.text_content("#message") == "Coup annulé : 50,00\u00a0€ rendus sur votre solde."
    assert _cents(page, "[data-box=banco] .box-mine") == 0
    assert _call(f"{serve.url}/api/me", token=player["token"])["balance"] == WELCOME
    # The recall lists the void coup as such, with what came back.
    page.wait_for_selector(".recall-item[data-status=void]")
    page.screenshot(path=str(output_dir / "page-live-restarted.png"))
    context.close()


def test_issue10_api_docs_render_offline_under_a_strict_csp(browser: Any, serve: Serve) -> None:
    """``/docs`` draws every operation from the server's own Swagger UI files: no request
    leaves the machine, and a strict Content-Security-Policy (no inline script) is no obstacle."""
    from .fake import STRICT_CSP

    page = browser.new_page()
    outside: list[str] = []
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if "Security Policy" in m.text else None)
    page.on("pageerror", lambda error: problems.append(str(error)))

    def local_only(route: Any) -> None:
        if route.request.url.startswith(serve.url):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    def with_csp(route: Any) -> None:
        answer = route.fetch()
        route.fulfill(response=answer, headers={**answer.headers,
                                                "content-security-policy": STRICT_CSP})

    page.route("**/*", local_only)
    page.route(f"{serve.url}/docs", with_csp)
    page.goto(f"{serve.url}/docs")
    page.wait_for_selector(".swagger-ui .opblock", timeout=30_000)
    assert page.locator(".opblock").count() >= 10
    assert page.locator(".opblock-summary-path[data-path='/api/tables/{table_id}/bets/batch']"
                        ).count() == 1
    assert outside == [] and problems == []
    page.close()
