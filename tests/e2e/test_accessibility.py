"""Accessibility of the player's page (issue 19), in Chromium with axe-core: no critical or
serious violation signed out, spectating, betting and settled, at desktop and phone widths;
one h1 and every part in a landmark; the focus goes to the table after signing up; a focused
chip's ring is not the chosen chip's. (The console's tabs and the dealer page are checked in
test_operator_console.py, on a real server.)"""

from __future__ import annotations

from typing import Any

import pytest

from .a11y import violations
from .fake import ORIGIN, FakeServer, coup, snapshot
from .test_phone import _open_round, _round

pytestmark = pytest.mark.e2e


def _natural_last() -> dict[str, Any]:
    last = coup(24)
    last.update({"natural": True, "punto": {"cards": ["4H", "5S"], "total": 9},
                 "banco": {"cards": ["3C", "KD"], "total": 3}})
    return last


@pytest.mark.parametrize("size", [(1280, 900), (360, 740)])
def test_issue19_player_page_has_no_serious_axe_violation(browser: Any,
                                                          size: tuple[int, int]) -> None:
    table = snapshot(phase="settled")
    table["last_result"] = last = _natural_last()
    table["coup_id"] = 24
    table["cards"] = [{"side": side, "position": position, "card": card}
                      for side in ("punto", "banco") for position, card in enumerate(last[side]["cards"])]
    server = FakeServer(lang="en", snapshot=table, recall=[coup(24)])
    context = browser.new_context(viewport={"width": size[0], "height": size[1]},
                                  locale="en-GB")
    page = context.new_page()
    server.attach(page)
    page.goto(f"{ORIGIN}/")
    page.wait_for_selector("#auth:not([hidden])")
    found = {"signed out": violations(page)}
    page.click("#auth-watch")
    page.wait_for_selector("body[data-connection=open]")
    page.wait_for_selector("#result[data-winner]")
    found["spectating"] = violations(page)
    # Signed up: the focus is on the table, not on <body>.
    page.click("#join")
    page.fill("#auth-username", "lea")
    page.fill("#auth-password", "secret12")
    page.click("#auth-submit")
    page.wait_for_selector("#user-box:not([hidden])")
    page.wait_for_function("() => document.activeElement && document.activeElement.id === 'felt'")
    server.send(_open_round(25))
    server.send({"type": "my-bets", "coup_id": 25, "my_bets": {"banco": 2500, "egalite": 1000},
                 "balance": 83_500})
    page.wait_for_selector("[data-box=banco] .box-mine[data-cents='2500']")
    found["betting"] = violations(page)
    for message in _round(25)[2:]:
        server.send(message)
    page.wait_for_selector("#payouts[data-coup='25']")
    page.wait_for_timeout(400)
    found["settled"] = violations(page)
    assert found == {state: [] for state in found}, found
    assert page.locator("h1").count() == 1
    assert server.errors == []
    context.close()


def test_issue19_focus_ring_is_not_the_chosen_chip(browser: Any) -> None:
    server = FakeServer(lang="en", snapshot=snapshot(phase="open"))
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-GB")
    context.add_init_script("localStorage.setItem('pb.token', 'fake-token')")
    page = context.new_page()
    server.attach(page)
    page.goto(f"{ORIGIN}/")
    page.wait_for_selector("body[data-connection=open]")
    page.focus("#table-select")
    for _ in range(12):  # Tab to a chip that is not the chosen one
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.matches('.chip-button:not(.selected)')"):
            break
    rings = page.evaluate("""() => {
      const focused = getComputedStyle(document.activeElement);
      const chosen = getComputedStyle(document.querySelector('.chip-button.selected .chip'));
      return {style: focused.outlineStyle, colour: focused.outlineColor,
              chosen: chosen.boxShadow};
    }""")
    assert rings["style"] == "dashed" and rings["colour"] == "rgb(255, 255, 255)", rings
    assert "rgb(212, 175, 55)" in rings["chosen"]  # the chosen chip: a gold ring
    context.close()
