"""A table round as a small state machine: open → closed → dealt → settled (L4, L6, S1–S3).

Every action — open a round, start a shoe, bet, withdraw, close the bets, deal, settle — has the
``verify_x`` (raises) / ``can_x`` (bool) / ``x`` (acts, returns a frozen event appended to
:attr:`Table.log`) triple; the state is read-only from outside. The terminal game and the web
server both drive it.

>>> import random
>>> table = Table(RuleSet(), rng=random.Random(1))
>>> _ = table.open_round()
>>> table.can_bet("ann", BetKind.LION_BANCO, 6000)     # L3: at most 50 €
False
>>> _ = table.place_bet("ann", BetKind.BANCO, 2500)
>>> _ = table.close_bets()
>>> dealt = table.deal()
>>> settled = table.settle()
>>> [line.bet.value for line in settled.lines["ann"]]
['banco']
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from enum import Enum

from puntobanco.bets import (
    PAYMENT_ORDER,
    BetKind,
    SettlementLine,
    settle_spot,
    verify_spot,
    verify_stake,
)
from puntobanco.cards import Card
from puntobanco.coup import Coup
from puntobanco.errors import (
    BetRefused,
    ErrorCode,
    PuntoBancoError,
    ReplayMismatch,
    TableStateError,
)
from puntobanco.money import format_cents
from puntobanco.rules import RuleSet, Side
from puntobanco.shoe import Shoe


class Phase(Enum):
    IDLE = "idle"  # no round yet
    OPEN = "open"  # bets may be placed and withdrawn
    CLOSED = "closed"  # no more bets (L4)
    DEALT = "dealt"
    SETTLED = "settled"


@dataclass(frozen=True, slots=True)
class ShoeStarted:
    shoe_no: int
    order: tuple[Card, ...]  # the whole order: kept by the dealer, revealed after the shoe
    burned: tuple[Card, ...]
    cut_index: int
    kind: str = "shoe-started"


@dataclass(frozen=True, slots=True)
class RoundOpened:
    round_no: int
    shoe_no: int
    coup_in_shoe: int
    last_coup: bool
    kind: str = "round-opened"


@dataclass(frozen=True, slots=True)
class BetPlaced:
    spot: str
    bet: BetKind
    stake: int  # what this action added
    total: int  # the spot's whole stake on that bet now
    kind: str = "bet-placed"


@dataclass(frozen=True, slots=True)
class BetWithdrawn:
    spot: str
    bet: BetKind
    stake: int
    kind: str = "bet-withdrawn"


@dataclass(frozen=True, slots=True)
class BetsClosed:
    round_no: int
    bets: Mapping[str, Mapping[BetKind, int]]
    kind: str = "bets-closed"


@dataclass(frozen=True, slots=True)
class CardDealt:
    side: Side
    position: int
    card: Card
    kind: str = "card-dealt"


@dataclass(frozen=True, slots=True)
class CoupDealt:
    round_no: int
    coup: Coup
    cards_left: int
    cut_card_out: bool
    kind: str = "coup-dealt"


@dataclass(frozen=True, slots=True)
class RoundSettled:
    round_no: int
    lines: Mapping[str, tuple[SettlementLine, ...]]  # per spot, in L6 order
    shoe_finished: bool
    kind: str = "round-settled"

    def net(self, spot: str) -> int:
        return sum(line.net for line in self.lines.get(spot, ()))

    def returned(self, spot: str) -> int:
        return sum(line.returned for line in self.lines.get(spot, ()))


Event = ShoeStarted | RoundOpened | BetPlaced | BetWithdrawn | BetsClosed | CardDealt | CoupDealt \
    | RoundSettled
Listener = Callable[[Event], None]


class Table:
    """One table: its rules, its shoe, the present round and the log of every event.

    ``shoe_factory`` makes each new shoe; by default a securely shuffled one (S1), or one
    shuffled by ``rng`` when given (reproducible). ``round_no`` and ``shoe_no`` are where the
    numbering starts (a server resuming a table). Its state is read through properties and
    changed only by its actions, each with ``verify_x`` / ``can_x`` / ``x``.
    """

    def __init__(self, rules: RuleSet | None = None, *, rng: random.Random | None = None,
                 shoe_factory: Callable[[RuleSet], Shoe] | None = None, round_no: int = 0,
                 shoe_no: int = 0) -> None:
        self._rules = rules if rules is not None else RuleSet()
        self._rng = rng
        self._shoe_factory = shoe_factory
        self._log: list[Event] = []
        self._phase = Phase.IDLE
        self._round_no = round_no
        self._shoe_no = shoe_no
        self._shoe: Shoe | None = None
        self._bets: dict[str, dict[BetKind, int]] = {}
        self._coup: Coup | None = None
        self._listeners: list[Listener] = []

    # --- read-only state ------------------------------------------------------------------

    @property
    def rules(self) -> RuleSet:
        """The rules of the present shoe (a new shoe may bring new ones: :meth:`new_shoe`)."""
        return self._rules

    @property
    def phase(self) -> Phase:
        return self._phase

    @property
    def round_no(self) -> int:
        return self._round_no

    @property
    def shoe_no(self) -> int:
        return self._shoe_no

    @property
    def shoe(self) -> Shoe | None:
        return self._shoe

    @property
    def coup(self) -> Coup | None:
        """The coup of the present round once dealt."""
        return self._coup

    @property
    def bets(self) -> dict[str, dict[BetKind, int]]:
        """A copy of every spot's bets in the present round."""
        return {spot: dict(bets) for spot, bets in self._bets.items()}

    def spot_bets(self, spot: str) -> dict[BetKind, int]:
        """A copy of one spot's bets in the present round (empty when it has none)."""
        return dict(self._bets.get(spot, {}))

    @property
    def log(self) -> tuple[Event, ...]:
        """Every event so far (since :meth:`clear_log`), in order."""
        return tuple(self._log)

    def clear_log(self) -> None:
        """Forget the events so far (a server keeps them in its database)."""
        self._log.clear()

    def subscribe(self, listener: Listener) -> None:
        """Call ``listener`` with every event from now on."""
        self._listeners.append(listener)

    def _emit(self, event: Event) -> None:
        self._log.append(event)
        for listener in self._listeners:
            listener(event)

    # --- rounds and shoes -----------------------------------------------------------------

    def verify_open_round(self) -> None:
        if self._phase not in (Phase.IDLE, Phase.SETTLED):
            raise TableStateError(f"A round is already under way ({self._phase.value}).")

    def can_open_round(self) -> bool:
        return _can(self.verify_open_round)

    def open_round(self) -> RoundOpened:
        """Open the betting for the next coup; start a new shoe first when the last one is done."""
        self.verify_open_round()
        if self._shoe is None or self._shoe.finished:
            self.new_shoe()
        assert self._shoe is not None
        self._round_no += 1
        self._bets = {}
        self._coup = None
        self._phase = Phase.OPEN
        event = RoundOpened(self._round_no, self._shoe_no, self._shoe.coups_dealt + 1,
                            self._shoe.is_last_coup)
        self._emit(event)
        return event

    def verify_void_round(self) -> None:
        if self._phase not in (Phase.OPEN, Phase.CLOSED):
            raise TableStateError("There is no round to void: a dealt coup is settled.",
                                  code="nothing-to-void")

    def void_round_bets(self) -> dict[str, dict[BetKind, int]]:
        """The round under way is void (a stop before its deal): no card is dealt, its bets
        (returned) are given back, and the next round may open."""
        self.verify_void_round()
        bets = {spot: dict(spot_bets) for spot, spot_bets in self._bets.items()}
        self._bets = {}
        self._coup = None
        self._phase = Phase.SETTLED
        return bets

    def verify_new_shoe(self) -> None:
        if self._phase not in (Phase.IDLE, Phase.SETTLED):
            raise TableStateError("A new shoe can only be started between rounds.")

    def can_new_shoe(self) -> bool:
        return _can(self.verify_new_shoe)

    def new_shoe(self, *, rules: RuleSet | None = None) -> ShoeStarted:
        """Shuffle and burn a new shoe (S1, S2), under new ``rules`` if given; between rounds."""
        self.verify_new_shoe()
        if rules is not None:
            self._rules = rules
        if self._shoe_factory is not None:
            shoe = self._shoe_factory(self._rules)
        else:
            shoe = Shoe.shuffled(self._rules, rng=self._rng)
        self._shoe = shoe
        self._shoe_no += 1
        event = ShoeStarted(self._shoe_no, shoe.order, shoe.burned, shoe.cut_index)
        self._emit(event)
        return event

    # --- bets (L4, M3) ---------------------------------------------------------------------

    def verify_bet(self, spot: str, bet: BetKind, stake: int, *,
                   available: int | None = None) -> None:
        """Raise :class:`BetRefused` unless ``stake`` more on ``bet`` is allowed now.

        ``available`` is what the player can still stake (stakes already placed this round having
        been taken from it); ``None`` skips the balance check.
        """
        self._verify_open(bet)
        verify_stake(bet, stake)  # the stake added, before the spot's total is checked
        spot_bets = dict(self._bets.get(spot, {}))
        spot_bets[bet] = spot_bets.get(bet, 0) + stake
        verify_spot(spot_bets, self._rules)  # the table's rules first: no top-up makes these pass
        if available is not None and stake > available:
            raise BetRefused(f"{format_cents(stake)} is more than the {format_cents(available)} "
                             "available.", code=ErrorCode.INSUFFICIENT_BALANCE, bet=bet,
                             available=available)

    def _verify_open(self, bet: BetKind | None) -> None:
        if self._phase is not Phase.OPEN:
            raise BetRefused("No more bets: the table is not open for betting.",
                             code=ErrorCode.TABLE_CLOSED, bet=bet)

    def can_bet(self, spot: str, bet: BetKind, stake: int, *,
                available: int | None = None) -> bool:
        return _can(lambda: self.verify_bet(spot, bet, stake, available=available))

    def place_bet(self, spot: str, bet: BetKind, stake: int, *,
                  available: int | None = None) -> BetPlaced:
        """Add ``stake`` to the spot's bet of this kind (validated as a whole)."""
        self.verify_bet(spot, bet, stake, available=available)
        spot_bets = self._bets.setdefault(spot, {})
        spot_bets[bet] = spot_bets.get(bet, 0) + stake
        event = BetPlaced(spot, bet, stake, spot_bets[bet])
        self._emit(event)
        return event

    def place_spot(self, spot: str, bets: Mapping[BetKind, int]) -> list[BetPlaced]:
        """Add several stakes to one spot at once, checked as :meth:`place_bet` checks each
        in turn (every check of :func:`verify_spot` holds for a spot if it holds for one
        holding more), but the spot as a whole once (a server's close handed the core the
        bets its database holds this way, spot by spot, until :meth:`place_spots` took them
        all in one call). All or none are placed."""
        self._verify_open(next(iter(bets), None))
        spot_bets = self._with_added(spot, bets.items())
        self._bets[spot] = spot_bets
        events = [BetPlaced(spot, bet, stake, spot_bets[bet]) for bet, stake in bets.items()]
        for event in events:
            self._emit(event)
        return events

    def place_spots(self, spots: Mapping[str, Mapping[BetKind, int]]) -> list[BetPlaced]:
        """:meth:`place_spot` for many spots at once, all or none: every spot checked (M1-M3,
        B4, L1, L3, with what it holds already) before any is placed, the table's state
        once; each spot's bets placed in the order of payment (L6), whatever order they come
        in. How a server's close hands the core the bets its database holds (issue 21, seventh
        pass: one call a round, not one a player)."""
        self._verify_open(None)
        checked: list[tuple[str, dict[BetKind, int], list[tuple[BetKind, int]]]] = []
        for spot, bets in spots.items():
            added = [(kind, bets[kind]) for kind in PAYMENT_ORDER if kind in bets]
            if len(added) != len(bets):  # not a bet kind: as place_spot refuses it
                added = list(bets.items())
            checked.append((spot, self._with_added(spot, added), added))
        events = []
        for spot, whole, added in checked:
            self._bets[spot] = whole
            events += [BetPlaced(spot, kind, stake, whole[kind]) for kind, stake in added]
        for event in events:
            self._emit(event)
        return events

    def _with_added(self, spot: str, added: Iterable[tuple[BetKind, int]]) -> dict[BetKind, int]:
        """The spot's bets with ``added`` stakes, each stake checked (M1, M2) and the spot as a
        whole (M3, B4, L1, L3); the table is left as it is."""
        held = self._bets.get(spot)
        whole = dict(held) if held else {}
        for kind, stake in added:
            verify_stake(kind, stake)
            whole[kind] = whole.get(kind, 0) + stake
        verify_spot(whole, self._rules)
        return whole

    def verify_withdraw(self, spot: str, bet: BetKind) -> None:
        if self._phase is not Phase.OPEN:
            raise BetRefused("No more bets: a bet cannot be withdrawn now (L4).",
                             code=ErrorCode.TABLE_CLOSED, bet=bet)
        if bet not in self._bets.get(spot, {}):
            raise BetRefused(f"There is no {bet.value} bet on this spot to withdraw.",
                             code=ErrorCode.NO_SUCH_BET, bet=bet)

    def can_withdraw(self, spot: str, bet: BetKind) -> bool:
        return _can(lambda: self.verify_withdraw(spot, bet))

    def withdraw_bet(self, spot: str, bet: BetKind) -> BetWithdrawn:
        """Take the spot's whole bet of this kind back while betting is open."""
        self.verify_withdraw(spot, bet)
        stake = self._bets[spot].pop(bet)
        if not self._bets[spot]:
            del self._bets[spot]
        event = BetWithdrawn(spot, bet, stake)
        self._emit(event)
        return event

    # --- dealing and settlement ------------------------------------------------------------

    def verify_close_bets(self) -> None:
        if self._phase is not Phase.OPEN:
            raise TableStateError("Betting is not open.")

    def can_close_bets(self) -> bool:
        return _can(self.verify_close_bets)

    def close_bets(self) -> BetsClosed:
        """No more bets (L4)."""
        self.verify_close_bets()
        self._phase = Phase.CLOSED
        event = BetsClosed(self._round_no, self.bets)
        self._emit(event)
        return event

    def verify_deal(self) -> None:
        if self._phase is not Phase.CLOSED:
            raise TableStateError("Cards are dealt only after the bets are closed.")

    def can_deal(self) -> bool:
        return _can(self.verify_deal)

    def deal(self) -> CoupDealt:
        """Deal the coup card by card (each card is an event), then the whole coup."""
        self.verify_deal()
        assert self._shoe is not None
        coup = self._shoe.deal_coup(
            on_card=lambda side, pos, card: self._emit(CardDealt(side, pos, card)))
        self._coup = coup
        self._phase = Phase.DEALT
        event = CoupDealt(self._round_no, coup, self._shoe.cards_left, self._shoe.cut_card_out)
        self._emit(event)
        return event

    def verify_settle(self) -> None:
        if self._phase is not Phase.DEALT or self._coup is None:
            raise TableStateError("Only a dealt coup can be settled.")

    def can_settle(self) -> bool:
        return _can(self.verify_settle)

    def settle(self) -> RoundSettled:
        """Settle every spot, in L6 order within each spot."""
        self.verify_settle()
        assert self._shoe is not None and self._coup is not None
        coup = self._coup
        # spots holding the same bets are settled once (at 5,000 players most hold one of a
        # few chips on one of five kinds: 46-81 ms of the event loop a round, for ~10,000 bets)
        settled: dict[tuple[tuple[BetKind, int], ...], tuple[SettlementLine, ...]] = {}
        lines = {}
        for spot, bets in self._bets.items():
            key = tuple(bets.items())
            spot_lines = settled.get(key)
            if spot_lines is None:
                spot_lines = settled[key] = settle_spot(bets, coup, self._rules)
            lines[spot] = spot_lines
        self._phase = Phase.SETTLED
        event = RoundSettled(self._round_no, lines, self._shoe.finished)
        self._emit(event)
        return event


