"""The phone is the main table (issue 19), on the fake server, in Chromium.

At 360×740, 390×844 and 412×915, in the four languages, while bets are open: the header takes
at most 56 px; the countdown, all five boxes and the whole chip rack are on screen together
without scrolling, the rack fixed at the bottom of the window and nothing of the felt under it.
Landscape phones (740×360, 844×390) get a layout of their own with the same promise. And the
layout does not move between phases: the cumulative layout shift (Chromium's own
``layout-shift`` entries, PerformanceObserver) over a whole round, from one round's opening to the
next, stays below 0.1 at every size from 320 to 1920 px.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from typing import Any

import pytest

from .fake import ORIGIN, FakeServer, coup, snapshot

pytestmark = pytest.mark.e2e

LANGS = ["fr", "it", "es", "en"]
PHONES = [(360, 740), (390, 844), (412, 915)]
LANDSCAPE = [(740, 360), (844, 390)]
#: every size a round is played at: phones, landscape phones, tablets, desktops
CLS_SIZES = [(320, 640), (360, 740), (412, 915), (740, 360), (768, 1024), (1024, 768),
             (1280, 800), (1920, 1080)]

#: where the parts of a betting phone screen are (viewport coordinates)
PHONE_PARTS = """() => {
  const rect = (el) => { const r = el.getBoundingClientRect();
    return {top: r.top, bottom: r.bottom, left: r.left, right: r.right, width: r.width}; };
  const chips = document.querySelector('#chips');
  return {
    header: rect(document.querySelector('.topbar')),
    countdown: rect(document.querySelector('#countdown')),
    countdownShown: getComputedStyle(document.querySelector('#countdown')).visibility === 'visible'
      && document.querySelector('#countdown .countdown-secs').textContent !== '',
    boxes: [...document.querySelectorAll('[data-box]')].map(rect),
    rack: rect(chips),
    rackPosition: getComputedStyle(chips).position,
    chips: [...document.querySelectorAll('.chip-button')].map(rect),
    scrollY: window.scrollY,
    scrollWidth: document.documentElement.scrollWidth,
  };
}"""

#: the layout shift Chromium reports from now on (window.__cls() reads the sum)
CLS_OBSERVER = """
  window.__shifts = [];
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (!entry.hadRecentInput) window.__shifts.push({t: entry.startTime, v: entry.value,
        who: entry.sources.map((s) => s.node ? (s.node.id || s.node.className || s.node.nodeName)
          : '?').join(',')});
    }
  }).observe({type: 'layout-shift', buffered: true});
  window.__cls = (since) => window.__shifts.filter((s) => s.t >= since);
"""


def _open_round(coup_id: int) -> dict[str, Any]:
    now = int(time.time() * 1000)
    return {"type": "round-opened", "round_no": coup_id, "coup_id": coup_id,
            "coup_in_shoe": coup_id, "last_coup": False, "deadline": now + 600_000,
            "server_time": now, "seconds": 15}


def _round(coup_id: int, *, third: bool = True) -> list[dict[str, Any]]:
    """One whole round as the server tells it: bets, closed, five cards, result, settlement."""
    dealt = coup(coup_id)
    dealt["coup_in_shoe"] = coup_id
    cards = [("punto", 0, "4H", 4, None), ("banco", 0, "3C", 4, 3), ("punto", 1, "6S", 0, 3),
             ("banco", 1, "KD", 0, 3)]
    if third:
        cards.append(("punto", 2, "9D", 9, 3))
        cards.append(("banco", 2, "5S", 9, 8))
    messages: list[dict[str, Any]] = [
        {"type": "my-bets", "coup_id": coup_id, "my_bets": {"banco": 2500, "lion-punto": 1000},
         "balance": 83_500},
        {"type": "bet-totals", "coup_id": coup_id,
         "totals": {"banco": 12_500, "lion-punto": 1000, "punto": 4000}},
        {"type": "bets-closed", "round_no": coup_id, "coup_id": coup_id}]
    for side, position, card, punto, banco in cards:
        messages.append({"type": "card-dealt", "coup_id": coup_id, "side": side,
                         "position": position, "card": card, "punto_total": punto,
                         "banco_total": banco})
    messages += [
        {"type": "coup-dealt", "coup": dealt, "cards_left": 240, "cut_card_out": False},
        {"type": "settlement", "coup_id": coup_id, "balance": 83_500,
         "lines": dealt["settlement"]},
        {"type": "round-settled", "round_no": coup_id, "coup_id": coup_id,
         "winner": "punto", "shoe_finished": False}]
    return messages


@contextlib.contextmanager
def touch_page(browser: Any, width: int, height: int, my_bets: dict[str, int]
               ) -> Iterator[tuple[Any, FakeServer]]:
    """A signed-in player's page on a touch screen at an open table holding ``my_bets`` (ready
    once the last of them is drawn), with the layout-shift observer; no page error by the end."""
    server = FakeServer(snapshot=snapshot(phase="open", my_bets=my_bets))
    context = browser.new_context(viewport={"width": width, "height": height}, locale="fr-FR",
                                  has_touch=True)
    context.add_init_script("localStorage.setItem('pb.token', 'fake-token')")
    context.add_init_script(CLS_OBSERVER)
    page = context.new_page()
    server.attach(page)
    page.goto(f"{ORIGIN}/")
    page.wait_for_selector("body[data-connection=open]")
    box, cents = next(iter(reversed(my_bets.items())))
    page.wait_for_selector(f"[data-box={box}] .box-mine[data-cents='{cents}']")
    yield page, server
    assert server.errors == []
    context.close()


@pytest.fixture
def phone(browser: Any) -> Iterator[tuple[Any, FakeServer]]:
    """A signed-in player's page at an open table, a stake on two boxes."""
    with touch_page(browser, 360, 740, {"punto": 1000, "banco": 2500}) as opened:
        yield opened


