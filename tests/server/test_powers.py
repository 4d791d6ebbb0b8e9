"""Issue 18, "Every account's powers end where they should, and no request gets a 500": each
finding of the hostile probe, tried again the way it was found, against a real server on SQLite
and on PostgreSQL."""

from __future__ import annotations

import csv
import io
import os
import socket
import subprocess
import sys
import threading
import time
from dataclasses import replace
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, func, select, update
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from puntobanco.server.api.ws import CLOSE_UNAUTHORIZED
from puntobanco.server.db.models import AuditEntry, LoginSession, Player

from .support import (
    OPERATOR_PASSWORD,
    TEST_GUARD,
    LiveServer,
    answers,
    fast_settings,
    free_port,
    running,
    serve_process,
    wait_until,
)


def _set_suspended_behind_the_servers_back(url: str, player_id: int) -> None:
    """The flag as a suspension that missed a session leaves it: set, the session still
    stored (what the log-in race of the probe left behind)."""
    engine = create_engine(url)
    try:
        with engine.begin() as connection:
            connection.execute(update(Player).where(Player.id == player_id)
                               .values(suspended=True))
    finally:
        engine.dispose()


def _sessions_of(url: str, player_id: int) -> int:
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            return int(connection.execute(select(func.count()).select_from(LoginSession).where(
                LoginSession.player_id == player_id)).scalar_one())
    finally:
        engine.dispose()


def _open_round(live: LiveServer, table: int = 1, *, left_ms: int = 700) -> int:
    """Wait for a betting window with at least ``left_ms`` to go; its coup id."""
    found: dict[str, Any] = {}

    def open_now() -> bool:
        snap = live.http.get(f"/api/tables/{table}").json()
        found.update(snap)
        return bool(snap["phase"] == "open" and snap["deadline"] - snap["server_time"] > left_ms)

    live.watch(table).close()  # a watcher wakes an idle dealer
    wait_until(open_now, timeout=30, step=0.05)
    coup: int = found["coup_id"]
    return coup


# --- 1. suspension, at every door -----------------------------------------------------------


def _log_in(url: str, name: str, got: list[httpx.Response]) -> None:
    got.append(httpx.post(f"{url}/api/login", json={"username": name, "password": "secret1"},
                          timeout=30))


def test_a_suspension_committed_while_the_password_is_checked_refuses_the_log_in(
        db_url: str) -> None:
    """The probe suspended a player ~80 ms after their log-in started (bcrypt, cost 12, takes
    ~250 ms) and got a working token 3 times of 3. The session write reads the flag again."""
    with running(fast_settings(db_url, bcrypt_rounds=12)) as live:
        boss = live.operator()
        for attempt in range(3):
            name = f"racer{attempt}"
            player = live.signup(name)
            got: list[httpx.Response] = []
            login = threading.Thread(target=_log_in, args=(live.url, name, got))
            login.start()
            time.sleep(0.08)
            suspended = live.http.post(f"/api/players/{player.id}/suspend",
                                       headers=boss.headers)
            assert suspended.status_code == 200, suspended.text
            login.join(30)
            answer = got[0]
            if answer.status_code == 200:  # the log-in's session write came first: it is ended
                token = answer.json()["token"]
                me = live.http.get("/api/me", headers={"Authorization": f"Bearer {token}"})
                assert me.status_code == 401, me.text
            else:
                assert (answer.status_code, answer.json()["error"]["code"]) == (
                    403, "account-suspended"), answer.text
            assert _sessions_of(db_url, player.id) == 0


