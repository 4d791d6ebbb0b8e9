"""The WebSocket push against a real server: snapshot first, then every table event in order,
each player's own lines to that player only, paced cards, and the snapshot a page rebuilds from.
The rounds run on a hand-moved clock (``end_betting``) except where the pacing is the point."""

from __future__ import annotations

import json
import time

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from puntobanco.cards import Card
from puntobanco.rules import hand_total
from puntobanco.server.live.pacing import ClockPacer

from .support import LiveServer, fast_settings, running, wait_until


@pytest.fixture
def sqlite_server(clocked_sqlite_server: LiveServer) -> LiveServer:
    return clocked_sqlite_server


def _totals(cards: list[dict[str, object]]) -> tuple[int, int]:
    def side(name: str) -> int:
        return hand_total(Card.parse(str(c["card"])).value for c in cards if c["side"] == name)
    return side("punto"), side("banco")


def test_R3_snapshot_first_then_the_round_in_order(sqlite_server: LiveServer) -> None:
    ann = sqlite_server.signup("ann")
    watcher = sqlite_server.watch(1, ann)
    snapshot = watcher.next()
    assert snapshot["type"] == "snapshot"
    assert snapshot["table"]["id"] == 1 and snapshot["table"]["name"] == "Sanremo"
    opened = watcher.next("round-opened")
    assert opened["deadline"] > opened["server_time"]
    sqlite_server.bet(ann, 1, "banco", 2500)
    sqlite_server.end_betting()
    settled = watcher.next("round-settled", where=lambda m: m["coup_id"] == opened["coup_id"])
    round_messages = watcher.seen[watcher.seen.index(opened):]
    kinds = [m["type"] for m in round_messages]
    first_round = "shoe-started" in [m["type"] for m in watcher.seen[:watcher.seen.index(opened)]]
    assert first_round  # a fresh table starts its first shoe before its first round
    assert kinds[:3] == ["round-opened", "bet-totals", "my-bets"]
    cards = [m for m in round_messages if m["type"] == "card-dealt"]
    assert 4 <= len(cards) <= 6
    after_cards = kinds[kinds.index("bets-closed"):]
    assert after_cards == ["bets-closed", *["card-dealt"] * len(cards), "coup-dealt",
                           "settlement", "round-settled"]
    # R3: P B P B, then the third cards; every message carries the totals shown so far
    assert [(c["side"], c["position"]) for c in cards[:4]] == [
        ("punto", 0), ("banco", 0), ("punto", 1), ("banco", 1)]
    for index, card in enumerate(cards):
        assert (card["punto_total"], card["banco_total"]) == _totals(cards[:index + 1])
    coup = next(m for m in round_messages if m["type"] == "coup-dealt")["coup"]
    assert [{k: c[k] for k in ("side", "position", "card")} for c in cards] == coup["cards"]
    assert (coup["punto"]["total"], coup["banco"]["total"]) == _totals(cards)
    assert settled["winner"] == coup["winner"]
    settlement = next(m for m in round_messages if m["type"] == "settlement")
    assert [line["bet"] for line in settlement["lines"]] == ["banco"]
    assert settlement["balance"] == sqlite_server.balance(ann)
    watcher.close()


def test_L6_each_player_gets_only_their_own_lines_in_payment_order(
        sqlite_server: LiveServer) -> None:
    ann, bob = sqlite_server.signup("ann"), sqlite_server.signup("bob")
    watch_ann, watch_bob = sqlite_server.watch(1, ann), sqlite_server.watch(1, bob)
    spectator = sqlite_server.watch(1)
    opened = watch_ann.next("round-opened")
    for bet, stake in [("lion-punto", 1000), ("egalite", 1000), ("punto", 2000)]:
        assert sqlite_server.bet(ann, 1, bet, stake).status_code == 200
    assert sqlite_server.bet(bob, 1, "banco", 3000).status_code == 200
    sqlite_server.end_betting()
    mine = watch_ann.next("settlement", where=lambda m: m["coup_id"] == opened["coup_id"])
    assert [line["bet"] for line in mine["lines"]] == ["punto", "egalite", "lion-punto"]  # L6
    theirs = watch_bob.next("settlement", where=lambda m: m["coup_id"] == opened["coup_id"])
    assert [line["bet"] for line in theirs["lines"]] == ["banco"]
    for watcher in (watch_ann, watch_bob, spectator):
        watcher.next("round-settled", where=lambda m: m["coup_id"] == opened["coup_id"])
    assert not [m for m in spectator.seen if m["type"] in ("settlement", "my-bets")]
    assert not [m for m in watch_bob.seen if m["type"] == "my-bets"
                and "punto" in m["my_bets"]]
    totals = [m for m in spectator.seen if m["type"] == "bet-totals"][-1]["totals"]
    assert totals == {"punto": 2000, "banco": 3000, "egalite": 1000, "lion-punto": 1000,
                      "lion-banco": 0}
    for watcher in (watch_ann, watch_bob, spectator):
        watcher.close()


