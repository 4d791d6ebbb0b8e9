"""The whole table in a browser: a real server (temp SQLite, short betting window) and Chromium.

A new player signs up on the page, backs Banco with 25 € and the Lion Bonus on Banco with 10 €,
watches the coup dealt and settled, and reads the payouts. The test checks what the page shows
against the server's records and against the rules core settling the same cards itself: the
cards and totals, the payout lines in L6 order (main bets first, Lion Bonus after), the balance
(= 1,000 € − stakes + returns = ``GET /api/me``), the refusals in the player's language (M3, L1),
and the bet names in every language (SPEC: fr, it, es, en). Screenshots go to ``test-output/``.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from puntobanco import i18n
from puntobanco.bets import BetKind, settle_spot
from puntobanco.cards import parse_cards
from puntobanco.coup import Coup
from puntobanco.rules import RuleSet
from puntobanco.server.fair import check_shoe_json

pytestmark = pytest.mark.e2e

WELCOME = 100_000  # 1,000.00 € of play money for a new player
BETTING_SECONDS = 5
SHOE_TABLE_BETTING_SECONDS = 2  # the table whose shoe is played out: nobody bets there
CLOSED_SECONDS = 0.6  # "no more bets" shown before the first card (the server's pause)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _get(url: str, token: str | None = None) -> Any:
    request = urllib.request.Request(url, headers={"Accept": "application/json"})
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, chromium_path: str) -> Iterator[str]:
    """``puntobanco serve`` on a free port and a fresh SQLite file; the operator gives the two
    tables a 5-second betting window before anyone watches them (so before their first shoe)."""
    folder = tmp_path_factory.mktemp("live")
    port = _free_port()
    log = (folder / "serve.log").open("w")
    process = subprocess.Popen(
        [sys.executable, "-c", "from puntobanco.cli import main; main()", "serve",
         "--port", str(port), "--database-url", f"sqlite:///{folder / 'table.sqlite3'}",
         "--closed-seconds", str(CLOSED_SECONDS), "--card-seconds", "0.3",
         "--result-seconds", "1.5"],
        stdout=log, stderr=subprocess.STDOUT,
        env={**os.environ, "PUNTOBANCO_OPERATOR_PASSWORD": "e2e-operator-pass"})
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                _get(f"{url}/api/tables")
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    log.flush()
                    pytest.fail("the server did not start:\n"
                                + (folder / "serve.log").read_text(errors="replace"))
                time.sleep(0.2)
        operator = _post(f"{url}/api/login", {"username": "operator",
                                               "password": "e2e-operator-pass"})["token"]
        for table in _get(f"{url}/api/tables"):
            _post(f"{url}/api/tables/{table['id']}",
                  {"rules": {"betting_seconds": BETTING_SECONDS}}, operator, method="PATCH")
        yield url
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


def _text(page: Any, selector: str) -> str:
    """An element's text, with the no-break spaces of number formatting read as spaces."""
    text = str(page.locator(selector).first.text_content())
    return text.replace("\u00a0", " ").replace("\u202f", " ").strip()


def _shown_balance(page: Any) -> int:
    return int(page.get_attribute("#balance", "data-cents"))


def _wait_open_with_time(page: Any, seconds: float) -> None:
    """Wait for a betting window with at least ``seconds`` left (else take the next one)."""
    page.wait_for_function(
        """(need) => {
          const felt = document.querySelector('#felt');
          const secs = document.querySelector('.countdown-secs');
          return felt.dataset.phase === 'open' && secs && Number(secs.textContent) >= need;
        }""", arg=seconds, timeout=40_000)


