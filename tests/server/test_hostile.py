"""Issue 9, "Found": each way a hostile player or a careless operator took the server down or in,
reproduced against a real server, and refused now (a 4xx with a code, a close code, a table out
of service while the others run)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import threading
import time
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import create_engine, text, update
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from puntobanco.bets import BetKind
from puntobanco.cards import new_shoe_cards, parse_cards
from puntobanco.rules import RuleSet
from puntobanco.server.api.guard import MAX_BODY_BYTES, PAGE_CSP, HashSlots, TooManyRequests
from puntobanco.server.api.ws import CLOSE_TOO_MANY, CLOSE_UNAUTHORIZED
from puntobanco.server.db import auth, ledger, store
from puntobanco.server.db.engine import Database, migrate
from puntobanco.server.db.models import GameTable, utcnow
from puntobanco.server.settings import GuardSettings, table_rules_to_json
from puntobanco.shoe import Shoe

from .support import (
    TEST_GUARD,
    LiveServer,
    Player,
    fast_settings,
    place,
    run_coroutine,
    running,
    wait_until,
    wallet_entries,
)


def _url_file(url: str) -> str:
    return url.removeprefix("sqlite:///")


# --- one operator setting must not stop every table -----------------------------------------


def test_a_table_whose_settings_fail_is_out_of_service_and_the_operator_repairs_it(
        sqlite_url: str) -> None:
    """An older server stored ``lion_natural_pays: -5``: that table is isolated, says why, the
    other table runs, and the operator's PATCH brings it back."""
    with running(fast_settings(sqlite_url)):
        pass
    engine = create_engine(sqlite_url)
    with engine.begin() as connection:
        rules = json.loads(connection.execute(text("SELECT rules FROM tables WHERE id = 1"))
                           .scalar_one())
        rules["lion_natural_pays"] = -5
        connection.execute(text("UPDATE tables SET rules = :rules WHERE id = 1"),
                           {"rules": json.dumps(rules)})
    engine.dispose()
    with running(fast_settings(sqlite_url)) as live:
        assert [t["id"] for t in live.http.get("/api/tables").json()] == [2]
        refused = live.http.get("/api/tables/1")
        assert (refused.status_code, refused.json()["error"]["code"]) == (
            409, "table-out-of-service")
        boss = live.operator()
        broken = live.http.get("/api/tables/out-of-service", headers=boss.headers).json()
        assert [(b["id"], b["name"]) for b in broken] == [(1, "Sanremo")]
        assert "Lion Bonus pay" in broken[0]["reason"] and broken[0]["rules"]["lion_natural_pays"] == -5
        player = live.signup("ann")
        assert live.http.get("/api/tables/out-of-service", headers=player.headers
                             ).status_code == 403
        fixed = live.http.patch("/api/tables/1", json={"rules": {"lion_natural_pays": 1}},
                                headers=boss.headers)
        assert fixed.status_code == 200, fixed.text
        assert fixed.json()["next_rules"]["lion_natural_pays"] == 1
        assert live.http.get("/api/tables/1").status_code == 200
        assert live.http.get("/api/tables/out-of-service", headers=boss.headers).json() == []


def test_a_table_whose_recovery_fails_does_not_stop_the_others(sqlite_url: str) -> None:
    """A recorded coup that no longer matches its shoe's order made recovery raise, and the
    whole application failed to start ("Application startup failed")."""
    with running(fast_settings(sqlite_url)) as live:
        watcher = live.watch(1)
        settled = watcher.next("round-settled")
        watcher.close()
    engine = create_engine(sqlite_url)
    with engine.begin() as connection:
        connection.execute(text("UPDATE coups SET cards = 'AS AS AS AS' WHERE id = :id"),
                           {"id": settled["coup_id"]})
    engine.dispose()
    with running(fast_settings(sqlite_url)) as live:
        assert [t["id"] for t in live.http.get("/api/tables").json()] == [2]
        broken = live.http.get("/api/tables/out-of-service",
                               headers=live.operator().headers).json()
        assert [b["id"] for b in broken] == [1] and "does not match" in broken[0]["reason"]
        assert live.http.get("/api/tables/2").json()["name"] == "Enghien"


