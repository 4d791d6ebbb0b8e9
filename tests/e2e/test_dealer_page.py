"""The dealer's page (issue 11) in Chromium, on a tablet-sized window, against a real server.

A dealer signs in, starts a one-deck shoe, opens and closes betting while a player bets, enters
the coup's cards by keyboard (``2h`` + Enter) and by the touch pads, corrects a mistyped card,
sees each step the rules require ("Punto tire à 5", "Banco tire à 5 (troisième carte de Punto :
4)") and the server's refusals in French, settles, and the player's balance is the rules'.
Screenshots go to ``test-output/``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from .serving import OPERATOR_PASSWORD, served

pytestmark = pytest.mark.e2e



@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, chromium_path: str) -> Iterator[str]:
    with served(tmp_path_factory.mktemp("dealer"), timeout=30) as url:
        yield url


def _setup(url: str) -> tuple[int, dict[str, str], str]:
    """A one-deck hand-dealt table, its dealer, and a player: returns the table and the
    player's headers."""
    with httpx.Client(base_url=url, timeout=30) as http:
        token = http.post("/api/login", json={"username": "operator",
                                              "password": OPERATOR_PASSWORD}).json()["token"]
        operator = {"Authorization": f"Bearer {token}"}
        table = http.post("/api/tables", json={"name": "Salon privé", "dealing": "dealer",
                                               "rules": {"decks": 1, "cut_card": 14}},
                          headers=operator).json()["id"]
        dealer = http.post("/api/dealers", json={"username": "lucia", "password": "croupier1",
                                                 "lang": "fr"}, headers=operator).json()
        http.put(f"/api/dealers/{dealer['id']}/tables", json={"tables": [table]},
                 headers=operator)
        player = http.post("/api/signup", json={"username": "ann", "password": "secret1",
                                                "lang": "fr"}).json()["token"]
        return table, {"Authorization": f"Bearer {player}"}, player


def _step(page: Any, text: str) -> None:
    page.wait_for_function("(t) => document.getElementById('step').textContent === t", arg=text)


