"""Provably fair shoes (S1–S3): the commitment is published before the first card and revealed
after the last coup, and ``puntobanco verify`` checks it offline, from a file or from a server."""

from __future__ import annotations

import hashlib
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from puntobanco.cards import parse_cards
from puntobanco.rules import RuleSet
from puntobanco.server.fair import (
    RecordedCoup,
    check_shoe,
    check_shoe_json,
    commitment,
    order_text,
    replayed,
)
from puntobanco.shoe import Shoe

from .support import LiveServer


def verify(*args: str) -> subprocess.CompletedProcess[str]:
    """Run ``puntobanco verify`` as a user would."""
    return subprocess.run([sys.executable, "-c", "from puntobanco.cli import main; main()",
                           "verify", *args], capture_output=True, text=True, timeout=120)


def test_commitment_is_sha256_of_salt_colon_cards() -> None:
    """The byte recipe of docs/api.md."""
    assert commitment("00ff", parse_cards("AS 10d")) == hashlib.sha256(b"00ff:AS TD").hexdigest()


def test_S1_a_shoe_that_is_not_whole_decks_or_deals_other_cards_is_a_mismatch() -> None:
    rules = RuleSet(decks=1, cut_card=20)
    shoe = Shoe.shuffled(rules, rng=random.Random(11))
    coup = shoe.deal_coup()
    cards = tuple(card for _, card in coup.dealing_order())
    salt = "5a" * 32
    good = check_shoe(commitment_hex=commitment(salt, shoe.order), salt_hex=salt,
                      order=shoe.order, rules=rules, coups=[RecordedCoup(1, cards)])
    assert good.ok and good.coups_checked == 1
    doubled = (*shoe.order[:-1], shoe.order[0])  # one card twice, one missing
    verdict = check_shoe(commitment_hex=commitment(salt, doubled), salt_hex=salt, order=doubled,
                         rules=rules)
    assert not verdict.ok and "full deck" in verdict.reason
    swapped = (*cards[:-2], cards[-1], cards[-2])
    verdict = check_shoe(commitment_hex=commitment(salt, shoe.order), salt_hex=salt,
                         order=shoe.order, rules=rules, coups=[RecordedCoup(1, swapped)])
    assert not verdict.ok and "coup 1 was recorded as" in verdict.reason


@pytest.fixture
def finished_shoe(sqlite_server: LiveServer) -> tuple[LiveServer, dict[str, Any], dict[str, Any]]:
    """A one-deck table whose cut card comes out at once: its first shoe ends in a few coups."""
    boss = sqlite_server.operator()
    table = sqlite_server.http.post("/api/tables", json={"name": "Quick", "rules": {
        "decks": 1, "cut_card": 40}}, headers=boss.headers).json()
    watcher = sqlite_server.watch(table["id"])
    started = watcher.next("shoe-started")
    unrevealed = sqlite_server.http.get(f"/api/shoes/{started['shoe_id']}").json()
    assert unrevealed["status"] == "dealing" and unrevealed["revealed"] is None
    assert unrevealed["commitment"] == started["commitment"]
    finished = watcher.next("shoe-finished", timeout=60)
    next_shoe = watcher.next("shoe-started")
    watcher.close()
    assert finished["shoe_id"] == started["shoe_id"]
    assert next_shoe["shoe_no"] == started["shoe_no"] + 1
    assert next_shoe["commitment"] != started["commitment"]
    shoe = sqlite_server.http.get(f"/api/shoes/{started['shoe_id']}").json()
    return sqlite_server, shoe, {"finished": finished, "next": next_shoe}


def test_S3_the_shoe_is_revealed_after_its_last_coup_and_verifies(
        finished_shoe: tuple[LiveServer, dict[str, Any], dict[str, Any]]) -> None:
    _, shoe, pushed = finished_shoe
    assert shoe["status"] == "finished"
    assert shoe["revealed"] == {"order": pushed["finished"]["order"],
                                "salt": pushed["finished"]["salt"]}
    assert len(shoe["revealed"]["order"]) == 52 and shoe["cards"] == 52
    dealt = [c for c in shoe["coups"] if c["status"] == "settled"]
    assert len(dealt) >= 2  # S3: the cut card's coup, then one more
    verdict = check_shoe_json(shoe)
    assert verdict.ok and verdict.coups_checked == len(dealt)
    # S2: the burn is the first card turned and that many more
    first = parse_cards(shoe["revealed"]["order"][0])[0]
    assert shoe["burned"] == 1 + first.rank.burn_count