def _check_betting_screen(page: Any, width: int, height: int, where: str) -> None:
    parts = page.evaluate(PHONE_PARTS)
    assert parts["scrollY"] == 0 and parts["scrollWidth"] <= width, (where, parts)
    assert parts["countdownShown"], where
    header = parts["header"]
    rack = parts["rack"]
    assert parts["rackPosition"] == "fixed", where
    assert abs(rack["bottom"] - height) < 1, (where, rack)
    count = parts["countdown"]
    assert count["top"] >= header["bottom"] - 0.5 and count["bottom"] <= rack["top"] + 0.5, \
        (where, "countdown", count, rack)
    for box in parts["boxes"]:
        assert box["top"] >= header["bottom"] - 0.5, (where, "box under the header", box)
        assert box["bottom"] <= rack["top"] + 0.5, (where, "box under the rack", box, rack)
        assert box["left"] >= 0 and box["right"] <= width, (where, box)
    assert len(parts["chips"]) >= 4
    for chip in parts["chips"]:
        assert chip["left"] >= 0 and chip["right"] <= width + 0.5, (where, "chip cut", chip)
        assert chip["top"] >= rack["top"] - 8 and chip["bottom"] <= height, (where, chip)


def test_issue19_phone_shows_countdown_boxes_and_rack_together(
        phone: tuple[Any, FakeServer]) -> None:
    page, _ = phone
    for width, height in PHONES:
        page.set_viewport_size({"width": width, "height": height})
        for lang in LANGS:
            page.click(f"[data-lang='{lang}']")
            page.wait_for_function("(c) => document.documentElement.lang === c", arg=lang)
            page.wait_for_timeout(50)
            header = page.locator(".topbar").bounding_box()
            assert header["height"] <= 56, (width, lang, header)
            _check_betting_screen(page, width, height, f"{width}x{height} {lang}")
    # Landscape phones: their own layout, the same promise.
    for width, height in LANDSCAPE:
        page.set_viewport_size({"width": width, "height": height})
        for lang in ("fr", "es"):
            page.click(f"[data-lang='{lang}']")
            page.wait_for_function("(c) => document.documentElement.lang === c", arg=lang)
            page.wait_for_timeout(50)
            assert page.locator(".topbar").bounding_box()["height"] <= 56, (width, lang)
            _check_betting_screen(page, width, height, f"landscape {width}x{height} {lang}")
    # A tap on a box while the chips sit fixed at the bottom: a chip is chosen and placed.
    page.set_viewport_size({"width": 360, "height": 740})
    page.tap(".chip-button[data-chip='1000']")
    assert page.get_attribute(".chip-button[data-chip='1000']", "aria-pressed") == "true"


def test_issue19_a_whole_round_moves_nothing_at_every_size(
        phone: tuple[Any, FakeServer]) -> None:
    page, server = phone
    found = {}
    for number, (width, height) in enumerate(CLS_SIZES):
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(250)
        since = page.evaluate("performance.now()")
        coup_id = 30 + number
        server.send(_open_round(coup_id))
        page.wait_for_timeout(150)
        for message in _round(coup_id, third=number % 2 == 0):
            server.send(message)
            page.wait_for_timeout(120 if message["type"] == "card-dealt" else 60)
        page.wait_for_selector(f"#payouts[data-coup='{coup_id}']")
        page.wait_for_timeout(400)
        server.send(_open_round(coup_id + 100))
        page.wait_for_selector("#status[data-phase='open']")
        page.wait_for_timeout(300)
        shifts = page.evaluate("(since) => window.__cls(since)", since)
        found[f"{width}x{height}"] = (round(sum(s["v"] for s in shifts), 4), shifts[:6])
    print({size: cls for size, (cls, _) in found.items()})
    assert all(cls < 0.1 for cls, _ in found.values()), found
