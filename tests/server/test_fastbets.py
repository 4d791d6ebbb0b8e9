"""Issue 8: a plain bet takes a short way past FastAPI's routing (``api/fastbets.py``); every
answer it gives must be the route's own, word for word, in the player's language."""

from __future__ import annotations

import email.utils
import json
import socket
import time
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from puntobanco.server.api.fastbets import FastBets
from puntobanco.server.db import auth
from puntobanco.server.db.models import BetRecord, BetRequest
from puntobanco.server.live import messages
from puntobanco.server.settings import GuardSettings

from .support import LiveServer, Player, fast_settings, running


def _both(server: LiveServer, player: Player, body: dict[str, Any], *, table: int = 1,
          lang: str = "fr") -> tuple[httpx.Response, httpx.Response]:
    """The same request the short way (no query string) and by the route (``?lang=`` of the
    player's own language, which the short way leaves to the route)."""
    before = FastBets.answered
    short = server.http.post(f"/api/tables/{table}/bets", json=body, headers=player.headers)
    assert FastBets.answered == before + 1, short.text  # it did take the short way
    route = server.http.post(f"/api/tables/{table}/bets?lang={lang}", json=body,
                             headers=player.headers)
    assert FastBets.answered == before + 1
    return short, route


#: what an answer to a bet carries (issue 21; LiveServer runs uvicorn as ``serve`` does, with
#: no Server header)
BET_HEADERS = {"content-type", "content-length", "x-content-type-options", "date"}


def _same_refusal(short: httpx.Response, route: httpx.Response, code: str) -> None:
    assert short.status_code == route.status_code, (short.text, route.text)
    assert short.json() == route.json()
    assert short.json()["error"]["code"] == code
    # taken before every middleware, the short way gives the guard's headers, all of them:
    # for a bet's JSON answer, only those JSON needs (issue 21: no document headers)
    assert sorted(short.headers) == sorted(route.headers)
    assert short.headers["x-content-type-options"] == route.headers["x-content-type-options"]
    assert set(short.headers) - {"retry-after"} == BET_HEADERS, short.headers


def test_issue8_the_short_way_answers_as_the_route_does(db_url: str) -> None:
    guard = GuardSettings(bets_per_player=(20, 0.01))
    with running(fast_settings(db_url, betting_seconds=5.0, guard=guard)) as server:
        ann = server.signup("ann", lang="fr")
        watcher = server.watch(1, ann)
        opened = watcher.next("round-opened")
        coup = opened["coup_id"]
        short, route = _both(server, ann, {"bet": "banco", "stake": 1000, "coup_id": coup})
        assert short.status_code == route.status_code == 200, (short.text, route.text)
        assert set(short.headers) == set(route.headers) == BET_HEADERS, short.headers
        first, second = short.json(), route.json()
        assert set(first) == set(second) == {"bet", "stake", "total", "my_bets", "balance",
                                             "coup_id", "round_no"}
        assert second["total"] == first["total"] + 1000 and second["coup_id"] == coup
        # an idempotency key: the retry gets the first answer, whichever way each went
        short, route = _both(server, ann, {"bet": "punto", "stake": 1000, "coup_id": coup,
                                           "idempotency_key": "k-1"})
        assert short.status_code == route.status_code == 200 and short.json() == route.json()
        # refusals: each in French, as the route words it
        _same_refusal(*_both(server, ann, {"bet": "banco", "stake": 1001, "coup_id": coup}),
                      "not-chip-multiple")
        _same_refusal(*_both(server, ann, {"bet": "punto", "stake": 1000,
                                           "coup_id": coup + 1}), "table-closed")
        _same_refusal(*_both(server, ann, {"bet": "zebra", "stake": 1000}), "unknown-bet")
        _same_refusal(*_both(server, ann, {"bet": "banco", "stake": 1000}, table=99),
                      "not-found")
        _same_refusal(*_both(server, ann, {"bet": "banco", "stake": 500, "coup_id": coup,
                                           "idempotency_key": "k-1"}), "idempotency-conflict")
        # the bet limit: the short way counts as the route does, and says when to come back
        while (short := server.http.post("/api/tables/1/bets", headers=ann.headers, json={
                "bet": "egalite", "stake": 1000, "coup_id": coup})).status_code != 429:
            assert short.status_code == 200, short.text
        route = server.http.post("/api/tables/1/bets?lang=fr", headers=ann.headers, json={
            "bet": "egalite", "stake": 1000, "coup_id": coup})
        _same_refusal(short, route, "too-many-requests")
        assert int(short.headers["retry-after"]) >= 1 and "retry-after" in route.headers
        watcher.close()