def _can(verify: Callable[[], None]) -> bool:
    """``can_x``: whether ``verify_x`` passes."""
    try:
        verify()
    except PuntoBancoError:
        return False
    return True


def replay(log: Iterable[Event], rules: RuleSet) -> list[RoundSettled]:
    """Rebuild every round of a hand history from its shoes and bets, checking what it records.

    Each :class:`ShoeStarted` gives a shoe's order (the burn and cut card follow ``rules``); the bets
    placed and withdrawn give each spot's bets; each coup is dealt again from that shoe and every spot
    settled again. The first difference from the log raises :class:`ReplayMismatch`. Returns the
    rebuilt :class:`RoundSettled` events, equal to the recorded ones when the log is sound.

    >>> import random
    >>> table = Table(RuleSet(), rng=random.Random(3))
    >>> for _ in range(3):
    ...     _ = table.open_round(); _ = table.place_bet("ann", BetKind.LION_PUNTO, 1000)
    ...     _ = table.close_bets(); _ = table.deal(); _ = table.settle()
    >>> replay(table.log, table.rules) == [e for e in table.log if isinstance(e, RoundSettled)]
    True
    """
    shoe: Shoe | None = None
    bets: dict[str, dict[BetKind, int]] = {}
    cards: list[tuple[Side, Card]] = []
    coup: Coup | None = None
    rounds: list[RoundSettled] = []

    def check(ok: bool, what: str) -> None:
        if not ok:
            raise ReplayMismatch(f"The hand history does not replay: {what}.")

    for event in log:
        if shoe is None and not isinstance(event, ShoeStarted):
            raise ReplayMismatch(f"The hand history does not replay: {event.kind} before any shoe.")
        match event:
            case ShoeStarted():
                shoe = Shoe.from_order(event.order, rules)
                check(shoe.burned == event.burned and shoe.cut_index == event.cut_index,
                      f"shoe {event.shoe_no}'s burned cards or cut card differ")
            case RoundOpened():
                assert shoe is not None
                check(event.coup_in_shoe == shoe.coups_dealt + 1
                      and event.last_coup == shoe.is_last_coup,
                      f"round {event.round_no} opens at the wrong place in its shoe")
                bets, cards, coup = {}, [], None
            case BetPlaced():
                spot = bets.setdefault(event.spot, {})
                spot[event.bet] = spot.get(event.bet, 0) + event.stake
                check(spot[event.bet] == event.total,
                      f"{event.spot}'s {event.bet.value} total differs")
            case BetWithdrawn():
                check(bets.get(event.spot, {}).pop(event.bet, None) == event.stake,
                      f"{event.spot} withdraws a {event.bet.value} bet it did not hold")
                if not bets[event.spot]:
                    del bets[event.spot]
            case BetsClosed():
                check(bets == {s: dict(b) for s, b in event.bets.items()},
                      f"round {event.round_no}'s closed bets differ from those placed")
                for spot_name, spot_bets in bets.items():
                    try:
                        verify_spot(spot_bets, rules)
                    except BetRefused as refused:
                        check(False, f"{spot_name}'s bets break the rules ({refused.code})")
            case CardDealt():
                cards.append((event.side, event.card))
            case CoupDealt():
                assert shoe is not None
                coup = shoe.deal_coup()
                check(coup == event.coup and cards == coup.dealing_order(),
                      f"round {event.round_no}'s cards differ from the shoe's")
                check(shoe.cards_left == event.cards_left
                      and shoe.cut_card_out == event.cut_card_out,
                      f"round {event.round_no}'s shoe position differs")
            case RoundSettled():
                assert shoe is not None
                check(coup is not None, f"round {event.round_no} is settled before its coup")
                assert coup is not None
                lines = {spot: settle_spot(spot_bets, coup, rules)
                         for spot, spot_bets in bets.items()}
                check(lines == dict(event.lines) and event.shoe_finished == shoe.finished,
                      f"round {event.round_no}'s payouts differ")
                rounds.append(RoundSettled(event.round_no, lines, shoe.finished))
    return rounds
