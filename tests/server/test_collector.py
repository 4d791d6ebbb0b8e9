"""Issue 8: a serving process makes its full garbage collections at quiet moments only
(``live/collector.py``): a full collection with 1,000 players connected took 100–260 ms, and the
automatic ones fell in the busiest seconds of a betting window."""

from __future__ import annotations

import gc
import time

import pytest

from puntobanco.server.live import collector

from .support import LiveServer


def test_issue8_a_server_turns_the_automatic_full_collections_off_and_back_on() -> None:
    if collector._State.users:  # a server of another test still runs in this process
        pytest.skip("another server runs in this test process: the settings are its")
    before = gc.get_threshold()
    collector.start()
    try:
        assert gc.get_threshold()[2] == collector.NEVER  # no full collection by itself
        assert gc.get_threshold()[:2] == before[:2]  # the young generations as usual
        assert gc.get_freeze_count() > 0  # what existed at the start is never visited again
        collector.start()  # a second server in the same process
        collector.stop()
        assert gc.get_threshold()[2] == collector.NEVER  # the first still runs
    finally:
        collector.stop()
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0


def test_issue8_a_full_collection_at_a_quiet_moment_when_one_is_due() -> None:
    collector.start()
    try:
        done = collector._State.collections
        collector.quiet_moment()  # the start has just collected: not due
        assert collector._State.collections == done
        collector._State.last = time.monotonic() - collector.FULL_EVERY - 1
        collector.quiet_moment()
        assert collector._State.collections == done + 1
    finally:
        collector.stop()
    collector.quiet_moment()  # no server runs: nothing to decide
    assert collector._State.collections == done + 1


def test_issue21_the_due_collection_comes_after_the_result_is_told_not_before_the_cards(
        sqlite_url: str) -> None:
    """A full collection took 0.57 s with 5,000 players connected: made before the first card
    it held every socket's settlement whenever the "no more bets" pause was shorter. It comes
    once the result is told (and written), in the pause before the next window."""
    from puntobanco.bets import BetKind
    from puntobanco.rules import RuleSet
    from puntobanco.server.live.dealer import hand_dealt
    from puntobanco.server.live.hub import Client

    from .test_engine import Room, controls, hand_coup, run, started

    seen: list[tuple[str, int]] = []

    class Watching(Client):
        def push(self, text: str) -> None:
            seen.append((text.split('"')[3], collector._State.collections))

    room = Room(sqlite_url, dealing="dealer", rules=RuleSet(decks=1, cut_card=14))

    async def work() -> int:
        engine = await started(room.engine(hand_dealt))
        engine.hub.add(Watching(None))
        hand = controls(engine)
        await hand.new_shoe(room.dealer, decks=None)
        await hand.open_betting(room.dealer)
        await engine.place_bet(room.ann, BetKind.PUNTO, 10_000, None, role="player")
        collector._State.last = time.monotonic() - collector.FULL_EVERY - 1  # one is due
        before = collector._State.collections
        await hand_coup(hand, room.dealer, ["9h", "2d", "kh", "5c"])
        await engine.stop()
        return before

    collector.start()
    try:
        before = run(work)
    finally:
        collector.stop()
        room.close()
    told = {kind: count for kind, count in seen}
    assert told["card-dealt"] == told["coup-dealt"] == told["round-settled"] == before
    assert collector._State.collections == before + 1


class _Cycle:
    def __init__(self) -> None:
        self.me = self


def test_issue21_what_a_full_collection_leaves_is_frozen_until_the_thaw() -> None:
    """With 5,000 sockets connected a full collection held the loop 0.6 s, walking the same
    long-lived objects (the sockets') every time: what survives one is frozen, so the next one
    walks only what was made since. A reference cycle among frozen objects is freed at the
    next thaw (every ``THAW_EVERY`` seconds a collection walks everything)."""
    import weakref

    collector.start()
    try:
        kept = _Cycle()
        dropped = weakref.ref(_Cycle())
        frozen = gc.get_freeze_count()
        collector._State.last = time.monotonic() - collector.FULL_EVERY - 1
        collector.quiet_moment()
        assert dropped() is None  # garbage made since the last collection: collected
        assert gc.get_freeze_count() > frozen
        assert not any(found is kept for found in gc.get_objects())  # never walked again
        gone = weakref.ref(kept)
        del kept
        collector.collect()
        assert gone() is not None  # a frozen cycle waits for the thaw
        collector._State.thawed = time.monotonic() - collector.THAW_EVERY - 1
        collector.collect()
        assert gone() is None
    finally:
        collector.stop()
    assert gc.get_freeze_count() == 0


