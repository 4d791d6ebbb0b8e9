"""Tablets and landscape phones get a layout of their own (issue 19), on the fake server, in
Chromium.

At the tablet sizes (768×1024 and 820×1180 portrait, 1024×768 and 1180×820 landscape) and the
landscape phones (740×360, 844×390, 915×412), in the four languages, while bets are open: a
header of one row; the countdown, all five boxes and the whole chip rack on screen together
without scrolling, the rack fixed at the bottom of the window. On a landscape tablet the roads
are in a column beside the felt, on screen; on a portrait tablet the felt takes the width and
the roads follow it, their top on screen above the rack. And a whole round moves nothing: the
cumulative layout shift stays below 0.1 at each of these sizes.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from .fake import FakeServer
from .test_phone import LANGS, _check_betting_screen, _open_round, _round, touch_page

pytestmark = pytest.mark.e2e

PORTRAIT = [(768, 1024), (820, 1180)]
LANDSCAPE = [(1024, 768), (1180, 820)]
LANDSCAPE_PHONES = [(740, 360), (844, 390), (915, 412)]

#: where the felt and the roads are (viewport coordinates)
PANELS = """() => {
  const rect = (sel) => { const r = document.querySelector(sel).getBoundingClientRect();
    return {top: r.top, bottom: r.bottom, left: r.left, right: r.right}; };
  return {felt: rect('#felt'), roads: rect('.roads-panel'), rack: rect('#chips')};
}"""


@pytest.fixture
def tablet(browser: Any) -> Iterator[tuple[Any, FakeServer]]:
    """A signed-in player's page on a touch screen at an open table, stakes on three boxes."""
    with touch_page(browser, 1024, 768, {"banco": 2500, "egalite": 1000,
                                          "lion-banco": 1500}) as opened:
        yield opened


def _each_language(page: Any, width: int, height: int) -> Iterator[str]:
    page.set_viewport_size({"width": width, "height": height})
    for lang in LANGS:
        page.click(f"[data-lang='{lang}']")
        page.wait_for_function("(c) => document.documentElement.lang === c", arg=lang)
        page.wait_for_timeout(60)
        where = f"{width}x{height} {lang}"
        header = page.locator(".topbar").bounding_box()
        assert header["height"] <= 60, (where, header)
        _check_betting_screen(page, width, height, where)
        yield where


def test_issue19_a_landscape_tablet_has_the_felt_the_rack_and_the_roads_beside(
        tablet: tuple[Any, FakeServer]) -> None:
    page, _ = tablet
    for width, height in LANDSCAPE:
        for where in _each_language(page, width, height):
            panels = page.evaluate(PANELS)
            felt, roads, rack = panels["felt"], panels["roads"], panels["rack"]
            # The roads in a column of their own beside the felt, their top on screen.
            assert roads["left"] >= felt["right"], (where, panels)
            assert roads["top"] < felt["top"] + 40 and roads["bottom"] <= height, (where, panels)
            # The rack under the felt's column, not under the roads.
            assert rack["right"] <= roads["left"], (where, panels)


def test_issue19_a_portrait_tablet_has_the_felt_across_and_the_roads_below(
        tablet: tuple[Any, FakeServer]) -> None:
    page, _ = tablet
    for width, height in PORTRAIT:
        for where in _each_language(page, width, height):
            panels = page.evaluate(PANELS)
            felt, roads, rack = panels["felt"], panels["roads"], panels["rack"]
            assert felt["right"] - felt["left"] >= width - 40, (where, panels)
            # The roads follow the felt and begin on screen, above the rack.
            assert roads["top"] >= felt["bottom"] and roads["top"] < rack["top"] - 40, \
                (where, panels)


def test_issue19_a_landscape_phone_shows_countdown_boxes_and_rack_in_every_language(
        tablet: tuple[Any, FakeServer]) -> None:
    page, _ = tablet
    for width, height in LANDSCAPE_PHONES:
        for where in _each_language(page, width, height):
            boxes = page.evaluate("[...document.querySelectorAll('[data-box]')].map("
                                  "(b) => b.getBoundingClientRect().left)")
            cards = page.locator("#cards-banco").bounding_box()
            # Its own layout: the boxes beside the cards, not under them.
            assert min(boxes) >= cards["x"] + cards["width"], where


@pytest.mark.parametrize(("width", "height"), [*PORTRAIT, *LANDSCAPE, (915, 412)])
def test_issue19_a_whole_round_moves_nothing_on_a_tablet(
        tablet: tuple[Any, FakeServer], width: int, height: int) -> None:
    page, server = tablet
    page.set_viewport_size({"width": width, "height": height})
    found = {}
    for lang, coup_id in (("it", 40), ("en", 41)):
        page.click(f"[data-lang='{lang}']")
        page.wait_for_function("(c) => document.documentElement.lang === c", arg=lang)
        page.wait_for_timeout(250)
        since = page.evaluate("performance.now()")
        server.send(_open_round(coup_id))
        page.wait_for_timeout(150)
        for message in _round(coup_id, third=coup_id % 2 == 0):
            server.send(message)
            page.wait_for_timeout(120 if message["type"] == "card-dealt" else 60)
        page.wait_for_selector(f"#payouts[data-coup='{coup_id}']")
        page.wait_for_timeout(400)
        server.send(_open_round(coup_id + 100))
        page.wait_for_selector("#status[data-phase='open']")
        page.wait_for_timeout(300)
        shifts = page.evaluate("(since) => window.__cls(since)", since)
        found[lang] = (round(sum(s["v"] for s in shifts), 4), shifts[:6])
    print(f"{width}x{height}", {lang: cls for lang, (cls, _) in found.items()})
    assert all(cls < 0.1 for cls, _ in found.values()), found
