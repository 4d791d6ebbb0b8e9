"""Issue 9, standing defence: a Hypothesis state machine plays random sequences of sign-up, bet,
withdraw, close, deal, settle (also twice), and restart (recovery) on the table's money layer
(``db.store`` on a real SQLite file, settled by the core), and after every step the ledger
audit holds, every wallet is ≥ 0, money is conserved (what the issuer handed out is what the
wallets, the table's in-play and its house hold) and every wallet equals the model's sum.
"""

from __future__ import annotations

import random
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule
from sqlalchemy import select

from puntobanco.bets import BetKind, settle_spot
from puntobanco.cards import parse_cards
from puntobanco.coup import Coup
from puntobanco.errors import BetRefused, TableStateError
from puntobanco.rules import RuleSet
from puntobanco.server.db import auth, ledger, store
from puntobanco.server.db.engine import Database
from puntobanco.server.db.models import Account, Base, CoupRecord
from puntobanco.server.settings import table_rules_to_json
from puntobanco.shoe import Shoe

KINDS = list(BetKind)


class TableMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.folder = tempfile.TemporaryDirectory()
        self.db = Database(f"sqlite:///{Path(self.folder.name) / 'pb.sqlite3'}", threads=1)
        Base.metadata.create_all(self.db.writer)
        self.rules = RuleSet()
        self.rng = random.Random(0)
        with self.db.write() as session:
            ledger.ensure_account(session, ledger.ISSUER_CODE, kind="issuer")
            self.table = store.create_table(session, name="Sanremo", rules=self.rules,
                                            betting_seconds=15).id
        self.players: list[int] = []
        self.issued = 0
        self.round_no = 0
        self.coup: int | None = None
        self.status = "none"
        self.shoe: Shoe | None = None
        self.shoe_id = 0
        self.shoe_no = 0

    def teardown(self) -> None:
        self.db.close()
        self.folder.cleanup()

    # --- steps ------------------------------------------------------------------------------

    @rule(welcome=st.integers(0, 20_000))
    def sign_up(self, welcome: int) -> None:
        with self.db.write() as session:
            player = auth.create_player(session, username=f"p{len(self.players)}x",
                                        password_hash="-", lang="en", welcome=welcome)
        self.players.append(player.id)
        self.issued += welcome

    @precondition(lambda self: self.status in ("none", "settled", "void"))
    @rule()
    def open_round(self) -> None:
        if self.shoe is None or self.shoe.finished:
            self.shoe = Shoe.shuffled(self.rules, rng=self.rng)
            self.shoe_no += 1
            with self.db.write() as session:
                self.shoe_id = store.create_shoe(
                    session, table_id=self.table, shoe_no=self.shoe_no, shoe=self.shoe,
                    salt="00", commitment="00", rules_json=table_rules_to_json(self.rules,
                                                                         betting_seconds=15))
        self.round_no += 1
        with self.db.write() as session:
            self.coup = store.open_coup(session, table_id=self.table, shoe_id=self.shoe_id,
                                        round_no=self.round_no,
                                        coup_in_shoe=self.shoe.coups_dealt + 1, last_coup=False)
        self.status = "open"

    @precondition(lambda self: self.status == "open" and self.players)
    @rule(data=st.data(), kind=st.sampled_from(KINDS), stake=st.integers(1, 30_000))
    def bet(self, data: st.DataObject, kind: BetKind, stake: int) -> None:
        player = data.draw(st.sampled_from(self.players))
        assert self.coup is not None
        try:
            with self.db.write() as session:
                store.place_bet(session, table_id=self.table, coup_id=self.coup,
                                player_id=player, kind=kind, stake=stake)
        except BetRefused as refused:
            assert refused.code == "insufficient-balance"

    @precondition(lambda self: self.status == "open" and self.players)
    @rule(data=st.data(), kind=st.sampled_from(KINDS))
    def withdraw(self, data: st.DataObject, kind: BetKind) -> None:
        player = data.draw(st.sampled_from(self.players))
        assert self.coup is not None
        try:
            with self.db.write() as session:
                store.withdraw_bet(session, table_id=self.table, coup_id=self.coup,
                                   player_id=player, kind=kind)
        except BetRefused as refused:
            assert refused.code == "no-such-bet"

    @precondition(lambda self: self.status == "open")
    @rule()
    def close(self) -> None:
        assert self.coup is not None
        with self.db.write() as session:
            store.close_coup(session, self.coup)
        self.status = "closed"

    @precondition(lambda self: self.status == "closed")
    @rule()
    def deal(self) -> None:
        assert self.coup is not None and self.shoe is not None
        first = self.shoe.position
        coup = self.shoe.deal_coup()
        with self.db.write() as session:
            store.record_deal(session, self.coup, coup, first_card=first)
        self.status = "dealt"

    @precondition(lambda self: self.status in ("dealt", "settled"))
    @rule()
    def settle(self) -> None:
        """Settle the dealt coup; settling it again pays nothing (TableStateError)."""
        assert self.coup is not None
        coup_id = self.coup
        with self.db.read() as session:
            row = session.get_one(CoupRecord, coup_id)
            coup = Coup(punto=tuple(parse_cards(row.punto_cards or "")),
                        banco=tuple(parse_cards(row.banco_cards or "")))
            spots = {player: {kind: stake for kind, (_, stake) in kinds.items()}
                     for player, kinds in store.active_bets(session, coup_id).items()}
        lines = {player: settle_spot(spot, coup, self.rules) for player, spot in spots.items()}
        try:
            with self.db.write() as session:
                store.settle_coup(session, table_id=self.table, coup_id=coup_id, bets=spots,
                                  lines=lines)
        except TableStateError:
            assert self.status == "settled"
        self.status = "settled"

    @rule()
    def restart(self) -> None:
        """A server (re)start: rounds not dealt are void and refunded, a dealt one settled."""
        with self.db.write() as session:
            found = store.recover(session, self.table)
        if self.status in ("open", "closed"):
            assert found.voided == [self.coup]
            self.status = "void"
        elif self.status == "dealt":
            assert found.settled == [self.coup]
            self.status = "settled"

    # --- after every step -----------------------------------------------------------------------

    @invariant()
    def the_books_balance(self) -> None:
        with self.db.read() as session:
            audit = ledger.audit(session)
            assert audit.ok, audit
            balances = {kind: 0 for kind in ("wallet", "in-play", "house", "issuer")}
            for account in session.scalars(select(Account)):
                balances[account.kind] += account.balance
                assert account.kind != "wallet" or account.balance >= 0
            assert balances["issuer"] == -self.issued  # nothing created, nothing lost
            assert balances["wallet"] + balances["in-play"] + balances["house"] == self.issued
            if self.status in ("settled", "void", "none"):
                assert balances["in-play"] == 0


TableMachine.TestCase.settings = settings(
    max_examples=25, stateful_step_count=30, deadline=None, database=None,
    suppress_health_check=[HealthCheck.too_slow])
test_the_table_keeps_its_books_whatever_the_order_of_steps = TableMachine.TestCase