def test_a_suspended_players_surviving_session_opens_no_door_even_after_a_restart(
        db_url: str) -> None:
    """The probe's raced token placed single and batch bets after a restart while the player
    was listed suspended. Whatever session a suspension missed, every door looks at the flag:
    HTTP, the bet's short way (whose session was seen live a moment ago), a batch, a new
    WebSocket, an open WebSocket."""
    settings = fast_settings(db_url, betting_seconds=3.0,
                             guard=replace(TEST_GUARD, session_recheck_seconds=0.5))
    with running(settings) as live:
        ann = live.signup("ann")
        bob = live.signup("bob")
        assert live.http.get("/api/me", headers=ann.headers).status_code == 200
        _set_suspended_behind_the_servers_back(db_url, ann.id)
        # the short way remembers ann's session from /api/me: its group commit checks again
        coup = _open_round(live)
        refused = live.http.post("/api/tables/1/bets", headers=ann.headers,
                                 json={"bet": "banco", "stake": 1000, "coup_id": coup})
        assert refused.status_code == 401, refused.text
    with running(settings) as live:
        assert live.http.get("/api/me", headers=ann.headers).status_code == 401
        coup = _open_round(live)
        for path, body in (("/api/tables/1/bets", {"bet": "banco", "stake": 1000}),
                           ("/api/tables/1/bets/batch", {"bets": {"banco": 1000}})):
            answer = live.http.post(path, headers=ann.headers, json={**body, "coup_id": coup})
            assert answer.status_code == 401, (path, answer.text)
        with pytest.raises(ConnectionClosed) as closed, connect(
                f"{live.ws_url}/ws/tables/1?token={ann.token}", open_timeout=30) as socket:
            socket.recv(timeout=10)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == CLOSE_UNAUTHORIZED
        # an open socket, whose session is suspended behind the server's back: closed at the
        # next check of its session (every session_recheck_seconds)
        watcher = live.watch(1, bob)
        try:
            watcher.next("snapshot")
            _set_suspended_behind_the_servers_back(db_url, bob.id)
            with pytest.raises(ConnectionError):
                watcher.next("never", timeout=10)
        finally:
            watcher.close()
        boss = live.operator()
        for player in (ann, bob):
            listed = live.http.get(f"/api/players/{player.id}", headers=boss.headers).json()
            assert listed["suspended"] is True, listed


def test_a_suspended_dealers_surviving_session_drives_no_table(server: LiveServer) -> None:
    """The dealer's actions are a door too: a dealer whose account is suspended behind the
    server's back (its session still stored) reads and drives nothing."""
    boss = server.operator()
    table = server.http.post("/api/tables", headers=boss.headers, json={
        "name": "Salon", "dealing": "dealer"}).json()["id"]
    dealer = server.http.post("/api/dealers", headers=boss.headers, json={
        "username": "lucia", "password": "croupier1", "lang": "en"}).json()
    server.http.put(f"/api/dealers/{dealer['id']}/tables", headers=boss.headers,
                    json={"tables": [table]})
    token = server.http.post("/api/login", json={"username": "lucia", "password": "croupier1"}
                             ).json()["token"]
    lucia = {"Authorization": f"Bearer {token}"}
    assert server.http.get(f"/api/tables/{table}/dealer", headers=lucia).status_code == 200
    _set_suspended_behind_the_servers_back(server.settings.database_url, dealer["id"])
    for method, path in (("GET", f"/api/tables/{table}/dealer"),
                         ("POST", f"/api/tables/{table}/dealer/shoe"),
                         ("GET", "/api/dealer/tables")):
        answer = server.http.request(method, path, headers=lucia,
                                     json={"decks": 1} if method == "POST" else None)
        assert (answer.status_code, answer.json()["error"]["code"]) == (401, "unauthorized"), (
            path, answer.text)


def test_a_suspension_closes_the_players_sockets_on_every_process(pg_cluster: Any) -> None:
    """Two server processes on one PostgreSQL database: the operator suspends a player on one,
    the player's socket on the other closes with 4401 at once (the log-out's relay)."""
    url = pg_cluster.new_database()
    with running(fast_settings(url)) as first, running(fast_settings(url)) as second:
        boss = first.operator()
        ann = first.signup("ann")
        watcher = second.watch(1, ann)
        try:
            watcher.next("snapshot")
            suspended = first.http.post(f"/api/players/{ann.id}/suspend", headers=boss.headers)
            assert suspended.status_code == 200, suspended.text
            with pytest.raises(ConnectionError):
                watcher.next("never", timeout=5)  # far below the session recheck period
        finally:
            watcher.close()
        assert second.http.get("/api/me", headers=ann.headers).status_code == 401