def test_a_dealer_deals_a_coup_on_the_page(server: str, browser: Any, output_dir: Path) -> None:
    table, player, token = _setup(server)
    page = browser.new_page(viewport={"width": 1024, "height": 768}, has_touch=True)
    # the player's own page, on a phone, follows the hand-dealt table like any other
    felt = browser.new_page(viewport={"width": 390, "height": 844})
    felt.goto(f"{server}/static/img/favicon.svg")
    felt.evaluate("([t, id]) => { localStorage.setItem('pb.token', t); "
                  "localStorage.setItem('pb.table', id); localStorage.setItem('pb.lang', 'fr'); }",
                  [token, str(table)])
    felt.goto(server)
    asked: list[str] = []  # issue 17: a new shoe and a misdeal are confirmed first

    def confirm(dialog: Any) -> None:
        asked.append(dialog.message)
        dialog.accept()

    page.on("dialog", confirm)
    try:
        page.goto(f"{server}/dealer")  # no ?lang=: the dealer account's language (fr)
        page.fill("#auth-username", "lucia")
        page.fill("#auth-password", "croupier1")
        page.click("#auth-form button[type=submit]")
        page.wait_for_selector("#desk:not([hidden])")
        _step(page, "Commencez un nouveau sabot.")
        page.select_option("#decks", "1")
        page.click("[data-act=shoe]")
        _step(page, "Ouvrez les mises du coup suivant.")
        assert asked == ["Commencer un nouveau sabot ? Le sabot en cours se termine ici."]
        page.click("[data-act=open]")
        _step(page, "Mises ouvertes : « Rien ne va plus » quand c'est prêt.")
        page.fill("#card-input", "9h")  # a card while betting is open: refused, and why
        page.press("#card-input", "Enter")
        page.wait_for_function("() => document.getElementById('refusal').textContent === "
                               "\"Pas de carte maintenant : les cartes se saisissent après la "
                               "fin des mises.\"")
        # issue 19: a refresh (here the bet's) keeps what the dealer is typing and the focus
        page.fill("#card-input", "K")
        page.focus("#card-input")
        answer = httpx.post(f"{server}/api/tables/{table}/bets",
                            json={"bet": "banco", "stake": 2000}, headers=player)
        assert answer.status_code == 200, answer.text
        page.wait_for_function("() => document.getElementById('spots').textContent === '1'")
        assert page.evaluate("() => [document.getElementById('card-input').value, "
                             "document.activeElement.id]") == ["K", "card-input"]
        page.fill("#card-input", "")
        page.screenshot(path=str(output_dir / "dealer-betting.png"))
        page.click("[data-act=close]")
        _step(page, "Carte 1 sur 4, à Punto")
        # keyboard entry, as a dealer types: rank, suit, Enter
        page.fill("#card-input", "2h")
        page.press("#card-input", "Enter")
        _step(page, "Carte 2 sur 4, à Banco")
        # the touch pads: a rank, then a suit
        page.click("#ranks button[data-rank='3']")
        page.click("#suits button[data-suit='S']")
        _step(page, "Carte 3 sur 4, à Punto")
        page.fill("#card-input", "3d")
        page.press("#card-input", "Enter")
        _step(page, "Carte 4 sur 4, à Banco")
        page.click("#table-name")  # typed anywhere, a card goes to the card field
        page.keyboard.type("2c")
        page.keyboard.press("Enter")
        _step(page, "Punto tire à 5")
        # a card the one-deck shoe cannot hold: refused in one sentence, nothing entered
        page.fill("#card-input", "2H")
        page.press("#card-input", "Enter")
        page.wait_for_selector("#refusal:not([hidden])")
        assert page.text_content("#refusal") == ("Le sabot contient 1 jeu(x) : 1 2H sont déjà "
                                                 "sortis, il ne peut pas y en avoir un de plus.")
        assert page.text_content("#step") == "Punto tire à 5"
        page.fill("#card-input", "8h")  # mistyped: the dealer meant 4h
        page.press("#card-input", "Enter")
        _step(page, "Banco reste à 5 (troisième carte de Punto : 8)")
        page.check("#correcting")
        page.fill("#card-input", "4h")
        page.press("#card-input", "Enter")
        _step(page, "Banco tire à 5 (troisième carte de Punto : 4)")
        assert page.get_attribute(".hand[data-side=banco]", "data-next") == "true"
        assert [c for c in page.eval_on_selector_all(
            "#punto-cards .card", "els => els.map(e => e.dataset.card)")] == ["2H", "3D", "4H"]
        page.screenshot(path=str(output_dir / "dealer-banco-draws.png"))
        page.fill("#card-input", "2d")
        page.press("#card-input", "Enter")
        _step(page, "Coup complet : Punto 9, Banco 7")
        page.fill("#card-input", "5c")  # the rules call for no more card
        page.press("#card-input", "Enter")
        page.wait_for_function("() => document.getElementById('refusal').textContent === "
                               "\"Le coup est complet : la règle n'appelle plus de carte.\"")
        page.screenshot(path=str(output_dir / "dealer-refusal.png"))
        felt.wait_for_function("() => [...document.querySelectorAll('#felt .card[data-card]')]"
                               ".map(c => c.dataset.card).sort().join(' ') === "
                               "'2C 2D 2H 3D 3S 4H'")
        page.click("[data-act=settle]")
        page.wait_for_function("() => document.getElementById('phase').dataset.phase === 'settled'")
        felt.wait_for_function("() => document.getElementById('balance').textContent.includes('980')")
        felt.screenshot(path=str(output_dir / "dealer-players-page.png"))
        balance = httpx.get(f"{server}/api/me", headers=player).json()["balance"]
        assert balance == 100_000 - 2000  # Punto 9 beats Banco 7: the Banco bet loses (R7)
        page.click("[data-act=open]")
        page.click("[data-act=misdeal]")
        page.wait_for_function("() => document.getElementById('phase').textContent === "
                               "'Coup annulé'")
        assert asked[-1].startswith("Coup nul ?")
        page.click(".langs button[data-lang=en]")
        _step(page, "Open the betting for the next coup.")
        assert page.text_content("[data-act=settle]") == "Settle the coup"
        assert "Banker" not in page.text_content("#bets")  # one naming: Punto and Banco
        page.set_viewport_size({"width": 768, "height": 1024})
        page.screenshot(path=str(output_dir / "dealer-portrait.png"), full_page=True)
    finally:
        page.close()
        felt.close()