def test_verify_command_checks_a_file_a_server_and_bare_arguments(
        finished_shoe: tuple[LiveServer, dict[str, Any], dict[str, Any]], tmp_path: Path) -> None:
    live, shoe, pushed = finished_shoe
    path = tmp_path / "shoe.json"
    path.write_text(json.dumps(shoe))
    from_file = verify("--shoe-file", str(path))
    assert from_file.returncode == 0 and from_file.stdout.startswith("verified"), from_file
    from_server = verify("--url", live.url, "--shoe", str(shoe["id"]))
    assert from_server.returncode == 0 and "verified" in from_server.stdout, from_server
    # Issue 12: the page shows each table's own shoe number; verify takes it with --table and
    # always says which table and shoe it checked.
    which = f"verified: table Quick, shoe {shoe['shoe_no']} (shoe id {shoe['id']}): "
    assert from_server.stdout.startswith(which) and from_file.stdout.startswith(which)
    assert live.http.get(f"/api/tables/quick/shoes/{shoe['shoe_no']}").json() == shoe
    by_table = verify("--url", live.url, "--table", "Quick", "--shoe", str(shoe["shoe_no"]))
    assert by_table.returncode == 0 and by_table.stdout == from_server.stdout, by_table
    no_such = verify("--url", live.url, "--table", "Quick", "--shoe", "99")
    assert no_such.returncode == 2
    assert no_such.stderr == f"puntobanco: The server at {live.url} has no shoe 99 at table Quick.\n"
    nowhere = verify("--url", live.url, "--table", "Nowhere", "--shoe", "1")  # issue 20
    assert nowhere.stderr == f"puntobanco: The server at {live.url} has no table 'Nowhere'.\n"
    bare = verify("--commitment", shoe["commitment"], "--salt", shoe["revealed"]["salt"],
                  "--cards", " ".join(shoe["revealed"]["order"]))
    assert bare.returncode == 0, bare
    # a different order, or coups other than the order deals: MISMATCH, exit 1
    order = shoe["revealed"]["order"]
    tampered = {**shoe, "revealed": {**shoe["revealed"], "order": [order[1], order[0], *order[2:]]}}
    path.write_text(json.dumps(tampered))
    mismatch = verify("--shoe-file", str(path))
    assert mismatch.returncode == 1 and mismatch.stdout.startswith("MISMATCH:"), mismatch
    coups = [dict(c) for c in shoe["coups"]]
    dealt = next(c for c in coups if c["cards"])
    dealt["cards"] = list(reversed(dealt["cards"]))
    path.write_text(json.dumps({**shoe, "coups": coups}))
    assert verify("--shoe-file", str(path)).returncode == 1
    wrong_salt = verify("--commitment", shoe["commitment"], "--salt", "00" * 32,
                        "--cards", " ".join(order))
    assert wrong_salt.returncode == 1 and "MISMATCH" in wrong_salt.stdout
    # bad input: exit 2, one sentence, no traceback
    unrevealed = verify("--url", live.url, "--shoe", str(pushed["next"]["shoe_id"]))
    missing = verify("--url", live.url, "--shoe", "999")
    for result in [unrevealed, verify("--shoe-file", str(tmp_path / "none.json")),
                   verify("--commitment", "xyz", "--salt", "00", "--cards", "AS"),
                   verify("--salt", "00"), verify(), missing,
                   verify("--commitment", "ab" * 32, "--salt", "00", "--cards", "AS 1Z")]:
        assert result.returncode == 2, result
        assert "Traceback" not in result.stderr and result.stderr.count("\n") == 1, result.stderr
    assert "not revealed" in unrevealed.stderr
    # the command speaks English, in one sentence: no server text in another language
    assert missing.stderr == f"puntobanco: The server at {live.url} has no shoe 999.\n"


def test_a_shoe_replayed_from_its_order_checks_every_recorded_coup() -> None:
    """The dealer's recovery and another process's live view rebuild a shoe from its committed
    order and the coups recorded so far (``fair.replayed``); a record the order does not deal is
    named, never passed over."""
    rules = RuleSet(decks=1)
    shoe = Shoe.shuffled(rules, rng=random.Random(7))
    recorded = [(id_, order_text([card for _, card in shoe.deal_coup().dealing_order()]))
                for id_ in (11, 12, 13)]
    again = replayed(shoe.order, rules, recorded)
    assert again.position == shoe.position and list(again.remaining()) == list(shoe.remaining())
    tampered = [recorded[0], (12, recorded[2][1]), recorded[2]]
    with pytest.raises(ValueError, match="coup 12 does not match"):
        replayed(shoe.order, rules, tampered)
