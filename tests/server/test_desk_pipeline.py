"""Issue 21, sixth pass: on PostgreSQL the desk writes two batches at once (``BetDesk._run``,
``desk.PIPELINE``), each on its own connection, so that one batch's commit (its flush to the
disk, and its answers' way back to the loop) no longer holds every bet queued behind it. The
guarantees stay: a player's requests are written one batch after the other, in their order (a
batch takes no request of a player whose batch is in flight); an idempotency key sent again
while its first request is in flight is answered from it, counted once; the ledger balances.

The tests hold the table's in-play account row ``FOR UPDATE`` from another connection, which
every batch locks: a batch that reached PostgreSQL then waits there, and
``pg_stat_activity`` shows how many batches are in flight."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import text

from puntobanco.bets import BetKind
from puntobanco.rules import RuleSet
from puntobanco.server.db import auth, ledger, store
from puntobanco.server.db.engine import Database
from puntobanco.server.live.desk import PIPELINE, BetDesk
from puntobanco.server.live.hub import Hub

from .support import first_coup, migrated_database, run_coroutine


@pytest.fixture
def db(pg_cluster: Any) -> Iterator[Database]:
    yield from migrated_database(pg_cluster.new_database())


def _players(db: Database, names: list[str]) -> tuple[list[tuple[int, str]], int, int]:
    """Players with a session each, a table and its open coup: ([(player, token)], table,
    coup)."""
    with db.write() as session:
        made = []
        for name in names:
            player = auth.create_player(session, username=name, password_hash="-", lang="en",
                                        welcome=100_000).id
            made.append((player, auth.open_session(session, player)))
        table = store.create_table(session, name="pipe", rules=RuleSet(), betting_seconds=15)
        coup = first_coup(session, table)
    return made, table.id, coup


class InPlayHeld:
    """The table's in-play account row locked ``FOR UPDATE`` by another connection (on a
    thread of its own) until :meth:`release`."""

    def __init__(self, db: Database, table: int) -> None:
        self._locked, self._release = threading.Event(), threading.Event()
        self._thread = threading.Thread(target=self._hold, args=(db, table), daemon=True)
        self._thread.start()
        assert self._locked.wait(10)

    def _hold(self, db: Database, table: int) -> None:
        with db.writer.connect() as connection, connection.begin():
            connection.execute(text("SELECT id FROM accounts WHERE code = :code FOR UPDATE"),
                               {"code": ledger.in_play_code(table)})
            self._locked.set()
            self._release.wait(30)

    def release(self) -> None:
        self._release.set()
        self._thread.join(10)


def _waiting(db: Database) -> int:
    """The batches waiting in PostgreSQL for a lock (the in-play row)."""
    with db.reader.connect() as connection:
        return int(connection.execute(text(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND wait_event_type = 'Lock'")).scalar_one())


async def _settle(db: Database, expected: int) -> int:
    """The number of waiting batches once it reached ``expected`` (or after 1.5 s)."""
    deadline = time.monotonic() + 1.5
    while await asyncio.to_thread(_waiting, db) < expected and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.2)  # and no more come
    return await asyncio.to_thread(_waiting, db)


def _bet(player: int, stake: int, key: str) -> store.BetOp:
    return store.BetOp(player, BetKind.BANCO, stake, key=key)


def test_a_second_batch_is_written_while_the_first_waits_and_a_players_bets_keep_their_order(
        db: Database) -> None:
    """Ann's first bet is in flight (held at the in-play row); her second must wait for it —
    no second batch starts with it alone — while Bob's bet goes in a batch of its own beside
    hers. Released: Ann's two bets are written in order (the second sees the first), Bob's
    once, and the books balance. One batch at a time (before this pass), Bob's bet waited on
    the loop and PostgreSQL saw one batch waiting, not two."""
    assert PIPELINE == 2
    [(ann, ann_token), (bob, bob_token)], table, coup = _players(db, ["ann", "bob"])

    async def scenario() -> tuple[list[int], list[Any], BetDesk]:
        desk = BetDesk(table_id=table, db=db, hub=Hub(), linger=0)
        desk.start()
        desk.open(coup_id=coup, round_no=1, rules=RuleSet())
        held = InPlayHeld(db, table)
        counts: list[int] = []
        try:
            first = desk.submit(_bet(ann, 1000, "a1"), token=ann_token)
            counts.append(await _settle(db, 1))
            second = desk.submit(_bet(ann, 2000, "a2"), token=ann_token)
            counts.append(await _settle(db, 2))  # Ann's batch is in flight: not written yet
            bobs = desk.submit(_bet(bob, 5000, "b1"), token=bob_token)
            counts.append(await _settle(db, 2))
        finally:
            await asyncio.to_thread(held.release)
        answers = await asyncio.gather(first, second, bobs, return_exceptions=True)
        await desk.stop()
        return counts, list(answers), desk

    counts, (first, second, bobs), desk = run_coroutine(scenario())
    assert counts == [1, 1, 2], counts
    assert isinstance(first, dict) and first["total"] == 1000, first
    assert isinstance(second, dict) and second["total"] == 3000, second  # after the first
    assert second["balance"] == first["balance"] - 2000
    assert isinstance(bobs, dict) and bobs["total"] == 5000, bobs
    assert desk.batches == 3
    with db.read() as session:
        stakes = dict(session.execute(text(
            "SELECT player_id, sum(stake) FROM bets GROUP BY player_id")).all())
        assert stakes == {ann: 3000, bob: 5000}
        assert ledger.audit(session).ok


def test_a_key_sent_again_while_its_bet_is_in_flight_is_answered_once(db: Database) -> None:
    """The same idempotency key twice, the first still in flight: the retry waits for it (Ann
    has a batch in flight) and is answered with the first answer; the stake is counted once."""
    [(ann, ann_token), (bob, bob_token)], table, coup = _players(db, ["ann", "bob"])

    async def scenario() -> list[Any]:
        desk = BetDesk(table_id=table, db=db, hub=Hub(), linger=0)
        desk.start()
        desk.open(coup_id=coup, round_no=1, rules=RuleSet())
        held = InPlayHeld(db, table)
        try:
            first = desk.submit(_bet(ann, 1000, "same"), token=ann_token)
            await _settle(db, 1)
            again = desk.submit(_bet(ann, 1000, "same"), token=ann_token)
            bobs = desk.submit(_bet(bob, 1000, "b"), token=bob_token)
            await _settle(db, 2)
        finally:
            await asyncio.to_thread(held.release)
        answers = await asyncio.gather(first, again, bobs, return_exceptions=True)
        await desk.stop()
        return list(answers)

    first, again, bobs = run_coroutine(scenario())
    assert isinstance(first, dict) and isinstance(bobs, dict), (first, bobs)
    assert again == first
    with db.read() as session:
        assert session.execute(text(
            "SELECT sum(stake) FROM bets WHERE player_id = :p"), {"p": ann}).scalar_one() == 1000
        assert ledger.audit(session).ok


def test_the_close_waits_for_every_batch_in_flight(db: Database) -> None:
    """``drain`` (what the dealer awaits before closing the coup) returns only once both
    batches in flight have their answers."""
    [(ann, ann_token), (bob, bob_token)], table, coup = _players(db, ["ann", "bob"])

    async def scenario() -> tuple[bool, list[Any]]:
        desk = BetDesk(table_id=table, db=db, hub=Hub(), linger=0)
        desk.start()
        desk.open(coup_id=coup, round_no=1, rules=RuleSet())
        held = InPlayHeld(db, table)
        try:
            bets = [desk.submit(_bet(ann, 1000, "a"), token=ann_token)]
            await _settle(db, 1)
            bets.append(desk.submit(_bet(bob, 1000, "b"), token=bob_token))
            await _settle(db, 2)
            desk.close()
            draining = asyncio.ensure_future(desk.drain())
            await asyncio.sleep(0.3)
            early = draining.done()
        finally:
            await asyncio.to_thread(held.release)
        await draining
        answered = [bet.done() for bet in bets]
        await desk.stop()
        return early, answered

    early, answered = run_coroutine(scenario())
    assert not early
    assert answered == [True, True]
