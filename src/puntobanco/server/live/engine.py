"""The round engine of one table, driving the core round (:class:`puntobanco.table.Table`).

Open, take bets, close, deal-and-settle, void and recover are written once here, for both
kinds of table. Two parts vary and are composed in (no subclass):

- the **card source** (``live/sources.py``): a shoe the server shuffles, commits to and the core
  deals, or a real shoe whose cards a dealer enters, each checked by the core;
- the **pacer** (``live/pacing.py``): the clock's loop, or the dealer's actions (those live with
  the hand-dealt parts, ``live/hand.py`` :class:`~puntobanco.server.live.hand.DealerControls`,
  which the engine of a hand-dealt table holds as ``controls``).

Recovery after a restart or a hand-over is one replay of the record for both
(``live/replay.py``). The core decides everything about the game — bets (L4, M3), the cards
(R3–R6, S1–S3), the settlement (B*, L5, L6) — and the engine only sequences it, records it and
tells the clients. Pause, suspension, limits, exposure, the audit and the relay are the
engine's, so they hold for both kinds of table.

Bets go through the table's :class:`~puntobanco.server.live.desk.BetDesk`: cheap refusals at
once, the rest written in group commits; "no more bets" closes the desk, lets the batch under
way finish, then closes the coup in the database and gives the core exactly the bets the
database holds (``docs/server.md`` has the argument).

What the rest of the server calls (``casino``, ``cluster``, ``api``): :meth:`TableDealer.open`,
:meth:`~TableDealer.stop`, :meth:`~TableDealer.poke`, :meth:`~TableDealer.place_bet`,
:meth:`~TableDealer.withdraw_bet`, :meth:`~TableDealer.snapshot`, :meth:`~TableDealer.summary`,
:meth:`~TableDealer.totals`, and the attributes ``id``, ``settings``, ``hub`` (its clients),
``desk`` (its bets), ``view``, ``controls`` (a hand-dealt table's dealer actions, else
``None``) and ``lock`` (held while a round opens or closes, a dealer acts, or the table
recovers: a hook that changes the table between rounds takes it too).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from dataclasses import asdict
from typing import TYPE_CHECKING, Any, TypeVar

from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session

from puntobanco.bets import BetKind
from puntobanco.errors import BetRefused, PuntoBancoError, TableStateError
from puntobanco.rules import RuleSet, Side
from puntobanco.server.db import recall, settle, store
from puntobanco.server.db.engine import Database
from puntobanco.server.db.health import outage_code
from puntobanco.server.db.models import CoupRecord
from puntobanco.server.db.store import TableSettings
from puntobanco.server.live import collector, replay, views
from puntobanco.server.live import messages as msg
from puntobanco.server.live.clock import Clock, WallClock, now_ms
from puntobanco.server.live.desk import BetDesk, SessionUnchecked
from puntobanco.server.live.hub import Client, Hub
from puntobanco.server.live.links import Fence, Links
from puntobanco.server.live.pacing import ClockPacer, Pacer
from puntobanco.server.live.sources import CardSource, ServerShoe
from puntobanco.server.live.views import View
from puntobanco.server.messages import IdempotencyConflict
from puntobanco.server.settings import ServerSettings, table_rules_from_json
from puntobanco.table import CardDealt, Event, Phase, Table

if TYPE_CHECKING:
    from puntobanco.server.live.hand import DealerControls

log = logging.getLogger("puntobanco.server.live.dealer")
T = TypeVar("T")

#: the longest (seconds) a coup's cards wait for its settlement, so that they go out in one
#: moment (``TableDealer._show_dealt``); a slower database shows the cards first, as before
SETTLEMENT_WAIT = 1.0
#: How often, and after how long, a dealer retries a database write that failed for a moment.
DB_RETRIES, DB_RETRY_SECONDS = 5, 0.5


class TableDealer:
    """One live table: the core round, its card source and pacer, its lock and its clients."""

    def __init__(self, settings: TableSettings, *, db: Database, config: ServerSettings,
                 clock: Clock | None = None, links: Links | None = None,
                 source: CardSource | None = None,
                 pacer: Callable[[TableDealer], Pacer] | None = None) -> None:
        self.id = settings.id
        #: where the cards come from (a server-dealt shoe unless another is given)
        self.source: CardSource = source or ServerShoe()
        #: what paces the round (live/clock.py): the wall clock unless a test moves its own
        self.clock: Clock = clock or WallClock()
        #: the table's settings as stored: the next shoe is dealt with them
        self.settings = settings
        self.db = db
        self.config = config
        #: its clients (with several processes, a hub that also relays: live/links.py)
        self.hub = Hub() if links is None else links.hub(self.id, self._relayed_state)
        self.desk = BetDesk(table_id=self.id, db=db, hub=self.hub, sessions=config.guard,
                            clock=self.clock, linger=config.bet_linger_seconds)
        self.lock = asyncio.Lock()
        self.view = View()
        self._shown: list[CardDealt] = []
        self.table = self.new_table(round_no=0, shoe_no=0)
        #: the shoe being dealt: its id, rules JSON and betting window
        self.shoe_id: int | None = None
        self.shoe_rules: dict[str, Any] = settings.rules_json()
        self.betting_seconds = settings.betting_seconds
        #: set when the server stops (a pause on the clock ends at once)
        self.stopping = asyncio.Event()
        self.rounds_played = 0
        #: when the pause after the last result ends (on the clock)
        self.result_until = 0.0
        # operator hooks (issue 11a, docs/operator.md): see "operator hooks" below
        self.paused = False
        self.resumed = asyncio.Event()
        self.resumed.set()
        self.barred: set[int] = set()
        # several processes (live/cluster.py): another process may deal this table
        #: this process serves the table's sockets and bets, another one deals it
        self.following = False
        #: run first in each dealer write: the table's lock is still this process's
        self.fence: Fence | None = None if links is None else links.fence(self.id)
        #: asks the dealing process to hand a hand-dealt table over to this one
        self.want_table: Callable[[], None] | None = (
            None if links is None else lambda: links.want(self.id))
        self._follow_close: asyncio.Task[None] | None = None
        #: the last state another process relayed while this one believed it dealt the table
        #: (its lock may already be another's): what :meth:`demote` shows and follows
        self._missed_state: msg.DealerState | None = None
        #: what paces the round: the clock's loop unless another is given
        self.pacer: Pacer = (pacer or ClockPacer)(self)
        #: a hand-dealt table's dealer actions (live/hand.py), composed in by live/dealer.py
        self.controls: DealerControls | None = None

    @property
    def dealing(self) -> msg.Dealing:
        """Who deals the table: the server or a person."""
        return self.source.dealing

    # --- life cycle -----------------------------------------------------------------------

    async def open(self) -> None:
        """Repair what a stop left behind (before any request is served), then pace rounds."""
        await self.recover()
        self.desk.start()
        self.pacer.start()

    async def stop(self) -> None:
        """Finish the coup being dealt (or void the open round, or leave it to its dealer)."""
        await self.pacer.stop()
        await self.desk.stop()

    async def recover(self) -> None:
        """The one recovery of both kinds of table (``live/replay.py``)."""
        await replay.recover(self)

    def poke(self) -> None:
        """Wake an idle table for one round (someone looked at it)."""
        self.pacer.poke()

    async def pause(self, seconds: float) -> bool:
        """Sleep on the clock, but wake at once when the server stops; ``True``: stopping."""
        return await self.clock.wait(self.stopping, seconds)

    async def write(self, work: Callable[[Session], T]) -> T:
        """A dealer's write: retried while the database is momentarily unavailable or busy."""
        fence, unfenced = self.fence, work
        if fence is not None:  # several processes: only the lock's holder writes as the dealer
            def fenced(session: Session) -> T:
                fence(session)
                return unfenced(session)
            work = fenced
        for attempt in range(DB_RETRIES):
            try:  # essential: written from the disk's reserve (db/health.py)
                return await self.db.run_write(work, essential=True)
            except OperationalError as error:
                if attempt == DB_RETRIES - 1:
                    raise
                if outage_code(error) is None:  # an outage is logged once, by db/health.py
                    log.warning("table %s: database busy, retrying", self.id)
                await asyncio.sleep(DB_RETRY_SECONDS * (attempt + 1))
        raise AssertionError("unreachable")

    # --- several processes (live/cluster.py) ----------------------------------------------

    def follow(self) -> None:
        """Serve the table's sockets and bets while another process deals it: the desk is
        opened and closed by the dealer's relayed state (:meth:`follow_state`)."""
        self.following = True
        self.desk.start()

    async def lead(self) -> None:
        """This process deals the table from now on: the desk it kept for the last dealer is
        closed (its batches answered), then what that dealer left is repaired and the pacing
        starts (:meth:`open`)."""
        self._missed_state = None  # a state from before this process deals is no news later
        self._cancel_follow_close()
        self.desk.close()
        await self.desk.drain()
        self.following = False
        self.stopping = asyncio.Event()
        await self.open()

    def demote(self) -> None:
        """The table's lock is lost: stop dealing at once (no more writes; the next dealer
        repairs whatever this one left) and follow. Another process may have taken the lock
        and dealt on before this one noticed: the last state it relayed meanwhile (ignored
        while this process believed it dealt) is followed now, so that the round it opened
        takes bets here at once, not from its next relayed event."""
        self.pacer.halt()
        self.stop_leading()

    def stop_leading(self) -> None:
        """Follow from now on, the desk closed (:meth:`demote`, or the pacer whose write found
        the lock gone), and first the last state relayed while this process dealt."""
        self.following = True
        self.desk.close()
        missed, self._missed_state = self._missed_state, None
        if missed is not None and not _older(missed.view, self.view):
            self.follow_state(missed)

    def cluster_state(self) -> msg.DealerState:
        """What a following process needs to draw the table as this dealer sees it."""
        return msg.DealerState(view=asdict(self.view), rules=self.shoe_rules,
                               seconds=self.betting_seconds, paused=self.paused)

    def _relayed_state(self) -> msg.DealerState | None:
        """The state relayed with each table event: the dealing process's only."""
        return None if self.following else self.cluster_state()

    def follow_state(self, state: msg.DealerState) -> None:
        """Take the dealing process's state; open the desk for the coup it opened, close it
        when that coup's betting closed (or at its deadline, whichever comes first). While this
        process deals, the state is only kept (:meth:`demote` follows it)."""
        if not self.following:
            self._missed_state = state
            return
        self._missed_state = None  # this one is newer
        if not self.desk.accepting:  # the dealer's bets answered after its close (its drain,
            self.desk.flush_totals()  # relayed before this event): counted before it shows
        self.view = View(**state.view)
        self.shoe_rules, self.betting_seconds = dict(state.rules), state.seconds
        self.paused = state.paused
        view = self.view
        if view.phase == "open" and view.coup_id is not None:
            if view.coup_id != self.desk.coup_id:
                rules, _ = table_rules_from_json(self.shoe_rules)
                closes_at = None if view.deadline is None else view.deadline / 1000
                self.desk.open(coup_id=view.coup_id, round_no=view.round_no, rules=rules,
                               closes_at=closes_at)
                self._cancel_follow_close()
                if closes_at is not None:  # a hand-dealt table's dealer closes it instead
                    self._follow_close = asyncio.create_task(self._close_followed_at(closes_at))
        elif self.desk.accepting:
            self._close_followed()

    async def _close_followed_at(self, closes_at: float) -> None:
        await self.clock.wait(asyncio.Event(), closes_at - self.clock.now())
        self._follow_close = None
        self._close_followed()

    def _close_followed(self) -> None:
        self._cancel_follow_close()
        self.desk.close()
        self.desk.flush_totals()

    def _cancel_follow_close(self) -> None:
        if self._follow_close is not None:
            self._follow_close.cancel()
            self._follow_close = None

    def resnapshot(self, client: Client) -> None:
        """Draw the table afresh on one socket (after a recovery, or a takeover)."""
        client.push(msg.encode(msg.Snapshot(table=self.snapshot(client.player_id))))

    # --- shoes ----------------------------------------------------------------------------

    def new_table(self, *, round_no: int, shoe_no: int, rules: RuleSet | None = None) -> Table:
        """A new core round from the card source (a start, a recovery), listened to."""
        table = self.source.new_table(rules or self.settings.rules, round_no=round_no,
                                      shoe_no=shoe_no)
        table.subscribe(self._on_event)
        self.table = table
        return table

    def _on_event(self, event: Event) -> None:
        if isinstance(event, CardDealt):
            self._shown.append(event)

    def shoe_view(self) -> dict[str, Any]:
        """The shoe as the pages see it now."""
        return self.source.shoe_view(self.shoe_id, self.view.coup_in_shoe)

    async def start_shoe(self, *, rules: RuleSet | None = None,
                         rules_json: dict[str, Any] | None = None) -> None:
        """A new shoe under the table's settings (or ``rules``): the source prepares it
        (shuffled and committed, S1, or nothing known of a real shoe), it is recorded — a
        shoe still being dealt is ended in the same transaction — and the core starts it
        (burning, S2). Between rounds only."""
        self.table.verify_new_shoe()
        settings = await self.db.run_read(lambda s: store.load_table(s, self.id))
        rules = rules or settings.rules
        rules_json = rules_json or settings.rules_json()
        record = self.source.new_shoe(rules)
        old = self.shoe_id if self.table.shoe is not None else None
        shoe_no = self.table.shoe_no + 1

        def write(session: Session) -> int:
            if old is not None:
                store.finish_shoe(session, old)
            return record(session, self.id, shoe_no, rules_json)

        self.shoe_id = shoe_id = await self.write(write)
        self.settings = settings
        self.table.clear_log()  # the database keeps the history; the core's log holds one shoe
        started = self.table.new_shoe(rules=rules)
        self.shoe_rules, self.betting_seconds = rules_json, settings.betting_seconds
        self.view.roads = []
        self.view.shoe = self.shoe_view()
        self.hub.publish(self.source.shoe_started(shoe_id, started, rules_json))

    async def finish_shoe(self, shoe_id: int) -> None:
        """The shoe's last coup was played: recorded finished (a server shoe's salt and order
        revealed)."""
        row = await self.write(lambda s: store.finish_shoe(s, shoe_id))
        if self.table.shoe is not None:
            self.view.shoe = self.shoe_view()
        self.hub.publish(self.source.shoe_finished(row))

    async def finish_shoe_if_done(self) -> None:
        shoe = self.table.shoe
        if (shoe is not None and shoe.finished and self.shoe_id is not None
                and self.table.phase in (Phase.IDLE, Phase.SETTLED)):
            await self.finish_shoe(self.shoe_id)

    # --- one round: written once for both kinds of table ----------------------------------

    def window(self) -> float:
        return views.window(self)

    async def open_round(self, *, seconds: float | None) -> int:
        """Open a round for bets (the table's lock held): recorded, the core's, the desk's;
        ``seconds`` is the betting window (``None``: until the dealer closes it)."""
        if self.paused:
            raise TableStateError("The table is paused: no round opens until the operator "
                                  "resumes it.", code="table-paused")
        shoe = self.table.shoe
        if shoe is None or self.shoe_id is None:
            raise TableStateError("Start a new shoe first.", code="no-shoe")
        self.table.verify_open_round()
        shoe_id = self.shoe_id
        coup_id = await self.write(lambda s: store.open_coup(
            s, table_id=self.id, shoe_id=shoe_id, round_no=self.table.round_no + 1,
            coup_in_shoe=shoe.coups_dealt + 1, last_coup=shoe.is_last_coup))
        opened = self.table.open_round()
        closes_at = None if seconds is None else self.clock.now() + seconds
        deadline = None if closes_at is None else int(closes_at * 1000)
        self.desk.open(coup_id=coup_id, round_no=opened.round_no, rules=self.table.rules,
                       closes_at=closes_at)
        self.view = View(phase="open", round_no=opened.round_no, coup_id=coup_id,
                         coup_in_shoe=opened.coup_in_shoe, deadline=deadline,
                         last_result=self.view.last_result, roads=self.view.roads)
        self.view.shoe = self.shoe_view()
        self.hub.publish(msg.RoundOpened(
            round_no=opened.round_no, coup_id=coup_id, coup_in_shoe=opened.coup_in_shoe,
            shoe_no=self.table.shoe_no, last_coup=opened.last_coup, deadline=deadline,
            server_time=now_ms(self.clock), seconds=seconds, dealing=self.dealing))
        return coup_id

    def seed_desk(self, coup_id: int, round_no: int,
                  bets: Mapping[int, Mapping[BetKind, int]]) -> None:
        """The bet desk of a round resumed while its betting is open, with the recorded bets."""
        self.desk.open(coup_id=coup_id, round_no=round_no, rules=self.table.rules)
        self.desk.seed({player: {kind.value: stake for kind, stake in spot.items()}
                        for player, spot in bets.items()})

    async def close_round(self) -> dict[int, dict[BetKind, int]]:
        """"No more bets" (the table's lock held): a state change, whatever is queued, once
        the bets the sockets hold already are read (``BetDesk.last_call``).
        Requests taken before it are answered (one batch at most is being written), then the
        database closes the coup and says which bets it holds; the core takes exactly those
        (and checks each spot again: M3, L1, L3). Returns them, per player."""
        coup_id = self.view.coup_id
        assert coup_id is not None
        await self.desk.last_call()  # the bets the sockets hold already are taken first
        self.view.phase, self.view.deadline = "closed", None
        self.hub.publish(msg.BetsClosed(round_no=self.table.round_no, coup_id=coup_id))
        await self.desk.drain()
        self.desk.flush_totals()  # the final totals, if the last batch changed them
        held = await self.write(lambda s: settle.close_coup_with_bets(s, coup_id))
        # 10,000 bets at 5,000 players: one call, each spot checked again (M3, L1, L3)
        self.table.place_spots({str(player): spot for player, spot in held.items() if spot})
        self.table.close_bets()
        return {player: spot for player, spot in held.items() if spot}

    async def void_round(self, *, also: Callable[[Session], None] | None = None) -> None:
        """Void the round under way (the table's lock held): every stake back to its wallet,
        each player told what came back, every page told the round is void. ``also`` runs in
        the same transaction (a hand-dealt coup's cards marked void)."""
        self.table.verify_void_round()
        coup_id = self.view.coup_id
        assert coup_id is not None
        if self.table.phase is Phase.OPEN:  # the bets being written are taken, then refunded
            self.desk.close()
            await self.desk.drain()
            self.desk.flush_totals()

        def write(session: Session) -> dict[int, settle.Refund]:
            refunds = settle.void_coup(session, table_id=self.id, coup_id=coup_id)
            if also is not None:
                also(session)
            return refunds

        refunds = await self.write(write)
        cards = self.source.void()
        self.view.phase, self.view.cards, self.view.deadline = "void", [], None
        self.view.shoe = self.shoe_view()
        self.tell_void(coup_id, self.table.round_no, refunds, cards)

    def tell_void(self, coup_id: int, round_no: int, refunds: Mapping[int, settle.Refund],
                  cards: tuple[str, ...] = (), *, shoe_no: int | None = None,
                  coup_in_shoe: int | None = None) -> None:
        for player, refund in refunds.items():  # the page says what came back
            self.hub.send(player, msg.Balance(reason="void", coup_id=coup_id,
                                              amount=refund.amount, balance=refund.balance))
            self.hub.send(player, msg.MyBets(coup_id=coup_id, my_bets={},
                                             balance=refund.balance))
        self.hub.publish(msg.RoundVoided(
            round_no=round_no, coup_id=coup_id, cards=list(cards),
            shoe_no=self.table.shoe_no if shoe_no is None else shoe_no,
            coup_in_shoe=self.view.coup_in_shoe if coup_in_shoe is None else coup_in_shoe))

    async def deal_and_settle(self) -> None:
        """Deal the closed coup in the core (from the source's cards), record it, show its
        cards (paced by the clock when the source shows them at the deal), settle it exactly
        once and tell everyone; a shoe whose last coup this was is finished."""
        coup_id = self.view.coup_id
        assert coup_id is not None
        first_card = self.source.first_card()
        bets = {int(spot): spot_bets for spot, spot_bets in self.table.bets.items()}  # copies
        self._shown = []
        dealt = self.table.deal()
        shown = list(self._shown) if self.source.shows_cards_at_deal else []
        shoe_no = self.table.shoe_no

        def record(session: Session) -> dict[str, Any]:
            store.record_deal(session, coup_id, dealt.coup, first_card=first_card)
            return recall.coup_json(session.get_one(CoupRecord, coup_id), shoe_no=shoe_no)

        coup_json = await self.write(record)
        settled = self.table.settle()
        lines = {int(spot): spot_lines for spot, spot_lines in settled.lines.items()}
        spots = {player: spot for player, spot in bets.items() if spot}

        def pay(session: Session) -> tuple[dict[str, Any], dict[int, int]]:
            balances = settle.settle_coup(session, table_id=self.id, coup_id=coup_id,
                                          bets=spots, lines=lines)
            result = recall.coup_json(session.get_one(CoupRecord, coup_id), shoe_no=shoe_no)
            return result, balances

        # The coup is recorded (its cards are the database's since record_deal): it is settled
        # while its cards are shown (issue 21: 0.35-0.7 s of the database thread at 5,000
        # players, which the last socket's settlement waited for after the last card); what
        # the pages are told of it still comes after the last card.
        settling = asyncio.ensure_future(self.write(pay))
        try:
            showing = await self._show_dealt(shown, settling)
        except BaseException:
            settling.add_done_callback(_retrieved)
            raise
        self.view.phase = "dealt"
        self.view.shoe = self.shoe_view()
        self.hub.publish(msg.CoupDealt(coup=coup_json, cards_left=dealt.cards_left,
                                       cut_card_out=dealt.cut_card_out))
        result, balances = await settling
        made: msg.LineTexts = {}  # a line's text, for every bettor who has it
        for player, balance in balances.items():
            self.hub.send_text(player, msg.settlement_text(coup_id, balance, lines[player], made))
        self.view.phase = "settled"
        self.view.last_result = result
        self.view.roads.append(recall.road_json(result))
        # the pause after the result ends at a moment fixed before anyone hears of it (a test
        # moving the clock once it sees the result moves it past this moment); it starts once
        # the pages have turned the cards sent with it (``showing``)
        self.result_until = self.clock.now() + showing + self.config.result_seconds
        self.hub.publish(msg.RoundSettled(round_no=settled.round_no, coup_id=coup_id,
                                          shoe_no=shoe_no, coup_in_shoe=self.view.coup_in_shoe,
                                          winner=result["winner"],
                                          shoe_finished=settled.shoe_finished))
        self.rounds_played += 1
        # Everyone has been told and no window is open: the moment for a full garbage
        # collection when one is due (live/collector.py), once the result's frames are written
        # (they were corked for the end of this turn of the loop). Its time comes out of the
        # pause after the result, which the pages show anyway (issue 21: 0.57 s at 5,000
        # players, which the settlement waited for when it came before the first card).
        if collector.due():
            await asyncio.sleep(0)
            collector.quiet_moment()
        await self.finish_shoe_if_done()

    async def _show_dealt(self, shown: list[CardDealt], settling: asyncio.Future[Any]
                          ) -> float:
        """Show a server-dealt coup's cards at the table's pace, in one message moment (issue
        21: each moment costs every socket a write, ~13 µs); the seconds the pages then take to
        turn them, which the result's pause comes after.

        "No more bets" stays on the pages ``closed_seconds`` before the first card. The coup is
        dealt in full by then (the core deals it at the close, R3-R6), and every card goes out
        at once, each saying how long after the card before it the page turns it
        (``reveal_after_ms``: ``card_seconds``, the first at once): the pages turn them one by
        one, Punto's and Banco's in turn and then the third cards (R5, R6), as when each came
        ``card_seconds`` apart, and show the coup, the settlement and the result (sent in the
        same moment, after this returns) once the last card has landed (``static/js/deal.js``).
        No bet is open while they turn, so a page that learns a card a second before it shows
        it learns nothing it could use. The moment waits up to :data:`SETTLEMENT_WAIT` for the
        settlement being written meanwhile (``settling``, over the ``closed_seconds`` pause), so
        that it goes out with every bettor's settlement and the result, in one write per socket
        (issue 21, sixth pass: one write a round instead of two or three, the first four cards,
        each third card and the coup having been moments of their own). A hand-dealt table's
        cards were each shown as its dealer entered it (no ``shown``)."""
        if not shown:
            await _ready(settling)
            return 0.0
        pace = self.config.card_seconds
        await self.pause(self.config.closed_seconds)
        await _ready(settling)
        for index, card in enumerate(shown):
            self.show_card(card.side, card.position, str(card.card),
                           reveal_after_ms=round(pace * 1000) if index else 0)
        return pace * (len(shown) - 1)

    def show_card(self, side: Side, position: int, card: str, *,
                  reveal_after_ms: int = 0) -> None:
        """One card on the pages, with the totals shown so far; ``reveal_after_ms``: the pause
        a page leaves after the card before it (a card sent with others, ``_show_dealt``)."""
        self.view.cards.append({"side": side.value, "position": position, "card": card})
        punto, banco = views.hand_totals(self.view)
        self.hub.publish(msg.CardDealt(side=side.value, position=position, card=card,
                                       punto_total=punto, banco_total=banco,
                                       reveal_after_ms=reveal_after_ms))

    # --- bets -----------------------------------------------------------------------------

    async def place_bet(self, player_id: int, kind: BetKind, stake: int, key: str | None,
                        *, role: str, coup_id: int | None = None, token: str | None = None
                        ) -> dict[str, Any]:
        """Place a bet (validated by the core, paid from the wallet); see ``docs/api.md``.

        ``coup_id``, when given, is the coup the player saw open: a bet for any other coup is
        refused ``table-closed``. Refusals that need no database are answered at once; the bet
        itself is written in the table's next group commit. Once queued it completes even if
        the client goes away, so the database and the table never disagree about a bet.
        With ``token``, the group commit checks that session first (``BetDesk.submit``).
        Only a player's account bets (``role``: a dealer's or operator's is refused).
        """
        self._refuse_barred(player_id, role)
        return await self._submit(store.BetOp(player_id, kind, stake, key),
                                  lambda: self.desk.check(kind, stake, coup_id), token=token)

    def queue_bet(self, player_id: int, kind: BetKind, stake: int, key: str | None, *,
                  role: str, coup_id: int | None, token: str | None,
                  limit: Callable[[str], float]
                  ) -> asyncio.Future[dict[str, Any]] | float | None:
        """:meth:`place_bet` without a coroutine nor a task, for a bet on a player's socket
        (``api/wsbets.quick_bet``, issue 21) or HTTP's short way: the desk's future for the
        bet, queued at once when nothing refuses it before the database — or ``None``, nothing
        done, when :meth:`place_bet` would refuse it (the account, a cheap check): the caller
        then asks :meth:`place_bet`, which gives the refusal. ``limit`` (the player's rate
        limit, ``guard.RateLimit.take``) is asked last, with the player's id, once nothing else
        refuses: its wait in seconds (a float above 0) when it says no, nothing queued."""
        try:
            self._refuse_barred(player_id, role)
            self.desk.check(kind, stake, coup_id)
        except Exception:
            return None
        wait = limit(str(player_id))
        if wait > 0:
            return wait
        return self.desk.submit(store.BetOp(player_id, kind, stake, key), token=token)

    async def withdraw_bet(self, player_id: int, kind: BetKind, key: str | None = None, *,
                           coup_id: int | None = None) -> dict[str, Any]:
        """Withdraw the player's whole bet of this kind while betting is open (L4). With an
        idempotency ``key``, a retry gets the first answer again and moves no money (issue 9)."""
        return await self._submit(store.BetOp(player_id, kind, key=key, withdraw=True),
                                  lambda: self.desk.check(kind, None, coup_id))

    async def place_bets(self, player_id: int, stakes: list[tuple[BetKind, int]],
                         key: str | None, *, role: str, coup_id: int | None = None
                         ) -> dict[str, Any]:
        """Several stakes at once, all or nothing (``POST …/bets/batch``, the page's repeat
        and double): each is checked as a single bet, then the spot with all of them by the
        core and their sum against the balance, in the table's next group commit."""
        self._refuse_barred(player_id, role)
        merged: dict[BetKind, int] = {}
        for kind, stake in stakes:
            merged[kind] = merged.get(kind, 0) + stake

        def check() -> None:
            for kind, stake in merged.items():
                self.desk.check(kind, stake, coup_id)

        return await self._submit(store.BetOp(player_id, next(iter(merged)), key=key,
                                              group=tuple(merged.items())), check)

    async def _submit(self, op: store.BetOp, check: Callable[[], None], *,
                      token: str | None = None) -> dict[str, Any]:
        """Queue ``op`` for the next group commit once ``check`` (the refusals that need no
        database) passes. A refused request with an idempotency key already taken gets the
        first answer again (a retry after the close), or ``idempotency-conflict``. Once queued
        it completes even if the client goes away."""
        try:
            check()
        except BetRefused:
            if token is not None:  # the session unchecked: not even a stored answer is given
                raise SessionUnchecked from None
            if op.key is not None:  # the one idempotency check, as the batch makes it
                again = store.idempotent_answer(
                    await self.desk.stored_request(op.player_id, op.key), op.fingerprint(self.id))
                if isinstance(again, IdempotencyConflict):
                    raise again from None
                if again is not None:
                    return dict(again)
            raise
        return await asyncio.shield(self.desk.submit(op, token=token))

    # --- operator hooks (issue 11a): pause after the coup, suspended players ----------------

    def set_paused(self, paused: bool) -> None:
        """Pause (the coup under way is finished and settled, then no round opens) or resume."""
        self.paused = paused
        if paused:
            self.resumed.clear()
        else:
            self.resumed.set()

    def _refuse_barred(self, player_id: int, role: str) -> None:
        if role != "player":  # dealers and operators hold no money at a table (issue 17)
            raise PuntoBancoError("Only a player's account bets and holds money.",
                                  code="not-a-player")
        if player_id in self.barred:
            raise PuntoBancoError("This account is suspended.", code="account-suspended")

    async def refund_suspended(self, player_id: int) -> int:
        """Bar a suspended player from betting here and give back their bets on a round still
        open for betting, through the desk like a withdrawal (ledger reason ``refund``); bets
        already closed stand. Returns the cents given back."""
        self.barred.add(player_id)
        kinds = list(self.desk.spots.get(player_id, {})) if views.betting(self) else []
        given = 0
        for name in kinds:
            kind = BetKind(name)
            try:
                self.desk.check(kind, None, None)
                answer = await asyncio.shield(self.desk.submit(
                    store.BetOp(player_id, kind, withdraw=True, refund=True)))
            except PuntoBancoError:  # betting closed meanwhile: the rest stand
                break
            given += int(answer["stake"])
        return given

    # --- views (live/views.py) ------------------------------------------------------------

    def totals(self) -> dict[str, int]:
        return views.totals(self)

    def my_bets(self, player_id: int) -> dict[str, int]:
        return views.my_bets(self, player_id)

    def spot_bets(self) -> dict[int, dict[str, int]]:
        return views.spot_bets(self)

    def spots(self) -> int:
        return views.spots(self)

    def snapshot(self, player_id: int | None) -> dict[str, Any]:
        return views.snapshot(self, player_id)

    def summary(self) -> dict[str, Any]:
        return views.summary(self)


async def _ready(settling: asyncio.Future[Any]) -> None:
    """Wait up to :data:`SETTLEMENT_WAIT` seconds for a settlement being written (never
    cancelling it): the coup's moment goes out with it (``TableDealer._show_dealt``)."""
    if not settling.done():
        await asyncio.wait((settling,), timeout=SETTLEMENT_WAIT)


def _retrieved(task: asyncio.Future[Any]) -> None:
    """A settlement written while its cards were shown, whose coup went no further: its
    error (if any) is the recovery's to find, not an "exception never retrieved"."""
    if not task.cancelled():
        task.exception()


def _older(relayed: Any, shown: View) -> bool:
    """A relayed view of an earlier coup than the one this process shows (coup ids grow): a
    former dealer's, sent before it noticed it had lost the table (its state is no news)."""
    coup_id = relayed.get("coup_id") if isinstance(relayed, dict) else None
    return coup_id is not None and shown.coup_id is not None and coup_id < shown.coup_id