def test_the_snapshot_rebuilds_the_table_for_a_page_that_reconnects(
        sqlite_server: LiveServer) -> None:
    ann = sqlite_server.signup("ann")
    watcher = sqlite_server.watch(1, ann)
    first = watcher.next("round-opened")
    sqlite_server.bet(ann, 1, "punto", 1000)
    sqlite_server.end_betting()
    watcher.next("round-settled", where=lambda m: m["coup_id"] == first["coup_id"])
    sqlite_server.end_betting()  # the pause after the result
    second = watcher.next("round-opened")
    sqlite_server.bet(ann, 1, "egalite", 2000)
    rest = sqlite_server.http.get("/api/tables/1", headers=ann.headers).json()
    again = sqlite_server.watch(1, ann)
    pushed = again.next("snapshot")["table"]
    for key in ("phase", "round_no", "coup_id", "coup_in_shoe", "shoe", "deadline", "totals",
                "my_bets", "cards", "last_result", "roads", "rules"):
        assert pushed[key] == rest[key], key
    assert rest["phase"] == "open" and rest["coup_id"] == second["coup_id"]
    assert rest["my_bets"] == {"egalite": 2000}
    assert rest["deadline"] == second["deadline"]
    assert rest["roads"][-1]["coup_id"] == first["coup_id"]
    assert rest["last_result"]["id"] == first["coup_id"]
    assert rest["shoe"]["coups_dealt"] == second["coup_in_shoe"] - 1
    assert rest["shoe"]["commitment"] == next(
        m for m in watcher.seen if m["type"] == "shoe-started")["commitment"]
    for socket in (watcher, again):
        socket.close()


def test_no_more_bets_stays_a_moment_then_the_cards_come_at_the_pace_of_one_by_one(
        sqlite_url: str) -> None:
    """The page has time to show "no more bets" (a pause after closing), then every card of
    the coup (R3, R5, R6) together with the coup, each card with the pause the page leaves
    before turning it (issue 21, fifth and sixth passes), and the next round only once the
    page has turned them and shown the result for the result's pause."""
    with running(fast_settings(sqlite_url, closed_seconds=0.4, card_seconds=0.25,
                               result_seconds=0.5)) as live:
        watcher = live.watch(1)
        opened = watcher.next("round-opened")
        watcher.next("bets-closed", where=lambda m: m["coup_id"] == opened["coup_id"])
        closed = time.monotonic()
        # while the pause lasts the table is closed, with no card shown yet
        snapshot = live.http.get("/api/tables/1").json()
        assert (snapshot["phase"], snapshot["cards"]) == ("closed", [])
        cards = [watcher.next("card-dealt")]
        shown = time.monotonic()
        while (message := watcher.next(where=lambda m: m["type"] in ("card-dealt",
                                                                      "coup-dealt")))[
                "type"] == "card-dealt":
            cards.append(message)
        assert 4 <= len(cards) <= 6
        assert [c["reveal_after_ms"] for c in cards] == [0] + [250] * (len(cards) - 1)
        watcher.next("round-opened", where=lambda m: m["coup_id"] != opened["coup_id"])
        # lower bounds only: a pause never ends early
        assert shown - closed >= 0.35
        assert time.monotonic() - shown >= 0.25 * (len(cards) - 1) + 0.5 - 0.05
        watcher.close()


def test_ping_pong_and_unknown_messages(sqlite_server: LiveServer) -> None:
    watcher = sqlite_server.watch(1)
    watcher.next("snapshot")
    watcher.send({"type": "ping"})
    watcher.next("pong", timeout=10)
    watcher.send({"type": "dance", "bet": "banco"})
    error = watcher.next("error", timeout=10)
    assert error["error"]["code"] == "bad-request"
    # a bet is a message a client sends (issue 21): one without its key is refused as such
    watcher.send({"type": "bet", "bet": "banco"})
    refused = watcher.next("bet-refused", timeout=10)
    assert refused["key"] is None and refused["error"]["code"] == "bad-request"
    watcher.close()


