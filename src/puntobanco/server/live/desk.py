"""The betting window of one table: cheap refusals, the queue of bets and its group commits.

A bet (or withdrawal) that passes the checks needing neither the database nor a lock — the
table open, the coup the player named still the open one, the stake positive, a whole number of
chips and not above the bet's maximum on its own — joins the table's queue and waits for its
answer. One batcher task per table takes everything queued and applies it in **one** write
transaction (:func:`puntobanco.server.db.store.apply_bets`), then answers every request of the
batch; while a batch is being written the next one gathers, so the batch grows with the load
(group commit) instead of the wait. A batch also *lingers*: it is written
``bet_linger_seconds`` (50 ms on SQLite, 25 on PostgreSQL: ``settings.BET_LINGER_SECONDS``
says why) after its first request was queued, or at once when
:data:`LINGER_BETS` (64) are queued or the betting closes. A transaction costs about 1 ms of CPU
whatever it holds (the thread hop, the session check, BEGIN, the reads, COMMIT); when bets
arrive spread out — a quiet machine, 1,000 bets a second — without the linger each commit
started as soon as the previous one ended and held 1–4 bets, and the batch's fixed cost was most
of a bet's (``bench/bench_store.py --desk``; figures in ``docs/server.md``).

"No more bets" is a state change of this desk (:meth:`BetDesk.close`): from that instant a new
request is refused ``table-closed`` at once, what was queued before it is still written
(:meth:`BetDesk.drain`), and then the dealer closes the coup in the database. The database has
the last word (the batch reads the coup's row ``FOR SHARE``; the close updates it): a bet is in
the coup exactly when its batch committed before the close did — see ``docs/server.md``.

The table's totals are kept here too and pushed as ``bet-totals`` at most every
:data:`TOTALS_SECONDS` (the first change at once, later ones coalesced), and less often on a
crowded table, so that they cost at most :data:`TOTALS_SENDS` socket writes a second
(:func:`totals_interval`), and not in the last moment before the deadline
(:func:`totals_quiet`): the close pushes the final ones.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection
from sqlalchemy.exc import IntegrityError, OperationalError

from puntobanco.bets import BetKind, limits_for, verify_added_stake
from puntobanco.errors import BetRefused, PuntoBancoError
from puntobanco.rules import RuleSet
from puntobanco.server.db import auth, store
from puntobanco.server.db.engine import Database, Gathered
from puntobanco.server.db.health import DatabaseUnavailable, outage_code
from puntobanco.server.live.clock import Clock, WallClock
from puntobanco.server.live.hub import Hub
from puntobanco.server.live.messages import BetTotals
from puntobanco.server.settings import GuardSettings, bet_linger_seconds

log = logging.getLogger("puntobanco.server.live.desk")

#: the most operations written in one transaction, and the shortest gap between two bet-totals
MAX_BATCH, TOTALS_SECONDS = 1000, 0.25
#: the most ``bet-totals`` socket writes a second one table spends (a crowded table's totals
#: come less often: 500 sockets every second, 1,000 every 2 s, 5,000 every 10 s). Issue 21,
#: fifth pass: at 1,000 (every second) a 2 s burst of bets cost each socket two writes in the
#: window besides the final totals, ~8 ms of the loop each; live tables refresh their bet
#: statistics about once a second or slower, and the page shows the exact totals at the close
TOTALS_SENDS = 500
#: no ``bet-totals`` in the last sockets / this many seconds before the deadline
TOTALS_QUIET_SENDS = 5000
#: a lingering batch is written at once when this many requests are queued: enough to share
#: its fixed cost (the linger's purpose), so that a busier table does not wait the whole linger
#: for more (issue 21, seventh pass: 5,000 players, 2,000 bets a second, SQLite's 50 ms linger:
#: ack p50 25 against 48 ms at 200, p99 120 against 121, CPU a bet 228 against 242 µs)
LINGER_BETS = 64
#: how long after the deadline a request read before the close is still taken (seconds; issue
#: 21, sixth pass): a bet sent just before the deadline is read after it when the loop is busy
#: (at 5,000 players, 1-7 bets of 20,000 sent 0-7 ms before it were refused). A bet taken then
#: knows nothing a bet before the deadline did not: no card is dealt before the close. Issue 8
#: refused every request read after the deadline; a loop later than this still does.
LATE_READ = 0.25


def totals_interval(sockets: int) -> float:
    """The shortest gap between two ``bet-totals`` of a table watched by ``sockets`` sockets.

    >>> totals_interval(20), totals_interval(1000), totals_interval(5000)
    (0.25, 2.0, 10.0)
    """
    return max(TOTALS_SECONDS, sockets / TOTALS_SENDS)


def totals_quiet(sockets: int) -> float:
    """How long before the deadline a table watched by ``sockets`` sockets pushes no more
    ``bet-totals`` (the final totals follow ``bets-closed``). A push to every socket holds the
    event loop about 20 µs a socket — 0.1 s at 5,000 — and a bet the loop reads after the
    deadline is refused: at 5,000 sockets the coalesced push fell due right at the deadline
    (5 s after the first bets of a window whose bets came in its last 5 s) and the close ran
    0.1–0.3 s late (issue 21).

    >>> totals_quiet(20), totals_quiet(1000), totals_quiet(5000)
    (0.004, 0.2, 1.0)
    """
    return sockets / TOTALS_QUIET_SENDS
#: a batch that met a momentary database error (a lock, the same idempotency key written by
#: another table at the same moment) is written again this many times
BATCH_ATTEMPTS = 3


@dataclass(slots=True)
class Pending:
    op: store.BetOp
    future: asyncio.Future[dict[str, Any]]
    #: the session token the request came with, checked in the batch's own transaction
    #: (``None``: the caller has looked the session up already)
    token: str | None = None


class SessionUnchecked(Exception):
    """A request with a session not yet checked (``token``) was refused before reaching a
    batch: its caller looks the session up and asks again (``api/fastbets.py``)."""


class SessionEnded(PuntoBancoError):
    """The request's session was found ended (or expired) by its batch: nothing written."""

    code = "unauthorized"

    def __init__(self) -> None:
        super().__init__("The session token is unknown or was closed.")


