"""Issue 11 (operator console), its API against a real server: operators only (403 for a player,
401 for nobody), pause after the coup in progress, suspension (sessions end, sign-in and bets
refused, open bets refunded, closed ones stand), the live view with the house's exposure,
players and their history, renames, and the audit log of every action (before → after).

The rounds run on a hand-moved clock (``end_betting``, live/clock.py): a betting window lasts
until the test ends it, so no test sits through one, and "no round opens" is checked by what the
table says once its dealer had its chance, not by waiting for a round that does not come."""

from __future__ import annotations

import pytest

from puntobanco.server.live.clock import ManualClock

from .support import (
    LiveServer,
    Player,
    Watcher,
    check_books,
    clocked_settings,
    running,
    wait_until,
    wallet_entries,
)


@pytest.fixture
def server(clocked_server: LiveServer) -> LiveServer:
    return clocked_server


@pytest.fixture
def sqlite_server(clocked_sqlite_server: LiveServer) -> LiveServer:
    return clocked_sqlite_server

OPERATOR_ROUTES = [
    ("GET", "/api/players"), ("GET", "/api/players/1"), ("GET", "/api/players/1/history"),
    ("POST", "/api/players/1/credit"), ("POST", "/api/players/1/suspend"),
    ("POST", "/api/players/1/unsuspend"), ("POST", "/api/tables/1/pause"),
    ("POST", "/api/tables/1/resume"), ("GET", "/api/operator/tables"),
    ("GET", "/api/operator/tables/1"), ("POST", "/api/tables"), ("PATCH", "/api/tables/1"),
    ("GET", "/api/reports/tables"), ("GET", "/api/reports/tables/1"), ("GET", "/api/audit"),
    ("GET", "/api/reports/players"),
]


def _body(method: str, path: str) -> dict[str, object] | None:
    if path.endswith("/credit"):
        return {"amount": 100}
    if method == "POST" and path == "/api/tables":
        return {"name": "Forbidden"}
    if method == "PATCH":
        return {"name": "Forbidden"}
    return None


def test_issue11_players_and_anonymous_callers_are_refused_every_console_route(
        sqlite_server: LiveServer) -> None:
    http = sqlite_server.http
    ann = sqlite_server.signup("ann")
    for method, path in OPERATOR_ROUTES:
        body = _body(method, path)
        as_player = http.request(method, path, json=body, headers=ann.headers)
        assert (as_player.status_code, as_player.json()["error"]["code"]) == (403, "forbidden"), path
        assert http.request(method, path, json=body).status_code == 401, path
    audit = http.get("/api/audit", headers=sqlite_server.operator().headers).json()
    assert audit == []  # nothing refused was done, nothing was logged
    assert [t["name"] for t in http.get("/api/tables").json()] == ["Sanremo", "Enghien"]
    # the player's page never shows the console; the console is a page of its own
    assert "operator" not in http.get("/").text.lower()
    assert http.get("/operator").status_code == 200


def _open_round(live: LiveServer, table_id: int, watcher: Watcher) -> int:
    opened = watcher.next("round-opened")
    return int(opened["coup_id"])


def _opens_no_round(live: LiveServer, table_id: int, watcher: Watcher) -> None:
    """The table's dealer is held (idle, waiting for no time on the clock) and stays so however
    far the clock moves: on a hand-moved clock a round that opened would still be open, and
    ``watcher`` (its ``seen`` cleared by the caller) was told of none."""
    assert live.clock is not None
    wait_until(lambda: live.http.get(f"/api/tables/{table_id}").json()["phase"] == "idle",
               timeout=30)
    live.end_betting()  # any time the dealer could wait for has passed
    watcher.send({"type": "ping"})
    watcher.next("pong")  # what the table sent before now is in ``seen``
    snapshot = live.http.get(f"/api/tables/{table_id}").json()
    assert (snapshot["phase"], snapshot["paused"], snapshot["deadline"]) == ("idle", True, None)
    assert live.clock.waiting() == 0
    assert not [m for m in watcher.seen if m["type"] == "round-opened"]