def test_sign_up_bet_watch_the_coup_and_switch_language(
        browser: Any, server: str, output_dir: Path) -> None:
    context = browser.new_context(viewport={"width": 1366, "height": 900}, locale="fr-FR")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    # issue 21: the page bets on its WebSocket (no POST), the answers come back on it
    posted: list[str] = []
    page.on("request", lambda r: posted.append(r.url)
            if r.method == "POST" and "/bets" in r.url else None)
    frames: list[str] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda payload: frames.append(
        payload if isinstance(payload, str) else "")))
    page.goto(server + "/")
    page.wait_for_selector("body[data-ready=true]")

    # Sign up (the page starts in the browser's language: French here).
    assert _text(page, "#auth-title") == "Créer un compte"
    username = f"e2e_{int(time.time() * 1000) % 10**9}"
    page.fill("#auth-username", username)
    page.fill("#auth-password", "lion-bonus-2000")
    page.click("#auth-submit")
    page.wait_for_selector("#app:not([hidden])")
    token = page.evaluate("localStorage.getItem('pb.token')")
    assert token
    me = _get(f"{server}/api/me", token)
    player = me.get("player", me)
    assert player["username"] == username and player["balance"] == WELCOME
    page.wait_for_function("(c) => document.querySelector('#balance').dataset.cents === c",
                           arg=str(WELCOME))
    # Every box shows its limits (M2, L3) in euros.
    assert _text(page, "[data-box=lion-banco] .box-limits") == "10 € – 50 €"
    assert _text(page, "[data-box=egalite] .box-limits") == "10 € – 1 000 €"

    # Every change of the table's status, timed, to see what the player had time to read.
    page.evaluate("""() => {
        const status = document.querySelector('#status');
        window.statusLog = [];
        const note = () => window.statusLog.push(
            [performance.now(), status.dataset.phase, status.textContent]);
        new MutationObserver(note).observe(status, {subtree: true, childList: true,
                                                    characterData: true, attributes: true});
    }""")

    # Place Banco 25 € and Lion Bonus Banco 10 € while the betting is open (L4).
    _wait_open_with_time(page, 3)
    page.click(".chip-button[data-chip='2500']")
    page.click("[data-box=banco]")
    page.wait_for_selector("[data-box=banco] .box-mine[data-cents='2500']")
    page.click(".chip-button[data-chip='1000']")
    page.click("[data-box=lion-banco]")
    page.wait_for_selector("[data-box=lion-banco] .box-mine[data-cents='1000']")
    stakes = 2500 + 1000
    assert _shown_balance(page) == WELCOME - stakes

    # A refusal is the server's sentence in the player's language, and changes nothing (L1, M3).
    page.click("[data-box=lion-punto]")
    page.wait_for_selector("#message:not([hidden])")
    assert _text(page, "#message") == i18n.refusal("both-lion-sides", "fr")
    assert page.get_attribute("[data-box=lion-punto] .box-mine", "data-cents") == "0"
    assert _shown_balance(page) == WELCOME - stakes
    assert posted == [] and sum('"type":"bet"' in frame for frame in frames) == 3, frames

    # Watch the coup: four cards face down, turned in dealing order, then the payouts.
    page.wait_for_selector("#payouts tr.line", timeout=40_000)
    page.wait_for_selector("#felt[data-phase=settled]", timeout=20_000)
    # "Rien ne va plus" stayed on the table until the first card turned (the server's pause).
    log = page.evaluate("window.statusLog")
    start = next(i for i, (_, phase, _) in enumerate(log) if phase == "closed")
    end = next(i for i in range(start, len(log)) if log[i][1] != "closed")
    assert log[start][2] == "Rien ne va plus"
    assert log[end][1] == "dealt"
    assert log[end][0] - log[start][0] >= 1000 * CLOSED_SECONDS * 0.8, log[start:end + 1]
    recall = _get(f"{server}/api/me/coups?limit=5", token)
    coup = recall[0]
    assert coup["my_bets"] == {"banco": 2500, "lion-banco": 1000}
    assert page.get_attribute("#payouts", "data-coup") == str(coup["id"])

    # The cards shown are the coup's, face up, with its totals (R2).
    for side in ("punto", "banco"):
        shown = page.eval_on_selector_all(f"#cards-{side} .card:not(.face-down)",
                                          "cards => cards.map(c => c.dataset.card)")
        assert shown == coup[side]["cards"]
        assert _text(page, f"#total-{side}") == str(coup[side]["total"])
    assert page.get_attribute("#result", "data-winner") == coup["winner"]

    # The payout lines: in L6 order, as the rules core settles those very cards.
    rows = page.eval_on_selector_all("#payouts tr.line", """rows => rows.map(r => ({
        bet: r.dataset.bet, stake: Number(r.dataset.stake), net: Number(r.dataset.net),
        name: r.querySelector('.line-bet').textContent}))""")
    assert [row["bet"] for row in rows] == ["banco", "lion-banco"]
    assert [row["name"] for row in rows] == ["Banco", "Lion Bonus Banco"]
    dealt = Coup(punto=tuple(parse_cards(coup["punto"]["cards"])),
                 banco=tuple(parse_cards(coup["banco"]["cards"])))
    expected = settle_spot({BetKind.BANCO: 2500, BetKind.LION_BANCO: 1000}, dealt, RuleSet())
    assert [(row["bet"], row["stake"], row["net"]) for row in rows] == [
        (line.bet.value, line.stake, line.net) for line in expected]

    # The balance shown = the server's = 1,000 € − stakes + returns.
    returns = sum(line.returned for line in expected)
    assert [line["returned"] for line in coup["settlement"]] == [line.returned for line in expected]
    me = _get(f"{server}/api/me", token)
    server_balance = me.get("player", me)["balance"]
    assert server_balance == WELCOME - stakes + returns
    page.wait_for_function("(c) => document.querySelector('#balance').dataset.cents === c",
                           arg=str(server_balance))
    assert page.get_attribute(".payout-balance", "data-cents") == str(server_balance)
    assert page.get_attribute(".payout-returned", "data-cents") == str(returns)

    # The roads have the coup; the recall lists it.
    assert page.get_attribute("[data-road=bead]", "data-cells") != "0"
    page.wait_for_selector(f".recall-item[data-coup='{coup['id']}']")
    page.screenshot(path=str(output_dir / "e2e-desktop-fr.png"), full_page=True)

    # Switch language: the words change, the choice is stored for the player.
    for code in ("it", "es", "en", "fr"):
        page.click(f"[data-lang='{code}']")
        page.wait_for_function("(c) => document.documentElement.lang === c", arg=code)
        assert _text(page, "[data-box=egalite] .box-title") == i18n.bet_name("egalite", code)
        assert _text(page, "[data-box=punto] .box-title") == i18n.bet_name("punto", code)
        assert _text(page, "[data-box=banco] .box-title") == i18n.bet_name("banco", code)
        assert _text(page, "[data-box=lion-banco] .box-title") == i18n.bet_name("lion-banco", code)
        assert _text(page, ".balance-label") == i18n.word("balance", code)
        assert _text(page, "#payouts h2").startswith(i18n.word("payouts", code))
        assert _text(page, "#payouts tr.line .line-bet") == i18n.bet_name("banco", code)
        page.wait_for_function(
            "([url, token, code]) => fetch(url, {headers: {Authorization: 'Bearer ' + token}})"
            ".then(r => r.json()).then(m => (m.player || m).lang === code)",
            arg=[f"{server}/api/me", token, code])
        if code == "it":
            page.screenshot(path=str(output_dir / "e2e-desktop-it.png"))

    # A bet can be withdrawn while the betting is open; the stake comes back (L4).
    _wait_open_with_time(page, 3)
    before = _shown_balance(page)
    page.click(".chip-button[data-chip='1000']")
    page.click("[data-box=egalite]")
    page.wait_for_selector("[data-box=egalite] .box-mine[data-cents='1000']")
    assert _shown_balance(page) == before - 1000
    page.click("[data-box=egalite] .box-clear")
    page.wait_for_selector("[data-box=egalite] .box-mine[data-cents='0']", state="attached")
    assert _shown_balance(page) == before

    # The same table on a phone-sized screen.
    page.set_viewport_size({"width": 390, "height": 844})
    page.wait_for_timeout(300)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, "nothing sticks out sideways on a phone"
    page.screenshot(path=str(output_dir / "e2e-phone.png"))
    page.screenshot(path=str(output_dir / "e2e-phone-full.png"), full_page=True)

    assert errors == []
    context.close()