def test_issue21_what_exists_when_a_socket_is_set_up_is_frozen_until_the_thaw() -> None:
    """The first full collection after 1,000 sockets connected took 139–175 ms, walking every
    socket's objects once: they are frozen as soon as the socket is set up
    (``collector.connected``). A cycle frozen then is still freed at the next thaw."""
    import weakref

    kept = _Cycle()
    collector.connected()  # no server runs: the process's collector is left alone
    assert any(found is kept for found in gc.get_objects())
    collector.start()
    try:
        kept = _Cycle()
        frozen = gc.get_freeze_count()
        collector._State.connect_frozen = 0.0  # no socket set up just before
        collector.connected()
        assert gc.get_freeze_count() > frozen
        assert not any(found is kept for found in gc.get_objects())  # never walked again
        gone = weakref.ref(kept)
        del kept
        collector.collect()
        assert gone() is not None  # a frozen cycle waits for the thaw ...
        collector._State.thawed = time.monotonic() - collector.THAW_EVERY - 1
        collector.collect()
        assert gone() is None  # ... and is freed then
    finally:
        collector.stop()
    assert gc.get_freeze_count() == 0


def test_issue21_a_table_socket_s_objects_are_frozen_once_it_is_set_up(
        clocked_sqlite_server: LiveServer) -> None:
    """The serving process freezes a table socket's long-lived objects (its hub client, its
    queue, its tasks) once the socket is set up: no collection walks them again until the
    thaw."""
    hub = clocked_sqlite_server.app.state.casino.dealers[1].hub
    before = set(hub.clients)
    collector._State.connect_frozen = 0.0  # no socket set up just before
    watcher = clocked_sqlite_server.watch(1)
    try:
        watcher.next("snapshot")
        watcher.send({"type": "ping"})
        watcher.next("pong", timeout=10)  # the socket's reader runs: it is set up
        (client,) = set(hub.clients) - before
        assert not any(found is client for found in gc.get_objects())
        assert not any(found is client.queue for found in gc.get_objects())
    finally:
        watcher.close()


def test_issue21_sockets_connecting_and_leaving_cannot_pile_up_frozen_garbage() -> None:
    """A freeze at a connection keeps what it freezes until a thaw. So that a client connecting
    again and again cannot pile up garbage that way: the young garbage is collected before a
    freeze, a second connection within ``CONNECT_FREEZE_GAP`` does not freeze, and once
    ``THAW_AFTER_CLOSED`` sockets have closed the next full collection thaws."""
    import weakref

    collector.start()
    try:
        garbage = _Cycle()
        gone = weakref.ref(garbage)
        del garbage
        collector._State.connect_frozen = 0.0
        collector.connected()
        assert gone() is None  # collected, not frozen
        frozen = gc.get_freeze_count()
        kept = _Cycle()
        collector.connected()  # within the gap: nothing frozen
        assert gc.get_freeze_count() == frozen
        assert any(found is kept for found in gc.get_objects())
        collector._State.connect_frozen = 0.0
        collector.connected()
        assert not any(found is kept for found in gc.get_objects())
        gone = weakref.ref(kept)
        del kept
        collector._State.thawed, collector._State.closed = time.monotonic(), 0  # a thaw just now
        for _ in range(collector.THAW_AFTER_CLOSED - 1):
            collector.disconnected()
        collector.collect()
        assert gone() is not None  # frozen: one socket short of the early thaw
        collector.disconnected()
        collector.collect()
        assert gone() is None  # thawed and freed
        assert collector._State.closed == 0
    finally:
        collector.stop()
