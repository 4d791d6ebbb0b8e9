"""Issue 21: bets sent on the player's WebSocket get the same checks, idempotency keys, coup id
and refusals as over HTTP, answered ``bet-accepted`` / ``bet-refused`` echoing the key."""

from __future__ import annotations

from typing import Any

import pytest

from puntobanco.server.api import wsbets
from puntobanco.server.live import messages as msg
from puntobanco.server.live.messages import MESSAGES

from .support import LiveServer, Player, Watcher, check_books, fast_settings, running


def _answer(watcher: Watcher, key: str | None) -> dict[str, Any]:
    found = watcher.next(where=lambda m: m["type"] in ("bet-accepted", "bet-refused")
                         and m.get("key") == key, timeout=20)
    MESSAGES[found["type"]].model_validate(found)  # the documented model
    return found


def _http(server: LiveServer, player: Player, body: dict[str, Any],
          path: str = "/api/tables/1/bets") -> tuple[int, dict[str, Any]]:
    answer = server.http.post(path, json=body, headers=player.headers)
    return answer.status_code, answer.json()


def test_issue21_a_bet_on_the_socket_is_judged_as_over_http(db_url: str) -> None:
    with running(fast_settings(db_url, betting_seconds=6.0)) as server:
        ann = server.signup("ann", lang="fr")
        watcher = server.watch(1, ann)
        elsewhere = server.watch(1, ann)  # the player's page in another tab
        coup = watcher.next("round-opened")["coup_id"]
        # accepted: the route's answer, under the key
        quick = wsbets.FIGURES["quick"]
        watcher.send({"type": "bet", "key": "s-1", "coup_id": coup, "bet": "banco",
                      "stake": 1000})
        accepted = _answer(watcher, "s-1")
        assert accepted["type"] == "bet-accepted", accepted
        assert wsbets.FIGURES["quick"] == quick + 1  # the plain bet took the short way
        assert accepted["answer"]["my_bets"] == {"banco": 1000}
        assert accepted["answer"]["coup_id"] == coup
        assert set(accepted["answer"]) == {"bet", "stake", "total", "my_bets", "balance",
                                           "coup_id", "round_no"}
        # the answer says what my-bets would: the betting socket is not sent both (a socket
        # write each); the player's other sockets are
        mine = {"type": "my-bets", "coup_id": coup, "my_bets": {"banco": 1000},
                "balance": accepted["answer"]["balance"]}
        assert elsewhere.next("my-bets", timeout=20) == mine
        watcher.send({"type": "ping"})
        watcher.next("pong")
        assert not [m for m in watcher.seen if m["type"] == "my-bets"], watcher.seen
        # the key is the idempotency key, whichever way the retry goes: no second stake
        status, again = _http(server, ann, {"bet": "banco", "stake": 1000, "coup_id": coup,
                                            "idempotency_key": "s-1"})
        assert status == 200 and again == accepted["answer"]
        watcher.send({"type": "bet", "key": "s-1", "coup_id": coup, "bet": "banco",
                      "stake": 1000})
        assert _answer(watcher, "s-1")["answer"] == accepted["answer"]
        # refusals: the code, the route's status and its sentence in the player's language
        for number, (body, code) in enumerate((
                ({"bet": "banco", "stake": 500}, "idempotency-conflict"),
                ({"bet": "banco", "stake": 1001}, "not-chip-multiple"),
                ({"bet": "zebra", "stake": 1000}, "unknown-bet"),
                ({"bet": "punto", "stake": 50_000_000}, "above-maximum"),
                ({"bet": "punto", "stake": 1000, "coup_id": coup + 1}, "table-closed"),
                ({"bet": "punto", "stake": "ten"}, "bad-request"))):
            key = "s-1" if code == "idempotency-conflict" else f"r-{number}"
            sent = {"coup_id": coup, **body}
            watcher.send({"type": "bet", "key": key, **sent})
            refused = _answer(watcher, key)
            status, http = _http(server, ann, {**sent, "idempotency_key": key})
            assert refused["type"] == "bet-refused", refused
            assert refused["error"]["code"] == http["error"]["code"] == code, (refused, http)
            assert refused["status"] == status
            if code != "bad-request":  # the route names the field its own way ("body.stake")
                assert refused["error"] == http["error"]
            assert refused["error"]["message"] != ""
        # several stakes at once, all or nothing: the batch route's answer
        watcher.send({"type": "bet", "key": "b-1", "coup_id": coup,
                      "bets": {"lion-punto": 1000, "lion-banco": 1000}})
        batch = _answer(watcher, "b-1")
        assert batch["error"]["code"] == "both-lion-sides", batch  # nothing of it placed
        watcher.send({"type": "bet", "key": "b-2", "coup_id": coup,
                      "bets": {"egalite": 1000, "lion-banco": 1000}})
        batch = _answer(watcher, "b-2")
        assert batch["type"] == "bet-accepted", batch
        assert batch["answer"]["placed"] == {"egalite": 1000, "lion-banco": 1000}
        assert batch["answer"]["my_bets"] == {"banco": 1000, "egalite": 1000,
                                              "lion-banco": 1000}
        # a message without a key, and a spectator's bet
        watcher.send({"type": "bet", "coup_id": coup, "bet": "banco", "stake": 1000})
        assert _answer(watcher, None)["error"]["code"] == "bad-request"
        spectator = server.watch(1)
        spectator.send({"type": "bet", "key": "x", "coup_id": coup, "bet": "banco",
                        "stake": 1000})
        assert _answer(spectator, "x")["error"]["code"] == "unauthorized"
        spectator.close()
        # settled with exactly the bets accepted on the socket
        settlement = watcher.of_coup("settlement", coup)
        assert sorted((line["bet"], line["stake"]) for line in settlement["lines"]) == [
            ("banco", 1000), ("egalite", 1000), ("lion-banco", 1000)]
        watcher.close()
    check_books(db_url)