def _post(url: str, body: dict[str, Any], token: str | None = None, *,
          method: str = "POST") -> Any:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method=method,
                                     headers={"Content-Type": "application/json"})
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def test_table_list_and_the_shoe_checked_on_the_page(
        browser: Any, server: str, output_dir: Path) -> None:
    # The operator opens a one-deck table whose cut card comes out at once (S3): its shoe ends
    # after two or three coups and is revealed, and the page checks the commitment itself.
    operator = _post(f"{server}/api/login", {"username": "operator",
                                              "password": "e2e-operator-pass"})["token"]
    table = _post(f"{server}/api/tables", {"name": "Deauville", "rules": {
        "decks": 1, "cut_card": 40, "betting_seconds": SHOE_TABLE_BETTING_SECONDS}}, operator)
    player = _post(f"{server}/api/signup", {"username": f"shoe_{int(time.time()) % 10**6}",
                                            "password": "lion-bonus-2000", "lang": "en"})
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-GB")
    context.add_init_script(f"localStorage.setItem('pb.token', {json.dumps(player['token'])})")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(server + "/")
    page.wait_for_selector("#app:not([hidden])")

    # Several tables: the page lists them (once the list has come) and follows the one chosen.
    page.wait_for_function("() => document.querySelectorAll('#table-select option').length >= 3")
    options = page.eval_on_selector_all("#table-select option", "os => os.map(o => o.value)")
    assert str(table["id"]) in options and len(options) >= 3
    page.select_option("#table-select", str(table["id"]))
    page.wait_for_function("(n) => document.querySelector('#table-name').textContent === n",
                           arg="Deauville")
    # The page shows the new table's first commitment (not the one of the table it left).
    deadline = time.monotonic() + 30
    while (shoe_now := _get(f"{server}/api/tables/{table['id']}")["shoe"]) is None:
        assert time.monotonic() < deadline, "the table's first shoe did not start"
        time.sleep(0.1)
    first = shoe_now["commitment"]
    assert shoe_now["shoe_no"] == 1
    page.wait_for_selector(f"#fair-current[data-commitment='{first}']")

    page.wait_for_selector("#fair-verdict.ok", timeout=90_000)
    assert _text(page, "#fair-verdict") == "✓ verified"
    assert _text(page, "#fair-previous-label") == "Shoe 1"
    assert page.get_attribute("#fair-previous-hash", "title") == first
    # The server's record of that shoe agrees: revealed, and the same commitment.
    shoe = _get(f"{server}/api/shoes/{page.get_attribute('#fair-previous', 'data-shoe')}")
    assert shoe["status"] == "finished" and shoe["commitment"] == first
    assert check_shoe_json(shoe).ok
    # A new shoe, with its own commitment, follows the revealed one.
    page.wait_for_function("(c) => { const n = document.querySelector('#fair-current');"
                           " return n.dataset.commitment && n.dataset.commitment !== c; }",
                           arg=first, timeout=30_000)
    page.screenshot(path=str(output_dir / "e2e-shoe-checked.png"))
    assert errors == []
    context.close()
