"""Issue 17, one round engine for both kinds of table: the engine composed of a card source and
a pacer (``live/dealer.py`` builds it), and the one recovery replay (``live/replay.py``) that
brings back a server-dealt shoe and a hand-dealt shoe alike.

Every test drives a real engine on a real database (an SQLite file, and PostgreSQL where a
stop in the middle of a coup is concerned) and a :class:`ManualClock` that never moves: no
test sleeps through a betting window. A "restart" is a new engine on the same database, as a
restarted server or the process taking a table over builds it.
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from puntobanco.bets import BetKind
from puntobanco.cards import Card
from puntobanco.rules import RuleSet
from puntobanco.server.db import auth, ledger, settle, store
from puntobanco.server.db.dealing import set_dealing
from puntobanco.server.db.engine import Database, migrate
from puntobanco.server.live import engine as engine_module
from puntobanco.server.live.clock import ManualClock
from puntobanco.server.live.dealer import hand_dealt, server_dealt
from puntobanco.server.live.engine import TableDealer
from puntobanco.server.live.hand import DealerControls
from puntobanco.server.live.pacing import ClockPacer, DealerPacer
from puntobanco.server.live.sources import HandShoe, ServerShoe
from puntobanco.server.settings import ServerSettings

from .support import check_books, fast_settings, run_coroutine

Build = Callable[..., TableDealer]


class Room:
    """A migrated database with one table and one player holding 1,000 €."""

    def __init__(self, url: str, *, dealing: str, rules: RuleSet) -> None:
        migrate(url)
        self.url = url
        self.db = Database(url, threads=2)
        with self.db.write() as session:
            ledger.ensure_account(session, ledger.ISSUER_CODE, kind="issuer")
            self.settings = store.create_table(session, name="Sanremo", rules=rules,
                                               betting_seconds=15)
            if dealing == "dealer":
                set_dealing(session, self.settings.id, "dealer")
            self.ann = auth.create_player(session, username="ann", password_hash="-",
                                          lang="en", welcome=100_000).id
            self.dealer = auth.create_player(session, username="dee", password_hash="-",
                                             lang="en", role="dealer").id
        self.config: ServerSettings = fast_settings(url)
        self.clock = ManualClock()

    def engine(self, build: Build) -> TableDealer:
        return build(self.settings, db=self.db, config=self.config, clock=self.clock)

    def balance(self) -> int:
        with self.db.read() as session:
            return settle.wallet_balances(session, [self.ann])[self.ann]

    def close(self) -> None:
        self.db.close()


def run(work: Callable[[], Awaitable[Any]]) -> Any:
    return run_coroutine(work())  # type: ignore[arg-type]


async def started(engine: TableDealer) -> TableDealer:
    """The engine recovered and its desk open, as ``open`` does (no pacing task: the test
    paces the round itself)."""
    await engine.recover()
    engine.desk.start()
    return engine


def controls(engine: TableDealer) -> DealerControls:
    assert engine.controls is not None
    return engine.controls


async def hand_coup(hand: DealerControls, dealer: int, cards: list[str], *,
                    cut_card_after: int | None = None) -> None:
    """Close betting, enter ``cards`` (the cut card pressed after the ``cut_card_after``-th),
    settle."""
    await hand.close_betting(dealer)
    for index, text in enumerate(cards):
        await hand.enter_card(dealer, Card.parse(text), side=None)
        if cut_card_after == index + 1:
            await hand.cut_card(dealer)
    await hand.settle(dealer)


def state_of(engine: TableDealer) -> dict[str, Any]:
    """What a replay must bring back: the shoe on the pages, the roads, the round."""
    shoe = engine.table.shoe
    assert shoe is not None
    return copy.deepcopy({"shoe": engine.shoe_view(), "roads": engine.view.roads,
                          "round_no": engine.table.round_no, "position": shoe.position,
                          "cards_left": shoe.cards_left, "phase": engine.view.phase,
                          "cards": engine.view.cards, "bets": engine.spot_bets()})


# --- composition ----------------------------------------------------------------------------


def test_the_two_kinds_of_table_are_one_engine_with_different_parts(sqlite_url: str) -> None:
    """No subclass: both kinds are :class:`TableDealer`, differing only in their card source
    and pacer; only the hand-dealt one holds the dealer's controls."""
    room = Room(sqlite_url, dealing="server", rules=RuleSet(decks=1, cut_card=14))
    try:
        served, dealt = room.engine(server_dealt), room.engine(hand_dealt)
        assert type(served) is type(dealt) is TableDealer
        assert isinstance(served.source, ServerShoe) and isinstance(served.pacer, ClockPacer)
        assert isinstance(dealt.source, HandShoe) and isinstance(dealt.pacer, DealerPacer)
        assert served.controls is None and isinstance(dealt.controls, DealerControls)
        assert (served.dealing, dealt.dealing) == ("server", "dealer")
        # the engine itself names no kind of table
        source = inspect.getsource(engine_module)
        assert "HandDealtTable" not in source and "PhysicalShoe" not in source
    finally:
        room.close()


