"""Issue 21, fifth pass: a server-dealt coup's first four cards come in one write; the page still
turns them one by one, Punto's and Banco's in turn (R3), at the pace the server announces
(``reveal_after_ms``, docs/api.md), the totals always those of the cards shown so far (R2), and
the result only once its last card has landed — on a phone and on a desktop.

A recorder (an init script) notes, at every change of the felt, which cards show their face and
the totals shown, with the page's clock: the first test's messages come from the fake server
(``fake.py``) all at once, the second's from a real server dealing at its own pace.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest

from puntobanco.cards import Card
from puntobanco.rules import hand_total
from server.support import fast_settings, running

from .fake import ORIGIN, FakeServer, snapshot

pytestmark = pytest.mark.e2e

SIZES = {"phone": (390, 844), "desktop": (1280, 900)}
#: every change of the felt: when, the cards with a face (side, place, card, turned), the totals
RECORD = """
window.__felt = [];
new MutationObserver(() => {
  const felt = document.querySelector('#felt');
  if (!felt) return;
  const cards = [];
  for (const side of ['punto', 'banco']) {
    const hand = document.querySelector('#cards-' + side);
    if (!hand) continue;
    [...hand.children].forEach((slot, position) => {
      const card = slot.querySelector('.card[data-card]');
      if (card) cards.push([side, position, card.dataset.card,
                            !card.classList.contains('face-down')]);
    });
  }
  const total = (side) => (document.querySelector('#total-' + side) || {}).textContent || '';
  const result = document.querySelector('#felt .result');
  const winner = result ? [...result.classList].find((name) => name.startsWith('result-')) : '';
  window.__felt.push({at: performance.now(), cards, punto: total('punto'),
                      banco: total('banco'), winner: (winner || '').slice(7)});
}).observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
"""
#: Punto 4H 5S = 9, a natural; Banco 3C KD = 3 (R4: neither draws)
CARDS = [("punto", 0, "4H", 4, 0), ("banco", 0, "3C", 4, 3), ("punto", 1, "5S", 9, 3),
         ("banco", 1, "KD", 9, 3)]


def _natural(coup_id: int) -> dict[str, Any]:
    return {"id": coup_id, "table_id": 1, "shoe_id": 1, "shoe_no": 1, "coup_in_shoe": 25,
            "round_no": coup_id, "status": "dealt",
            "punto": {"cards": ["4H", "5S"], "total": 9}, "banco": {"cards": ["3C", "KD"],
                                                                     "total": 3},
            "winner": "punto", "natural": True, "margin": 6, "cards": [], "dealt_at": None,
            "settled_at": None}


def _appearances(records: list[dict[str, Any]]) -> list[tuple[float, str, int, str]]:
    """When each card's face was set (it turns over in the next two frames): (time, side,
    place, card), in that order; every card has turned by the last change."""
    first: dict[tuple[str, int], tuple[float, str, int, str]] = {}
    for record in records:
        for side, position, card, _ in record["cards"]:
            if (side, position) not in first:
                first[side, position] = (record["at"], side, position, card)
    assert all(turned for *_, turned in records[-1]["cards"]), records[-1]
    return sorted(first.values())


def _totals_follow_the_cards(records: list[dict[str, Any]]) -> None:
    """R2: at every change, each side's total shown is that of its cards with a face shown
    (the card turning counts from the moment its face is set: its total comes with it)."""
    for record in records:
        for side in ("punto", "banco"):
            values = [Card.parse(card).value for s, _, card, _ in record["cards"] if s == side]
            shown = record[side]
            assert shown == (str(hand_total(values)) if values else shown), record


@pytest.mark.parametrize("size", SIZES)
def test_four_cards_arriving_together_are_turned_in_order_with_a_visible_gap(
        browser: Any, size: str) -> None:
    server = FakeServer(lang="en", snapshot=snapshot(phase="open"))
    context = browser.new_context(viewport=dict(zip(("width", "height"), SIZES[size],
                                                    strict=True)), locale="en-GB")
    context.add_init_script("localStorage.setItem('pb.token', 'fake-token')")
    context.add_init_script(RECORD)
    page = context.new_page()
    server.attach(page)
    page.goto(f"{ORIGIN}/")
    page.wait_for_selector("body[data-connection=open]")
    server.send({"type": "bets-closed", "round_no": 25, "coup_id": 25})
    page.wait_for_selector("#felt[data-phase=closed]")
    page.evaluate("window.__felt = []")
    # what the server writes in one moment, then (a natural) the coup and its result at once
    for index, (side, position, card, punto, banco) in enumerate(CARDS):
        server.send({"type": "card-dealt", "side": side, "position": position, "card": card,
                     "punto_total": punto, "banco_total": banco,
                     "reveal_after_ms": 400 if index else 0})
    server.send({"type": "coup-dealt", "coup": _natural(25), "cards_left": 246,
                 "cut_card_out": False})
    server.send({"type": "round-settled", "round_no": 25, "coup_id": 25, "shoe_no": 1,
                 "coup_in_shoe": 25, "winner": "punto", "shoe_finished": False})
    page.wait_for_selector("#felt[data-phase=settled]", timeout=10_000)
    page.wait_for_timeout(100)
    records = page.evaluate("window.__felt")
    shown = _appearances(records)
    assert [(side, position, card) for _, side, position, card in shown] == [
        (side, position, card) for side, position, card, _, _ in CARDS]
    gaps = [b[0] - a[0] for a, b in itertools.pairwise(shown)]
    assert min(gaps) >= 350, gaps  # turned one by one, ~400 ms apart (timers never fire early)
    _totals_follow_the_cards(records)
    # the result: once its last card has landed (its 350 ms slide-in), and not long after
    result_at = next(r["at"] for r in records if r["winner"] == "punto")
    assert shown[-1][0] + 330 <= result_at <= shown[-1][0] + 750, (result_at, shown[-1][0])
    assert page.text_content("#total-punto") == "9" and page.text_content("#total-banco") == "3"
    assert server.errors == []
    context.close()


@pytest.mark.parametrize("size", SIZES)
def test_a_real_servers_deal_is_turned_card_by_card_at_its_pace(
        browser: Any, size: str, tmp_path: Path) -> None:
    """The real server (``card_seconds`` 0.4): the page turns Punto, Banco, Punto, Banco one by
    one, each total matching the cards shown, and any third card after them."""
    url = f"sqlite:///{tmp_path / 'pace.sqlite3'}"
    # "closed" shows from "no more bets" to the first card: 0.5 s, so that the wait for it
    # below sees it even on a loaded machine (at 0.2 s one CI run of many, with the machine at
    # load 4, never saw it in 20 s)
    settings = fast_settings(url, betting_seconds=1.0, closed_seconds=0.5, card_seconds=0.4,
                             result_seconds=1.0)
    with running(settings) as live:
        context = browser.new_context(viewport=dict(zip(("width", "height"), SIZES[size],
                                                        strict=True)), locale="en-GB")
        context.add_init_script(RECORD)
        page = context.new_page()
        page.goto(f"{live.url}/")
        page.wait_for_selector("#auth:not([hidden])")
        page.click("#auth-watch")
        page.wait_for_selector("body[data-connection=open]")
        page.wait_for_selector("#felt[data-phase=closed]", timeout=20_000)
        page.evaluate("window.__felt = []")
        page.wait_for_selector("#felt[data-phase=settled]", timeout=20_000)
        records = page.evaluate("window.__felt")
        context.close()
    shown = _appearances(records)
    places = [(side, position) for _, side, position, _ in shown]
    assert places[:4] == [("punto", 0), ("banco", 0), ("punto", 1), ("banco", 1)], places
    assert set(places[4:]) <= {("punto", 2), ("banco", 2)}
    gaps = [b[0] - a[0] for a, b in itertools.pairwise(shown)]
    assert min(gaps) >= 350, gaps  # 400 ms apart (timers never fire early)
    _totals_follow_the_cards(records)
    winner_at = next(r["at"] for r in records if r["winner"])
    assert winner_at >= shown[-1][0], (winner_at, shown)
