"""The table page's layout in Chromium, on a fake server (every request answered by the test):
each box's clear button (×) beside the player's chips, never over the box's words; the Lion
Bonus titles on at most two lines, also in the narrow windows where the side panel squeezes the
felt (1,100-1,280 px); every road named in the page's language.

Screenshots of the desktop (1366×900), narrow desktop (1100, 1180 and 1250 px wide) and phone
(390×844) layouts in the four languages go to ``test-output/``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from puntobanco import i18n
from puntobanco.rules import RuleSet
from puntobanco.server.settings import table_rules_to_json

from .conftest import STATIC_DIR

pytestmark = pytest.mark.e2e

ORIGIN = "http://table.test"
DESKTOP = {"width": 1366, "height": 900}
PHONE = {"width": 390, "height": 844}
#: the same page resized: the tablet layout (<= 1100 px), then the side panel squeezing the felt
VIEWPORTS = [(DESKTOP, "desktop"), *(({"width": width, "height": 900}, f"desktop-{width}")
                                     for width in (1100, 1180, 1250)), (PHONE, "phone")]
BOXES = ["lion-punto", "punto", "egalite", "banco", "lion-banco"]
#: a stake on every box (both Lion sides only to see both boxes with their clear button)
MY_BETS = {"punto": 2500, "banco": 5000, "egalite": 1000, "lion-punto": 1000, "lion-banco": 1500}
BIG_EYE_BOY = {"fr": "Grand œil", "it": "Occhio grande", "es": "Ojo grande", "en": "Big eye boy"}
TYPES = {".html": "text/html", ".js": "text/javascript", ".css": "text/css",
         ".svg": "image/svg+xml", ".png": "image/png"}


def _player(lang: str) -> dict[str, Any]:
    return {"id": 7, "username": "lea", "role": "player", "lang": lang, "balance": 87_000}


def _snapshot() -> dict[str, Any]:
    rules = table_rules_to_json(RuleSet(), betting_seconds=15)
    now = int(time.time() * 1000)
    winners = ["banco", "banco", "punto", "egalite", "punto", "punto", "banco", "punto"] * 3
    roads = [{"coup_id": i + 1, "winner": w, "punto_total": 5, "banco_total": 7, "natural": False}
             for i, w in enumerate(winners)]
    return {"id": 1, "name": "Sanremo", "rules": rules, "phase": "open", "round_no": 25,
            "coup_id": 25, "coup_in_shoe": 25, "deadline": now + 600_000, "server_time": now,
            "betting_seconds": 15, "spots": 1, "totals": {**MY_BETS, "punto": 12_500},
            "my_bets": MY_BETS, "cards": [], "last_result": None, "roads": roads,
            "shoe": {"id": 1, "shoe_no": 1, "commitment": "ab" * 32, "cards_left": 250,
                     "cut_card_out": False, "last_coup": False, "coups_dealt": 24,
                     "cut_index": 296, "burned": 4}}


def _serve(route: Any, lang: str) -> None:
    """Answer one request as the server would: the page's files, or the API's JSON."""
    path = route.request.url.removeprefix(ORIGIN).split("?")[0]
    if path.startswith("/api/"):
        snapshot = _snapshot()
        table = {key: snapshot[key] for key in ("id", "name", "rules", "phase", "spots")}
        answers: dict[str, Any] = {
            "/api/words": i18n.all_words(), "/api/me": _player(lang), "/api/me/coups": [],
            "/api/tables": [{**table, "next_rules": table["rules"], "players": 1}]}
        if route.request.method == "PATCH" and path == "/api/me":
            answers[path] = _player(json.loads(route.request.post_data or "{}")["lang"])
        route.fulfill(status=200, content_type="application/json", body=json.dumps(answers[path]))
        return
    file = STATIC_DIR / ("index.html" if path == "/" else path.removeprefix("/static/"))
    route.fulfill(status=200, content_type=TYPES.get(file.suffix, "application/octet-stream"),
                  body=file.read_bytes())


@pytest.fixture
def table_page(browser: Any) -> Iterator[Any]:
    """The page of a signed-in player at an open table with a stake on every box."""
    context = browser.new_context(viewport=DESKTOP, locale="fr-FR")
    context.add_init_script("localStorage.setItem('pb.token', 'fake-token')")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.route(f"{ORIGIN}/**", lambda route: _serve(route, "fr"))
    page.route_web_socket("**/ws/tables/*", lambda ws: ws.send(json.dumps(
        {"type": "snapshot", "table": _snapshot()})))
    page.goto(f"{ORIGIN}/")
    page.wait_for_selector("[data-box=lion-banco] .box-mine[data-cents='1500']")
    yield page
    assert errors == []
    context.close()


def _overlaps(page: Any, bet: str) -> list[str]:
    """The parts of a box that its visible clear button covers (and 'outside' if it sticks out)."""
    found: list[str] = page.evaluate("""(bet) => {
        const box = document.querySelector(`[data-box="${bet}"]`);
        const clear = box.querySelector('.box-clear');
        if (clear.hidden) return ['hidden'];
        const c = clear.getBoundingClientRect();
        const meet = (r) => r.width && r.height && c.left < r.right && r.left < c.right
          && c.top < r.bottom && r.top < c.bottom;
        const covered = [];
        for (const sel of ['.box-title', '.lion-mark', '.box-pays', '.box-limits', '.box-mine',
                           '.box-total', '.stack']) {
          const node = box.querySelector(sel);
          if (node && meet(node.getBoundingClientRect())) covered.push(sel);
        }
        const b = box.getBoundingClientRect();
        if (c.left < b.left || c.right > b.right || c.top < b.top || c.bottom > b.bottom) {
          covered.push('outside');
        }
        return covered;
    }""", bet)
    return found


def _title_lines(page: Any, bet: str) -> int:
    """How many lines a box's title takes."""
    lines: int = page.evaluate("""(bet) => {
        const title = document.querySelector(`[data-box="${bet}"] .box-title`);
        const range = document.createRange();
        range.selectNodeContents(title);
        const tops = new Set();
        for (const rect of range.getClientRects()) if (rect.height) tops.add(Math.round(rect.top));
        return tops.size;
    }""", bet)
    return lines


def test_clear_buttons_lion_titles_and_road_names_in_every_language(
        table_page: Any, output_dir: Path) -> None:
    page = table_page
    for viewport, name in VIEWPORTS:
        page.set_viewport_size(viewport)
        page.wait_for_timeout(200)  # the roads are drawn again after a resize
        for lang in ["fr", "it", "es", "en"]:
            page.click(f"[data-lang='{lang}']")
            page.wait_for_function("(c) => document.documentElement.lang === c", arg=lang)
            for bet in BOXES:
                assert page.text_content(f"[data-box={bet}] .box-title") == i18n.bet_name(bet, lang)
                assert _overlaps(page, bet) == [], (lang, name, bet)
            for bet in ("lion-punto", "lion-banco"):
                assert _title_lines(page, bet) <= 2, (lang, name, bet)
            assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
            assert page.text_content("[data-road=bigEyeBoy] figcaption") == BIG_EYE_BOY[lang]
            page.screenshot(path=str(output_dir / f"layout-{name}-{lang}.png"))