def test_issue21_socket_bets_share_the_player_s_bet_limit(sqlite_url: str) -> None:
    from puntobanco.server.settings import GuardSettings

    guard = GuardSettings(bets_per_player=(3, 0.01))
    with running(fast_settings(sqlite_url, betting_seconds=6.0, guard=guard)) as server:
        bob = server.signup("bob", lang="it")
        watcher = server.watch(1, bob)
        coup = watcher.next("round-opened")["coup_id"]
        for number in range(3):
            watcher.send({"type": "bet", "key": f"k{number}", "coup_id": coup, "bet": "punto",
                          "stake": 1000})
            assert _answer(watcher, f"k{number}")["type"] == "bet-accepted"
        watcher.send({"type": "bet", "key": "k3", "coup_id": coup, "bet": "punto",
                      "stake": 1000})
        limited = _answer(watcher, "k3")
        assert limited["error"]["code"] == "too-many-requests" and limited["status"] == 429
        assert limited["retry_after"] >= 1
        status, _ = _http(server, bob, {"bet": "punto", "stake": 1000, "coup_id": coup})
        assert status == 429  # one limit, whichever way the bets come
        watcher.close()


@pytest.mark.parametrize("key", ["k", 'a"b\\c/d', " ~!{}[]:,"])
@pytest.mark.parametrize("bet", ["banco", "lion-banco"])
def test_issue21_a_bet_s_answer_written_by_hand_is_the_models_text(key: str, bet: str) -> None:
    answer = {"round_no": 4, "bet": bet, "stake": 1000, "total": 3000,
              "my_bets": {"punto": 500, bet: 3000}, "balance": 96_500, "coup_id": 12,
              "extra": "not in BetOut"}
    texts = msg.bet_accepted_texts(key, answer)
    assert texts is not None
    shown = {name: answer[name] for name in ("bet", "stake", "total", "my_bets", "balance",
                                             "coup_id", "round_no")}
    assert texts[0] == msg.encode(msg.BetAccepted(key=key, answer=shown))
    assert texts[1] == msg.encode(msg.MyBets(coup_id=12, my_bets=answer["my_bets"],
                                             balance=96_500))


@pytest.mark.parametrize("change", [{"stake": 10.0}, {"balance": True}, {"bet": None},
                                    {"my_bets": {"banco": "1000"}}, {"coup_id": None}])
def test_issue21_an_answer_of_another_shape_is_left_to_the_models(change: dict[str, Any]
                                                                   ) -> None:
    answer = {"bet": "banco", "stake": 1000, "total": 1000, "my_bets": {"banco": 1000},
              "balance": 9000, "coup_id": 3, "round_no": 2, **change}
    assert msg.bet_accepted_texts("k", answer) is None
