"""What the player's page needs from the server (issue 10), on SQLite and PostgreSQL where money
moves: several bets placed all or nothing (repeat, double), the balance in the snapshot, a credit
pushed to an open page; and, on SQLite only, compression, cache headers with versioned URLs and
the API docs working offline. The rounds run on a hand-moved clock (``end_betting``): a betting
window lasts until the test ends it."""

from __future__ import annotations

import re

import pytest

from .support import LiveServer, check_books, wallet_entries


@pytest.fixture
def server(clocked_server: LiveServer) -> LiveServer:
    return clocked_server


@pytest.fixture
def sqlite_server(clocked_sqlite_server: LiveServer) -> LiveServer:
    return clocked_sqlite_server


def test_issue10_several_bets_are_placed_all_or_nothing(server: LiveServer) -> None:
    url = server.settings.database_url
    ann = server.signup("ann")
    watcher = server.watch(1, ann)
    opened = watcher.next("round-opened")
    placed = server.http.post("/api/tables/1/bets/batch", headers=ann.headers, json={
        "bets": {"banco": 5000, "lion-banco": 1000}, "idempotency_key": "repeat-1"})
    assert placed.status_code == 200, placed.text
    assert placed.json() == {"placed": {"banco": 5000, "lion-banco": 1000},
                             "my_bets": {"banco": 5000, "lion-banco": 1000}, "balance": 94_000,
                             "coup_id": opened["coup_id"], "round_no": opened["round_no"]}
    # The same key again: the first answer, nothing placed twice.
    again = server.http.post("/api/tables/1/bets/batch", headers=ann.headers, json={
        "bets": {"banco": 5000, "lion-banco": 1000}, "idempotency_key": "repeat-1"})
    assert again.json() == placed.json()
    before = (server.balance(ann), wallet_entries(url, ann.id))
    # A double whose Lion Bonus part breaks its limit (L3: 50 €) places nothing, not even Banco.
    refused = server.http.post("/api/tables/1/bets/batch", headers=ann.headers, json={
        "bets": {"banco": 5000, "lion-banco": 5000}})
    assert refused.status_code == 422 and refused.json()["error"]["code"] == "above-maximum"
    # More than the wallet holds, altogether (each alone would fit): nothing placed (M3).
    too_much = server.http.post("/api/tables/1/bets/batch", headers=ann.headers, json={
        "bets": {"punto": 50_000, "egalite": 50_000}})
    assert too_much.status_code == 422, too_much.text
    assert too_much.json()["error"]["code"] == "insufficient-balance"
    assert (server.balance(ann), wallet_entries(url, ann.id)) == before
    snapshot = server.http.get("/api/tables/1", headers=ann.headers).json()
    assert snapshot["my_bets"] == {"banco": 5000, "lion-banco": 1000}
    assert snapshot["balance"] == 94_000
    server.end_betting()
    watcher.next("round-settled", where=lambda m: m["coup_id"] == opened["coup_id"])
    watcher.close()
    assert check_books(url)["in_play"] == {1: 0, 2: 0}


def test_issue10_the_snapshot_has_the_balance_and_a_credit_reaches_an_open_page(
        server: LiveServer) -> None:
    bob = server.signup("bob")
    watcher = server.watch(2, bob)
    snapshot = watcher.next("snapshot")
    assert snapshot["table"]["balance"] == 100_000
    operator = server.operator()
    credited = server.http.post(f"/api/players/{bob.id}/credit", headers=operator.headers,
                                json={"amount": 2500})
    assert credited.status_code == 200, credited.text
    pushed = watcher.next("balance")
    assert pushed == {"type": "balance", "reason": "credit", "amount": 2500, "balance": 102_500,
                      "coup_id": None}
    watcher.close()
    spectator = server.watch(2)
    assert "balance" not in spectator.next("snapshot")["table"]
    spectator.close()


def test_issue10_assets_are_compressed_cached_by_version_and_the_api_docs_need_no_cdn(
        sqlite_server: LiveServer) -> None:
    http = sqlite_server.http
    page = http.get("/", headers={"Accept-Encoding": "gzip"})
    assert page.headers["content-encoding"] == "gzip"
    assert page.headers["cache-control"] == "no-cache"
    scripts = re.findall(r'src="(/static/v-[0-9a-f]{12}/js/main\.js)"', page.text)
    assert scripts, page.text[:400]
    script = http.get(scripts[0], headers={"Accept-Encoding": "gzip"})
    assert script.status_code == 200 and script.headers["content-encoding"] == "gzip"
    assert "immutable" in script.headers["cache-control"]
    plain = http.get("/static/js/main.js")
    assert plain.status_code == 200 and plain.headers["cache-control"] == "no-cache"
    assert http.get(scripts[0].replace("main.js", "nothing.js")).status_code == 404
    docs = http.get("/docs")
    assert docs.status_code == 200
    assets = re.findall(r'(?:src|href)="([^"]+)"', docs.text)
    assert assets and all(asset.startswith("/") for asset in assets), assets  # no CDN
    for asset in assets:
        assert http.get(asset).status_code == 200, asset
    assert "<script>" not in docs.text  # no inline script: a strict CSP allows the page
    assert http.get("/redoc").status_code == 404  # ReDoc would need its CDN: not served


def test_issue10_an_english_refusal_names_player_and_banker(sqlite_server: LiveServer) -> None:
    """The English page says Player/Banker: so do the server's English sentences (L1)."""
    eve = sqlite_server.signup("eve", lang="en")
    watcher = sqlite_server.watch(1, eve)
    watcher.next("round-opened")
    assert sqlite_server.bet(eve, 1, "lion-punto", 1000).status_code == 200
    refused = sqlite_server.bet(eve, 1, "lion-banco", 1000)
    watcher.close()
    assert refused.status_code == 422
    assert refused.json()["error"]["message"] == (
        "A spot may back the Lion Bonus on Player or on Banker, never both.")