# --- 2. no 500 from any input ---------------------------------------------------------------


def test_no_path_query_or_body_gets_a_500_and_each_refusal_speaks_the_requests_language(
        server: LiveServer) -> None:
    """Each 500 of the probe, on both databases, and the reports' dates: ISO YYYY-MM-DD only,
    up to the last day there is."""
    boss = server.operator()
    spanish = {**boss.headers, "Accept-Language": "es"}
    anonymous = {"Accept-Language": "es"}
    for table in ("99999999999999999999", "9223372036854775808", "%C2%B2", "2147483648",
                  "0", "-1"):
        answer = server.http.get(f"/api/tables/{table}/shoes/1", headers=anonymous)
        assert (answer.status_code, answer.json()["error"]["code"]) == (404, "not-found"), (
            table, answer.text)
        assert answer.json()["error"]["message"] == "No encontrado."
    _open_round(server)  # the first shoe is dealt: found by the table's id and by its name
    assert server.http.get("/api/tables/1/shoes/1").status_code == 200
    assert server.http.get("/api/tables/SANREMO/shoes/1").status_code == 200
    for path in ("/api/tables/a%00b/shoes/1", "/api/players?q=a%00b", "/api/audit?action=a%00b",
                 "/api/players?q=%00"):
        answer = server.http.get(path, headers=spanish)
        assert (answer.status_code, answer.json()["error"]["code"]) == (400, "bad-request"), (
            path, answer.text)
        assert "NUL" in answer.json()["error"]["message"] and "Una solicitud" in answer.json()[
            "error"]["message"]
    for offset in ("9223372036854775808", "2147483648", "-1"):
        answer = server.http.get(f"/api/players?offset={offset}", headers=spanish)
        assert (answer.status_code, answer.json()["error"]["code"]) == (400, "bad-request")
    # a NUL in a body field is refused before anything (bcrypt and PostgreSQL refuse it)
    for path, body in (("/api/login", {"username": "ann", "password": "se\x00cret"}),
                       ("/api/signup", {"username": "ann", "password": "se\x00cret1"}),
                       ("/api/tables", {"name": "Rome\x00", "rules": {}})):
        answer = server.http.post(path, json=body, headers=spanish)
        assert (answer.status_code, answer.json()["error"]["code"]) == (400, "bad-request"), (
            path, answer.text)
        assert answer.json()["error"]["message"].startswith("Una solicitud"), answer.text
    # the reports: the last day there is, as JSON and as CSV
    for path in ("/api/reports/tables", "/api/reports/tables/1"):
        for query in ("?to=9999-12-31", "?from=0001-01-01&to=9999-12-31"):
            answer = server.http.get(path + query, headers=boss.headers)
            assert answer.status_code == 200, (path, query, answer.text)
            assert answer.json()["end"] == "9999-12-31"
            answer = server.http.get(path + query + "&format=csv", headers=boss.headers)
            assert answer.status_code == 200, (path, query, answer.text)
            assert next(csv.reader(io.StringIO(answer.text)))[0] == "group"
        for day in ("20261201", "2026-W01-1", "2026-12-1", "２０２６-１２-０１", "2026-02-30"):
            answer = server.http.get(f"{path}?from={day}", headers=spanish)
            assert (answer.status_code, answer.json()["error"]["code"]) == (400, "bad-period"), (
                day, answer.text)
            assert answer.json()["error"]["message"].startswith("Periodo no válido")


# --- 4. every money request is idempotent ---------------------------------------------------


