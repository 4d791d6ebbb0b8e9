"""Issue 18: each page keeps its own sign-in, signing out ends the session on the server, and a
page refuses a token of the wrong role with its own sign-in form — in Chromium, against a real
``serve`` (SQLite: what is checked is the pages' storage and requests; the log-out itself is
checked on both databases in tests/server).

On a shared casino tablet, signing in as the dealer on ``/dealer`` made the player's page in
the same browser show the dealer's wallet, a player's sign-in opened the dealer's desk, and the
dealer page's sign-out sent nothing (its token still answered ``GET /api/me``).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from .serving import OPERATOR_PASSWORD, served

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, chromium_path: str) -> Iterator[str]:
    with served(tmp_path_factory.mktemp("sign-in")) as url:
        with httpx.Client(base_url=url, timeout=30) as http:
            token = http.post("/api/login", json={"username": "operator",
                                                  "password": OPERATOR_PASSWORD}).json()["token"]
            boss = {"Authorization": f"Bearer {token}"}
            table = http.post("/api/tables", json={"name": "Salon", "dealing": "dealer"},
                              headers=boss).json()["id"]
            dealer = http.post("/api/dealers", json={"username": "lucia",
                                                     "password": "croupier1", "lang": "en"},
                               headers=boss).json()
            http.put(f"/api/dealers/{dealer['id']}/tables", json={"tables": [table]},
                     headers=boss)
            http.post("/api/signup", json={"username": "ann", "password": "secret1",
                                           "lang": "en"})
        yield url


def _alive(url: str, token: str | None) -> bool:
    assert token
    return httpx.get(f"{url}/api/me", headers={"Authorization": f"Bearer {token}"},
                     timeout=10).status_code == 200


def _dealer_signs_in(page: Any, url: str, username: str = "lucia",
                     password: str = "croupier1") -> None:
    page.goto(f"{url}/dealer?lang=en")
    page.wait_for_selector("#auth:not([hidden])")
    page.fill("#auth-username", username)
    page.fill("#auth-password", password)
    page.click("#auth-form button[type=submit]")


def _player_signs_in(page: Any, url: str, username: str, password: str) -> None:
    page.goto(url)
    page.wait_for_selector("#auth:not([hidden])")
    page.click("#auth-switch")  # "I have an account"
    page.fill("#auth-username", username)
    page.fill("#auth-password", password)
    page.click("#auth-submit")


def test_the_dealer_page_keeps_its_own_sign_in_and_its_sign_out_ends_the_session(
        server: str, browser: Any) -> None:
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    try:
        desk = context.new_page()
        _dealer_signs_in(desk, server)
        desk.wait_for_selector("#desk:not([hidden])")
        token = desk.evaluate("() => localStorage.getItem('pb.dealer.token')")
        assert _alive(server, token)
        # the player's page of the same browser: its own sign-in form, no dealer's wallet
        table = context.new_page()
        table.goto(server)
        table.wait_for_selector("#auth:not([hidden])")
        assert table.evaluate("() => localStorage.getItem('pb.token')") is None
        assert table.is_hidden("#user-box")
        table.close()
        # signing out ends the session on the server
        desk.click("#logout")
        desk.wait_for_selector("#auth:not([hidden])")
        httpx.get(f"{server}/api/tables", timeout=10)
        deadline = time.monotonic() + 10
        while _alive(server, token) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _alive(server, token)
        assert desk.evaluate("() => localStorage.getItem('pb.dealer.token')") is None
    finally:
        context.close()


def test_a_page_refuses_a_token_of_the_wrong_role_with_its_own_sign_in_form(
        server: str, browser: Any) -> None:
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    try:
        # a player signs in on the dealer's page: refused, the session ended, the form stays
        desk = context.new_page()
        _dealer_signs_in(desk, server, "ann", "secret1")
        desk.wait_for_selector("#auth-error:not([hidden])")
        assert desk.text_content("#auth-error") == (
            "This page is the dealer's: sign in with a dealer account.")
        assert desk.is_hidden("#desk")
        assert desk.evaluate("() => localStorage.getItem('pb.dealer.token')") is None
        # a player's token put under the dealer page's key (a shared tablet): refused too
        player = httpx.post(f"{server}/api/login", timeout=10, json={
            "username": "ann", "password": "secret1"}).json()["token"]
        desk.evaluate("(t) => localStorage.setItem('pb.dealer.token', t)", player)
        desk.goto(f"{server}/dealer?lang=en")
        desk.wait_for_selector("#auth-error:not([hidden])")
        assert desk.is_hidden("#desk")
        # the player's page, signed in as ann, is untouched by the dealer page
        table = context.new_page()
        _player_signs_in(table, server, "ann", "secret1")
        table.wait_for_selector("#user-box:not([hidden])")
        # the dealer signs in on the player's page: refused there, with its own form
        other = browser.new_context()
        try:
            felt = other.new_page()
            felt.goto(server)
            felt.evaluate("() => localStorage.setItem('pb.lang', 'en')")
            _player_signs_in(felt, server, "lucia", "croupier1")
            felt.wait_for_function(
                "() => document.getElementById('auth-error').textContent.length > 0")
            assert felt.text_content("#auth-error") == (
                "This table is the players': sign in with a player account.")
            assert felt.evaluate("() => localStorage.getItem('pb.token')") is None
            assert felt.is_hidden("#user-box")
        finally:
            other.close()
    finally:
        context.close()
