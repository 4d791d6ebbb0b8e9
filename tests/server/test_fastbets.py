"""Issue 8: a plain bet takes a short way past FastAPI's routing (``api/fastbets.py``); every
answer it gives must be the route's own, word for word, in the player's language."""

from __future__ import annotations

from typing import Any

import httpx
from sqlalchemy import select

from puntobanco.server.api.fastbets import FastBets
from puntobanco.server.db import auth
from puntobanco.server.db.models import BetRecord, BetRequest
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
        before = FastBets.answered
        ended = server.http.post("/api/tables/1/bets", headers=ann.headers, json={
            "bet": "banco", "stake": 1000, "coup_id": coup, "idempotency_key": "after-logout"})
        assert ended.status_code == 401, ended.text
        assert ended.json()["error"]["code"] == "unauthorized"
        assert FastBets.answered == before  # the route answered it, after its own lookup
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
