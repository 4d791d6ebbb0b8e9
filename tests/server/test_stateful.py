"""Issue 9, standing defence, on the road the money takes (issue 17): a Hypothesis state machine
plays random sequences of sign-up, bet, withdraw, close, deal-and-settle, void and restart on
one table's round engine (``live/engine.py`` ``TableDealer``, on a real SQLite file and a
hand-moved clock): bets through its desk and their group commits (``store.apply_bets``), the
close that gives the core exactly the database's bets, the settlement, the void with its
refunds, and a restart's recovery by a new dealer. After every step the ledger audit holds,
every wallet is ≥ 0, money is conserved (what the issuer handed out is what the wallets, the
table's in-play and its house hold), no stake is in play between rounds, and each wallet is
what the answers the players got said.
"""

from __future__ import annotations

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import precondition, rule
from sqlalchemy.orm import Session

from puntobanco.bets import BetKind
from puntobanco.errors import BetRefused
from puntobanco.rules import RuleSet
from puntobanco.server.db import settle, store
from puntobanco.server.db.store import TableSettings
from puntobanco.server.live.clock import ManualClock
from puntobanco.server.live.dealer import TableDealer

from .machines import BooksMachine

KINDS = list(BetKind)
#: what a bet may be refused for by the core or the store (M1–M3, L1, L3, the balance)
REFUSALS = {"insufficient-balance", "above-maximum", "below-minimum", "not-chip-multiple",
            "both-lion-sides", "non-positive-stake"}


class TableMachine(BooksMachine):
    def __init__(self) -> None:
        super().__init__()
        self.dealer = self._new_dealer()
        self.status = "none"
        self.bets: dict[int, dict[BetKind, int]] = {}

    def make_table(self, session: Session) -> TableSettings:
        return store.create_table(session, name="Sanremo", rules=RuleSet(), betting_seconds=15)

    def nothing_in_play(self) -> bool:
        return self.status in ("settled", "void", "none")

    def _new_dealer(self) -> TableDealer:
        """A dealer (re)starting: the recovery first, then its desk (as ``open`` does)."""
        dealer = TableDealer(self.settings, db=self.db, config=self.config, clock=ManualClock())

        async def start() -> None:
            await dealer.recover()
            dealer.desk.start()

        self._run(start())
        return dealer

    def teardown(self) -> None:
        self._run(self.dealer.desk.stop())
        self.stop()

    # --- steps ------------------------------------------------------------------------------

    @precondition(lambda self: self.status in ("none", "settled", "void"))
    @rule()
    def open_round(self) -> None:
        dealer = self.dealer

        async def open_() -> None:
            shoe = dealer.table.shoe
            if shoe is None or shoe.finished:
                await dealer.start_shoe()
            async with dealer.lock:
                await dealer.open_round(seconds=15)

        self._run(open_())
        self.status = "open"

    @precondition(lambda self: self.status == "open" and self.players)
    @rule(data=st.data(), kind=st.sampled_from(KINDS),
          stake=st.one_of(st.integers(1, 30).map(lambda chips: chips * 500),
                          st.integers(-1_000, 60_000)))
    def bet(self, data: st.DataObject, kind: BetKind, stake: int) -> None:
        player = data.draw(st.sampled_from(self.players))
        try:
            answer = self._run(self.dealer.place_bet(player, kind, stake, None, role="player"))
        except BetRefused as refused:
            assert refused.code in REFUSALS, refused.code
            return
        self.wallets[player] = answer["balance"]

    @precondition(lambda self: self.status == "open" and self.players)
    @rule(data=st.data(), kind=st.sampled_from(KINDS))
    def withdraw(self, data: st.DataObject, kind: BetKind) -> None:
        player = data.draw(st.sampled_from(self.players))
        try:
            answer = self._run(self.dealer.withdraw_bet(player, kind))
        except BetRefused as refused:
            assert refused.code == "no-such-bet"
            return
        self.wallets[player] = answer["balance"]

    @precondition(lambda self: self.status == "open")
    @rule()
    def close(self) -> None:
        dealer = self.dealer

        async def close_() -> dict[int, dict[BetKind, int]]:
            async with dealer.lock:
                return await dealer.close_round()

        self.bets = self._run(close_())
        self.status = "closed"

    @precondition(lambda self: self.status == "closed")
    @rule()
    def deal_and_settle(self) -> None:
        # the closed coup dealt and settled; a shoe whose last coup this was is finished
        self._run(self.dealer.deal_and_settle())
        self.status = "settled"
        with self.db.read() as session:  # the settlement's answers: each bettor's balance
            self.wallets.update(settle.wallet_balances(session, list(self.bets)))

    @precondition(lambda self: self.status == "open")
    @rule()
    def void(self) -> None:
        """A stop while betting is open: the round is void, every stake back."""
        dealer = self.dealer

        async def void_() -> None:
            async with dealer.lock:
                await dealer.void_round()

        self._run(void_())
        self.status = "void"
        self._reread_wallets()

    @rule()
    def restart(self) -> None:
        """A new dealer on the same database: a round not dealt is void and refunded."""
        self._run(self.dealer.desk.stop())
        self.dealer = self._new_dealer()
        if self.status in ("open", "closed"):
            self.status = "void"
        self._reread_wallets()


TableMachine.TestCase.settings = settings(
    max_examples=25, stateful_step_count=30, deadline=None, database=None,
    suppress_health_check=[HealthCheck.too_slow])
test_the_table_keeps_its_books_whatever_the_order_of_steps = TableMachine.TestCase
