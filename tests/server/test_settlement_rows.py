"""Issue 21, seventh pass: a settlement's moves are derived by the database from its lines
(``ledger.post_settlement``) instead of built in Python and posted one by one
(``ledger.post``); the rows written are the same, id for id (the lines, the ledger's
transactions and entries, the balances, the bets' status), on SQLite and PostgreSQL, in an ORM
session or on a bare connection; the settlement stays exactly once and refuses bets other than
the ones the table closed with, writing nothing."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Connection, text
from sqlalchemy.orm import Session

from puntobanco.bets import BetKind, Outcome, SettlementLine, pays_text, settle_spot
from puntobanco.cards import parse_cards
from puntobanco.coup import deal_coup
from puntobanco.errors import TableStateError
from puntobanco.rules import RuleSet
from puntobanco.server.db import bulk, ledger, settle, store
from puntobanco.server.db.engine import Database
from puntobanco.server.db.models import utcnow
from puntobanco.server.db.players import create_players

from .conftest import PostgresCluster
from .support import first_coup, migrated_database

#: each player's spot on both coups: losses, wins paid in full and by half (B2), pushes (B1),
#: an Égalité win (B3), both Lion sides (L5) and Punto with Banco on one spot
SPOTS: dict[str, dict[BetKind, int]] = {
    "ann": {BetKind.PUNTO: 1_000, BetKind.LION_BANCO: 1_000},
    "bob": {BetKind.BANCO: 2_000, BetKind.EGALITE: 1_000},
    "cid": {BetKind.PUNTO: 1_000, BetKind.BANCO: 3_000},
    "dan": {BetKind.LION_PUNTO: 2_000},
    "eve": {BetKind.EGALITE: 1_000, BetKind.BANCO: 1_000, BetKind.LION_PUNTO: 1_000},
    "fay": {BetKind.LION_PUNTO: 2_000},  # dan's spot: settled with the very same lines
}
#: Banco wins with 6 (half pay), then an Égalité 7-7
COUPS = ("2c 3s 3d 3h 9c", "5c 5d 2s 2h")
#: every row a settlement writes or changes, in id order, timestamps left out
DUMPED = {
    "coups": "id, status",
    "bets": "id, coup_id, player_id, kind, stake, status",
    "settlement_lines": "id, coup_id, bet_id, player_id, seq, kind, stake, outcome, net, "
                        "returned, pays, detail",
    "ledger_transactions": "id, reason, coup_id, bet_id, player_id",
    "ledger_entries": "id, transaction_id, account_id, amount",
    "accounts": "id, code, kind, player_id, table_id, balance",
}

Settle = Callable[..., dict[int, int]]


def settle_by_moves(work: Session, *, table_id: int, coup_id: int,
                    bets: Mapping[int, store.SpotBets],
                    lines: Mapping[int, Sequence[SettlementLine]]) -> dict[int, int]:
    """The settlement as it was written before (issue 21, sixth pass): every move built in
    Python and posted by ``ledger.post``; the reference the rows are compared with."""
    store.move_coup(work, coup_id, "dealt", "settled", settled_at=utcnow())
    stored = settle.active_bets(work, coup_id)
    wallets = {player: ledger.account_id(work, ledger.wallet_code(player)) for player in stored}
    in_play = ledger.account_id(work, ledger.in_play_code(table_id))
    house = ledger.account_id(work, ledger.house_code(table_id))
    rows: list[tuple[Any, ...]] = []
    moves: list[ledger.Move] = []
    for player, player_lines in lines.items():
        for seq, line in enumerate(player_lines):
            bet_id, _ = stored[player][line.bet]
            rows.append((coup_id, bet_id, player, seq, line.bet.value, line.stake,
                         line.outcome.value, line.net, line.returned, pays_text(line),
                         line.reason.value))
            ids = {"coup_id": coup_id, "bet_id": bet_id, "player_id": player}
            if line.outcome is Outcome.LOSE:
                moves.append(ledger.Move(in_play, house, line.stake, "house-win", **ids))
                continue
            if line.net > 0:
                moves.append(ledger.Move(house, in_play, line.net, "house-pay", **ids))
            moves.append(ledger.Move(in_play, wallets[player], line.returned, "payout", **ids))
    bulk.insert(work.connection(), settle._LINES, settle._LINE_COLUMNS, rows)
    ledger.post(work, moves)
    work.execute(text("UPDATE bets SET status = 'settled' WHERE coup_id = :coup "
                      "AND status = 'active'"), {"coup": coup_id})
    return settle.wallet_balances(work, list(stored))


def on_connection(work: Session, **arguments: Any) -> dict[int, int]:
    """:func:`settle.settle_coup` given the session's bare connection, as the desk's batch is."""
    connection = work.connection()
    assert isinstance(connection, Connection)
    return settle.settle_coup(connection, **arguments)


def play(db: Database, way: Settle) -> tuple[list[str], list[dict[int, int]]]:
    """Both coups, bet by the same players, settled ``way``: the rows, and what each
    settlement gave back."""
    rules = RuleSet()
    with db.write() as session:
        made = create_players(session, list(SPOTS), password_hash="-", lang="en",
                              welcome=100_000)
        players = {player.username: player.id for player in made}
        table = store.create_table(session, name="rows", rules=rules, betting_seconds=15)
        coup_ids = [first_coup(session, table)]
        shoe_id = session.execute(text("SELECT shoe_id FROM coups")).scalar_one()
        coup_ids.append(store.open_coup(session, table_id=table.id, shoe_id=shoe_id,
                                        round_no=2, coup_in_shoe=2, last_coup=False))
    balances = []
    for coup_id, cards in zip(coup_ids, COUPS, strict=True):
        with db.write() as session:
            store.apply_bets(session, table_id=table.id, coup_id=coup_id, round_no=1,
                             rules=rules, ops=[store.BetOp(players[name], kind, stake)
                                               for name, spot in SPOTS.items()
                                               for kind, stake in spot.items()])
            bets = settle.close_coup_with_bets(session, coup_id)
            coup = deal_coup(iter(parse_cards(cards)))
            store.record_deal(session, coup_id, coup, first_card=0)
        alike: dict[tuple[tuple[BetKind, int], ...], tuple[SettlementLine, ...]] = {}
        lines = {player: alike.setdefault(tuple(sorted(spot.items(), key=str)),
                                          settle_spot(spot, coup, rules))
                 for player, spot in bets.items()}  # as Table.settle shares them
        with db.write() as session:
            balances.append(way(session, table_id=table.id, coup_id=coup_id, bets=bets,
                                lines=lines))
    dump: list[str] = []
    with db.read() as session:
        assert ledger.audit(session).ok
        for name, columns in DUMPED.items():
            dump.extend(f"{name} {tuple(row)!r}" for row in session.execute(text(
                f"SELECT {columns} FROM {name} ORDER BY id")))
    return dump, balances


@pytest.fixture(params=["sqlite", "postgresql"])
def two_databases(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[
        tuple[Database, Database]]:
    """Two fresh migrated databases of one kind."""
    if request.param == "sqlite":
        urls = [f"sqlite:///{tmp_path / name}.sqlite3" for name in ("one", "two")]
    else:
        cluster: PostgresCluster = request.getfixturevalue("pg_cluster")
        urls = [cluster.new_database(), cluster.new_database()]
    for one in migrated_database(urls[0]):
        for two in migrated_database(urls[1]):
            yield one, two


@pytest.mark.parametrize("way", [settle.settle_coup, on_connection],
                         ids=["session", "connection"])
def test_a_settlement_writes_the_rows_the_moves_posted_one_by_one_wrote(
        two_databases: tuple[Database, Database], way: Settle) -> None:
    reference, derived = two_databases
    expected, expected_balances = play(reference, settle_by_moves)
    found, balances = play(derived, way)
    assert found == expected
    assert balances == expected_balances
    kinds = {row.split("'")[1] for row in found if row.startswith("ledger_transactions")}
    assert {"house-win", "house-pay", "payout"} <= kinds  # every kind of move was made


def test_a_settlement_on_a_connection_is_exactly_once_and_checks_the_bets(
        two_databases: tuple[Database, Database]) -> None:
    """The guard ``dealt → settled`` and the closed bets' check hold on a bare connection:
    a second settlement, or one of other bets, raises and writes nothing."""
    db, _ = two_databases
    play(db, on_connection)
    with db.write() as session:
        coup_id, table_id = session.execute(text(
            "SELECT id, table_id FROM coups ORDER BY id DESC LIMIT 1")).one()
        shoe_id = session.execute(text("SELECT shoe_id FROM coups")).scalars().first()
        coup_id = store.open_coup(session, table_id=table_id, shoe_id=shoe_id, round_no=3,
                                  coup_in_shoe=3, last_coup=False)
        player = session.execute(text("SELECT id FROM players")).scalars().first()
        assert isinstance(player, int)
        store.apply_bets(session, table_id=table_id, coup_id=coup_id, round_no=3,
                         rules=RuleSet(), ops=[store.BetOp(player, BetKind.BANCO, 1_000)])
        bets = settle.close_coup_with_bets(session, coup_id)
        coup = deal_coup(iter(parse_cards(COUPS[0])))
        store.record_deal(session, coup_id, coup, first_card=0)
    lines = {player: settle_spot(spot, coup, RuleSet()) for player, spot in bets.items()}

    def rows() -> list[Any]:
        with db.read() as session:
            return [session.execute(text(f"SELECT count(*) FROM {name}")).scalar_one()
                    for name in ("settlement_lines", "ledger_entries")] + [
                session.execute(text("SELECT status FROM coups WHERE id = :id"),
                                {"id": coup_id}).scalar_one()]

    before = rows()
    with pytest.raises(RuntimeError), db.write() as session:
        on_connection(session, table_id=table_id, coup_id=coup_id,
                      bets={player: {BetKind.BANCO: 2_000}}, lines=lines)
    assert rows() == before
    with db.write() as session:
        balances = on_connection(session, table_id=table_id, coup_id=coup_id, bets=bets,
                                 lines=lines)
    assert set(balances) == {player}
    settled = rows()
    with pytest.raises(TableStateError), db.write() as session:
        on_connection(session, table_id=table_id, coup_id=coup_id, bets=bets, lines=lines)
    assert rows() == settled and settled[0] == before[0] + 1
    with db.read() as session:
        assert ledger.audit(session).ok
