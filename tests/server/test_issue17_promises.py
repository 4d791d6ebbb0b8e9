"""Issue 17's promises, each checked on a real server (SQLite and PostgreSQL), where the tests
written with the round engine left a door or a view unchecked:

- only players hold money and bet — by every door a bet comes through (the route, its short
  way, the batch, the socket's single and batch bets) and a credit, in the request's language;
- pause holds for both kinds of table at once, and through a restart;
- a suspended dealer's actions are refused by the round engine itself, behind the session
  check (which the other tests go through first);
- one coup identity (shoe number, coup in the shoe) on every view of a coup — the round's
  messages, the page's table, the console's live view and a player's history (which names the
  table), the dealer page, the player's recall, the shoe's record that ``puntobanco verify``
  checks, and the reports — with a voided round in the middle that keeps its number for the
  coup dealt next;
- one judge of a bet: a stake over a box's limit is refused in the same words (the core's,
  with the box and its limit) whether the desk refuses it at once or the group
  commit does against the spot as the database holds it.
"""

from __future__ import annotations

import subprocess
import sys
import time
from typing import Any

from puntobanco.server.api.fastbets import FastBets
from puntobanco.server.live.clock import ManualClock

from .support import (
    LiveServer,
    Player,
    check_books,
    clocked_settings,
    fast_settings,
    running,
    wait_until,
)
from .test_dealer_mode import Desk, open_desk

NATURAL_PUNTO = ("9h", "2d", "kh", "5c")  # Punto 9, Banco 7: a natural, Punto wins (R4)


def _deal(desk: Desk, cards: tuple[str, ...] = NATURAL_PUNTO) -> dict[str, Any]:
    desk.ok("close")
    for card in cards:
        desk.ok("cards", {"card": card})
    return desk.ok("settle")


def _socket_refusal(server: LiveServer, who: Player, table_id: int, key: str,
                    body: dict[str, Any]) -> dict[str, Any]:
    watcher = server.watch(table_id, who)
    try:
        watcher.send({"type": "bet", "key": key, **body})
        return watcher.next(where=lambda m: m.get("key") == key
                            and m["type"] in ("bet-accepted", "bet-refused"))
    finally:
        watcher.close()


def test_issue17_no_door_lets_a_dealer_or_an_operator_bet_or_be_credited(db_url: str) -> None:
    """A dealer's and an operator's account are refused 403 ``not-a-player`` by every way a
    bet comes in — the route (here with ``?lang=it``: the sentence in Italian), its short way
    (no query string), the batch, and the socket's single and batch bets — and a credit; no
    bet is written and neither account holds a cent."""
    with running(fast_settings(db_url, default_tables=("Sanremo",))) as server:
        desk = open_desk(server)
        boss = desk.operator
        desk.ok("shoe", {})
        coup = desk.ok("open")["coup_id"]
        table = desk.table_id
        for who in (desk.dealer, boss):
            routed = server.http.post(f"/api/tables/{table}/bets?lang=it",
                                      json={"bet": "egalite", "stake": 100_000},
                                      headers=who.headers)
            assert routed.status_code == 403, routed.text
            error = routed.json()["error"]
            assert error["code"] == "not-a-player"
            assert error["message"] == "Solo un account giocatore punta e detiene denaro."
            short_before = FastBets.answered
            short = server.bet(who, table, "banco", 1000)
            assert (short.status_code, short.json()["error"]["code"]) == (403, "not-a-player")
            assert FastBets.answered == short_before + 1  # it did go the short way
            batch = server.http.post(f"/api/tables/{table}/bets/batch",
                                     json={"bets": {"banco": 1000}}, headers=who.headers)
            assert (batch.status_code, batch.json()["error"]["code"]) == (403, "not-a-player")
            for key, body in (("one", {"bet": "punto", "stake": 1000}),
                              ("many", {"bets": {"punto": 1000, "egalite": 500}})):
                refused = _socket_refusal(server, who, table, key, {"coup_id": coup, **body})
                assert refused["type"] == "bet-refused", refused
                assert (refused["status"], refused["error"]["code"]) == (403, "not-a-player")
            credit = server.http.post(f"/api/players/{who.id}/credit", json={"amount": 500_000},
                                      headers=boss.headers)
            assert (credit.status_code, credit.json()["error"]["code"]) == (403, "not-a-player")
            assert server.balance(who) == 0
        books = check_books(db_url)
        assert books["active_bets"] == 0