def test_issue8_what_is_not_plain_goes_to_the_route(sqlite_url: str) -> None:
    with running(fast_settings(sqlite_url)) as server:
        ann = server.signup("ann", lang="it")
        before = FastBets.answered
        unknown = server.http.post("/api/tables/1/bets", json={"bet": "banco", "stake": 100},
                                   headers={"Authorization": "Bearer nobody"})
        assert unknown.status_code == 401 and unknown.json()["error"]["code"] == "unauthorized"
        bad = server.http.post("/api/tables/1/bets", json={"bet": "banco", "stake": "x"},
                               headers=ann.headers)
        assert bad.status_code == 400 and "stake" in bad.json()["error"]["message"]
        extra = server.http.post("/api/tables/1/bets", json={"bet": "banco", "stake": 100,
                                                             "more": 1}, headers=ann.headers)
        assert extra.status_code == 400
        broken = server.http.post("/api/tables/1/bets", content=b"{", headers={
            **ann.headers, "Content-Type": "application/json"})
        assert broken.status_code == 400 and broken.json()["error"]["code"] == "bad-request"
        assert FastBets.answered == before  # all of them answered by the route


def test_issue8_a_chunked_bet_body_over_the_limit_is_refused_413_not_500(sqlite_url: str) -> None:
    """Issue 9's body limit holds on the short way's path too: a chunked body is the route's."""
    with running(fast_settings(sqlite_url)) as server:
        ann = server.signup("ann")

        def chunks() -> Any:
            yield b'{"bet": "banco", "stake": 1000, "idempotency_key": "'
            for _ in range(20):
                yield b"x" * 1000
            yield b'"}'

        answer = server.http.post("/api/tables/1/bets", content=chunks(), headers={
            **ann.headers, "Content-Type": "application/json"})
        assert answer.status_code == 413, answer.text
        assert answer.json()["error"]["code"] == "body-too-large"


def test_issue8_a_session_ended_elsewhere_is_refused_by_the_bets_own_commit(db_url: str) -> None:
    """Issue 9's session guarantee on the short way, which looks a session it has seen in the
    last minute up only in the bet's own group commit: a session ended behind this process's
    back (another server process's log-out) is answered ``unauthorized``, in the route's words,
    and nothing is written — while the table is open (the batch checks it) and after the close
    (the cheap refusal looks the session up first)."""
    with running(fast_settings(db_url, betting_seconds=2.0)) as server:
        ann = server.signup("ann", lang="it")
        watcher = server.watch(1, ann)
        coup = watcher.next("round-opened")["coup_id"]
        first = server.http.post("/api/tables/1/bets", headers=ann.headers, json={
            "bet": "banco", "stake": 1000, "coup_id": coup})
        assert first.status_code == 200, first.text
        balance = first.json()["balance"]
        # a second bet: the session is remembered, not looked up again
        second = server.http.post("/api/tables/1/bets", headers=ann.headers, json={
            "bet": "banco", "stake": 1000, "coup_id": coup})
        assert second.status_code == 200 and second.json()["balance"] == balance - 1000
        with server.casino.db.write() as session:  # as another process's log-out does
            auth.close_session(session, ann.token)
        before = FastBets.quick
        ended = server.http.post("/api/tables/1/bets", headers=ann.headers, json={
            "bet": "banco", "stake": 1000, "coup_id": coup, "idempotency_key": "after-logout"})
        assert ended.status_code == 401, ended.text
        assert ended.json()["error"]["code"] == "unauthorized"
        assert FastBets.quick == before + 1  # queued by the HTTP protocol itself (issue 21)
        # ... and answered in the route's words, after its own lookup
        route = server.http.post("/api/tables/1/bets?lang=fr", headers=ann.headers, json={
            "bet": "banco", "stake": 1000, "coup_id": coup})
        assert route.status_code == 401 and route.json() == ended.json()
        late = server.http.post("/api/tables/1/bets", headers=ann.headers, json={
            "bet": "banco", "stake": 1000, "coup_id": coup + 1})  # refused before any batch
        assert late.status_code == 401 and late.json()["error"]["code"] == "unauthorized"
        with server.casino.db.read() as session:
            stakes = session.execute(select(BetRecord.stake).where(
                BetRecord.player_id == ann.id, BetRecord.coup_id == coup)).scalars().all()
            assert sum(stakes) == 2000  # the bet after the log-out is nowhere
            assert session.execute(select(BetRequest).where(
                BetRequest.idempotency_key == "after-logout")).first() is None
        watcher.close()


