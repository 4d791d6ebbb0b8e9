"""Issue 21, what a round costs besides its bets on a crowded table: the messages to every
socket at the moments that matter (the deadline), measured in ``docs/server.md``, "Issue 21,
third pass"."""

from __future__ import annotations

from puntobanco.rules import RuleSet
from puntobanco.server.db.engine import Database, migrate
from puntobanco.server.live.clock import ManualClock
from puntobanco.server.live.desk import BetDesk, totals_quiet
from puntobanco.server.live.hub import Client, Hub

from .support import run_coroutine


def test_a_crowded_table_pushes_no_bet_totals_just_before_the_deadline_only_after_it(
        sqlite_url: str) -> None:
    """A ``bet-totals`` push to 5,000 sockets holds the event loop ~0.1 s; due at the deadline,
    it made the loop read bets sent in time after the deadline (refused). In the last
    :func:`totals_quiet` seconds the totals wait for the close, which pushes the final ones."""
    migrate(sqlite_url)
    db = Database(sqlite_url, threads=1)
    clock = ManualClock()
    hub = Hub()
    watchers = [Client(None) for _ in range(5000)]
    for client in watchers:
        hub.add(client)

    def pushed() -> list[str]:
        texts = []
        while not watchers[0].queue.empty():
            text = watchers[0].queue.get_nowait()
            assert text is not None
            texts.append(text.split('"')[3])
        return texts

    async def window() -> tuple[list[str], list[str], list[str]]:
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