def test_a_hand_dealt_engine_on_a_manual_clock_deals_and_settles_without_time_passing(
        sqlite_url: str) -> None:
    """The hand-dealt parts composed into the engine: a shoe, a bet, the dealer's cards and
    the settlement, all paced by the dealer's actions while the clock stands still."""
    room = Room(sqlite_url, dealing="dealer", rules=RuleSet(decks=1, cut_card=14))
    start = room.clock.now()

    async def work() -> tuple[dict[str, Any], int]:
        engine = await started(room.engine(hand_dealt))
        hand = controls(engine)
        await hand.new_shoe(room.dealer, decks=None)
        await hand.open_betting(room.dealer)
        answer = await engine.place_bet(room.ann, BetKind.PUNTO, 10_000, None, role="player")
        await hand_coup(hand, room.dealer, ["9h", "2d", "kh", "5c"])  # Punto 9, a natural
        result = engine.view.last_result
        await engine.stop()
        assert result is not None
        return result, int(answer["balance"])

    try:
        result, after_bet = run(work)
        assert after_bet == 90_000 and result["winner"] == "punto"
        assert room.balance() == 110_000  # Punto pays 1:1
        assert room.clock.now() == start  # paced by the dealer: no time had to pass
    finally:
        room.close()
    books = check_books(sqlite_url)
    assert books["active_bets"] == 0 and set(books["in_play"].values()) == {0}


# --- one replay -----------------------------------------------------------------------------


@pytest.mark.parametrize("build", [server_dealt, hand_dealt], ids=["server", "dealer"])
def test_one_replay_brings_back_the_shoe_of_either_kind_as_it_was(sqlite_url: str,
                                                                  build: Build) -> None:
    """Two coups settled (a bet on each), then a new engine on the same database: the one
    replay rebuilds the same shoe (cards left, coups dealt, cut card, roads) for a server
    shoe from its committed order and for a hand-dealt shoe from the cards entered."""
    dealing = "dealer" if build is hand_dealt else "server"
    room = Room(sqlite_url, dealing=dealing, rules=RuleSet(decks=1, cut_card=14))

    async def two_coups(engine: TableDealer) -> None:
        if engine.controls is not None:
            hand = engine.controls
            await hand.new_shoe(room.dealer, decks=None)
            for cards in (["9h", "2d", "kh", "5c"], ["3d", "4c", "5d", "kc"]):
                await hand.open_betting(room.dealer)
                await engine.place_bet(room.ann, BetKind.BANCO, 5_000, None, role="player")
                await hand_coup(hand, room.dealer, cards)
            return
        await engine.start_shoe()
        for _ in range(2):
            async with engine.lock:
                await engine.open_round(seconds=15)
            await engine.place_bet(room.ann, BetKind.BANCO, 5_000, None, role="player")
            async with engine.lock:
                await engine.close_round()
            await engine.deal_and_settle()

    async def work() -> tuple[dict[str, Any], dict[str, Any]]:
        first = await started(room.engine(build))
        await two_coups(first)
        before = state_of(first)
        await first.desk.stop()
        again = await started(room.engine(build))
        after = state_of(again)
        await again.desk.stop()
        return before, after

    try:
        before, after = run(work)
        for state in (before, after):  # what was shown of the last coup is not the shoe's
            del state["cards"], state["phase"], state["bets"], state["shoe"]["coup_in_shoe"]
        assert after == before
        assert len(after["roads"]) == 2 and after["shoe"]["coups_dealt"] == 2
    finally:
        room.close()
    books = check_books(sqlite_url)
    assert books["active_bets"] == 0 and books["settled"] == 2


@pytest.mark.parametrize("while_betting", [True, False], ids=["betting-open", "one-card-in"])
def test_a_cut_card_in_the_middle_of_a_coup_then_a_restart_settles_every_stake(
        db_url: str, while_betting: bool) -> None:
    """Issue 17's defect, at the engine: the cut card pressed between two cards of a coup is
    an event of that coup. The next round opens with a 300 € bet (and, in one variant, is
    closed with one card entered); a new engine replays the record to the same shoe and the
    same round, the dealer finishes it, and the stake is settled: nothing stays in play."""
    room = Room(db_url, dealing="dealer", rules=RuleSet(decks=1, cut_card=14))

    async def work() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
        first = await started(room.engine(hand_dealt))
        hand = controls(first)
        await hand.new_shoe(room.dealer, decks=None)
        await hand.open_betting(room.dealer)
        # Punto 2+4, Banco 3+5: Banco's natural 8 in 4 cards, the cut card after the first
        await hand_coup(hand, room.dealer, ["2c", "3d", "4c", "5d"], cut_card_after=1)
        await hand.open_betting(room.dealer)
        await first.place_bet(room.ann, BetKind.BANCO, 30_000, None, role="player")
        if not while_betting:
            await hand.close_betting(room.dealer)
            await hand.enter_card(room.dealer, Card.parse("9h"), side=None)
        before = state_of(first)
        await first.stop()
        again = await started(room.engine(hand_dealt))
        after = state_of(again)
        resumed = controls(again)
        if while_betting:
            await resumed.close_betting(room.dealer)
            await resumed.enter_card(room.dealer, Card.parse("9h"), side=None)
        for text in ("2d", "kh", "5c"):  # Punto 9, a natural: Punto wins
            await resumed.enter_card(room.dealer, Card.parse(text), side=None)
        await resumed.settle(room.dealer)
        last = again.shoe_view()
        await again.stop()
        return before, after, last

    try:
        before, after, last = run(work)
        assert after == before and after["shoe"]["cut_card_out"] and after["shoe"]["last_coup"]
        assert after["phase"] == ("open" if while_betting else "closed")
        assert last["finished"]  # the coup after the cut card's was the last (S3)
        assert room.balance() == 100_000 - 30_000
    finally:
        room.close()
    books = check_books(db_url)
    assert books["active_bets"] == 0 and set(books["in_play"].values()) == {0}