# --- issue 21, fourth pass: a plain bet answered by the HTTP protocol itself (connections.py)


def _raw(port: int) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=10)


def _request(player: Player, body: str | bytes, *,
             head: str = "POST /api/tables/1/bets HTTP/1.1", extra: str = "",
             length: int | None = None) -> bytes:
    data = body if isinstance(body, bytes) else body.encode()
    return (f"{head}\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {player.token}\r\n"
            f"Content-Type: application/json\r\n{extra}Content-Length: "
            f"{len(data) if length is None else length}\r\n\r\n").encode() + data


def _answer(conn: socket.socket, buffer: bytearray) -> tuple[list[str], bytes]:
    """One answer read from ``conn`` (what is read past it stays in ``buffer``): its head's
    lines and its body."""
    while b"\r\n\r\n" not in buffer:
        chunk = conn.recv(65536)
        assert chunk, bytes(buffer)
        buffer += chunk
    end = buffer.index(b"\r\n\r\n")
    lines = buffer[:end].decode("latin-1").split("\r\n")
    length = next(int(line.split(":")[1]) for line in lines
                  if line.lower().startswith("content-length:"))
    while len(buffer) < end + 4 + length:
        chunk = conn.recv(65536)
        assert chunk
        buffer += chunk
    body = bytes(buffer[end + 4:end + 4 + length])
    del buffer[:end + 4 + length]
    return lines, body


def test_issue21_a_plain_bet_is_answered_by_the_http_protocol_as_uvicorn_writes_it(
        sqlite_url: str) -> None:
    """The answer the protocol writes is, byte for byte, the one uvicorn wrote for the
    application (status line, ``date``, the JSON headers in their order, the length), and the
    connection is kept alive for the next request, or closed when the request says so
    (``Connection: close``, HTTP/1.0)."""
    with running(fast_settings(sqlite_url, betting_seconds=5.0)) as server:
        ann = server.signup("ann", lang="fr")
        watcher = server.watch(1, ann)
        coup = watcher.next("round-opened")["coup_id"]
        body = f'{{"bet":"banco","stake":1000,"coup_id":{coup}}}'
        before = FastBets.quick
        with _raw(server.port) as conn:
            buffer = bytearray()
            for total in (1000, 2000):  # one keep-alive connection, two bets
                conn.sendall(_request(ann, body))
                lines, text = _answer(conn, buffer)
                assert lines[0] == "HTTP/1.1 200 OK"
                assert lines[1].startswith("date: ")
                assert lines[2:] == ["content-type: application/json",
                                     "x-content-type-options: nosniff",
                                     f"content-length: {len(text)}"], lines
                assert text == (f'{{"bet":"banco","stake":1000,"total":{total},'
                                f'"my_bets":{{"banco":{total}}},"balance":{100_000 - total},'
                                f'"coup_id":{coup},"round_no":1}}').encode()
        assert FastBets.quick == before + 2
        for request in (_request(ann, body, extra="Connection: close\r\n"),
                        _request(ann, body, head="POST /api/tables/1/bets HTTP/1.0")):
            with _raw(server.port) as conn:
                conn.sendall(request)
                buffer = bytearray()
                lines, _ = _answer(conn, buffer)
                assert lines[0] == "HTTP/1.1 200 OK" and lines[-1] == "connection: close"
                assert conn.recv(100) == b""  # closed after the answer
        assert FastBets.quick == before + 4
        watcher.close()


