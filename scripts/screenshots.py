"""The README's phone screenshots, made in Debian's Chromium on the page's fake server (the one the
browser tests use: every request answered at once, so the page is in the same state every time).

    .venv/bin/python scripts/screenshots.py     # writes docs/img/phone-*.png, tablet-*.png

Four pictures: betting at 390×844 (French: the countdown, the five boxes and the fixed chip
rack on one screen), a settled coup at 390×844 (English: the result, the overlay over the boxes,
the payouts below), a landscape phone at 844×390 (Spanish: the boxes beside the cards), and a
landscape tablet at 1024×768 (Italian: the felt, the rack under it, the roads in a column beside).
"""

from __future__ import annotations

import shutil
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402
from tests.e2e.conftest import CHROMIUM_ARGS  # noqa: E402
from tests.e2e.fake import ORIGIN, FakeServer, coup, snapshot  # noqa: E402

OUT = ROOT / "docs" / "img"


def _page(browser: Any, server: FakeServer, size: tuple[int, int], locale: str) -> Any:
    context = browser.new_context(viewport={"width": size[0], "height": size[1]},
                                  device_scale_factor=1, locale=locale, reduced_motion="reduce")
    context.add_init_script("localStorage.setItem('pb.token', 'fake-token')")
    page = context.new_page()
    server.attach(page)
    page.goto(f"{ORIGIN}/")
    page.wait_for_selector("body[data-connection=open]")
    return page


def _betting(lang: str) -> FakeServer:
    table = snapshot(phase="open", my_bets={"banco": 5000, "egalite": 1000, "lion-banco": 2500})
    table["deadline"] = int(time.time() * 1000) + 11_500
    table["totals"] = {"punto": 42_500, "banco": 61_000, "egalite": 3000, "lion-punto": 2000,
                       "lion-banco": 4500}
    return FakeServer(lang=lang, snapshot=table, recall=[coup(24)])


def _settled(lang: str) -> FakeServer:
    table = snapshot(phase="settled", my_bets={"punto": 5000, "lion-punto": 1000})
    last = coup(25)
    last.update({"winner": "punto", "natural": True, "coup_in_shoe": 25,
                 "punto": {"cards": ["4H", "5S"], "total": 9},
                 "banco": {"cards": ["QC", "6D"], "total": 6}})
    table.update({"coup_id": 25, "last_result": last,
                  "cards": [{"side": side, "position": position, "card": card}
                            for side in ("punto", "banco")
                            for position, card in enumerate(last[side]["cards"])]})
    return FakeServer(lang=lang, snapshot=table, recall=[last, coup(24)])


def main() -> None:
    chromium = shutil.which("chromium")
    if chromium is None:
        raise SystemExit("Debian's chromium is needed: make browser installs it.")
    OUT.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, headless=True,
                                             args=CHROMIUM_ARGS)
        page = _page(browser, _betting("fr"), (390, 844), "fr-FR")
        page.click(".chip-button[data-chip='2500']")
        page.wait_for_timeout(300)
        page.screenshot(path=str(OUT / "phone-betting-fr.png"))

        server = _settled("en")
        page = _page(browser, server, (390, 844), "en-GB")
        server.send({"type": "settlement", "coup_id": 25, "balance": 96_000, "lines": [
            {"bet": "punto", "stake": 5000, "outcome": "win", "net": 5000, "pays": "1:1",
             "detail": "win", "returned": 10_000},
            {"bet": "lion-punto", "stake": 1000, "outcome": "win", "net": 1000, "pays": "1:1",
             "detail": "natural", "returned": 2000}]})
        page.wait_for_selector("#outcome:not([hidden])")
        page.wait_for_timeout(300)
        page.screenshot(path=str(OUT / "phone-settled-en.png"))

        page = _page(browser, _betting("es"), (844, 390), "es-ES")
        page.wait_for_timeout(300)
        page.screenshot(path=str(OUT / "phone-landscape-es.png"))

        page = _page(browser, _betting("it"), (1024, 768), "it-IT")
        page.click(".chip-button[data-chip='5000']")
        page.wait_for_timeout(300)
        page.screenshot(path=str(OUT / "tablet-landscape-it.png"))
        browser.close()
    for path in sorted([*OUT.glob("phone-*.png"), *OUT.glob("tablet-*.png")]):
        print(f"{path.relative_to(ROOT)}  {path.stat().st_size // 1024} KB")


if __name__ == "__main__":
    main()