# --- log-in: attempts limited, bcrypt bounded -------------------------------------------------


def test_login_attempts_are_limited_per_account_and_per_address(sqlite_url: str) -> None:
    guard = GuardSettings(login_per_account=(3, 0.01), login_per_address=(5, 0.01))
    with running(fast_settings(sqlite_url, guard=guard)) as live:
        wrong = {"username": "operator", "password": "wrong-password"}
        codes = [live.http.post("/api/login", json=wrong).status_code for _ in range(3)]
        assert codes == [401, 401, 401]
        limited = live.http.post("/api/login", json=wrong)
        assert limited.status_code == 429 and limited.json()["error"]["code"] == "too-many-requests"
        assert int(limited.headers["Retry-After"]) >= 1
        # another account from the same address: the address has one attempt left
        other = {"username": "someone", "password": "wrong-password"}
        assert live.http.post("/api/login", json=other).status_code == 401
        assert live.http.post("/api/login", json=other).status_code == 429


def test_password_hashing_runs_on_threads_two_at_a_time_and_refuses_a_long_queue() -> None:
    slots = HashSlots(slots=2, queue=4)
    running_now, most = 0, 0
    lock = threading.Lock()

    def work() -> int:
        nonlocal running_now, most
        with lock:
            running_now += 1
            most = max(most, running_now)
        time.sleep(0.05)
        with lock:
            running_now -= 1
        return threading.get_ident()

    async def main() -> list[object]:
        loop_thread = threading.get_ident()
        results = await asyncio.gather(*(slots.run(work) for _ in range(6)),
                                       return_exceptions=True)
        assert all(r != loop_thread for r in results if isinstance(r, int))  # off the loop
        return results

    results = run_coroutine(main())
    assert most == 2
    assert sum(isinstance(r, TooManyRequests) for r in results) == 2  # 4 waited, 2 refused


# --- bodies --------------------------------------------------------------------------------