def test_issue21_pipelined_bets_and_a_client_gone_are_handled_as_uvicorn_does(
        sqlite_url: str) -> None:
    """A request sent while a bet waits for its batch waits behind it (uvicorn's pipeline),
    and the answers come in order; a bet whose client went away before its answer stands
    (queued bets complete), and the server goes on."""
    with running(fast_settings(sqlite_url, betting_seconds=5.0)) as server:
        ann = server.signup("ann", lang="fr")
        watcher = server.watch(1, ann)
        coup = watcher.next("round-opened")["coup_id"]
        first = f'{{"bet":"banco","stake":1000,"coup_id":{coup}}}'
        second = f'{{"bet":"punto","stake":2000,"coup_id":{coup}}}'
        before = FastBets.quick
        with _raw(server.port) as conn:
            conn.sendall(_request(ann, first) + _request(ann, second)
                         + f"GET /api/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                           f"{ann.token}\r\n\r\n".encode())
            buffer = bytearray()
            answers = [_answer(conn, buffer) for _ in range(3)]
        assert [lines[0] for lines, _ in answers] == ["HTTP/1.1 200 OK"] * 3
        assert FastBets.quick == before + 1  # the second waited, then went uvicorn's way
        got = [json.loads(text) for _, text in answers]
        assert (got[0]["my_bets"], got[0]["balance"]) == ({"banco": 1000}, 99_000)
        assert (got[1]["my_bets"], got[1]["balance"]) == ({"banco": 1000, "punto": 2000}, 97_000)
        assert got[2]["balance"] == 97_000
        with _raw(server.port) as conn:  # sent, then gone at once
            conn.sendall(_request(ann, first))
        for _ in range(50):
            if server.balance(ann) == 96_000:
                break
            time.sleep(0.05)
        assert server.balance(ann) == 96_000
        watcher.close()


def test_issue21_a_bet_its_batch_refuses_is_answered_in_the_requests_language(
        db_url: str) -> None:
    """A bet the protocol queued that its batch refuses (over the balance: no cheap check
    sees it) is answered as the route answers it, in the language the request asks for
    (``Accept-Language``), with its code and status."""
    with running(fast_settings(db_url, betting_seconds=5.0)) as server:
        ann = server.signup("ann", lang="fr")
        watcher = server.watch(1, ann)
        coup = watcher.next("round-opened")["coup_id"]
        body = {"bet": "banco", "stake": 200_000, "coup_id": coup}
        server.http.post("/api/tables/1/bets", json={**body, "stake": 1000},
                         headers=ann.headers)  # the session is known: the next is taken short
        before = FastBets.quick
        short = server.http.post("/api/tables/1/bets", json=body,
                                 headers={**ann.headers, "Accept-Language": "es"})
        assert FastBets.quick == before + 1
        route = server.http.post("/api/tables/1/bets?lang=es", json=body, headers=ann.headers)
        _same_refusal(short, route, "insufficient-balance")
        assert short.status_code == 422
        watcher.close()


def test_issue21_a_bug_on_the_protocols_short_way_is_an_internal_error_and_one_bet(
        sqlite_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bug while a queued bet is answered (here: its answer's text cannot be made) is
    answered as the routes answer one — ``internal-error`` in the error envelope, never a
    request left hanging — and the request is not handed to the application again: its bet,
    queued already, is placed once."""
    with running(fast_settings(sqlite_url, betting_seconds=5.0)) as server:
        ann = server.signup("ann", lang="fr")
        watcher = server.watch(1, ann)
        coup = watcher.next("round-opened")["coup_id"]

        def broken(answer: dict[str, Any]) -> str | None:
            raise RuntimeError("a bug")

        monkeypatch.setattr(messages, "bet_answer_text", broken)
        before = FastBets.quick
        answer = server.http.post("/api/tables/1/bets", headers=ann.headers, json={
            "bet": "banco", "stake": 1000, "coup_id": coup})
        assert FastBets.quick == before + 1
        assert answer.status_code == 500, answer.text
        assert answer.json()["error"]["code"] == "internal-error"
        monkeypatch.undo()
        assert server.balance(ann) == 99_000  # placed once
        watcher.close()


# --- issue 21, fifth pass: the protocol's own idle timer and the answer's prepared head



def _betting(server: LiveServer) -> tuple[Player, Any, str]:
    """A signed-in player watching table 1 whose session the server already knows (one bet
    placed), and the body of a plain bet on the open coup."""
    ann = server.signup("ann", lang="fr")
    watcher = server.watch(1, ann)
    coup = watcher.next("round-opened")["coup_id"]
    assert server.bet(ann, 1, "banco", 1000).status_code == 200  # the session is known
    return ann, watcher, f'{{"bet":"banco","stake":1000,"coup_id":{coup}}}'

def test_issue21_a_connection_is_closed_idle_seconds_after_its_last_answer_never_before(
        sqlite_url: str) -> None:
    """The idle timer is one per connection, set when it connects, not remade per request
    (``connections.py``): it closes a connection that received nothing for
    ``timeout_keep_alive`` seconds since its last answer — not sooner, though the timer was
    set before that answer — and never one whose request is under way (sent slowly, in parts,
    past that time: uvicorn's rule, the proxy's job to limit), whose answer starts it again,
    nor a connection that became a WebSocket."""
    server = LiveServer(fast_settings(sqlite_url, betting_seconds=30.0))
    server.server.config.timeout_keep_alive = 2
    server.start()
    try:
        ann, watcher, body = _betting(server)
        before = FastBets.quick
        with _raw(server.port) as conn:
            buffer = bytearray()
            time.sleep(1.2)
            conn.sendall(_request(ann, body))
            assert _answer(conn, buffer)[0][0] == "HTTP/1.1 200 OK"
            time.sleep(1.3)  # 2.5 s connected, 1.3 s since the answer: still open
            request = _request(ann, body)
            conn.sendall(request[:40])
            time.sleep(2.5)  # a request under way past the idle time is not cut
            conn.sendall(request[40:])
            assert _answer(conn, buffer)[0][0] == "HTTP/1.1 200 OK"
            answered = time.monotonic()
            conn.settimeout(15)
            assert conn.recv(100) == b""  # closed by the server, idle after its answer
            assert 1.5 < time.monotonic() - answered < 4
        assert FastBets.quick == before + 2  # both answered by the protocol itself
        watcher.send({"type": "ping"})  # a WebSocket is not an idle HTTP connection
        assert watcher.next("pong")
        watcher.close()
    finally:
        server.stop()


def test_issue21_the_protocols_answer_carries_the_date_of_its_second(sqlite_url: str) -> None:
    """The answer's head is prepared once per second and status (``connections.answer_head``):
    its ``date`` is uvicorn's of the moment it is written, a second later a new one."""
    with running(fast_settings(sqlite_url, betting_seconds=10.0)) as server:
        ann, watcher, body = _betting(server)
        before = FastBets.quick
        dates = []
        with _raw(server.port) as conn:
            buffer = bytearray()
            for _ in range(2):
                conn.sendall(_request(ann, body))
                lines, _ = _answer(conn, buffer)
                dates.append(email.utils.parsedate_to_datetime(lines[1].removeprefix("date: ")))
                assert abs(dates[-1].timestamp() - time.time()) < 2.5, lines
                time.sleep(1.6)
        assert FastBets.quick == before + 2
        assert dates[1] > dates[0]
        watcher.close()


def test_issue21_hostile_bodies_on_a_held_bet_get_the_routes_answers_on_a_live_connection(
        sqlite_url: str) -> None:
    """A request held back as a plain bet whose body is not one — broken JSON, bytes that are
    not UTF-8 — goes uvicorn's way with its body (the route's 400 with its code) and the
    keep-alive connection serves the next request; a body JSON reads whole (spaces around
    it, a byte order mark: ``fastbets.loads`` leaves those to ``json.loads``) is the plain bet
    it is; a declared body over the limit is refused 413 unread."""
    with running(fast_settings(sqlite_url, betting_seconds=10.0)) as server:
        ann, watcher, body = _betting(server)
        before = FastBets.quick
        with _raw(server.port) as conn:
            buffer = bytearray()
            for hostile in (b"{", b'{"bet":"banco\xff","stake":1000}'):
                conn.sendall(_request(ann, hostile))
                lines, text = _answer(conn, buffer)
                assert lines[0] == "HTTP/1.1 400 Bad Request", (lines, text)
                assert json.loads(text)["error"]["code"] == "bad-request"
            for usual in (f"  {body}\r\n", "\ufeff" + body):
                conn.sendall(_request(ann, usual))
                lines, text = _answer(conn, buffer)
                assert lines[0] == "HTTP/1.1 200 OK", (lines, text)
            conn.sendall(_request(ann, body))
            lines, text = _answer(conn, buffer)
            assert lines[0] == "HTTP/1.1 200 OK" and json.loads(text)["total"] == 4000
        assert FastBets.quick == before + 3  # the two usual bodies and the plain one
        with _raw(server.port) as conn:
            conn.sendall(_request(ann, "{", length=100_000_000))
            lines, text = _answer(conn, bytearray())
            assert lines[0].startswith("HTTP/1.1 413")
            assert json.loads(text)["error"]["code"] == "body-too-large"
        assert server.balance(ann) == 96_000
        watcher.close()