def test_issue11_pause_finishes_the_coup_in_progress_then_opens_no_round(
        sqlite_server: LiveServer) -> None:
    live, http = sqlite_server, sqlite_server.http
    boss, ann = live.operator(), live.signup("ann")
    watcher = live.watch(1, ann)
    try:
        coup_id = _open_round(live, 1, watcher)
        assert live.bet(ann, 1, "banco", 2500).status_code == 200
        paused = http.post("/api/tables/1/pause", headers=boss.headers)
        assert paused.status_code == 200 and paused.json()["paused"] is True
        live.end_betting()
        # pausing voids nothing: the coup with Ann's bet is dealt and settled
        assert watcher.of_coup("settlement", coup_id)["lines"][0]["bet"] == "banco"
        watcher.of_coup("round-settled", coup_id)
        watcher.seen.clear()
        live.end_betting()  # the pause after the result
        _opens_no_round(live, 1, watcher)
        assert live.bet(ann, 1, "banco", 2500).json()["error"]["code"] == "table-closed"
        assert http.post("/api/tables/1/resume", headers=boss.headers).json()["paused"] is False
        assert watcher.next("round-opened")["coup_id"] > coup_id
    finally:
        watcher.close()
    log = http.get("/api/audit?target_kind=table", headers=boss.headers).json()
    assert [(e["action"], e["before"], e["after"], e["operator"]) for e in log] == [
        ("table-resume", {"paused": True}, {"paused": False}, "operator"),
        ("table-pause", {"paused": False}, {"paused": True}, "operator")]
    assert all(e["target_id"] == 1 and e["at"] > 0 for e in log)
    assert check_books(live.settings.database_url)["active_bets"] == 0


def test_issue11_suspension_ends_sessions_refunds_open_bets_and_refuses_sign_in(
        server: LiveServer) -> None:
    """A money path: on SQLite and PostgreSQL, the books balance after the refund."""
    live, http = server, server.http
    boss, ann, bob = live.operator(), live.signup("ann"), live.signup("bob")
    watcher = live.watch(1, bob)
    try:
        coup_id = _open_round(live, 1, watcher)
        assert live.bet(ann, 1, "banco", 2500).status_code == 200
        assert live.bet(ann, 1, "lion-banco", 1000).status_code == 200
        assert live.bet(bob, 1, "punto", 1000).status_code == 200
        done = http.post(f"/api/players/{ann.id}/suspend", headers=boss.headers)
        assert done.status_code == 200, done.text
        assert done.json()["refunded"] == 3500 and done.json()["player"]["suspended"] is True
        totals = watcher.next("bet-totals", where=lambda m: m["totals"]["banco"] == 0)
        assert totals["totals"]["punto"] == 1000
    except BaseException:
        watcher.close()
        raise
    assert [reason for reason, _ in wallet_entries(live.settings.database_url, ann.id)] == [
        "welcome", "stake", "stake", "refund", "refund"]
    assert http.get("/api/me", headers=ann.headers).status_code == 401  # the session ended
    refused = http.post("/api/login?lang=es", json={"username": "ann", "password": "secret1"})
    assert refused.status_code == 403
    assert refused.json()["error"] == {"code": "account-suspended",
                                       "message": "Esta cuenta está suspendida."}
    found = http.get("/api/players?q=AN", headers=boss.headers)
    assert [(p["username"], p["suspended"], p["balance"]) for p in found.json()] == [
        ("ann", True, 100_000)]
    assert found.headers["x-total-count"] == "1"
    # an operator cannot be suspended
    oper = http.post("/api/players/1/suspend", headers=boss.headers)
    assert (oper.status_code, oper.json()["error"]["code"]) == (409, "operator-not-suspendable")
    assert http.post(f"/api/players/{ann.id}/unsuspend", headers=boss.headers
                     ).json()["player"]["suspended"] is False
    again = http.post("/api/login", json={"username": "ann", "password": "secret1"})
    assert again.status_code == 200
    ann_again = Player.from_answer(again.json())
    try:  # unsuspended, she bets again in the round still open
        placed = live.bet(ann_again, 1, "banco", 1000)
        assert placed.status_code == 200 and placed.json()["coup_id"] == coup_id, placed.text
        live.end_betting()
        watcher.of_coup("round-settled", coup_id)
    finally:
        watcher.close()
    log = http.get(f"/api/audit?target_kind=player&target_id={ann.id}",
                   headers=boss.headers).json()
    assert [(e["action"], e["before"], e["after"]) for e in log] == [
        ("player-unsuspend", {"suspended": True}, {"suspended": False}),
        ("player-suspend", {"suspended": False}, {"suspended": True})]
    assert check_books(live.settings.database_url)["active_bets"] == 0