class BetDesk:
    """Bets and withdrawals of one table's open coup (see the module's docstring)."""

    def __init__(self, *, table_id: int, db: Database, hub: Hub,
                 sessions: GuardSettings | None = None, clock: Clock | None = None,
                 linger: float | None = None) -> None:
        self.table_id = table_id
        #: how long a batch waits for more requests after its first one was queued, in real
        #: seconds (``ServerSettings.bet_linger_seconds``, ``None``: the database's own; the
        #: module's docstring says why)
        self.linger = (bet_linger_seconds("sqlite" if db.sqlite else "postgresql")
                       if linger is None else linger)
        #: this many queued requests are written at once, lingering or not
        self.linger_bets = LINGER_BETS
        #: the round's clock: ``closes_at`` is on it
        self.clock: Clock = clock or WallClock()
        self.db = db
        self.hub = hub
        #: the session lifetimes a request's token is checked against in its batch
        self.sessions = sessions or GuardSettings()
        #: the coup whose bets are written (kept after the close until the dealer closes it)
        self.coup_id: int | None = None
        self.round_no = 0
        self.rules = RuleSet()
        #: new requests are taken only while this is true, and before ``closes_at``
        self.accepting = False
        self.closes_at: float | None = None
        #: each player's bets this coup, as the last answer gave them (kind → cents)
        self.spots: dict[int, dict[str, int]] = {}
        self._totals = {kind.value: 0 for kind in BetKind}
        self._queue: list[Pending] = []
        self._wake = asyncio.Event()
        self._idle = asyncio.Event()
        self._idle.set()
        self._task: asyncio.Task[None] | None = None
        self._first_at = 0.0
        self._counted = (0, 0)
        self._version = self._sent_version = 0
        self._sent_at = float("-inf")
        self._timer: asyncio.TimerHandle | None = None
        #: each bet's maximum under ``_judged``, by the bet's name, and its chip (``check``
        #: passes a stake the core would pass without asking it; one it would refuse, the core
        #: refuses: issue 21, ~4 µs a bet). By name: a ``BetKind``'s hash is enum's Python
        #: ``__hash__``, a call of its own for every bet (issue 21, sixth pass)
        self._judged: RuleSet | None = None
        self._largest: dict[str, int] = {}
        self._chip = 1
        #: the loop the batcher runs on (``start``), where the requests' futures are made
        self._loop: asyncio.AbstractEventLoop | None = None
        #: figures: batches written, operations in them, the largest batch
        self.batches = self.operations = self.largest = 0
        #: the first answers of refused requests' idempotency keys, read in one query per batch
        self._stored: Gathered[tuple[int, str], tuple[str, dict[str, Any]]] = Gathered(
            self._find_requests)

    # --- the window -------------------------------------------------------------------------

    def start(self) -> None:
        if self._task is None:
            self._loop = asyncio.get_running_loop()
            self._task = asyncio.create_task(self._run(), name=f"bets-{self.table_id}")

    async def stop(self) -> None:
        self.accepting = False
        await self.drain()
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None
        self._refuse_queued()  # a request queued while it stopped is answered, never left

    def open(self, *, coup_id: int, round_no: int, rules: RuleSet,
             closes_at: float | None = None) -> None:
        """Take bets for this coup from now on — until :meth:`close`, and never
        :data:`LATE_READ` or more after ``closes_at`` (the deadline on the round's clock, epoch
        seconds), even when the loop is so busy that the close itself runs late."""
        if self.coup_id is not None and self.operations > self._counted[1]:
            log.info("table %s, coup %s: %d operations in %d batches (largest %d)",
                     self.table_id, self.coup_id, self.operations - self._counted[1],
                     self.batches - self._counted[0], self.largest)
        self._counted = (self.batches, self.operations)
        self.coup_id, self.round_no, self.rules = coup_id, round_no, rules
        self.closes_at = closes_at
        self.spots = {}
        self._totals = {kind.value: 0 for kind in BetKind}
        self._version = self._sent_version = 0
        self.accepting = True

    def seed(self, spots: dict[int, dict[str, int]]) -> None:
        """The bets already recorded for the coup just opened (a round resumed while its
        betting is open, ``live/replay.py``): each player's spot and the table's totals."""
        self.spots = {player: dict(spot) for player, spot in spots.items() if spot}
        for spot in self.spots.values():
            for kind, stake in spot.items():
                self._totals[kind] += stake

    def close(self) -> None:
        """"No more bets": every request from now on is refused at once."""
        self.accepting = False
        self._wake.set()  # a batch lingering for more is written now

    async def last_call(self) -> None:
        """"No more bets" at the deadline: first what the players' sockets hold already is read
        — the loop polls them once more (two turns: asyncio runs a turn's ready callbacks
        before the sockets it polls, uvloop after) and each bet read is taken, within
        :data:`LATE_READ` of the deadline — then :meth:`close` (issue 21, sixth pass)."""
        for _ in range(2):
            await asyncio.sleep(0)
        self.close()

    async def drain(self) -> None:
        """Wait until every request taken before the close has its answer."""
        while self._queue or not self._idle.is_set():
            if self._task is None or self._task.done():  # no writer left: nothing is written
                self._refuse_queued()
                return
            await self._idle.wait()
            await asyncio.sleep(0)

    def _refuse_queued(self) -> None:
        queued, self._queue = self._queue, []
        for pending in queued:
            _answer(pending.future, _not_open())
        self._idle.set()

    # --- requests ---------------------------------------------------------------------------

    def check(self, kind: BetKind, stake: int | None, coup_id: int | None) -> None:
        """The refusals that need neither the database nor a lock (``stake`` ``None``: a
        withdrawal); while the database is away or its disk short, every request
        (:class:`~puntobanco.server.db.health.DatabaseUnavailable`, issue 22)."""
        self.db.health.check_bets()
        if (not self.accepting or self.coup_id is None or (
                self.closes_at is not None and self.clock.now() >= self.closes_at + LATE_READ)):
            raise _not_open()
        if coup_id is not None and coup_id != self.coup_id:
            raise BetRefused(f"No more bets on coup {coup_id}: coup {self.coup_id} is open now.",
                             code="table-closed")
        if stake is not None:  # the core judges the stake, with its figures (M1, M2, L3)
            if self._judged is not self.rules:  # the figures of these rules, once
                self._judged, self._chip, self._largest = self.rules, self.rules.chip_unit, {
                    each._value_: limits_for(each, self.rules).maximum for each in BetKind}
            if not (0 < stake <= self._largest[kind._value_] and stake % self._chip == 0):
                verify_added_stake(kind, stake, self.rules)  # the refusal, in its words

    async def stored_request(self, player_id: int, key: str
                             ) -> tuple[str, dict[str, Any]] | None:
        """The (fingerprint, first answer) stored for a player's idempotency key, if any: what a
        retry refused by the cheap checks (after the close) answers. The requests of a moment
        share one query."""
        return await self._stored.get((player_id, key))

    async def _find_requests(self, asked: list[tuple[int, str]]
                             ) -> dict[tuple[int, str], tuple[str, dict[str, Any]]]:
        return await self.db.run_read(functools.partial(store.find_requests, asked=asked))

    def submit(self, op: store.BetOp, *, token: str | None = None
               ) -> asyncio.Future[dict[str, Any]]:
        """Queue a checked request; the future gets its answer or its refusal. With ``token``,
        the batch's transaction first checks that this session of the op's player is live
        (and renews it when due), as the session lookup would, and refuses the request
        :class:`SessionEnded` otherwise: a bet's short way (``api/fastbets.py``) needs no
        lookup of its own for a session it has seen."""
        task, loop = self._task, self._loop
        if task is None or loop is None or task.done():  # stopped (the server is stopping)
            refused: asyncio.Future[dict[str, Any]] = (
                asyncio.get_running_loop().create_future())
            _answer(refused, _not_open())
            return refused
        future: asyncio.Future[dict[str, Any]] = loop.create_future()
        queue = self._queue
        queue.append(Pending(op, future, token))
        if len(queue) == 1:
            self._first_at = loop.time()
            self._idle.clear()
            self._wake.set()
        elif len(queue) == self.linger_bets:
            self._wake.set()
        return future

    async def _run(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self._queue:
                await self._linger()
                batch, self._queue = self._queue[:MAX_BATCH], self._queue[MAX_BATCH:]
                await self._write(batch)
            self._idle.set()

    async def _linger(self) -> None:
        """Let the batch gather: until :attr:`linger` after its first request was queued,
        :attr:`linger_bets` are queued, or the close. Real time (the loop's), not the round's
        clock: it waits for other requests, not for the game, and a test's clock never holds it
        up."""
        loop = asyncio.get_running_loop()
        due = self._first_at + self.linger
        while (self.accepting and len(self._queue) < self.linger_bets
               and (wait := due - loop.time()) > 0):
            self._wake.clear()
            timer = loop.call_later(wait, self._wake.set)
            await self._wake.wait()
            timer.cancel()
        self._wake.clear()

    async def _write(self, batch: list[Pending]) -> None:
        assert self.coup_id is not None
        coup_id, round_no, rules = self.coup_id, self.round_no, self.rules
        ops = [pending.op for pending in batch]
        written: tuple[set[str], list[store.BetResult]] | None = None

        def write(session: Connection) -> tuple[set[str], list[store.BetResult]]:
            read = None
            if postgresql:  # one read: the coup, the sessions, the stored keys, the wallets
                read = store.read_coup(session, table_id=self.table_id, coup_id=coup_id,
                                       ops=ops, token_hashes={
                                           auth.token_hash(pending.token) for pending in batch
                                           if pending.token is not None}, lock=True)
            live = self._live_sessions(session, batch,
                                       None if read is None else read.sessions)
            kept = [pending.op for pending in batch
                    if pending.token is None or pending.token in live]
            return live, store.apply_bets(session, table_id=self.table_id, coup_id=coup_id,
                                          round_no=round_no, rules=rules, ops=kept, read=read)

        postgresql = self.db.postgresql
        for attempt in range(BATCH_ATTEMPTS):
            try:  # essential: these requests passed the checks before a disk ran short
                written = await self.db.run_batch(write)  # a bare connection, driver SQL
                break
            except Exception as error:
                if (code := outage_code(error)) is not None:  # said once by db/health.py
                    for pending in batch:  # nothing of the batch was written
                        _answer(pending.future, DatabaseUnavailable(code))
                    return
                if not isinstance(error, (IntegrityError, OperationalError)):
                    log.exception("table %s: a batch of %d bets failed", self.table_id,
                                  len(ops))
                    for pending in batch:  # a bug: every request of the batch hears of it
                        _answer(pending.future, error)
                    return
                if attempt == BATCH_ATTEMPTS - 1:
                    log.exception("table %s: a batch of %d bets failed", self.table_id, len(ops))
                    for pending in batch:
                        _answer(pending.future, error)
                    return
                await asyncio.sleep(0.05 * (attempt + 1))
        assert written is not None
        live, results = written
        self.batches += 1
        self.operations += len(ops)
        self.largest = max(self.largest, len(ops))
        answered = iter(results)
        for pending in batch:
            if pending.token is not None and pending.token not in live:
                _answer(pending.future, SessionEnded())
                continue
            result = next(answered)
            _answer(pending.future, result)
            if (isinstance(result, dict) and not isinstance(result, store.Replayed)
                    and result.get("coup_id") == coup_id):
                self._changed(pending.op.player_id, result)

    def _live_sessions(self, session: Connection, batch: list[Pending],
                       rows: list[Any] | None = None) -> set[str]:
        """The batch's tokens whose session is live and belongs to the op's player; those due
        for renewal are renewed (as :class:`~puntobanco.server.api.deps.TokenLookups` does).
        ``rows``: the lookup's rows, read already (:func:`store.read_coup`)."""
        tokens = {pending.token for pending in batch if pending.token is not None}
        if not tokens:
            return set()
        if rows is None and not self.db.postgresql:  # the sessions it knows (issue 21)
            owners, due = auth.live_owners(session, tokens, limits=self.sessions,
                                           known=auth.known_sessions(self.db))
        else:
            found = auth.lookup_tokens(session, tokens, limits=self.sessions, rows=rows)
            due = [token for token, lookup in found.items() if lookup.renew]
            owners = {token: lookup.player.id for token, lookup in found.items()}
        if due:
            auth.renew_sessions(session, due)
        return {pending.token for pending in batch if pending.token is not None
                and owners.get(pending.token) == pending.op.player_id}

    # --- what the table sees ----------------------------------------------------------------

    def _changed(self, player_id: int, answer: dict[str, Any]) -> None:
        before = self.spots.get(player_id, _NO_BETS)
        after: dict[str, int] = dict(answer["my_bets"])
        if before == after:
            return
        for kind, stake in before.items():
            self._totals[kind] -= stake
        for kind, stake in after.items():
            self._totals[kind] += stake
        if after:
            self.spots[player_id] = after
        else:
            self.spots.pop(player_id, None)
        self._version += 1
        self._schedule_totals()
        self.hub.send_bets(player_id, answer["coup_id"], after, answer["balance"])

    def apply_remote(self, player_id: int, coup_id: int, my_bets: dict[str, int]) -> None:
        """A player's bets as another server process answered them (``my-bets`` relayed,
        ``live/cluster.py``): counted in this process's totals; the player was told there."""
        if coup_id != self.coup_id or self.spots.get(player_id, {}) == my_bets:
            return
        for kind, stake in self.spots.get(player_id, {}).items():
            self._totals[kind] -= stake
        for kind, stake in my_bets.items():
            self._totals[kind] += stake
        if my_bets:
            self.spots[player_id] = dict(my_bets)
        else:
            self.spots.pop(player_id, None)
        self._version += 1
        self._schedule_totals()

    def totals(self) -> dict[str, int]:
        """The whole table's stakes on each bet this coup."""
        return dict(self._totals)

    def _schedule_totals(self) -> None:
        if self._timer is not None:
            return
        loop = self._loop or asyncio.get_running_loop()
        sockets = len(self.hub.clients)  # the gap: the whole table's, on every process
        wait = self._sent_at + totals_interval(self.hub.table_sockets()) - loop.time()
        if (self.closes_at is not None
                and self.closes_at - self.clock.now() - max(0.0, wait) < totals_quiet(sockets)):
            return  # too close to the deadline: the close pushes them (flush_totals)
        if wait <= 0:
            self.flush_totals()
        else:
            self._timer = loop.call_later(wait, self.flush_totals)

    def flush_totals(self) -> None:
        """Push ``bet-totals`` now if they changed since the last push."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._version == self._sent_version or self.coup_id is None:
            return
        self._sent_version = self._version
        self._sent_at = asyncio.get_running_loop().time()
        self.hub.publish(BetTotals(coup_id=self.coup_id, totals=self.totals(),
                                   spots=len(self.spots)))


#: a player without bets this coup (never changed: a player's bets are a dict of their own)
_NO_BETS: dict[str, int] = {}


def _not_open() -> BetRefused:
    return BetRefused("No more bets: the table is not open for betting.", code="table-closed")


def _answer(future: asyncio.Future[dict[str, Any]], result: Any) -> None:
    if future.done():
        return
    if isinstance(result, BaseException):
        future.set_exception(result)
        future.exception()  # whoever awaits it still gets it; no "never retrieved" warning
    else:
        future.set_result(result)
