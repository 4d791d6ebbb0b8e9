"""Issue 17's promises for the dealer's page, in Chromium against a real ``serve``: "New shoe"
and "Misdeal" ask first and a "no" changes nothing; after a misdeal the phase says void; a card
typed while betting is open says why it is not taken; the dealer account's language is the
page's (Italian here; ``test_dealer_page.py`` signs in a French one); one naming — Punto and
Banco — in every language; and the player's page and the console (its live view, a player's
history naming the table) name the coup as the dealer's does, a misdealt coup's number being
the next coup's.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from puntobanco.server.dealer_messages import MESSAGES as DEALER_MESSAGES

from .serving import OPERATOR_PASSWORD, served

pytestmark = pytest.mark.e2e

#: what Punto and Banco are called elsewhere (the English player page's words, the French,
#: Italian and Spanish rule books'): none of them is on the dealer's page, in any language
OTHER_NAMES = re.compile(r"\b(Player|Banker|Joueur|Banquier|Banque|Giocatore|Banchiere|"
                         r"Jugador|Banca)\b")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, chromium_path: str) -> Iterator[str]:
    with served(tmp_path_factory.mktemp("dealer-promises"), timeout=30) as url:
        yield url


def _setup(url: str) -> tuple[int, dict[str, str], str, dict[str, str]]:
    """A one-deck hand-dealt table, its Italian dealer and a player; the table, the player's
    headers and token, and the dealer's headers."""
    with httpx.Client(base_url=url, timeout=30) as http:
        token = http.post("/api/login", json={"username": "operator",
                                              "password": OPERATOR_PASSWORD}).json()["token"]
        operator = {"Authorization": f"Bearer {token}"}
        table = http.post("/api/tables", json={"name": "Sala Verde", "dealing": "dealer",
                                               "rules": {"decks": 1, "cut_card": 14}},
                          headers=operator).json()["id"]
        dealer = http.post("/api/dealers", json={"username": "gino", "password": "croupier1",
                                                 "lang": "it"}, headers=operator).json()
        http.put(f"/api/dealers/{dealer['id']}/tables", json={"tables": [table]},
                 headers=operator)
        player = http.post("/api/signup", json={"username": "bea", "password": "secret1",
                                                "lang": "it"}).json()["token"]
        dealer_token = http.post("/api/login", json={"username": "gino",
                                                     "password": "croupier1"}).json()["token"]
        return (table, {"Authorization": f"Bearer {player}"}, player,
                {"Authorization": f"Bearer {dealer_token}"})


def _phase(page: Any, phase: str) -> None:
    page.wait_for_function(
        "(p) => document.getElementById('phase').dataset.phase === p", arg=phase)