def test_issue11_live_view_shows_spots_and_the_house_exposure(sqlite_server: LiveServer) -> None:
    live, http = sqlite_server, sqlite_server.http
    boss, ann, bob = live.operator(), live.signup("ann"), live.signup("bob")
    watcher = live.watch(2, ann)
    try:
        coup_id = _open_round(live, 2, watcher)
        assert live.bet(ann, 2, "banco", 1000).status_code == 200
        assert live.bet(bob, 2, "punto", 1000).status_code == 200
        view = http.get("/api/operator/tables/2", headers=boss.headers).json()
        # a suspended player's bet that reaches the table after the suspension is refused,
        # even when its request had been signed in a moment before (the table's bar)
        live.casino.dealer(2).barred.add(bob.id)
        late = live.bet(bob, 2, "punto", 1000)
        assert (late.status_code, late.json()["error"]["code"]) == (403, "account-suspended")
        live.casino.dealer(2).barred.discard(bob.id)
    finally:
        watcher.close()
    assert view["coup_id"] == coup_id and view["table"]["phase"] == "open"
    assert [(s["username"], s["bets"]) for s in view["spots"]] == [
        ("ann", {"banco": 1000}), ("bob", {"punto": 1000})]
    assert [w["username"] for w in view["watchers"]] == ["ann"]
    exposure = view["exposure"]
    # Punto and Banco 10 € each: the house never loses (a Punto win pays what Banco lost) and
    # gains 5 € when Banco wins with 6 (B2); expected ≈ 10 € × (1.24 % + 1.45 %) in a fresh shoe
    assert (exposure["stakes"], exposure["worst"], exposure["best"]) == (2000, 0, 500)
    assert 20 < exposure["expected"] < 34
    everything = http.get("/api/operator/tables", headers=boss.headers).json()
    assert [t["table"]["id"] for t in everything] == [1, 2]
    assert everything[0]["exposure"] is None or everything[0]["spots"] == []