def test_issue17_pause_holds_on_both_kinds_of_table_and_through_a_restart(db_url: str) -> None:
    """Both tables paused while a round of each is under way: the server-dealt coup is dealt
    and settled and no round opens after it; the hand-dealt coup is finished by its dealer,
    whose next "open" is refused ``table-paused``. After a restart both are still paused;
    resumed, both deal again."""
    settings = clocked_settings(db_url, default_tables=("Sanremo",))
    with running(settings, clock=ManualClock()) as server:
        desk = open_desk(server)
        ann = server.signup("ann")
        watcher = server.watch(1, ann)
        opened = watcher.next("round-opened")
        assert server.bet(ann, 1, "banco", 1000).status_code == 200
        desk.ok("shoe", {})
        desk.ok("open")
        assert server.bet(ann, desk.table_id, "punto", 2000).status_code == 200
        for table in (1, desk.table_id):
            paused = server.http.post(f"/api/tables/{table}/pause", headers=desk.operator.headers)
            assert paused.status_code == 200 and paused.json()["paused"] is True
        server.end_betting()
        watcher.of_coup("round-settled", opened["coup_id"])
        server.end_betting()  # the pause after the result: no round opens now
        dealer = server.casino.dealers[1]
        wait_until(lambda: dealer.view.phase == "idle")
        assert not _deal(desk)["can"]["open"]  # the dealer finishes the coup under way
        assert desk.refused("open", None, 409, "table-paused") != ""
        time.sleep(0.3)  # on a moved clock a round would open at once: none does
        assert dealer.view.phase == "idle" and dealer.view.coup_id == opened["coup_id"]
        watcher.close()
        table_id, dealer_player = desk.table_id, desk.dealer
    with running(settings, clock=ManualClock()) as server:
        desk = Desk(server, table_id, dealer_player, server.operator())
        assert server.casino.dealers[1].paused and server.casino.dealers[table_id].paused
        assert desk.refused("open", None, 409, "table-paused") != ""
        server.end_betting()
        time.sleep(0.3)
        assert server.casino.dealers[1].view.phase == "idle"
        for table in (1, table_id):
            resumed = server.http.post(f"/api/tables/{table}/resume",
                                       headers=desk.operator.headers)
            assert resumed.status_code == 200 and resumed.json()["paused"] is False
        assert desk.ok("open")["phase"] == "open"
        watcher = server.watch(1)
        watcher.next("round-opened")
        watcher.close()
    check_books(db_url)


def test_issue17_one_coup_identity_on_every_view_with_a_void_in_the_middle(db_url: str) -> None:
    """Coup 1 settled, coup 2 voided (a misdeal), coup 2 dealt again and settled, coup 3 the
    shoe's last: every view names each coup by (shoe 1, coup k), the void one too, and the
    void round does not shift the numbering of the coups after it."""
    with running(fast_settings(db_url, default_tables=("Sanremo",))) as server:
        desk = open_desk(server, name="Salon")
        ann = server.signup("ann")
        boss = desk.operator
        table = desk.table_id
        watcher = server.watch(table, ann)
        desk.ok("shoe", {})

        def coup(number: int, bet: str, stake: int) -> int:
            """Open coup ``number``; every live view says (1, number); Ann bets."""
            state = desk.ok("open")
            assert (state["shoe"]["shoe_no"], state["coup_in_shoe"]) == (1, number)
            opened = watcher.next("round-opened")
            assert (opened["shoe_no"], opened["coup_in_shoe"]) == (1, number)
            page = server.http.get(f"/api/tables/{table}", headers=ann.headers).json()
            assert (page["shoe"]["shoe_no"], page["coup_in_shoe"]) == (1, number)
            assert page["shoe"]["coup_in_shoe"] == number
            live = server.http.get(f"/api/operator/tables/{table}", headers=boss.headers)
            assert live.status_code == 200, live.text
            assert (live.json()["shoe"]["shoe_no"], live.json()["coup_in_shoe"]) == (1, number)
            assert server.bet(ann, table, bet, stake).status_code == 200
            coup_id: int = opened["coup_id"]
            return coup_id

        first = coup(1, "banco", 1000)
        _deal(desk)
        settled = watcher.of_coup("round-settled", first)
        assert (settled["shoe_no"], settled["coup_in_shoe"]) == (1, 1)
        void = coup(2, "punto", 1500)
        desk.ok("close")
        desk.ok("cards", {"card": "3h"})
        assert desk.ok("misdeal")["coup_in_shoe"] == 2
        voided = watcher.of_coup("round-voided", void)
        assert (voided["shoe_no"], voided["coup_in_shoe"]) == (1, 2)
        again = coup(2, "egalite", 1000)  # the void round's number is the next coup's
        _deal(desk, ("2h", "3c", "4d", "5s"))  # Punto 6, Banco 8: a natural, Banco wins
        assert watcher.of_coup("round-settled", again)["coup_in_shoe"] == 2
        desk.ok("last-coup")
        last = coup(3, "punto", 2000)
        assert _deal(desk, ("9s", "2c", "ks", "5d"))["shoe"]["finished"]
        watcher.close()
        named = {first: (1, 1, "settled"), void: (1, 2, "void"), again: (1, 2, "settled"),
                 last: (1, 3, "settled")}
        # the player's recall: newest first, each coup by its shoe and number
        recalled = server.http.get("/api/me/coups", headers=ann.headers).json()
        assert [(c["id"], c["shoe_no"], c["coup_in_shoe"], c["status"]) for c in recalled] == [
            (coup_id, *named[coup_id]) for coup_id in (last, again, void, first)]
        # the player's history on the console: the table by its name, the coup by its number
        history = server.http.get(f"/api/players/{ann.id}/history", headers=boss.headers).json()
        in_coups = [line for line in history if line["coup_id"] is not None]
        assert {line["reason"] for line in in_coups} >= {"stake", "payout", "refund"}
        for line in in_coups:
            assert line["table_name"] == "Salon"
            assert (line["shoe_no"], line["coup_in_shoe"]) == named[line["coup_id"]][:2], line
        # the shoe's record, as verify reads it, and verify itself
        record = server.http.get("/api/tables/Salon/shoes/1").json()
        assert [(c["id"], c["coup_in_shoe"], c["status"]) for c in record["coups"]] == [
            (coup_id, *named[coup_id][1:]) for coup_id in (first, void, again, last)]
        verified = subprocess.run(
            [sys.executable, "-c", "from puntobanco.cli import main; main()", "verify",
             "--url", server.url, "--table", "Salon", "--shoe", "1"],
            capture_output=True, text=True, timeout=60)
        assert verified.returncode == 0, verified.stdout + verified.stderr
        assert verified.stdout.startswith("verified: table Salon, shoe 1 ")
        assert "3 coup(s)" in verified.stdout
        # the reports: the shoe by its number, three coups (the void one is not a coup dealt)
        report = server.http.get(f"/api/reports/tables/{table}", headers=boss.headers)
        assert report.status_code == 200, report.text
        by_shoe = report.json()["by_shoe"]
        assert [(line["shoe_no"], line["coups"]) for line in by_shoe] == [(1, 3)]