def test_issue17_the_dealer_page_asks_says_why_and_names_the_coup_as_the_players_page(
        server: str, browser: Any) -> None:
    table, player, token, dealer = _setup(server)

    def dealer_state() -> dict[str, Any]:
        state: dict[str, Any] = httpx.get(f"{server}/api/tables/{table}/dealer",
                                          headers=dealer).json()
        return state

    page = browser.new_page(viewport={"width": 1024, "height": 768}, has_touch=True)
    felt = browser.new_page(viewport={"width": 390, "height": 844})
    answers: list[bool] = []  # what the dealer answers the next questions
    asked: list[str] = []

    def dialog(question: Any) -> None:
        asked.append(question.message)
        if answers.pop(0):
            question.accept()
        else:
            question.dismiss()

    page.on("dialog", dialog)
    try:
        page.goto(f"{server}/dealer")  # no ?lang=: the account's language, Italian
        page.fill("#auth-username", "gino")
        page.fill("#auth-password", "croupier1")
        page.click("#auth-form button[type=submit]")
        page.wait_for_function("() => document.getElementById('step').textContent === "
                               "'Iniziate un nuovo sabot.'")
        assert page.text_content("[data-act=open]") == "Aprire le puntate"
        # "New shoe" asks first; "no" starts nothing
        answers.append(False)
        page.click("[data-act=shoe]")
        assert asked == ["Iniziare un nuovo sabot? Il sabot in corso finisce qui."]
        page.wait_for_timeout(300)
        assert dealer_state()["shoe"] is None
        answers.append(True)
        page.click("[data-act=shoe]")
        page.wait_for_function("() => document.getElementById('step').textContent === "
                               "'Aprite le puntate del colpo seguente.'")
        # the player's page follows the table
        felt.goto(f"{server}/static/img/favicon.svg")
        felt.evaluate("([t, id]) => { localStorage.setItem('pb.token', t); "
                      "localStorage.setItem('pb.table', id); "
                      "localStorage.setItem('pb.lang', 'it'); }", [token, str(table)])
        felt.goto(server)
        page.click("[data-act=open]")
        _phase(page, "open")
        felt.wait_for_function("() => document.getElementById('shoe-coup').textContent"
                               " === 'Colpo 1'")
        assert page.text_content("#coup-no") == "1"
        placed = httpx.post(f"{server}/api/tables/{table}/bets",
                            json={"bet": "banco", "stake": 2000}, headers=player)
        assert placed.status_code == 200, placed.text
        # a card typed while betting is open: refused, and the page says why, in Italian
        page.fill("#card-input", "9h")
        page.press("#card-input", "Enter")
        page.wait_for_function("(t) => document.getElementById('refusal').textContent === t",
                               arg=DEALER_MESSAGES["card-out-of-turn-closed"]["it"])
        assert dealer_state()["hands"]["punto"]["cards"] == []
        # "Misdeal" asks first; "no" voids nothing
        answers.append(False)
        page.click("[data-act=misdeal]")
        assert asked[-1].startswith("Colpo nullo?")
        page.wait_for_timeout(300)
        assert dealer_state()["phase"] == "open"
        assert httpx.get(f"{server}/api/me", headers=player).json()["balance"] == 100_000 - 2000
        answers.append(True)
        page.click("[data-act=misdeal]")
        _phase(page, "void")
        assert page.text_content("#phase") == "Colpo annullato"
        assert httpx.get(f"{server}/api/me", headers=player).json()["balance"] == 100_000
        # the voided coup's number is the next coup's, on both pages
        page.click("[data-act=open]")
        _phase(page, "open")
        assert page.text_content("#coup-no") == "1"
        felt.wait_for_function("() => document.getElementById('shoe-coup').textContent"
                               " === 'Colpo 1'")
        page.click("[data-act=close]")
        _phase(page, "closed")
        # one naming, in every language, with the hands and a step naming a side on the page
        for lang in ("it", "fr", "es", "en"):
            page.click(f".langs button[data-lang={lang}]")
            page.wait_for_function("(l) => document.documentElement.lang === l || "
                                   "document.querySelector('.langs button.active')"
                                   ".dataset.lang === l", arg=lang)
            page.wait_for_function("() => /Punto/.test(document.getElementById('step')"
                                   ".textContent)")
            text = page.evaluate("() => document.body.innerText")
            assert not OTHER_NAMES.search(text), (lang, OTHER_NAMES.search(text))
            assert "Banco" in text and "Punto" in text
        page.click(".langs button[data-lang=it]")
        for card in ("9h", "2d", "kh", "5c"):  # Punto 9, Banco 7: a natural (R4)
            page.fill("#card-input", card)
            page.press("#card-input", "Enter")
            page.wait_for_function(
                "(n) => document.querySelectorAll('#punto-cards .card, #banco-cards .card')"
                ".length === n", arg=["9h", "2d", "kh", "5c"].index(card) + 1)
        page.click("[data-act=settle]")
        _phase(page, "settled")
        page.click("[data-act=open]")
        _phase(page, "open")
        assert page.text_content("#coup-no") == "2"
        felt.wait_for_function("() => document.getElementById('shoe-coup').textContent"
                               " === 'Colpo 2'")
        assert answers == []
        # the console names the coup the same way: its live view, and the player's history
        # with the table's name (Italian: the browser's language)
        context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="it-IT")
        console = context.new_page()
        console.goto(f"{server}/operator")
        console.fill("input[name=username]", "operator")
        console.fill("input[name=password]", OPERATOR_PASSWORD)
        console.click("#login-form button[type=submit]")
        card = console.locator(f"article[data-table='{table}']")
        card.locator(".facts").first.wait_for()
        console.wait_for_function(
            "(id) => document.querySelector(`article[data-table='${id}'] .facts`)"
            ".textContent.includes('Sabot 1 · 2')", arg=table)
        console.click("#tabs button[data-tab=players]")
        console.fill("#player-search", "bea")
        console.locator("tr[data-player=bea] button.link-button").click()
        console.locator("#player-history tr").nth(3).wait_for()
        rows = console.eval_on_selector_all(
            "#player-history tr", "rows => rows.slice(1).map(r => [...r.cells].map(c => "
            "c.textContent))")
        in_coups = [row for row in rows if row[2]]
        # the stake and the refund of the misdealt coup 1
        assert [(row[2], row[3]) for row in in_coups] == [("Sala Verde", "Sabot 1 · 1")] * 2, rows
        context.close()
    finally:
        page.close()
        felt.close()