def test_issue11_rename_rules_credit_history_and_their_audit(sqlite_server: LiveServer) -> None:
    live, http = sqlite_server, sqlite_server.http
    boss, ann = live.operator(), live.signup("ann")
    created = http.post("/api/tables", json={"name": "Monte", "rules": {"tie_pays": 9}},
                        headers=boss.headers).json()
    table_id = created["id"]
    renamed = http.patch(f"/api/tables/{table_id}", json={"name": " Monte Carlo "},
                         headers=boss.headers)
    assert renamed.json()["name"] == "Monte Carlo"
    taken = http.patch(f"/api/tables/{table_id}", json={"name": "SANREMO"}, headers=boss.headers)
    assert taken.json()["error"]["code"] == "table-name-taken"
    assert http.patch(f"/api/tables/{table_id}", json={}, headers=boss.headers
                      ).json()["error"]["code"] == "nothing-to-change"
    http.patch(f"/api/tables/{table_id}", json={"rules": {"limits": {"egalite": [500, 20000]}}},
               headers=boss.headers)
    assert http.post(f"/api/players/{ann.id}/credit", json={"amount": 2500},
                     headers=boss.headers).json()["player"]["balance"] == 102_500
    log = http.get("/api/audit", headers=boss.headers).json()
    assert [e["action"] for e in log] == ["player-credit", "table-rules", "table-rename",
                                          "table-create"]
    credit, rules, rename, create = log
    assert (credit["before"], credit["after"]) == ({"balance": 100_000},
                                                   {"balance": 102_500, "amount": 2500})
    assert rules["before"]["limits"]["egalite"] == [1000, 100000]
    assert rules["after"]["limits"]["egalite"] == [500, 20000]
    assert set(rules["after"]) == {"limits"}  # only what changed
    assert (rename["before"], rename["after"]) == ({"name": "Monte"}, {"name": "Monte Carlo"})
    assert rename["target_name"] == "Monte Carlo" and credit["target_name"] == "ann"
    assert create["after"]["rules"]["tie_pays"] == 9 and create["before"] is None
    assert [e["id"] for e in http.get(f"/api/audit?before_id={log[1]['id']}",
                                      headers=boss.headers).json()] == [rename["id"], create["id"]]
    history = http.get(f"/api/players/{ann.id}/history", headers=boss.headers).json()
    assert [(h["reason"], h["amount"], h["balance"]) for h in history] == [
        ("credit", 2500, 102_500), ("welcome", 100_000, 100_000)]
    assert http.get("/api/players/999/history", headers=boss.headers).status_code == 404
    for path in ["/api/audit?before_id=99999999999999999999", "/api/audit?target_id=-1",
                 f"/api/players/{ann.id}/history?before_id=4294967296"]:
        assert http.get(path, headers=boss.headers).status_code == 400, path
    one = http.get(f"/api/players/{ann.id}", headers=boss.headers).json()
    assert one["username"] == "ann" and one["suspended"] is False


def test_issue11_a_paused_table_stays_paused_after_a_restart(sqlite_url: str) -> None:
    with running(clocked_settings(sqlite_url), clock=ManualClock()) as live:
        boss = live.operator()
        # paused while idle (nobody watching): someone watching later does not open a round
        assert live.http.post("/api/tables/2/pause", headers=boss.headers).status_code == 200
        watcher = live.watch(2)
        try:
            _opens_no_round(live, 2, watcher)
        finally:
            watcher.close()
    with running(clocked_settings(sqlite_url), clock=ManualClock()) as live:
        tables = live.http.get("/api/tables").json()
        assert [(t["name"], t["paused"]) for t in tables] == [("Sanremo", False),
                                                              ("Enghien", True)]
        watcher = live.watch(2)
        try:
            assert watcher.next("snapshot")["table"]["paused"] is True
            _opens_no_round(live, 2, watcher)
        finally:
            watcher.close()


def test_issue19_tables_say_the_betting_window_they_deal(db_url: str) -> None:
    """``serve --betting-seconds`` overrides every table's window: the table list and the
    console's live view say the window dealt (and that it is fixed), not the settings' 15 s."""
    with running(clocked_settings(db_url, betting_seconds=8), clock=ManualClock()) as live:
        boss = live.operator()
        listed = live.http.get("/api/tables").json()[0]
        assert (listed["betting_seconds"], listed["betting_seconds_fixed"]) == (8, True)
        assert listed["next_rules"]["betting_seconds"] == 15
        view = live.http.get("/api/operator/tables/1", headers=boss.headers).json()
        assert view["table"]["betting_seconds"] == 8
    with running(clocked_settings(db_url, betting_seconds=None), clock=ManualClock()) as live:
        listed = live.http.get("/api/tables").json()[0]
        assert (listed["betting_seconds"], listed["betting_seconds_fixed"]) == (15, False)
