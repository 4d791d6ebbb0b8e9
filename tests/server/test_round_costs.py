"""Issue 21, what a round costs besides its bets on a crowded table: the messages to every
socket at the moments that matter (the deadline), measured in ``docs/server.md``, "Issue 21,
third pass"."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from puntobanco.rules import RuleSet
from puntobanco.server.db.engine import Database, migrate
from puntobanco.server.live.clock import ManualClock
from puntobanco.server.live.desk import BetDesk, totals_quiet
from puntobanco.server.live.hub import Client, Hub

from .support import run_coroutine


def _watched(sqlite_url: str, sockets: int) -> tuple[
        Database, ManualClock, Hub, Callable[[], list[dict[str, object]]]]:
    """A migrated database, a manual clock and a hub watched by ``sockets`` spectators' sockets
    (queued, as before their connection runs), with what the first of them was pushed since
    the last read, decoded."""
    migrate(sqlite_url)
    db = Database(sqlite_url, threads=1)
    hub = Hub()
    watchers = [Client(None) for _ in range(sockets)]
    for client in watchers:
        hub.add(client)

    def pushed() -> list[dict[str, object]]:
        texts = []
        while not watchers[0].queue.empty():
            text = watchers[0].queue.get_nowait()
            assert text is not None
            texts.append(json.loads(text))
        return texts

    return db, ManualClock(), hub, pushed


def test_a_crowded_table_pushes_no_bet_totals_just_before_the_deadline_only_after_it(
        sqlite_url: str) -> None:
    """A ``bet-totals`` push to 5,000 sockets holds the event loop ~0.1 s; due at the deadline,
    it made the loop read bets sent in time after the deadline (refused). In the last
    :func:`totals_quiet` seconds the totals wait for the close, which pushes the final ones."""
    db, clock, hub, read = _watched(sqlite_url, 5000)

    def pushed() -> list[object]:
        return [message["type"] for message in read()]

    async def window() -> tuple[list[object], list[object], list[object]]:
        desk = BetDesk(table_id=1, db=db, hub=hub, clock=clock)
        desk.open(coup_id=7, round_no=1, rules=RuleSet(), closes_at=clock.now() + 15)
        desk.apply_remote(1, 7, {"banco": 1000})  # the first change of a window: at once
        early = pushed()
        clock.advance(15 - totals_quiet(5000) / 2)  # half the quiet moment before the deadline
        desk._sent_at -= 60  # the gap after the first push is over (the loop's real time)
        desk.apply_remote(2, 7, {"punto": 1000})
        desk.apply_remote(3, 7, {"punto": 2000})
        late = pushed()
        clock.advance(totals_quiet(5000))
        desk.close()
        desk.flush_totals()  # what the dealer does after bets-closed and the drain
        return early, late, pushed()

    try:
        early, late, closed = run_coroutine(window())
    finally:
        db.close()
    assert early == ["bet-totals"]
    assert late == []  # nothing in the quiet moment before the deadline
    assert closed == ["bet-totals"]  # the final totals, once, after the close


def test_a_table_of_1000_sockets_gets_bet_totals_at_most_every_two_seconds(
        sqlite_url: str) -> None:
    """Issue 21, fifth pass: at 1,000 sockets every push of ``bet-totals`` is 1,000 socket
    writes (~8 ms of the event loop); pushed every second, a 2 s burst of bets cost each socket
    two in the window. The totals of a table watched by 1,000 sockets wait 2 s after a push
    (at most 500 socket writes a second), and the close still pushes the exact final ones."""
    import asyncio

    db, clock, hub, pushed = _watched(sqlite_url, 1000)

    async def window() -> tuple[list[dict[str, object]], list[dict[str, object]],
                                list[dict[str, object]], float]:
        loop = asyncio.get_running_loop()
        desk = BetDesk(table_id=1, db=db, hub=hub, clock=clock)
        desk.open(coup_id=7, round_no=1, rules=RuleSet(), closes_at=clock.now() + 15)
        desk.apply_remote(1, 7, {"banco": 1000})  # the first change of a window: at once
        first = pushed()
        desk._sent_at = loop.time() - 1.5  # 1.5 s after that push
        desk.apply_remote(2, 7, {"punto": 1000})
        waiting = pushed()
        assert desk._timer is not None  # due 2 s after the last push, not now
        due = desk._timer.when() - desk._sent_at
        desk.apply_remote(3, 7, {"punto": 3000})
        desk.close()
        desk.flush_totals()  # what the dealer does after bets-closed and the drain
        return first, waiting, pushed(), due

    try:
        first, waiting, closed, due = run_coroutine(window())
    finally:
        db.close()
    assert [m["type"] for m in first] == ["bet-totals"]
    assert waiting == []
    assert due == pytest.approx(2.0, abs=0.01)
    assert [m["type"] for m in closed] == ["bet-totals"]  # the exact final ones, once
    totals = closed[0]["totals"]
    assert isinstance(totals, dict) and (totals["banco"], totals["punto"]) == (1000, 4000)


def test_a_coup_is_settled_in_the_database_while_its_cards_are_shown_and_told_after_them(
        db_url: str) -> None:
    """The settlement's write (0.35–0.7 s of the database thread at 5,000 players) goes on
    while the cards are shown at their pace, instead of after the last one; the pages still
    hear of it after the last card and the coup (``settlement``, then ``round-settled``), and
    the books balance."""
    import asyncio
    import dataclasses
    import time

    from sqlalchemy import select

    from puntobanco.bets import BetKind
    from puntobanco.server.db.models import CoupRecord
    from puntobanco.server.live.dealer import server_dealt

    from .support import check_books
    from .test_engine import Room, started

    room = Room(db_url, dealing="server", rules=RuleSet(decks=1, cut_card=14))
    room.config = dataclasses.replace(room.config, closed_seconds=1.0, card_seconds=1.0)
    seen: list[str] = []

    class Watching(Client):
        def push(self, text: str) -> None:
            seen.append(text.split('"')[3])

    def status(coup_id: int) -> str:
        with room.db.read() as session:
            return str(session.scalar(select(CoupRecord.status).where(
                CoupRecord.id == coup_id)))

    async def round_() -> tuple[str, list[str]]:
        engine = await started(room.engine(server_dealt))
        engine.hub.add(Watching(room.ann))
        await engine.start_shoe()
        coup_id = await engine.open_round(seconds=None)
        await engine.place_bet(room.ann, BetKind.PUNTO, 10_000, None, role="player")
        await engine.close_round()
        dealing = asyncio.ensure_future(engine.deal_and_settle())
        until = time.monotonic() + 20
        while status(coup_id) != "settled" and time.monotonic() < until:
            await asyncio.sleep(0.02)  # the clock stands still: not one card is shown yet
        during = status(coup_id), list(seen)
        while not dealing.done():
            room.clock.advance(1.0)
            await asyncio.sleep(0.01)
        await dealing
        await engine.stop()
        return during

    try:
        (written, told), after = run_coroutine(round_()), seen
    finally:
        room.close()
    assert written == "settled"
    assert "card-dealt" not in told and "settlement" not in told
    cards = [n for n, kind in enumerate(after) if kind == "card-dealt"]
    assert len(cards) >= 4
    assert after.index("coup-dealt") > cards[-1]
    assert after.index("coup-dealt") < after.index("settlement") < after.index("round-settled")
    check_books(db_url)
