"""Game recall: a player's last coups (cards, bets, every payout line in L6 order) and any coup by
id; and an operator's new rules, which apply from the table's next shoe (S1–S3). The rounds run
on a hand-moved clock (``end_betting``): no test waits for a real window."""

from __future__ import annotations

from typing import Any

import pytest

from .support import LiveServer, Watcher


@pytest.fixture
def sqlite_server(clocked_sqlite_server: LiveServer) -> LiveServer:
    return clocked_sqlite_server


def _until(live: LiveServer, watcher: Watcher, kind: str) -> dict[str, Any]:
    """The next ``kind`` message, every window and pause before it ended at once."""
    while True:
        message = watcher.next()
        if message["type"] == kind:
            return message
        if message["type"] in ("round-opened", "round-settled"):
            live.end_betting()


def test_L6_a_player_recalls_their_last_coups_newest_first(sqlite_server: LiveServer) -> None:
    ann, bob = sqlite_server.signup("ann"), sqlite_server.signup("bob")
    watcher = sqlite_server.watch(1, ann)
    coups = []
    for bets in ([("lion-banco", 1000), ("banco", 2000), ("egalite", 1000)], [("punto", 3000)]):
        opened = watcher.next("round-opened")
        for bet, stake in bets:
            assert sqlite_server.bet(ann, 1, bet, stake).status_code == 200
        assert sqlite_server.bet(bob, 1, "punto", 1000).status_code == 200
        sqlite_server.end_betting()
        watcher.of_coup("round-settled", opened["coup_id"])
        sqlite_server.end_betting()  # the pause after the result
        coups.append(opened["coup_id"])
    opened = watcher.next("round-opened")  # a coup with a withdrawn bet only is not recalled
    sqlite_server.bet(ann, 1, "punto", 1000)
    sqlite_server.http.delete("/api/tables/1/bets/punto", headers=ann.headers)
    sqlite_server.end_betting()
    watcher.of_coup("round-settled", opened["coup_id"])
    watcher.close()
    recalled = sqlite_server.http.get("/api/me/coups", headers=ann.headers).json()
    assert [c["id"] for c in recalled] == coups[::-1]
    first = recalled[1]
    assert first["my_bets"] == {"banco": 2000, "egalite": 1000, "lion-banco": 1000}
    assert [line["bet"] for line in first["settlement"]] == ["banco", "egalite", "lion-banco"]
    assert first["status"] == "settled" and len(first["cards"]) >= 4
    assert first["punto"]["total"] is not None and first["winner"] in ("punto", "banco", "egalite")
    assert sum(line["returned"] for line in first["settlement"]) == \
        sum(line["stake"] + line["net"] for line in first["settlement"])
    limited = sqlite_server.http.get("/api/me/coups?limit=1", headers=ann.headers).json()
    assert [c["id"] for c in limited] == [coups[1]]
    # any coup by id: everyone sees the cards, each player only their own bets and lines
    theirs = sqlite_server.http.get(f"/api/coups/{coups[0]}", headers=bob.headers).json()
    assert theirs["my_bets"] == {"punto": 1000}
    assert [line["bet"] for line in theirs["settlement"]] == ["punto"]
    public = sqlite_server.http.get(f"/api/coups/{coups[0]}").json()
    assert public["my_bets"] == {} and public["settlement"] == []
    assert public["cards"] == first["cards"]
    assert sqlite_server.http.get("/api/me/coups").status_code == 401
    assert sqlite_server.http.get("/api/me/coups?limit=0", headers=ann.headers).status_code == 400


def test_M2_new_limits_apply_from_the_next_shoe(sqlite_server: LiveServer) -> None:
    boss = sqlite_server.operator()
    ann = sqlite_server.signup("ann")
    table = sqlite_server.http.post("/api/tables", json={"name": "Quick", "rules": {
        "decks": 1, "cut_card": 40}}, headers=boss.headers).json()
    table_id = table["id"]
    watcher = sqlite_server.watch(table_id, ann)
    watcher.next("shoe-started")
    changed = sqlite_server.http.patch(f"/api/tables/{table_id}", headers=boss.headers, json={
        "rules": {"tie_pays": 9, "limits": {"egalite": [500, 2000]}}})
    assert changed.json()["rules"]["tie_pays"] == 8 and changed.json()["next_rules"]["tie_pays"] == 9
    opened = watcher.next("round-opened")  # still the first shoe: the old minimum (10 €) holds
    assert opened["coup_in_shoe"] == 1
    refused = sqlite_server.bet(ann, table_id, "egalite", 500)
    assert refused.json()["error"]["code"] == "below-minimum"
    sqlite_server.end_betting()
    started = _until(sqlite_server, watcher, "shoe-started")  # the shoe played out
    assert started["rules"]["tie_pays"] == 9 and started["rules"]["limits"]["egalite"] == [500, 2000]
    opened = watcher.next("round-opened")
    assert sqlite_server.bet(ann, table_id, "egalite", 500).status_code == 200
    snapshot = sqlite_server.http.get(f"/api/tables/{table_id}").json()
    assert snapshot["rules"]["tie_pays"] == 9
    sqlite_server.end_betting()
    watcher.of_coup("round-settled", opened["coup_id"])
    watcher.close()