def test_a_credit_retried_with_its_key_credits_once_and_answers_again(server: LiveServer) -> None:
    """Two identical credits with one Idempotency-Key credited twice: now once, the retry gets
    the first answer, the key for another amount is a conflict, and two sent at the same moment
    credit once too."""
    boss = server.operator()
    ann = server.signup("ann")
    before = server.balance(ann)
    keyed = {**boss.headers, "Idempotency-Key": "click-1"}
    first = server.http.post(f"/api/players/{ann.id}/credit", json={"amount": 5000},
                             headers=keyed)
    again = server.http.post(f"/api/players/{ann.id}/credit", json={"amount": 5000},
                             headers=keyed)
    assert first.status_code == again.status_code == 200, (first.text, again.text)
    assert first.json() == again.json()
    assert server.balance(ann) == before + 5000
    other = server.http.post(f"/api/players/{ann.id}/credit", json={"amount": 7000},
                             headers=keyed)
    assert (other.status_code, other.json()["error"]["code"]) == (409, "idempotency-conflict")
    # the key in the body, as bets take it
    for _ in range(2):
        answer = server.http.post(f"/api/players/{ann.id}/credit", headers=boss.headers,
                                  json={"amount": 100, "idempotency_key": "click-2"})
        assert answer.status_code == 200, answer.text
    assert server.balance(ann) == before + 5100
    # at the same moment
    barrier = threading.Barrier(4)
    answers: list[int] = []

    def send() -> None:
        barrier.wait()
        answers.append(httpx.post(f"{server.url}/api/players/{ann.id}/credit", timeout=30,
                                  json={"amount": 1000},
                                  headers={**boss.headers, "Idempotency-Key": "click-3"}
                                  ).status_code)

    threads = [threading.Thread(target=send) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert answers == [200] * 4
    assert server.balance(ann) == before + 6100
    # without a key, each request credits (as before)
    server.http.post(f"/api/players/{ann.id}/credit", json={"amount": 1}, headers=boss.headers)
    assert server.balance(ann) == before + 6101
    engine = create_engine(server.settings.database_url)
    try:
        with engine.connect() as connection:
            credits = connection.execute(select(func.count()).select_from(AuditEntry).where(
                AuditEntry.action == "player-credit")).scalar_one()
    finally:
        engine.dispose()
    assert credits == 4


# --- 5. a batch of bets: each stake checked, each box once ----------------------------------


def test_a_batch_naming_one_box_twice_is_refused_and_its_stakes_never_summed(
        server: LiveServer) -> None:
    """``{"banco": 10**40, "BANCO": -(10**40)+1000}`` and ``{"punto": -500, "player": 1500}``
    were each placed as a 1,000-cent bet."""
    ann = server.signup("ann")
    before = server.balance(ann)
    coup = _open_round(server)
    for bets in ({"banco": 10**40, "BANCO": -(10**40) + 1000},
                 {"punto": -500, "player": 1500}, {"banco": 500, "BANCO": 500},
                 {"lion-punto": 1000, "LION-PUNTO": 1000}, {"punto": -500}, {"banco": 10**40}):
        answer = server.http.post("/api/tables/1/bets/batch", headers=ann.headers,
                                  json={"bets": bets, "coup_id": coup})
        assert 400 <= answer.status_code < 500, (bets, answer.text)
    twice = server.http.post("/api/tables/1/bets/batch", headers=ann.headers,
                             json={"bets": {"punto": -500, "player": 1500}, "coup_id": coup})
    assert (twice.status_code, twice.json()["error"]["code"]) == (400, "duplicate-bet")
    assert server.balance(ann) == before
    placed = server.http.post("/api/tables/1/bets/batch", headers=ann.headers,
                              json={"bets": {"banco": 1000, "punto": 1000}, "coup_id": coup})
    assert placed.status_code == 200, placed.text


# --- 8. the request's language wins ---------------------------------------------------------


def test_a_refusal_speaks_the_requests_language_over_the_accounts(server: LiveServer) -> None:
    """The console set to English showed the refusals in the operator's stored French."""
    boss = server.operator()  # stored language: French
    answer = server.http.post("/api/players/1/suspend",
                              headers={**boss.headers, "Accept-Language": "en"})
    assert answer.json()["error"] == {"code": "operator-not-suspendable",
                                      "message": "An operator account cannot be suspended."}
    answer = server.http.post("/api/players/1/suspend", headers=boss.headers)
    assert answer.json()["error"]["message"] == "Un compte d'opérateur ne peut pas être suspendu."
    ann = server.signup("ann", lang="it")
    # a bet's short way too (a coup that is not open: refused table-closed, whatever the phase)
    body = {"bet": "banco", "stake": 1000, "coup_id": 2**31 - 1}
    bet = server.http.post("/api/tables/1/bets", json=body,
                           headers={**ann.headers, "Accept-Language": "es-ES,es;q=0.9"})
    bet_it = server.http.post("/api/tables/1/bets", json=body, headers=ann.headers)
    assert bet.json()["error"]["code"] == bet_it.json()["error"]["code"] == "table-closed"
    assert bet.json()["error"]["message"] != bet_it.json()["error"]["message"]


# --- 10. HEAD, Allow, the CSV in the document -----------------------------------------------


def test_head_answers_for_uptime_checks_and_a_405_says_what_is_allowed(
        sqlite_server: LiveServer) -> None:
    http = sqlite_server.http
    for path in ("/", "/docs", "/operator", "/dealer"):
        answer = http.head(path)
        assert answer.status_code == 200, (path, answer.status_code)
        assert answer.content == b""
    wrong = http.delete("/api/tables")
    assert wrong.status_code == 405 and wrong.json()["error"]["code"] == "bad-request"
    assert set(wrong.headers["allow"].split(", ")) == {"GET", "POST"}
    wrong = http.put("/api/tables/1")
    assert set(wrong.headers["allow"].split(", ")) == {"GET", "PATCH"}
    document = http.get("/openapi.json").json()
    for path in ("/api/reports/tables", "/api/reports/tables/{table_id}"):
        content = document["paths"][path]["get"]["responses"]["200"]["content"]
        assert set(content) == {"application/json", "text/csv"}


# --- 9. a connection that never sends a request --------------------------------------------


def test_a_connection_that_never_sends_a_request_is_closed_as_an_idle_one(
        sqlite_url: str) -> None:
    """uvicorn starts its keep-alive timer after a first answer: a silent connection stayed
    open over 100 s. ``serve`` closes it after ``--idle-seconds``, as an idle keep-alive one;
    a connection that sends its request in time is answered."""
    with serve_process(sqlite_url, "--idle-seconds", "2") as (_process, url):
        port = int(url.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=30) as silent, \
                socket.create_connection(("127.0.0.1", port), timeout=30) as talking:
            started = time.monotonic()
            time.sleep(1)
            talking.sendall(b"GET /api/tables HTTP/1.1\r\nHost: x\r\n\r\n")
            assert talking.recv(100).startswith(b"HTTP/1.1 200")
            silent.settimeout(15)
            assert silent.recv(100) == b""  # closed by the server
            assert 1.5 < time.monotonic() - started < 10


# --- 6. two processes starting together on an empty PostgreSQL database --------------------


def test_two_serve_processes_started_together_on_an_empty_database_both_serve(
        pg_cluster: Any) -> None:
    """The migrations raced: one process stopped on a unique constraint. They take turns."""
    _serve_two_at_once(pg_cluster.new_database())


def _serve_two_at_once(url: str) -> None:
    """Two ``serve`` processes started at the same moment; both must answer."""
    ports = [free_port(), free_port()]
    env = {**os.environ, "PUNTOBANCO_OPERATOR_PASSWORD": OPERATOR_PASSWORD}
    processes = [subprocess.Popen(
        [sys.executable, "-c", "from puntobanco.cli import main; main()", "serve", "--port",
         str(port), "--database-url", url], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, env=env) for port in ports]
    pairs = list(zip(ports, processes, strict=True))
    try:
        wait_until(lambda: all(answers(f"http://127.0.0.1:{port}") or process.poll() is not None
                               for port, process in pairs), timeout=90, step=0.2)
        assert [process.poll() for process in processes] == [None, None], [
            process.communicate()[1][-2000:] for process in processes
            if process.poll() is not None]
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
            process.communicate(timeout=60)