def test_issue17_a_stake_over_the_limit_is_refused_in_the_same_words_at_once_or_in_the_batch(
        sqlite_url: str) -> None:
    """The Lion Bonus's maximum (50 €, L3): 60 € at once is refused by the desk before any
    write; 30 € then 30 € more passes the desk's check of the stake added and is refused by
    the group commit against the spot the database holds. Both answers are the core's one
    sentence, in the request's language, with the box and its limit (issue 17 found the desk's
    without them)."""
    with running(fast_settings(sqlite_url, default_tables=("Sanremo",),
                               betting_seconds=30.0)) as server:
        ann = server.signup("ann", lang="it")
        watcher = server.watch(1, ann)
        watcher.next("round-opened")
        watcher.close()
        at_once = server.bet(ann, 1, "lion-banco", 6000)
        assert server.bet(ann, 1, "lion-banco", 3000).status_code == 200
        in_batch = server.bet(ann, 1, "lion-banco", 3000)
        assert at_once.status_code == in_batch.status_code != 200, (at_once.text, in_batch.text)
        assert at_once.json()["error"] == in_batch.json()["error"], (at_once.text, in_batch.text)
        message = at_once.json()["error"]["message"]
        assert message == ("Puntata superiore al massimo di questa casella "
                           "(Lion Bonus Banco: 60 €, massimo 50 €).")
        assert server.balance(ann) == 100_000 - 3000


def test_issue17_a_dealer_suspended_behind_a_live_session_acts_no_more(db_url: str) -> None:
    """The session check answers 401 once a suspension ends the dealer's sessions; behind it,
    the round engine itself refuses a suspended account's every action (``account-suspended``,
    nothing recorded): a session that another process still holds in its cache, or a
    card-reading shoe's, deals no card, opens, closes or voids nothing."""
    from sqlalchemy import update

    from puntobanco.cards import Card
    from puntobanco.errors import PuntoBancoError
    from puntobanco.rules import RuleSet
    from puntobanco.server.db.models import Player as PlayerRow
    from puntobanco.server.live.dealer import hand_dealt

    from .support import run_coroutine
    from .test_engine import Room, controls, started

    room = Room(db_url, dealing="dealer", rules=RuleSet(decks=1, cut_card=14))
    try:
        async def scene() -> None:
            engine = await started(room.engine(hand_dealt))
            hand = controls(engine)
            await hand.new_shoe(room.dealer, decks=None)
            await hand.open_betting(room.dealer)
            with room.db.write() as session:
                session.execute(update(PlayerRow).where(PlayerRow.id == room.dealer)
                                .values(suspended=True))
            before = (engine.table.phase, engine.view.coup_id, list(engine.view.cards))
            for action in (hand.close_betting(room.dealer), hand.misdeal(room.dealer),
                           hand.cut_card(room.dealer), hand.last_coup(room.dealer),
                           hand.new_shoe(room.dealer, decks=None)):
                try:
                    await action
                except PuntoBancoError as refused:
                    assert refused.code == "account-suspended", refused.code
                else:
                    raise AssertionError("a suspended dealer acted")
            assert (engine.table.phase, engine.view.coup_id, list(engine.view.cards)) == before
            with room.db.write() as session:
                session.execute(update(PlayerRow).where(PlayerRow.id == room.dealer)
                                .values(suspended=False))
            await hand.close_betting(room.dealer)
            await hand.enter_card(room.dealer, Card.parse("9h"), side=None)
            await engine.stop()

        run_coroutine(scene())
    finally:
        room.close()
