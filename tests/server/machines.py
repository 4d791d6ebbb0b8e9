"""What the two state machines on a table's money share (``test_stateful.py``: a server-dealt
table; ``test_stateful_hand_dealt.py``: a hand-dealt one): a real SQLite file with its issuer,
the engine's event loop on a thread of its own, players signing up with a welcome credit, and
the invariant that the books balance after every step."""

from __future__ import annotations

import asyncio
import tempfile
import threading
from pathlib import Path
from typing import Any

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule
from sqlalchemy import select
from sqlalchemy.orm import Session

from puntobanco.server.db import auth, ledger, settle
from puntobanco.server.db.engine import Database
from puntobanco.server.db.models import Account, Base
from puntobanco.server.db.store import TableSettings
from puntobanco.server.settings import ServerSettings


class BooksMachine(RuleBasedStateMachine):
    """A table's database and loop; subclasses say which table (:meth:`make_table`) and when
    no stake may be in play (:meth:`nothing_in_play`)."""

    def __init__(self) -> None:
        super().__init__()
        self.folder = tempfile.TemporaryDirectory()
        url = f"sqlite:///{Path(self.folder.name) / 'pb.sqlite3'}"
        self.db = Database(url, threads=1)
        Base.metadata.create_all(self.db.writer)
        with self.db.write() as session:
            ledger.ensure_account(session, ledger.ISSUER_CODE, kind="issuer")
            self.settings = self.make_table(session)
        self.config = ServerSettings(database_url=url, closed_seconds=0, card_seconds=0,
                                     result_seconds=0)
        # the machine's loop runs on a thread of its own: after a browser test, Playwright's
        # synchronous API keeps a loop running on this worker's main thread
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.players: list[int] = []
        #: each player's wallet as the answers they got said (bets, withdrawals, settlements)
        self.wallets: dict[int, int] = {}
        self.issued = 0

    def make_table(self, session: Session) -> TableSettings:
        raise NotImplementedError

    def nothing_in_play(self) -> bool:
        """No stake may be in play now (between rounds)."""
        return False

    def _run(self, work: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(work, self.loop).result(timeout=120)

    def stop(self) -> None:
        """The loop and the database closed (after the subclass stopped its engine)."""
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(30)
        self.loop.close()
        self.db.close()
        self.folder.cleanup()

    def _reread_wallets(self) -> None:
        with self.db.read() as session:
            self.wallets.update(settle.wallet_balances(session, self.players))

    @rule(welcome=st.integers(0, 20_000))
    def sign_up(self, welcome: int) -> None:
        with self.db.write() as session:
            player = auth.create_player(session, username=f"p{len(self.players)}x",
                                        password_hash="-", lang="en", welcome=welcome)
        self.players.append(player.id)
        self.wallets[player.id] = welcome
        self.issued += welcome

    @invariant()
    def the_books_balance(self) -> None:
        """The ledger audit holds, no wallet is below zero, nothing was created or lost, and
        each wallet is what the answers said."""
        with self.db.read() as session:
            audit = ledger.audit(session)
            assert audit.ok, audit
            balances = {kind: 0 for kind in ("wallet", "in-play", "house", "issuer")}
            for account in session.scalars(select(Account)):
                balances[account.kind] += account.balance
                assert account.kind != "wallet" or account.balance >= 0
            assert balances["issuer"] == -self.issued  # nothing created, nothing lost
            assert balances["wallet"] + balances["in-play"] + balances["house"] == self.issued
            if self.nothing_in_play():
                assert balances["in-play"] == 0
            for player, balance in settle.wallet_balances(session, self.players).items():
                assert balance == self.wallets[player], (player, balance, self.wallets[player])
