"""Dealer mode (issue 11, "the server follows a human dealer's shoe"): a whole physical shoe dealt
through the dealer API with players betting, on SQLite and PostgreSQL; every refusal; a misdeal;
a restart in the middle of a coup; recall and ``verify`` of the recorded cards. The dealer's actions
pace a hand-dealt round; the servers run on a hand-moved clock all the same, so that nothing in
these tests waits for the wall clock."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, select, text
from sqlalchemy.orm import Session

from puntobanco.cards import Card, new_shoe_cards
from puntobanco.rules import RuleSet
from puntobanco.server.db.models import CoupRecord, DealerEntry
from puntobanco.server.fair import check_shoe_json
from puntobanco.shoe import Shoe

from .support import LiveServer, Player, check_books, running_clocked

RULES = {"decks": 1, "cut_card": 14}


@dataclass
class Desk:
    """A hand-dealt table with its dealer signed in."""

    server: LiveServer
    table_id: int
    dealer: Player
    operator: Player

    def act(self, action: str, body: dict[str, Any] | None = None, *,
            who: Player | None = None, lang: str = "en") -> httpx.Response:
        return self.server.http.post(
            f"/api/tables/{self.table_id}/dealer/{action}?lang={lang}", json=body or {},
            headers=(who or self.dealer).headers)

    def ok(self, action: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        answer = self.act(action, body)
        assert answer.status_code == 200, answer.text
        data: dict[str, Any] = answer.json()
        return data

    def state(self) -> dict[str, Any]:
        answer = self.server.http.get(f"/api/tables/{self.table_id}/dealer?lang=en",
                                      headers=self.dealer.headers)
        assert answer.status_code == 200, answer.text
        data: dict[str, Any] = answer.json()
        return data

    def refused(self, action: str, body: dict[str, Any] | None, status: int, code: str, *,
                who: Player | None = None, lang: str = "en") -> str:
        """The action is refused with ``status`` and ``code``, and nothing changed."""
        before = self.state()
        answer = self.act(action, body, who=who, lang=lang)
        assert answer.status_code == status, answer.text
        error = answer.json()["error"]
        assert error["code"] == code, error
        assert self.state() == before
        message: str = error["message"]
        assert message.endswith(".") and "{" not in message
        return message


def open_desk(server: LiveServer, name: str = "Live") -> Desk:
    operator = server.operator()
    made = server.http.post("/api/tables", json={"name": name, "dealing": "dealer",
                                                 "rules": RULES}, headers=operator.headers)
    assert made.status_code == 201, made.text
    assert made.json()["dealing"] == "dealer"
    table_id = made.json()["id"]
    account = server.http.post("/api/dealers", json={"username": f"dealer-{table_id}",
                                                     "password": "secret1", "lang": "en"},
                               headers=operator.headers)
    assert account.status_code == 201, account.text
    assigned = server.http.put(f"/api/dealers/{account.json()['id']}/tables",
                               json={"tables": [table_id]}, headers=operator.headers)
    assert assigned.status_code == 200 and assigned.json()["tables"] == [table_id]
    login = server.http.post("/api/login", json={"username": f"dealer-{table_id}",
                                                 "password": "secret1"})
    assert login.status_code == 200 and login.json()["player"]["role"] == "dealer"
    return Desk(server, table_id, Player.from_answer(login.json()), operator)


@pytest.fixture
def desk_server(db_url: str) -> Iterator[LiveServer]:
    with running_clocked(db_url, default_tables=("Sanremo",)) as server:
        yield server


def deal_coup_through(desk: Desk, cards: Iterator[Card], *, cut_at: int | None,
                      position: int) -> tuple[list[Card], int, dict[str, Any]]:
    """Enter the coup's cards as the rules call for them; mark the cut card when it is passed."""
    entered: list[Card] = []
    state = desk.state()
    while not state["step"]["complete"]:
        card = next(cards)
        state = desk.ok("cards", {"card": str(card).lower()})
        entered.append(card)
        position += 1
        if cut_at is not None and position == cut_at + 1:
            state = desk.ok("cut-card")
    return entered, position, state


