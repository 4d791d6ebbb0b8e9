"""The page's provably fair check (``static/js/fair.js``) against the server's recipe.

The server commits to ``sha256(salt_hex + ":" + " ".join(cards))`` (docs/api.md); the page must
compute the same digest with WebCrypto and with its own SHA-256 (used where WebCrypto is absent),
and must say ✗ for a shoe whose order or salt was changed.
"""

from __future__ import annotations

import hashlib
import random
from typing import Any

import pytest

from puntobanco.rules import RuleSet
from puntobanco.server.fair import commitment
from puntobanco.shoe import Shoe

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def page(browser: Any, static_url: str) -> Any:
    page = browser.new_page()
    page.route(f"{static_url}/blank", lambda route: route.fulfill(
        status=200, content_type="text/html", body="<!doctype html><title>fair</title>"))
    page.goto(f"{static_url}/blank")
    page.evaluate("async (url) => { window.fair = await import(url); }", f"{static_url}/js/fair.js")
    yield page
    page.close()


def test_page_check_accepts_the_servers_commitment_of_a_full_shoe(page: Any) -> None:
    shoe = Shoe.shuffled(RuleSet(), rng=random.Random(2024))
    salt = random.Random(7).randbytes(32).hex()
    order = [str(card) for card in shoe.order]
    published = commitment(salt, shoe.order)
    verdict = page.evaluate("(a) => fair.verifyShoe(a)",
                            {"salt": salt, "order": order, "commitment": published})
    assert verdict == {"ok": True, "computed": published, "commitment": published}


def test_page_check_refuses_a_changed_order_or_salt(page: Any) -> None:
    shoe = Shoe.shuffled(RuleSet(decks=1, cut_card=14), rng=random.Random(5))
    salt = "ab" * 32
    order = [str(card) for card in shoe.order]
    published = commitment(salt, shoe.order)
    swapped = [order[1], order[0], *order[2:]]
    for args in ({"salt": salt, "order": swapped, "commitment": published},
                 {"salt": "ac" + salt[2:], "order": order, "commitment": published}):
        assert page.evaluate("(a) => fair.verifyShoe(a).then(v => v.ok)", args) is False


@pytest.mark.parametrize("text", ["", "abc", "00ff:AS TD", "x" * 55, "y" * 56, "z" * 64, "é:Égalité"])
def test_plain_js_sha256_matches_webcrypto_and_hashlib(page: Any, text: str) -> None:
    expected = hashlib.sha256(text.encode()).hexdigest()
    assert page.evaluate("(t) => fair.sha256Hex(t)", text) == expected
    assert page.evaluate("(t) => fair.sha256Hex(t, {forceFallback: true})", text) == expected