@pytest.mark.parametrize(("path", "code"), [("/ws/tables/99", 4404),
                                            ("/ws/tables/1?token=forged", 4401)])
def test_unknown_table_or_token_closes_the_socket(sqlite_server: LiveServer, path: str,
                                                  code: int) -> None:
    with connect(sqlite_server.ws_url + path, open_timeout=30) as socket:
        with pytest.raises(ConnectionClosed) as closed:
            socket.recv(timeout=10)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == code


def test_an_unwatched_table_waits_and_a_look_wakes_it(sqlite_url: str) -> None:
    """A table nobody watches waits, dealing nothing, until a page looks at it: one round."""
    with running(fast_settings(sqlite_url, betting_seconds=0.2)) as live:
        pacers = [live.casino.dealers[table].pacer for table in (1, 2)]
        # both tables waiting for someone to watch (not a while on the wall clock)
        wait_until(lambda: all(isinstance(pacer, ClockPacer) and pacer.idling
                               for pacer in pacers), timeout=30)
        assert live.http.get("/api/tables").json()[0]["phase"] == "idle"
        assert live.casino.dealers[1].rounds_played == 0
        live.http.get("/api/tables/1")  # a page looks: one round is dealt
        deadline = time.monotonic() + 30
        while live.casino.dealers[1].rounds_played < 1:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert live.casino.dealers[2].rounds_played == 0


def test_issue17_one_coup_identity_on_the_page_the_console_and_the_history(
        sqlite_server: LiveServer) -> None:
    """A coup is named by its shoe number and its number in the shoe everywhere: the round's
    messages, the page's shoe panel while betting, the console's live view and a player's
    history (with the table's name, not its id)."""
    live, boss, ann = sqlite_server, sqlite_server.operator(), sqlite_server.signup("ann")
    watcher = live.watch(1, ann)
    opened = watcher.next("round-opened")
    assert (opened["shoe_no"], opened["coup_in_shoe"]) == (1, 1)
    assert live.bet(ann, 1, "banco", 2500).status_code == 200
    table = live.http.get("/api/tables/1").json()
    assert table["shoe"]["coup_in_shoe"] == table["coup_in_shoe"] == 1  # not "coups dealt: 0"
    view = live.http.get("/api/operator/tables/1", headers=boss.headers)
    assert view.status_code == 200, view.text
    assert (view.json()["shoe"]["shoe_no"], view.json()["coup_in_shoe"]) == (1, 1)
    live.end_betting()
    settled = watcher.next("round-settled", where=lambda m: m["coup_id"] == opened["coup_id"])
    assert (settled["shoe_no"], settled["coup_in_shoe"]) == (1, 1)
    watcher.close()
    history = live.http.get(f"/api/players/{ann.id}/history", headers=boss.headers).json()
    stake = next(line for line in history if line["reason"] == "stake")
    assert (stake["table_name"], stake["shoe_no"], stake["coup_in_shoe"]) == ("Sanremo", 1, 1)


def test_issue21_table_messages_go_out_as_prebuilt_frames(sqlite_server: LiveServer) -> None:
    """A table's socket is taken before the middleware and its messages written as frames
    built once (``api/frames.py``); what the client reads is the same."""
    watcher = sqlite_server.watch(1)
    watcher.next("snapshot")
    opened = watcher.next("round-opened", timeout=20)
    hub = sqlite_server.casino.dealers[1].hub
    assert hub.clients and all(getattr(c.direct, "direct", False) for c in hub.clients)
    sqlite_server.end_betting()  # the server runs on a hand-moved clock (issue 17)
    assert watcher.of_coup("bets-closed", opened["coup_id"])["round_no"] == opened["round_no"]
    watcher.send({"type": "ping"})
    watcher.next("pong", timeout=10)
    watcher.close()
    # a socket the short way does not take plainly (another query) goes to the route
    with connect(sqlite_server.ws_url + "/ws/tables/1?lang=fr", open_timeout=30) as socket:
        assert json.loads(socket.recv(timeout=10))["type"] == "snapshot"