def test_a_whole_shoe_dealt_by_a_dealer_with_players_betting(desk_server: LiveServer) -> None:
    """Issue 11: every coup of a one-deck shoe entered card by card (burn S2, cut card S3), the
    same coups the core deals from that order, settled as today, recalled and verified."""
    server = desk_server
    desk = open_desk(server)
    ann, bob = server.signup("ann"), server.signup("bob")
    watcher = server.watch(desk.table_id, ann)
    assert watcher.next("snapshot")["table"]["dealing"] == "dealer"
    order = new_shoe_cards(1)
    random.Random(11).shuffle(order)
    reference = Shoe.from_order(order, RuleSet(decks=1, cut_card=14))
    expected = []
    while not reference.finished:
        expected.append([str(c) for _, c in reference.deal_coup().dealing_order()])
    cards = iter(order)
    state = desk.ok("shoe", {"decks": 1})
    assert state["shoe"]["cards_left"] == 52 and state["can"]["open"]
    first = next(cards)
    burned = [next(cards) for _ in range(first.rank.burn_count)]
    # S2: the first card seen, the rest counted face down (their faces are kept for the test)
    state = desk.ok("burn", {"cards": [str(first)], "count": len(burned)})
    assert state["shoe"]["burned"] == 1 + len(burned)
    position = 1 + len(burned)
    stakes = {ann: ("banco", 2000), bob: ("lion-punto", 1000)}
    dealt: list[list[str]] = []
    while not desk.state()["shoe"]["finished"]:
        desk.ok("open")
        for player, (bet, stake) in stakes.items():
            answer = server.bet(player, desk.table_id, bet, stake)
            assert answer.status_code == 200, answer.text
        desk.ok("close")
        assert server.bet(ann, desk.table_id, "punto", 1000).status_code == 409  # L4
        entered, position, state = deal_coup_through(
            desk, cards, cut_at=52 - 14 if not desk.state()["shoe"]["cut_card_out"] else None,
            position=position)
        assert state["can"]["settle"] and not state["can"]["card"]
        state = desk.ok("settle")
        assert state["phase"] == "settled"
        dealt.append([str(c) for c in entered])
    assert dealt == expected  # the coups the core deals from the same order (R3-R6, S3)
    # the players' pages are told as on any table: each card as entered, then each settlement
    for coup_cards in dealt:
        shown = [watcher.next("card-dealt")["card"] for _ in coup_cards]
        assert shown == coup_cards
        settlement = watcher.next("settlement")
        assert [line["bet"] for line in settlement["lines"]] == ["banco"]
    assert settlement["balance"] == server.balance(ann)
    watcher.close()
    books = check_books(server.settings.database_url)
    assert books["settled"] == len(expected) and books["active_bets"] == 0
    assert set(books["in_play"].values()) == {0}
    shoe = server.http.get(f"/api/shoes/{desk.state()['shoe']['id']}").json()
    assert shoe["dealing"] == "dealer" and shoe["status"] == "finished"
    assert [e["card"] for e in shoe["entries"] if e["kind"] == "card"] == [c for coup in dealt for c in coup]
    assert all(e["dealer"] == desk.dealer.username and e["entered_at"] for e in shoe["entries"])
    assert len(shoe["settlements"]) == len(expected)
    verdict = check_shoe_json(shoe)
    assert verdict.ok and verdict.coups_checked == len(expected), verdict
    # a settlement that differs from the rules' is caught
    tampered = json.loads(json.dumps(shoe))
    spot = next(iter(tampered["settlements"].values()))[0]
    spot["lines"][0]["net"] += 100
    assert not check_shoe_json(tampered).ok
    # a card recorded where the rules did not call for it is caught
    tampered = json.loads(json.dumps(shoe))
    next(e for e in tampered["entries"] if e["kind"] == "card")["side"] = "banco"
    assert "R3-R6" in check_shoe_json(tampered).reason
    # and a card entered more often than the shoe's decks hold
    tampered = json.loads(json.dumps(shoe))
    tampered["entries"].append(next(e for e in tampered["entries"] if e["kind"] == "card"))
    assert "1 deck(s)" in check_shoe_json(tampered).reason
    # the command line, against the running server
    done = subprocess.run([sys.executable, "-c", "from puntobanco.cli import main; main()",
                           "verify", "--url", server.url, "--shoe", str(shoe["id"])],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.startswith("verified:"), done
    done = subprocess.run([sys.executable, "-c", "from puntobanco.cli import main; main()",
                           "verify", "--url", server.url, "--table", "Live", "--shoe", "1"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "recorded entries" in done.stdout, done


def test_every_refusal_is_one_sentence_and_changes_nothing(sqlite_url: str) -> None:
    """Issue 11: a card the rules do not call for, one the shoe cannot hold, one out of turn,
    actions out of their phase, and tables the caller may not drive (403)."""
    with running_clocked(sqlite_url, default_tables=("Sanremo",)) as server:
        desk = open_desk(server)
        other = open_desk(server, "Other")
        player = server.signup("carla")
        desk.refused("open", None, 409, "no-shoe")
        desk.refused("cards", {"card": "9h"}, 409, "card-out-of-turn")
        state = desk.ok("shoe", {})
        assert not state["can"]["cut_card"] and not state["can"]["card"] and state["can"]["open"]
        desk.refused("cut-card", None, 409, "cut-card-early")
        desk.refused("cards", {"card": "9h"}, 409, "card-out-of-turn")  # betting not closed
        desk.refused("close", None, 409, "betting-not-open")
        desk.ok("open")
        desk.refused("open", None, 409, "bad-phase")
        desk.refused("shoe", {}, 409, "round-in-progress")
        desk.ok("close")
        desk.refused("settle", None, 409, "coup-incomplete")
        desk.refused("correction", {"card": "2c"}, 409, "nothing-to-correct")
        desk.refused("cards", {"card": "1h"}, 400, "bad-card")
        desk.refused("cards", {"card": "9h", "side": "banco"}, 409, "card-out-of-turn")
        message = desk.refused("cards", {"card": "9h", "side": "banco"}, 409, "card-out-of-turn",
                               lang="fr")
        assert message == "Hors tour : la prochaine carte est pour punto."
        desk.ok("cards", {"card": "AS", "side": "punto", "number": 1})
        # a card-reading shoe's retry: the same card at the same place changes nothing
        assert desk.ok("cards", {"card": "AS", "number": 1})["hands"]["punto"]["cards"] == ["AS"]
        desk.refused("cards", {"card": "AH", "number": 1}, 409, "card-already-entered")
        desk.refused("cards", {"card": "AH", "number": 3}, 409, "card-out-of-turn")
        message = desk.refused("cards", {"card": "as"}, 422, "card-not-in-shoe")
        assert message == "The shoe holds 1 deck(s): 1 AS are already out, it cannot hold one more."
        for card in ("KD", "8S", "2C"):  # Punto 9 (A + 8), a natural: no card drawn (R4)
            state = desk.ok("cards", {"card": card})
        assert state["step"]["complete"] and state["step"]["reason"] == "natural"
        assert state["step"]["text"] == "Natural: Punto 9, Banco 2; no card drawn"
        desk.refused("cards", {"card": "5h"}, 409, "card-not-called")
        # who may drive: another table's dealer, a player, nobody; a server-dealt table
        desk.refused("settle", None, 403, "not-your-table", who=other.dealer)
        desk.refused("settle", None, 403, "not-your-table", who=player)
        assert server.http.post(f"/api/tables/{desk.table_id}/dealer/settle").status_code == 401
        answer = server.http.post("/api/tables/1/dealer/open", headers=desk.operator.headers)
        assert answer.status_code == 409 and answer.json()["error"]["code"] == "not-dealer-table"
        answer = server.http.post("/api/dealers", json={"username": "mallory",
                                                        "password": "secret1"},
                                  headers=player.headers)
        assert answer.status_code == 403
        answer = server.http.put("/api/dealers/999/tables", json={"tables": [1]},
                                 headers=desk.operator.headers)
        assert answer.status_code == 404
        for path, body in (("/api/dealers/99999999999/tables", {"tables": [1]}),
                           ("/api/dealers/1/tables", {"tables": [99999999999]})):
            answer = server.http.put(path, json=body, headers=desk.operator.headers)
            assert answer.status_code in (400, 404), answer.text
        dealer_id = server.http.get("/api/dealers", headers=desk.operator.headers).json()[0]["id"]
        answer = server.http.put(f"/api/dealers/{dealer_id}/tables", json={"tables": [1]},
                                 headers=desk.operator.headers)
        assert answer.json()["error"]["code"] == "not-dealer-table"
        # the operator may drive any hand-dealt table
        settled = desk.act("settle", who=desk.operator)
        assert settled.status_code == 200 and settled.json()["phase"] == "settled"


def test_a_misdeal_returns_the_stakes_and_keeps_the_cards(db_url: str) -> None:
    """Issue 11: a misdeal voids the coup (stakes returned), its cards stay in the record marked
    void and out of the shoe; the shoe goes on and is verified (SQLite and PostgreSQL).
    Issue 17: the phase says void, the player is told what came back, every page that the
    round is void, and the void round does not use up the coup's number in the shoe."""
    with running_clocked(db_url, default_tables=("Sanremo",)) as server:
        desk = open_desk(server)
        ann = server.signup("ann")
        before = server.balance(ann)
        desk.ok("shoe", {})
        watcher = server.watch(desk.table_id, ann)
        opened = desk.ok("open")
        assert server.bet(ann, desk.table_id, "punto", 5000).status_code == 200
        desk.ok("close")
        desk.ok("cards", {"card": "9h"})
        desk.ok("cards", {"card": "9c"})
        state = desk.ok("misdeal")
        assert state["phase"] == "void" and state["hands"]["punto"]["cards"] == []
        assert server.balance(ann) == before
        refund = watcher.next("balance")
        assert (refund["reason"], refund["amount"], refund["balance"]) == ("void", 5000, before)
        voided = watcher.next("round-voided")
        assert (voided["coup_id"], voided["cards"]) == (opened["coup_id"], ["9H", "9C"])
        assert (voided["shoe_no"], voided["coup_in_shoe"]) == (1, 1)
        watcher.close()
        assert desk.ok("open")["coup_in_shoe"] == 1  # the void round's number is used again
        desk.ok("misdeal")
        assert state["shoe"]["cards_left"] == 50 and state["shoe"]["coups_dealt"] == 0
        shoe_id = state["shoe"]["id"]
        assert server.http.get(f"/api/shoes/{shoe_id}").json()["entries"] is None
        live = server.http.get(f"/api/shoes/{shoe_id}", headers=desk.operator.headers).json()
        assert [e["status"] for e in live["entries"]] == ["void", "void"]  # the operator, live
        desk.ok("last-coup")
        desk.ok("open")
        desk.ok("close")
        for card in ("2h", "3c", "4d", "5s"):  # Punto 6, Banco 8: a natural (R4)
            state = desk.ok("cards", {"card": card})
            if state["step"]["complete"]:
                break
        desk.ok("settle")
        shoe = server.http.get(f"/api/shoes/{state['shoe']['id']}").json()
        assert [(e["card"], e["status"]) for e in shoe["entries"] if e["kind"] == "card"][:2] == \
            [("9H", "void"), ("9C", "void")]
        assert [c["status"] for c in shoe["coups"]] == ["void", "void", "settled"]
        assert check_shoe_json(shoe).ok
        books = check_books(db_url)
        assert books["settled"] == 1 and books["active_bets"] == 0


def test_a_restart_in_the_middle_of_a_coup_resumes_from_the_recorded_cards(
        db_url: str) -> None:
    """Issue 11: the server stops after three cards (one of them corrected); the new server
    shows the same hands and step from the record, and the coup is finished and settled once."""
    with running_clocked(db_url, default_tables=("Sanremo",)) as server:
        desk = open_desk(server)
        ann = server.signup("ann")
        desk.ok("shoe", {})
        desk.ok("burn", {"cards": ["3c"], "count": 3})
        desk.ok("open")
        desk.ok("close")
        for card in ("9c", "kc", "qc", "jc"):  # Punto 9: a natural
            desk.ok("cards", {"card": card})
        desk.ok("settle")
        desk.ok("burn", {"count": 2})  # between coups
        desk.ok("open")
        desk.ok("close")
        desk.ok("cards", {"card": "ac"})
        desk.ok("misdeal")
        desk.ok("cut-card")  # out during the first coup: the second is the last (S3)
        desk.ok("open")
        assert server.bet(ann, desk.table_id, "banco", 3000).status_code == 200
        desk.ok("close")
        desk.ok("cards", {"card": "4h"})
        desk.ok("cards", {"card": "2s"})
        desk.ok("cards", {"card": "8s"})  # mistyped
        state = desk.ok("correction", {"card": "9s"})
        assert state["hands"]["punto"]["cards"] == ["4H", "9S"]
        table_id, dealer = desk.table_id, desk.dealer
    with running_clocked(db_url, default_tables=("Sanremo",)) as server:
        desk = Desk(server, table_id, dealer, server.operator())
        again = desk.state()
        assert again["hands"] == state["hands"] and again["step"] == state["step"]
        assert again["phase"] == "closed" and again["spots"] == 1
        assert again["shoe"] == state["shoe"] and again["shoe"]["cards_left"] == 52 - 4 - 4 - 2 - 1 - 3
        assert again["shoe"]["cut_card_out"] and again["shoe"]["last_coup"]
        for card in ("3d", "7c", "5c"):
            again = desk.ok("cards", {"card": card})
        assert again["step"]["complete"]
        assert again["step"]["text"] == "Coup complete: Punto 0, Banco 0"
        state = desk.ok("settle")
        assert server.balance(ann) == 100_000  # Égalité: the Banco bet is returned (B2)
        assert state["shoe"]["finished"] and not state["can"]["open"]
    engine = create_engine(db_url)
    with Session(engine) as session:
        coup = session.scalars(select(CoupRecord).where(CoupRecord.table_id == table_id)
                               .order_by(CoupRecord.id.desc()).limit(1)).one()
        assert coup.cards == "4H 2S 9S 3D 7C 5C" and coup.status == "settled"
        statuses = [e.status for e in session.scalars(select(DealerEntry).where(
            DealerEntry.coup_id == coup.id).order_by(DealerEntry.id))]
        assert statuses == ["ok", "ok", "mistyped", "ok", "ok", "ok", "ok"]
    engine.dispose()
    assert check_books(db_url)["settled"] == 2


def test_migration_0006_keeps_an_older_databases_tables_and_accounts(sqlite_url: str) -> None:
    """Revision 0006 on a database made at 0002: tables become server-dealt, accounts keep their
    roles, and the dealer role is accepted from then on."""
    from alembic import command
    from sqlalchemy import text
    from sqlalchemy.exc import IntegrityError

    from puntobanco.server.db.engine import alembic_config, migrate

    Path(sqlite_url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
    command.upgrade(alembic_config(sqlite_url), "0002")
    engine = create_engine(sqlite_url)
    with engine.begin() as connection:
        connection.execute(text(
            "INSERT INTO players (id, username, username_key, password_hash, role, lang, "
            "created_at) VALUES (1, 'op', 'op', 'x', 'operator', 'fr', '2026-01-01')"))
        connection.execute(text(
            "INSERT INTO tables (id, name, name_key, rules, betting_seconds, created_at) "
            "VALUES (1, 'Old', 'old', '{}', 15, '2026-01-01')"))
    engine.dispose()
    migrate(sqlite_url)
    engine = create_engine(sqlite_url)
    with engine.begin() as connection:
        assert connection.execute(text("SELECT dealing FROM tables")).scalar_one() == "server"
        assert connection.execute(text("SELECT role FROM players")).scalar_one() == "operator"
        connection.execute(text(
            "INSERT INTO players (id, username, username_key, password_hash, role, lang, "
            "created_at) VALUES (2, 'd', 'd', 'x', 'dealer', 'fr', '2026-01-01')"))
    with pytest.raises(IntegrityError), engine.begin() as connection:  # the check is still there
        connection.execute(text(
            "INSERT INTO players (id, username, username_key, password_hash, role, lang, "
            "created_at) VALUES (3, 'c', 'c', 'x', 'croupier', 'fr', '2026-01-01')"))
    engine.dispose()


def test_a_restart_while_betting_is_open_keeps_the_bets(sqlite_url: str) -> None:
    """Issue 11: a hand-dealt round does not void on a restart: its betting is still open with
    the bets recorded, more may be placed (L4), and it is settled once."""
    with running_clocked(sqlite_url, default_tables=("Sanremo",)) as server:
        desk = open_desk(server)
        ann = server.signup("ann")
        desk.ok("shoe", {})
        desk.ok("open")
        assert server.bet(ann, desk.table_id, "punto", 2000).status_code == 200
        table_id, dealer = desk.table_id, desk.dealer
    with running_clocked(sqlite_url, default_tables=("Sanremo",)) as server:
        desk = Desk(server, table_id, dealer, server.operator())
        state = desk.state()
        assert state["phase"] == "open" and state["spots"] == 1
        assert state["totals"]["punto"] == 2000
        assert server.bet(ann, table_id, "punto", 1000).status_code == 200
        desk.ok("close")
        for card in ("9h", "2d", "kh", "5c"):  # Punto 9: a natural, Punto wins (R4, B1)
            desk.ok("cards", {"card": card})
        desk.ok("settle")
        assert server.balance(ann) == 100_000 + 3000
    assert check_books(sqlite_url)["settled"] == 1


def test_issue11_dealer_accounts_and_assignments_are_audited(desk_server: LiveServer) -> None:
    """Issue 11, "an audit log of every operator action": a dealer account's creation and each
    change of the tables it drives are logged (who, before → after); a refused assignment is
    not (SQLite and PostgreSQL)."""
    desk = open_desk(desk_server)
    http, boss = desk_server.http, desk.operator
    refused = http.put(f"/api/dealers/{desk.dealer.id}/tables", json={"tables": [1]},
                       headers=boss.headers)
    assert refused.json()["error"]["code"] == "not-dealer-table"
    cleared = http.put(f"/api/dealers/{desk.dealer.id}/tables", json={"tables": []},
                       headers=boss.headers)
    assert cleared.status_code == 200 and cleared.json()["tables"] == []
    log = http.get(f"/api/audit?target_kind=player&target_id={desk.dealer.id}",
                   headers=boss.headers).json()
    assert [(e["action"], e["operator"], e["target_name"], e["before"], e["after"])
            for e in log] == [
        ("dealer-tables", "operator", desk.dealer.username, {"tables": [desk.table_id]},
         {"tables": []}),
        ("dealer-tables", "operator", desk.dealer.username, {"tables": []},
         {"tables": [desk.table_id]}),
        ("dealer-create", "operator", desk.dealer.username, None,
         {"username": desk.dealer.username, "lang": "en"})]
    only = http.get("/api/audit?action=dealer-create", headers=boss.headers).json()
    assert [e["target_id"] for e in only] == [desk.dealer.id]


def cut_card_mid_coup_then_a_bet(desk: Desk, player: Player) -> None:
    """Issue 17's scenario: open, close, one card, the cut card, the rest of the coup, settle;
    then the next round opens and ``player`` bets 300 € on Banco."""
    desk.ok("shoe", {})
    desk.ok("open")
    desk.ok("close")
    desk.ok("cards", {"card": "2c"})
    desk.ok("cut-card")  # S3: out in the middle of the coup, an event of that coup
    for card in ("3d", "4c", "5d", "kc", "kd"):  # Punto 6 stands, Banco 8 (3+5 -> 8): 6 cards
        state = desk.ok("cards", {"card": card})
        if state["step"]["complete"]:
            break
    desk.ok("settle")
    desk.ok("open")
    answer = desk.server.bet(player, desk.table_id, "banco", 30_000)
    assert answer.status_code == 200, answer.text


def test_issue17_S3_a_cut_card_in_the_middle_of_a_coup_survives_a_restart(db_url: str) -> None:
    """The cut card pressed between two cards of a coup belongs to that coup: a restarted
    server replays the record to the same shoe (not "the rules call for another card"), the
    round opened after it resumes with its bet, and the stake is settled, not stuck in play."""
    with running_clocked(db_url, default_tables=("Sanremo",)) as server:
        desk = open_desk(server)
        ann = server.signup("ann")
        cut_card_mid_coup_then_a_bet(desk, ann)
        before = desk.state()
        table_id, dealer = desk.table_id, desk.dealer
    with running_clocked(db_url, default_tables=("Sanremo",)) as server:
        assert table_id not in server.casino.broken, server.casino.broken
        desk = Desk(server, table_id, dealer, server.operator())
        again = desk.state()
        assert again["phase"] == "open" and again["spots"] == 1
        assert again["shoe"] == before["shoe"] and again["shoe"]["cut_card_out"]
        assert again["shoe"]["last_coup"]  # the coup after the cut card's is the last (S3)
        desk.ok("close")
        for card in ("9h", "2d", "kh", "5c"):  # Punto 9: a natural, Punto wins
            desk.ok("cards", {"card": card})
        state = desk.ok("settle")
        assert state["shoe"]["finished"]
        assert server.balance(ann) == 100_000 - 30_000
    books = check_books(db_url)
    assert books["active_bets"] == 0 and set(books["in_play"].values()) == {0}


def test_issue17_a_paused_hand_dealt_table_opens_no_round(sqlite_url: str) -> None:
    """Pause holds for a hand-dealt table as for a server-dealt one: the coup under way is
    finished and settled, then the dealer's "open" is refused until the operator resumes."""
    with running_clocked(sqlite_url, default_tables=("Sanremo",)) as server:
        desk = open_desk(server)
        ann = server.signup("ann")
        desk.ok("shoe", {})
        desk.ok("open")
        assert server.bet(ann, desk.table_id, "punto", 2000).status_code == 200
        paused = server.http.post(f"/api/tables/{desk.table_id}/pause",
                                  headers=desk.operator.headers)
        assert paused.status_code == 200 and paused.json()["paused"] is True
        desk.ok("close")
        for card in ("9h", "2d", "kh", "5c"):  # the coup under way is finished and settled
            desk.ok("cards", {"card": card})
        assert not desk.ok("settle")["can"]["open"]
        assert server.balance(ann) == 100_000 + 2000
        message = desk.refused("open", None, 409, "table-paused", lang="fr")
        assert message.startswith("La table est en pause")
        server.http.post(f"/api/tables/{desk.table_id}/resume", headers=desk.operator.headers)
        assert desk.ok("open")["phase"] == "open"


def test_issue17_only_players_bet_and_a_suspended_dealer_deals_no_more(sqlite_url: str) -> None:
    """Dealer and operator accounts hold no money at a table: a bet (single, batch, the fast
    way) and a credit are refused ``not-a-player``; a suspended dealer's action is refused
    ``account-suspended`` even with a token obtained before the suspension."""
    with running_clocked(sqlite_url, default_tables=("Sanremo",)) as server:
        desk = open_desk(server)
        boss = desk.operator
        desk.ok("shoe", {})
        desk.ok("open")
        for who in (desk.dealer, boss):
            single = server.bet(who, desk.table_id, "egalite", 100_000)
            assert (single.status_code, single.json()["error"]["code"]) == (403, "not-a-player")
            batch = server.http.post(f"/api/tables/{desk.table_id}/bets/batch",
                                     json={"bets": {"banco": 1000}}, headers=who.headers)
            assert (batch.status_code, batch.json()["error"]["code"]) == (403, "not-a-player")
            credit = server.http.post(f"/api/players/{who.id}/credit",
                                      json={"amount": 500_000}, headers=boss.headers)
            assert (credit.status_code, credit.json()["error"]["code"]) == (403, "not-a-player")
        assert check_books(sqlite_url)["active_bets"] == 0
        # the suspension as another process's cache of the session would still see it: the
        # account suspended, the dealer's session not yet known to be ended
        engine = create_engine(sqlite_url)
        with engine.begin() as connection:
            connection.execute(text("UPDATE players SET suspended = 1 WHERE id = :id"),
                               {"id": desk.dealer.id})
        engine.dispose()
        answer = desk.act("close", lang="fr")  # its session opens no more (issue 18)
        assert answer.status_code == 401, answer.text
        assert answer.json()["error"] == {"code": "unauthorized",
                                          "message": "Connectez-vous d'abord."}
        assert server.casino.dealers[desk.table_id].view.phase == "open"
        suspended = server.http.post(f"/api/players/{desk.dealer.id}/suspend",
                                     headers=boss.headers)
        assert suspended.status_code == 200, suspended.text
        assert desk.act("close").status_code in (401, 403)