def test_a_long_body_is_refused_413_before_it_is_read(sqlite_server: LiveServer) -> None:
    big = sqlite_server.http.post("/api/login", content=b"{" + b" " * (MAX_BODY_BYTES + 1) + b"}",
                                  headers={"content-type": "application/json"})
    assert big.status_code == 413 and big.json()["error"]["code"] == "body-too-large"
    # a declared 100 MB body is answered at once, without sending (or reading) it
    with socket.create_connection(("127.0.0.1", sqlite_server.port), timeout=10) as raw:
        raw.sendall(b"POST /api/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                    b"Content-Length: 100000000\r\n\r\n{")
        answer = raw.recv(4096).decode()
    assert answer.startswith("HTTP/1.1 413") and "body-too-large" in answer

    def chunks() -> object:
        for _ in range(64):
            yield b" " * 1024

    chunked = sqlite_server.http.post("/api/login", content=chunks(),  # type: ignore[arg-type]
                                      headers={"content-type": "application/json"})
    assert chunked.status_code == 413 and chunked.json()["error"]["code"] == "body-too-large"


# --- sessions ------------------------------------------------------------------------------


def test_sessions_expire_unused_and_at_most_a_lifetime_after_login(sqlite_url: str) -> None:
    migrate(sqlite_url)
    db = Database(sqlite_url)
    limits = GuardSettings(session_idle_seconds=3600, session_max_seconds=86400,
                           session_renew_seconds=60)
    with db.write() as session:
        player = auth.create_player(session, username="ann", password_hash="x", lang="en")
        token = auth.open_session(session, player.id)
    start = utcnow()

    def look(after: timedelta) -> auth.TokenLookup | None:
        with db.read() as session:
            return auth.lookup_token(session, token, limits=limits, now=start + after)

    assert look(timedelta(minutes=30)) == auth.TokenLookup(player, renew=True)
    assert look(timedelta(seconds=30)) == auth.TokenLookup(player, renew=False)
    assert look(timedelta(minutes=61)) is None  # unused for an hour
    with db.write() as session:  # used at 50 minutes: the idle hour slides forward
        auth.renew_session(session, token, now=start + timedelta(minutes=50))
    assert look(timedelta(minutes=100)) is not None
    with db.write() as session:
        auth.renew_session(session, token, now=start + timedelta(hours=23, minutes=50))
    assert look(timedelta(hours=24, minutes=1)) is None  # the lifetime is over, used or not
    db.close()


def test_a_session_is_renewed_by_use_and_log_out_everywhere_ends_them_all(
        sqlite_url: str) -> None:
    guard = GuardSettings(login_per_address=TEST_GUARD.login_per_address,
                          session_idle_seconds=1.5, session_renew_seconds=0.2)
    with running(fast_settings(sqlite_url, guard=guard)) as live:
        ann = live.signup("ann")
        for _ in range(5):  # 2.5 s of use, 0.5 s apart: each use slides the 1.5 s window
            time.sleep(0.5)
            assert live.http.get("/api/me", headers=ann.headers).status_code == 200
        time.sleep(2)
        assert live.http.get("/api/me", headers=ann.headers).status_code == 401  # expired
        first = live.http.post("/api/login", json={"username": "ann", "password": "secret1"})
        second = live.http.post("/api/login", json={"username": "ann", "password": "secret1"})
        headers = [{"Authorization": f"Bearer {a.json()['token']}"} for a in (first, second)]
        ended = live.http.post("/api/logout-everywhere", headers=headers[0])
        assert ended.json() == {"ok": True, "sessions": 3}  # the expired one was still stored
        assert [live.http.get("/api/me", headers=h).status_code for h in headers] == [401, 401]


# --- usernames -----------------------------------------------------------------------------


def test_usernames_are_matched_whole_normalised_and_not_look_alikes(server: LiveServer) -> None:
    server.signup("bill")
    for name, code in [("operator\n", "bad-username"), ("ann\n", "bad-username"),
                       ("a" * 33, "bad-username"),
                       ("an\x00n", "bad-request"),  # issue 18: NUL in any body field
                       ("ｏｐｅｒａｔｏｒ", "username-taken"), ("0perator", "username-taken"),
                       ("OPERAT0R", "username-taken"), ("b1ll", "username-taken"),
                       ("BILL", "username-taken"), ("b1ll", "username-taken")]:
        answer = server.http.post("/api/signup", json={"username": name, "password": "secret1"})
        assert (answer.status_code, answer.json()["error"]["code"]) == (
            400 if code in ("bad-username", "bad-request") else 409, code), name
    assert server.signup("ｃａｒｌ").username == "carl"  # stored as NFKC
    assert server.signup("bi.ll").username == "bi.ll"  # a dot is no look-alike of nothing
    for name in ("operator\n", "op\x00erator", "x" * 40):
        answer = server.http.post("/api/login", json={"username": name, "password": "secret1"})
        assert (answer.status_code, answer.json()["error"]["code"]) == (
            (400, "bad-request") if "\x00" in name else (401, "bad-credentials"))  # issue 18


# --- ids, NUL bytes, rates -------------------------------------------------------------------


def test_ids_beyond_the_integer_columns_and_nul_bytes_are_4xx(server: LiveServer) -> None:
    http = server.http
    boss = server.operator()
    ann = server.signup("ann")
    for path in ("/api/coups/99999999999999999999", "/api/coups/2147483648",
                 "/api/shoes/2147483648", "/api/tables/2147483648", "/api/coups/0"):
        answer = http.get(path)
        assert answer.status_code == 400 and answer.json()["error"]["code"] == "bad-request", path
    credit = http.post("/api/players/2147483648/credit", json={"amount": 100},
                       headers=boss.headers)
    assert credit.status_code == 400
    assert http.get("/api/coups/2147483647").status_code == 404
    keyed = http.post("/api/tables/1/bets", headers=ann.headers,
                      json={"bet": "banco", "stake": 1000, "idempotency_key": "k\x00"})
    assert keyed.status_code == 400 and keyed.json()["error"]["code"] == "bad-request"
    named = http.post("/api/tables", json={"name": "Ta\x00ble"}, headers=boss.headers)
    assert named.status_code == 400 and named.json()["error"]["code"] == "bad-request"
    huge = http.post("/api/tables/1/bets", headers=ann.headers,
                     json={"bet": "banco", "stake": 10**30})
    assert huge.status_code == 400


def test_each_players_bet_rate_is_limited(sqlite_url: str) -> None:
    guard = GuardSettings(login_per_address=TEST_GUARD.login_per_address,
                          bets_per_player=(5, 1.0))
    with running(fast_settings(sqlite_url, guard=guard)) as live:
        ann, bob = live.signup("ann"), live.signup("bob")
        answers = [live.bet(ann, 1, "punto", 1) for _ in range(8)]
        limited = [a for a in answers if a.status_code == 429]
        assert len(limited) >= 2 and limited[0].json()["error"]["code"] == "too-many-requests"
        assert int(limited[0].headers["Retry-After"]) >= 1
        assert live.bet(bob, 1, "punto", 1).status_code != 429  # another player is not held up


# --- WebSockets ------------------------------------------------------------------------------


def test_sockets_are_capped_anonymous_per_address_and_per_player_with_close_code_4429(
        sqlite_url: str) -> None:
    guard = GuardSettings(login_per_address=TEST_GUARD.login_per_address,
                          sockets_per_address=3, sockets_per_player=1)
    with running(fast_settings(sqlite_url, guard=guard)) as live:
        ann = live.signup("ann")
        first = live.watch(1, ann)
        first.next("snapshot")
        with connect(f"{live.ws_url}/ws/tables/1?token={ann.token}") as second:
            with pytest.raises(ConnectionClosed) as closed:
                second.recv(timeout=10)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == CLOSE_TOO_MANY
            assert "per player" in closed.value.rcvd.reason
        others = [live.watch(1), live.watch(2)]
        for watcher in others:
            watcher.next("snapshot")
        third = live.watch(1)  # ann's signed-in socket is not counted per address
        third.next("snapshot")
        with connect(f"{live.ws_url}/ws/tables/1") as fourth:
            with pytest.raises(ConnectionClosed) as closed:
                fourth.recv(timeout=10)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == CLOSE_TOO_MANY
            assert "anonymous sockets per address" in closed.value.rcvd.reason
        # signed-in players behind the same address (a casino floor's network) all get in
        players = [live.watch(1, live.signup(f"floor{n}")) for n in range(4)]
        for watcher in players:
            assert watcher.next("snapshot")["type"] == "snapshot"
        others[0].close()
        wait_until(lambda: live.app.state.guards.sockets.total == 7)
        again = live.watch(1)
        assert again.next("snapshot")["type"] == "snapshot"  # a freed place is taken again
        for watcher in (first, others[1], third, again, *players):
            watcher.close()


def test_a_binary_frame_or_deep_json_gets_the_error_reply_and_the_socket_stays(
        sqlite_server: LiveServer) -> None:
    with connect(f"{sqlite_server.ws_url}/ws/tables/1") as socket_:
        assert json.loads(socket_.recv(timeout=10))["type"] == "snapshot"
        for frame in (b"\x00\x01binary", "[" * 100_000, "[" * 1000, "{\"type\": \"dance\"}"):
            socket_.send(frame)
            reply = json.loads(socket_.recv(timeout=10))
            while reply["type"] != "error":
                reply = json.loads(socket_.recv(timeout=10))
            assert reply["error"]["code"] == "bad-request"
        socket_.send(json.dumps({"type": "ping"}))
        reply = json.loads(socket_.recv(timeout=10))
        while reply["type"] != "pong":
            reply = json.loads(socket_.recv(timeout=10))


# --- headers -------------------------------------------------------------------------------


def test_every_answer_has_the_security_headers(sqlite_server: LiveServer) -> None:
    for path in ("/", "/api/tables", "/api/tables/99", "/static/js/main.js"):
        answer = sqlite_server.http.get(path)
        assert answer.headers["x-frame-options"] == "DENY", path
        assert answer.headers["x-content-type-options"] == "nosniff"
        assert answer.headers["referrer-policy"] == "no-referrer"
        assert answer.headers["content-security-policy"] == PAGE_CSP
        assert "frame-ancestors 'none'" in PAGE_CSP and "'unsafe-inline'" not in PAGE_CSP


# --- withdrawals get an idempotency key --------------------------------------------------------


def test_a_retried_withdrawal_with_its_key_answers_again_and_moves_no_money(
        server: LiveServer) -> None:
    ann = server.signup("ann")
    watcher = server.watch(1, ann)
    opened = watcher.next("round-opened")
    assert server.bet(ann, 1, "banco", 2500).status_code == 200
    key = {"Idempotency-Key": "withdraw-banco-1", **ann.headers}
    first = server.http.delete("/api/tables/1/bets/banco", headers=key)
    again = server.http.delete("/api/tables/1/bets/banco", headers=key)
    assert first.status_code == again.status_code == 200, (first.text, again.text)
    assert again.json() == first.json() and first.json()["coup_id"] == opened["coup_id"]
    assert server.balance(ann) == 100_000
    withdrawals = [e for e in wallet_entries(server.settings.database_url, ann.id)
                   if e[0] == "withdrawal"]
    assert withdrawals == [("withdrawal", 2500)]
    unkeyed = server.http.delete("/api/tables/1/bets/banco", headers=ann.headers)
    assert unkeyed.json()["error"]["code"] == "no-such-bet"  # without a key: nothing to take
    nul = server.http.delete("/api/tables/1/bets/banco",
                             headers={**ann.headers, "Idempotency-Key": "a\tb"})
    assert nul.status_code == 400
    watcher.close()


def test_a_lion_win_under_a_negative_natural_pay_no_longer_stops_the_room(
        sqlite_url: str) -> None:
    """The issue's case: an older server accepted ``lion_natural_pays: -5``; a natural Lion win
    was dealt and its settlement failed ("A transfer moves a positive amount"), leaving the coup
    dealt with the stake held, and every start failed. Now the table is out of service, the
    other one runs, and once the operator repairs the settings the coup is settled by them, the
    stake paid once, and that shoe ends there."""
    migrate(sqlite_url)
    db = Database(sqlite_url)
    good = RuleSet(burn=False)
    first = parse_cards("9S 2H TD 3C")  # Punto 9 (a natural), Banco 5: Lion Punto wins
    rest = new_shoe_cards(6)
    for card in first:
        rest.remove(card)
    shoe = Shoe.from_order([*first, *rest], good)
    bad = {**table_rules_to_json(good, betting_seconds=15), "lion_natural_pays": -5}
    with db.write() as session:
        ledger.ensure_account(session, ledger.ISSUER_CODE, kind="issuer")
        table = store.create_table(session, name="Sanremo", rules=good, betting_seconds=15)
        other = store.create_table(session, name="Enghien", rules=good, betting_seconds=15)
        session.execute(update(GameTable).where(GameTable.id == table.id).values(rules=bad))
        ann = auth.create_player(session, username="ann", password_hash="-", lang="en",
                                 welcome=100_000)
        shoe_id = store.create_shoe(session, table_id=table.id, shoe_no=1, shoe=shoe,
                                    salt="00", commitment="0" * 64, rules_json=bad)
        coup_id = store.open_coup(session, table_id=table.id, shoe_id=shoe_id, round_no=1,
                                  coup_in_shoe=1, last_coup=False)
        place(session, table_id=table.id, coup_id=coup_id, player_id=ann.id,
              kind=BetKind.LION_PUNTO, stake=1000)
        store.close_coup(session, coup_id)
        store.record_deal(session, coup_id, shoe.deal_coup(), first_card=0)
    db.close()
    with running(fast_settings(sqlite_url)) as live:
        assert [t["id"] for t in live.http.get("/api/tables").json()] == [other.id]
        assert live.http.get(f"/api/coups/{coup_id}").json()["status"] == "dealt"
        boss = live.operator()
        fixed = live.http.patch(f"/api/tables/{table.id}", headers=boss.headers,
                                json={"rules": {"lion_natural_pays": 1}})
        assert fixed.status_code == 200, fixed.text
        assert live.http.get(f"/api/coups/{coup_id}").json()["status"] == "settled"
        assert live.http.get(f"/api/shoes/{shoe_id}").json()["status"] == "finished"
    db = Database(sqlite_url)
    with db.read() as session:
        assert ledger.audit(session).ok
        assert ledger.wallet_balance(session, ann.id) == 100_000 + 1000  # natural pays 1:1, once
    db.close()


def test_every_route_declares_its_answer_and_its_errors_in_openapi() -> None:
    """Routes return Pydantic models (``response_model``): each JSON shape is written once and
    the OpenAPI document — which schemathesis fuzzes — is complete."""
    from puntobanco.server.app import create_app
    from puntobanco.server.settings import ServerSettings

    document = create_app(ServerSettings(database_url="sqlite:///unused.sqlite3")).openapi()
    for path, methods in document["paths"].items():
        for method, operation in methods.items():
            answers = operation["responses"]
            success = next(code for code in answers if code.startswith("2"))
            schema = answers[success]["content"]["application/json"]["schema"]
            assert schema, (method, path)
            for status in ("400", "401", "404", "413", "422", "429"):
                assert answers[status]["content"]["application/json"]["schema"] == {
                    "$ref": "#/components/schemas/ErrorOut"}, (method, path, status)


def test_ending_a_session_closes_its_websockets_with_4401(sqlite_server: LiveServer) -> None:
    """A socket opened with a token stops carrying the player's lines once that session ends:
    log-out closes the sockets of that token, log-out-everywhere all of the player's."""
    live = sqlite_server
    ann = live.signup("ann")
    second = live.http.post("/api/login", json={"username": "ann", "password": "secret1"})
    other = Player.from_answer(second.json())

    stack = contextlib.ExitStack()

    def opened(token: str | None) -> Any:
        query = f"?token={token}" if token else ""
        socket_ = stack.enter_context(connect(f"{live.ws_url}/ws/tables/1{query}",
                                              open_timeout=30))
        assert json.loads(socket_.recv(timeout=10))["type"] == "snapshot"
        return socket_

    def closed_with(socket_: Any) -> int | None:
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                socket_.recv(timeout=10)
        return None if closed.value.rcvd is None else closed.value.rcvd.code

    with stack:
        first, later, spectator = opened(ann.token), opened(other.token), opened(None)
        assert live.http.post("/api/logout", headers=ann.headers).status_code == 200
        assert closed_with(first) == CLOSE_UNAUTHORIZED
        later.send(json.dumps({"type": "ping"}))  # the other session's socket is still there
        assert any(json.loads(later.recv(timeout=10))["type"] == "pong" for _ in range(50))
        assert live.http.post("/api/logout-everywhere", headers=other.headers).status_code == 200
        assert closed_with(later) == CLOSE_UNAUTHORIZED
        spectator.send(json.dumps({"type": "ping"}))
        assert any(json.loads(spectator.recv(timeout=10))["type"] == "pong" for _ in range(50))


def test_a_socket_whose_session_expires_is_closed_with_4401(sqlite_url: str) -> None:
    guard = GuardSettings(login_per_address=TEST_GUARD.login_per_address,
                          session_idle_seconds=3.0, session_recheck_seconds=0.3)
    with running(fast_settings(sqlite_url, guard=guard)) as live:
        ann = live.signup("ann")
        with connect(f"{live.ws_url}/ws/tables/1?token={ann.token}", open_timeout=30) as socket_:
            assert json.loads(socket_.recv(timeout=10))["type"] == "snapshot"  # a live session
            with pytest.raises(ConnectionClosed) as closed:
                while True:  # watching alone does not renew it: it ends within a few seconds
                    socket_.recv(timeout=15)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == CLOSE_UNAUTHORIZED
            assert closed.value.rcvd.reason == "The session was ended."
