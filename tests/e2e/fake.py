"""A fake table server for page tests that need no real one: every HTTP request and the table's
WebSocket are answered by the test (Playwright routes), so a page can be put in any state at once
(a coup with third cards, long words, void coups in the recall, a silent connection)."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from puntobanco import i18n
from puntobanco.rules import RuleSet
from puntobanco.server.settings import table_rules_to_json

from .conftest import STATIC_DIR

ORIGIN = "http://table.test"
TYPES = {".html": "text/html", ".js": "text/javascript", ".css": "text/css",
         ".svg": "image/svg+xml", ".png": "image/png"}
BOXES = ["lion-punto", "punto", "egalite", "banco", "lion-banco"]
#: the strictest policy the page must work under (no inline script or style, same origin only)
STRICT_CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
              "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'")


def coup(coup_id: int, *, status: str = "settled", table_id: int = 1) -> dict[str, Any]:
    """A coup object; settled ones have three cards a side (Punto 9 by drawing, Banco 8)."""
    dealt = status == "settled"
    return {
        "id": coup_id, "table_id": table_id, "shoe_id": 1, "shoe_no": 1, "coup_in_shoe": 24,
        "round_no": coup_id, "status": status,
        "punto": {"cards": ["4H", "6S", "9D"] if dealt else [], "total": 9 if dealt else None},
        "banco": {"cards": ["3C", "KD", "5S"] if dealt else [], "total": 8 if dealt else None},
        "winner": "punto" if dealt else None, "natural": False if dealt else None,
        "margin": 1 if dealt else None, "cards": [], "dealt_at": None, "settled_at": None,
        "my_bets": {"banco": 2500, "lion-punto": 1000},
        "settlement": ([{"bet": "banco", "stake": 2500, "outcome": "lose", "net": -2500,
                         "pays": "", "detail": "lose", "returned": 0},
                        {"bet": "lion-punto", "stake": 1000, "outcome": "lose", "net": -1000,
                         "pays": "", "detail": "lose", "returned": 0}] if dealt else []),
    }


def snapshot(*, phase: str = "open", my_bets: dict[str, int] | None = None,
             coup_id: int = 25, balance: int = 87_000) -> dict[str, Any]:
    rules = table_rules_to_json(RuleSet(), betting_seconds=15)
    now = int(time.time() * 1000)
    winners = ["banco", "banco", "punto", "egalite", "punto", "punto", "banco", "punto"] * 3
    roads = [{"coup_id": i + 1, "winner": w, "punto_total": 5, "banco_total": 7,
              "natural": i % 5 == 0} for i, w in enumerate(winners)]
    last = coup(24)
    return {"id": 1, "name": "Sanremo", "rules": rules, "phase": phase, "round_no": coup_id,
            "coup_id": coup_id, "coup_in_shoe": 25,
            "deadline": now + 600_000 if phase == "open" else None, "server_time": now,
            "betting_seconds": 15, "spots": 1, "totals": {b: 0 for b in BOXES},
            "my_bets": dict(my_bets or {}), "cards": [], "last_result": last, "roads": roads,
            "balance": balance,
            "shoe": {"id": 1, "shoe_no": 1, "commitment": "ab" * 32, "cards_left": 250,
                     "cut_card_out": False, "last_coup": False, "coups_dealt": 24,
                     "cut_index": 296, "burned": 4}}


@dataclass
class FakeServer:
    """Answers the page's requests; ``sockets`` are the page's open WebSockets (routes)."""

    lang: str = "fr"
    snapshot: dict[str, Any] = field(default_factory=snapshot)
    recall: list[dict[str, Any]] = field(default_factory=list)
    answer_pings: bool = True
    #: the server is down: every socket is closed at once (a killed server), until it is back
    down: bool = False
    _greeted: set[int] = field(default_factory=set)
    sockets: list[Any] = field(default_factory=list)
    requests: list[tuple[str, str, Any]] = field(default_factory=list)
    bet_answers: dict[str, Any] = field(default_factory=dict)
    extra_tables: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def player(self, lang: str | None = None) -> dict[str, Any]:
        return {"id": 7, "username": "lea", "role": "player", "lang": lang or self.lang,
                "balance": self.snapshot.get("balance", 87_000)}

    def attach(self, page: Any) -> None:
        page.on("pageerror", lambda error: self.errors.append(str(error)))
        page.on("console", lambda message: self.errors.append(message.text)
                if "Content Security Policy" in message.text else None)
        page.route(f"{ORIGIN}/**", self._serve)
        page.route_web_socket("**/ws/tables/*", self._socket)

    def kill(self) -> None:
        """The server goes away: its sockets close, new ones are refused until ``down`` is
        false again."""
        self.down = True
        sockets, self.sockets = self.sockets, []
        for socket in sockets:
            socket.close(code=1011, reason="down")

    def send(self, message: dict[str, Any]) -> None:
        for socket in self.sockets:
            socket.send(json.dumps(message))

    def _socket(self, ws: Any) -> None:
        """A new connection gets its snapshot; while the "network" is cut (``answer_pings``
        false) it opens but nothing ever comes through."""
        if self.down:
            ws.close(code=1011, reason="down")
            return
        self.sockets.append(ws)
        ws.on_message(lambda text: self._on_ws(ws, text))
        if self.answer_pings:
            self._greet(ws)

    def _greet(self, ws: Any) -> None:
        self._greeted.add(id(ws))
        ws.send(json.dumps({"type": "snapshot", "table": self.snapshot}))

    def _on_ws(self, ws: Any, text: Any) -> None:
        if self.answer_pings and json.loads(text).get("type") == "bet":
            self._socket_bet(ws, json.loads(text))
        if self.answer_pings and json.loads(text).get("type") == "ping":
            # A socket opened while the network was cut gets its snapshot when the network
            # comes back, first, as a real server's would have reached it (a slow machine can
            # open one just before the test lets pings through again).
            if id(ws) not in self._greeted:
                self._greet(ws)
            ws.send(json.dumps({"type": "pong"}))

    def _socket_bet(self, ws: Any, message: dict[str, Any]) -> None:
        """A bet on the socket (issue 21) is answered as its route (``bet_answers``) and
        recorded as that request."""
        path = "/api/tables/1/bets/batch" if "bets" in message else "/api/tables/1/bets"
        body = {name: value for name, value in message.items() if name not in ("type", "key")}
        body["idempotency_key"] = message["key"]
        self.requests.append(("POST", path, body))
        status, answer = self._api("POST", path, body)
        ws.send(json.dumps({"type": "bet-accepted", "key": message["key"], "answer": answer}
                           if status == 200 else
                           {"type": "bet-refused", "key": message["key"], "status": status,
                            "error": answer["error"]}))

    def _serve(self, route: Any) -> None:
        request = route.request
        path = request.url.removeprefix(ORIGIN).split("?")[0]
        body = json.loads(request.post_data) if request.post_data else None
        self.requests.append((request.method, path, body))
        if path.startswith("/api/"):
            status, answer = self._api(request.method, path, body)
            route.fulfill(status=status, content_type="application/json", body=json.dumps(answer))
            return
        file = STATIC_DIR / ("index.html" if path == "/" else path.removeprefix("/static/"))
        route.fulfill(status=200, content_type=TYPES.get(file.suffix, "application/octet-stream"),
                      body=file.read_bytes(), headers={"Content-Security-Policy": STRICT_CSP})

    def _api(self, method: str, path: str, body: Any) -> tuple[int, Any]:
        snap = self.snapshot
        tables = [{"id": 1, "name": "Sanremo", "rules": snap["rules"], "phase": snap["phase"],
                   "spots": 1, "next_rules": snap["rules"], "players": 1},
                  {"id": 2, "name": "Enghien", "rules": snap["rules"], "phase": "open",
                   "spots": 0, "next_rules": snap["rules"], "players": 0}]
        tables += [{**tables[1], "id": 3 + i, "name": name}
                   for i, name in enumerate(self.extra_tables)]
        if method == "POST" and path in ("/api/signup", "/api/login"):
            return 200, {"token": "fake-token", "player": self.player()}
        if method == "PATCH" and path == "/api/me":
            return 200, self.player(body["lang"])
        if path.startswith("/api/tables/1/bets") and method in ("POST", "DELETE"):
            key = f"{method} {path}"
            if key in self.bet_answers:
                return self.bet_answers[key]
            return 409, {"error": {"code": "table-closed", "message": "closed"}}
        if path.startswith("/api/shoes/"):
            return 200, {"id": 1, "shoe_no": 1, "commitment": snap["shoe"]["commitment"],
                         "revealed": None}
        if path.startswith("/api/coups/"):
            found = [c for c in self.recall if str(c["id"]) == path.rsplit("/", 1)[1]]
            return (200, found[0]) if found else (404, {"error": {"code": "not-found",
                                                                  "message": "no"}})
        answers: dict[str, Any] = {"/api/words": i18n.all_words(), "/api/me": self.player(),
                                   "/api/me/coups": self.recall, "/api/tables": tables}
        if path in answers:
            return 200, answers[path]
        return 404, {"error": {"code": "not-found", "message": path}}
