"""The player's page defects found in review (issue 19), each in Chromium on the fake server.

Game recall keeps the coup the player opened, and its shoe check, across settlements; the win
overlay's figures are the payouts panel's and it covers neither the cards nor the result;
spectators make no signed-in request and see no "Your recent coups"; a dropped connection counts
down to its next try, comes back within 2 s of the server, and meanwhile disables what cannot
work and never says "Place your bets"; refusals give the amount and the limit, and a chip that
would pass a box's maximum places the maximum instead, with a note; a database outage pauses
the table in the player's language and clears by itself.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import pytest

from .fake import ORIGIN, FakeServer, coup, snapshot
from .test_phone import _open_round, _round

pytestmark = pytest.mark.e2e


def _page(browser: Any, server: FakeServer, *, size: tuple[int, int] = (1280, 900),
          signed_in: bool = True, locale: str = "en-GB") -> Any:
    context = browser.new_context(viewport={"width": size[0], "height": size[1]}, locale=locale)
    if signed_in:
        context.add_init_script("localStorage.setItem('pb.token', 'fake-token')")
    page = context.new_page()
    server.attach(page)
    page.goto(f"{ORIGIN}/")
    return page


@pytest.fixture
def open_table(browser: Any) -> Iterator[tuple[Any, FakeServer]]:
    settled = coup(24)
    server = FakeServer(lang="en", snapshot=snapshot(phase="open"), recall=[settled])
    page = _page(browser, server)
    page.wait_for_selector("body[data-connection=open]")
    yield page, server
    assert server.errors == []
    page.context.close()


def test_issue19_recall_keeps_the_opened_coup_and_its_check(
        open_table: tuple[Any, FakeServer]) -> None:
    page, server = open_table
    page.wait_for_selector(".recall-item[data-coup='24'] summary")
    page.click(".recall-item[data-coup='24'] summary")
    page.click(".recall-item[data-coup='24'] .recall-check button")
    page.wait_for_function("() => document.querySelector("
                           "\".recall-item[data-coup='24'] .shoe-check\").textContent.length > 3")
    check = page.text_content(".recall-item[data-coup='24'] .shoe-check")
    # A coup is played and settled: the recall is drawn again with the new coup on top.
    newer = coup(40)
    server.recall = [newer, coup(24)]
    for message in _round(40):
        server.send(message)
    page.wait_for_selector(".recall-item[data-coup='40']")
    assert page.evaluate("document.querySelector(\".recall-item[data-coup='24'] details\").open")
    assert page.text_content(".recall-item[data-coup='24'] .shoe-check") == check
    assert not page.evaluate("document.querySelector(\".recall-item[data-coup='40'] details\").open")


OVERLAPS = """() => {
  const o = document.querySelector('#outcome').getBoundingClientRect();
  const hit = [];
  for (const sel of ['#cards-punto', '#cards-banco', '#result', '.hand-punto', '.hand-banco']) {
    const r = document.querySelector(sel).getBoundingClientRect();
    if (r.width && o.left < r.right && r.left < o.right && o.top < r.bottom && r.top < o.bottom) {
      hit.push(sel);
    }
  }
  return hit;
}"""


@pytest.mark.parametrize("size", [(360, 740), (768, 1024), (1280, 800)])
def test_issue19_overlay_says_the_payouts_figures_and_covers_no_card(
        open_table: tuple[Any, FakeServer], size: tuple[int, int]) -> None:
    page, server = open_table
    page.set_viewport_size({"width": size[0], "height": size[1]})
    # A tie with the stake on Player: the stake comes back (a push), €100.00, net 0.
    tie = coup(41)
    tie.update({"winner": "egalite", "punto": {"cards": ["4H", "3S"], "total": 7},
                "banco": {"cards": ["7C", "KD"], "total": 7}, "natural": False,
                "my_bets": {"punto": 10_000}})
    line = {"bet": "punto", "stake": 10_000, "outcome": "push", "net": 0, "pays": "",
            "detail": "push", "returned": 10_000}
    server.send(_open_round(41))
    for message in (
            {"type": "my-bets", "coup_id": 41, "my_bets": {"punto": 10_000}, "balance": 77_000},
            {"type": "bets-closed", "round_no": 41, "coup_id": 41},
            {"type": "coup-dealt", "coup": tie, "cards_left": 240, "cut_card_out": False},
            {"type": "settlement", "coup_id": 41, "balance": 87_000, "lines": [line]},
            {"type": "round-settled", "round_no": 41, "coup_id": 41, "winner": "egalite",
             "shoe_finished": False}):
        server.send(message)
    page.wait_for_selector("#outcome:not([hidden])")
    page.wait_for_selector("#payouts[data-coup='41'] .payout-returned")
    assert page.text_content("#outcome .outcome-title") == "Stake returned"
    assert page.get_attribute("#outcome .outcome-returned", "data-cents") == "10000"
    panel_back = page.text_content("#payouts .payout-returned")
    assert page.text_content("#outcome .outcome-returned") == panel_back == "↩ €100.00"
    panel_net = page.get_attribute("#payouts .payout-net", "data-cents")
    assert page.get_attribute("#outcome .outcome-net", "data-cents") == panel_net == "0"
    assert page.evaluate(OVERLAPS) == [], size


def test_issue19_a_spectator_makes_no_signed_in_request(browser: Any) -> None:
    server = FakeServer(lang="en", snapshot=snapshot(phase="open"), recall=[coup(24)])
    page = _page(browser, server, signed_in=False)
    console: list[str] = []
    page.on("console", lambda m: console.append(m.text) if m.type == "error" else None)
    page.wait_for_selector("#auth:not([hidden])")
    page.click("#auth-watch")
    page.wait_for_selector("body[data-connection=open]")
    page.wait_for_selector("[data-road=bead][data-cells='24']")
    for message in _round(40):
        server.send(message)
    page.wait_for_selector("#status[data-phase='settled']")
    page.wait_for_timeout(200)
    asked = [path for _, path, _ in server.requests if path.startswith("/api/me")]
    assert asked == [], asked
    assert not page.is_visible(".recall-panel")
    assert console == []
    page.context.close()


def test_issue19_reconnecting_counts_down_disables_and_returns_fast(
        open_table: tuple[Any, FakeServer]) -> None:
    page, server = open_table
    page.wait_for_selector("#status[data-phase='open']")
    assert page.get_attribute(".control-repeat", "aria-disabled") == "false"  # last bets known
    # The server goes away: the banner counts down to the next try.
    server.kill()
    page.wait_for_selector("#connection:not([hidden])")
    seen = set()
    began = time.monotonic()
    while time.monotonic() - began < 4:
        seen.add(page.text_content("#connection"))
        page.wait_for_timeout(100)
    counts = {int(m.group(1)) for text in seen if (m := re.search(r"in (\d+) s", text or ""))}
    assert len(counts) >= 2 or any("reconnecting…" in (text or "") for text in seen), seen
    # Nothing that needs the server looks usable, and the felt does not invite bets.
    for name in ("undo", "clear_all", "repeat", "double"):
        assert page.get_attribute(f".control-{name}", "aria-disabled") == "true", name
    assert page.text_content("#status") == "Offline"
    assert not page.is_visible("#countdown")
    # Back: the page is live again within 2 s of the server's return.
    page.wait_for_timeout(1500)
    server.down = False
    back = time.monotonic()
    page.wait_for_selector("body[data-connection=open]", timeout=5000)
    took = time.monotonic() - back
    print(f"page back {took:.2f} s after the server")
    assert took < 2.0, took
    assert page.text_content("#status") == "Place your bets"
    assert page.get_attribute(".control-repeat", "aria-disabled") == "false"


def test_issue19_refusals_give_figures_and_a_chip_stops_at_the_maximum(
        open_table: tuple[Any, FakeServer]) -> None:
    page, server = open_table
    # Lion Bonus Banker holds €40.00 of its €50.00 maximum; a €25.00 chip places €10.00.
    server.send({"type": "my-bets", "coup_id": 25, "my_bets": {"lion-banco": 4000},
                 "balance": 83_000})
    page.wait_for_selector("[data-box=lion-banco] .box-mine[data-cents='4000']")
    server.bet_answers["POST /api/tables/1/bets"] = (200, {
        "my_bets": {"lion-banco": 5000}, "balance": 82_000})
    page.click(".chip-button[data-chip='2500']")
    sent = len(server.requests)
    page.click("[data-box=lion-banco]")
    page.wait_for_selector("[data-box=lion-banco] .box-mine[data-cents='5000']")
    posts = [body for method, path, body in server.requests[sent:] if method == "POST"]
    assert [body["stake"] for body in posts] == [1000]
    assert page.text_content("#message") == (
        "Placed €10.00, not €25.00: Lion Bonus Banker takes at most €50.00.")
    # At the maximum: said at once, nothing sent.
    sent = len(server.requests)
    page.click("[data-box=lion-banco]")
    page.wait_for_function("() => document.querySelector('#message').textContent"
                           ".includes('is at its maximum')")
    assert page.text_content("#message") == "Lion Bonus Banker is at its maximum (€50.00)."
    assert [r for r in server.requests[sent:] if r[0] == "POST"] == []
    # The server's refusal (another limit: below the minimum) says the amount and the limit.
    # (the operator raised Player's minimum to €20.00 with this shoe)
    table = {**server.snapshot, "my_bets": {"lion-banco": 5000}}
    table["rules"] = {**table["rules"], "limits": {**table["rules"]["limits"],
                                                   "punto": [2000, 500_000]}}
    server.send({"type": "snapshot", "table": table})
    server.bet_answers["POST /api/tables/1/bets"] = (422, {"error": {
        "code": "below-minimum", "message": "The stake is below this box's minimum."}})
    page.click(".chip-button[data-chip='1000']")
    page.click("[data-box=punto]")
    page.wait_for_function("() => document.querySelector('#message').textContent"
                           ".startsWith('The stake is below')")
    assert page.text_content("#message") == (
        "The stake is below this box's minimum. (stake €10.00; minimum €20.00)")


@pytest.mark.parametrize(("lang", "words"), [
    ("fr", "La table est en pause : la base de données est injoignable."),
    ("it", "Il tavolo è in pausa: il disco del database è pieno."),
    ("es", "La mesa está en pausa: la base de datos no responde."),
    ("en", "The table has paused: the database's disk is full.")])
def test_issue19_database_outage_pauses_betting_in_every_language(
        browser: Any, lang: str, words: str) -> None:
    server = FakeServer(lang=lang, snapshot=snapshot(phase="open", my_bets={"banco": 2500}))
    page = _page(browser, server, locale={"fr": "fr-FR", "it": "it-IT", "es": "es-ES",
                                          "en": "en-GB"}[lang])
    page.wait_for_selector("body[data-connection=open]")
    code = "storage-full" if lang in ("it", "en") else "database-unavailable"
    server.send({"type": "database", "available": False, "code": code,
                 "since": int(time.time() * 1000)})
    page.wait_for_selector("#paused:not([hidden])")
    assert (page.text_content("#paused") or "").startswith(words)
    assert page.get_attribute(".control-double", "aria-disabled") == "true"
    sent = len(server.requests)
    page.click("[data-box=punto]")
    page.wait_for_selector("#message:not([hidden])")
    assert (page.text_content("#message") or "").startswith(words)
    assert [r for r in server.requests[sent:] if r[0] != "GET"] == []
    server.send({"type": "database", "available": True, "code": None, "since": None})
    page.wait_for_selector("#paused", state="hidden")
    assert page.get_attribute(".control-double", "aria-disabled") == "false"
    assert server.errors == []
    page.context.close()


def test_issue19_hand_dealt_messages_correct_void_and_update_the_shoe(
        open_table: tuple[Any, FakeServer]) -> None:
    """The messages of a hand-dealt table (issue 17's catalogue): card-corrected, round-voided
    and shoe-event change the felt in place, in the player's language."""
    page, server = open_table
    server.send({"type": "my-bets", "coup_id": 25, "my_bets": {"banco": 2500}, "balance": 84_500})
    page.wait_for_selector("[data-box=banco] .box-mine[data-cents='2500']")
    server.send({"type": "bets-closed", "round_no": 25, "coup_id": 25})
    for side, position, card, punto, banco in [("punto", 0, "4H", 4, None),
                                               ("banco", 0, "3C", 4, 3),
                                               ("punto", 1, "2S", 6, 3),
                                               ("banco", 1, "KD", 6, 3)]:
        server.send({"type": "card-dealt", "coup_id": 25, "side": side, "position": position,
                     "card": card, "punto_total": punto, "banco_total": banco})
    page.wait_for_selector("#cards-banco .pos-1 .card[data-card='KD']")
    server.send({"type": "card-corrected", "side": "banco", "position": 1, "card": "4D",
                 "was": "KD", "punto_total": 6, "banco_total": 7})
    page.wait_for_selector("#cards-banco .pos-1 .card[data-card='4D']")
    assert page.text_content("#total-banco") == "7"
    assert (page.text_content("#message") or "").startswith("Card corrected: K")
    server.send({"type": "my-bets", "coup_id": 25, "my_bets": {}, "balance": 87_000})
    server.send({"type": "round-voided", "round_no": 25, "coup_id": 25,
                 "cards": ["4H", "3C", "2S", "4D"]})
    page.wait_for_function("() => document.querySelector('#message').textContent"
                           ".startsWith('Round voided')")
    assert page.text_content("#message") == "Round voided: €25.00 returned to your balance."
    assert page.locator("#felt .card").count() == 0
    assert page.get_attribute("#balance", "data-cents") == "87000"
    shoe = {**server.snapshot["shoe"], "cards_left": 200, "cut_card_out": True}
    server.send({"type": "shoe-event", "event": "cut-card", "shoe": shoe})
    page.wait_for_selector("#shoe-left[data-cards='200']")
    assert "Cut card" in (page.text_content("#shoe-flags") or "")
