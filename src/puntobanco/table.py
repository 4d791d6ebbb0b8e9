"""A table round as a small state machine: open → closed → dealt → settled (L4, L6, S1–S3).

Each action has the ``verify_x`` (raises) / ``can_x`` (bool) / ``x`` (acts, returns a frozen
event appended to :attr:`Table.log`) triple. The terminal game and the web server both drive it.

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
from dataclasses import dataclass, field
from enum import Enum

from puntobanco.bets import BetKind, SettlementLine, settle_spot, verify_spot
from puntobanco.cards import Card
from puntobanco.coup import Coup
from puntobanco.errors import BetRefused, ReplayMismatch, TableStateError
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


@dataclass
class Table:
    """One table: its rules, its shoe, the present round and the log of every event.

    ``shoe_factory`` makes each new shoe; by default a securely shuffled one (S1), or one
    shuffled by ``rng`` when given (reproducible).
    """

    rules: RuleSet = field(default_factory=RuleSet)
    rng: random.Random | None = None
    shoe_factory: Callable[[RuleSet], Shoe] | None = None
    log: list[Event] = field(default_factory=list)
    phase: Phase = Phase.IDLE
    round_no: int = 0
    shoe_no: int = 0
    shoe: Shoe | None = None
    bets: dict[str, dict[BetKind, int]] = field(default_factory=dict)
    coup: Coup | None = None
    _listeners: list[Listener] = field(default_factory=list)

    def subscribe(self, listener: Listener) -> None:
        """Call ``listener`` with every event from now on."""
        self._listeners.append(listener)

    def _emit(self, event: Event) -> None:
        self.log.append(event)
        for listener in self._listeners:
            listener(event)

    # --- rounds ---------------------------------------------------------------------------

    def verify_open_round(self) -> None:
        if self.phase not in (Phase.IDLE, Phase.SETTLED):
            raise TableStateError(f"A round is already under way ({self.phase.value}).")

    def can_open_round(self) -> bool:
        return self.phase in (Phase.IDLE, Phase.SETTLED)

    def open_round(self) -> RoundOpened:
        """Open the betting for the next coup; start a new shoe first when the last one is done."""
        self.verify_open_round()
        if self.shoe is None or self.shoe.finished:
            self.new_shoe()
        assert self.shoe is not None
        self.round_no += 1
        self.bets = {}
        self.coup = None
        self.phase = Phase.OPEN
        event = RoundOpened(self.round_no, self.shoe_no, self.shoe.coups_dealt + 1,
                            self.shoe.is_last_coup)
        self._emit(event)
        return event

    def new_shoe(self) -> ShoeStarted:
        """Shuffle and burn a new shoe (S1, S2); allowed between rounds only."""
        if self.phase not in (Phase.IDLE, Phase.SETTLED):
            raise TableStateError("A new shoe can only be started between rounds.")
        if self.shoe_factory is not None:
            shoe = self.shoe_factory(self.rules)
        else:
            shoe = Shoe.shuffled(self.rules, rng=self.rng)
        self.shoe = shoe
        self.shoe_no += 1
        event = ShoeStarted(self.shoe_no, shoe.order, shoe.burned, shoe.cut_index)
        self._emit(event)
        return event

    # --- bets (L4, M3) ---------------------------------------------------------------------

    def verify_bet(self, spot: str, bet: BetKind, stake: int, *,
                   available: int | None = None) -> None:
        """Raise :class:`BetRefused` unless ``stake`` more on ``bet`` is allowed now.

        ``available`` is what the player can still stake (stakes already placed this round having
        been taken from it); ``None`` skips the balance check.
        """
        if self.phase is not Phase.OPEN:
            raise BetRefused("No more bets: the table is not open for betting.",
                             code="table-closed")
        if stake <= 0:
            raise BetRefused(f"A stake on {bet.value} must be positive.", code="non-positive-stake")
        spot_bets = dict(self.bets.get(spot, {}))
        spot_bets[bet] = spot_bets.get(bet, 0) + stake
        verify_spot(spot_bets, self.rules)  # the table's rules first: no top-up makes these pass
        if available is not None and stake > available:
            raise BetRefused(f"{format_cents(stake)} is more than the {format_cents(available)} "
                             "available.", code="insufficient-balance")

    def can_bet(self, spot: str, bet: BetKind, stake: int, *,
                available: int | None = None) -> bool:
        try:
            self.verify_bet(spot, bet, stake, available=available)
        except BetRefused:
            return False
        return True

    def place_bet(self, spot: str, bet: BetKind, stake: int, *,
                  available: int | None = None) -> BetPlaced:
        """Add ``stake`` to the spot's bet of this kind (validated as a whole)."""
        self.verify_bet(spot, bet, stake, available=available)
        spot_bets = self.bets.setdefault(spot, {})
        spot_bets[bet] = spot_bets.get(bet, 0) + stake
        event = BetPlaced(spot, bet, stake, spot_bets[bet])
        self._emit(event)
        return event

    def verify_withdraw(self, spot: str, bet: BetKind) -> None:
        if self.phase is not Phase.OPEN:
            raise BetRefused("No more bets: a bet cannot be withdrawn now (L4).",
                             code="table-closed")
        if bet not in self.bets.get(spot, {}):
            raise BetRefused(f"There is no {bet.value} bet on this spot to withdraw.",
                             code="no-such-bet")

    def can_withdraw(self, spot: str, bet: BetKind) -> bool:
        try:
            self.verify_withdraw(spot, bet)
        except BetRefused:
            return False
        return True

    def withdraw_bet(self, spot: str, bet: BetKind) -> BetWithdrawn:
        """Take the spot's whole bet of this kind back while betting is open."""
        self.verify_withdraw(spot, bet)
        stake = self.bets[spot].pop(bet)
        if not self.bets[spot]:
            del self.bets[spot]
        event = BetWithdrawn(spot, bet, stake)
        self._emit(event)
        return event

    # --- dealing and settlement ------------------------------------------------------------

    def close_bets(self) -> BetsClosed:
        """No more bets (L4)."""
        if self.phase is not Phase.OPEN:
            raise TableStateError("Betting is not open.")
        self.phase = Phase.CLOSED
        event = BetsClosed(self.round_no, {s: dict(b) for s, b in self.bets.items()})
        self._emit(event)
        return event

    def deal(self) -> CoupDealt:
        """Deal the coup card by card (each card is an event), then the whole coup."""
        if self.phase is not Phase.CLOSED:
            raise TableStateError("Cards are dealt only after the bets are closed.")
        assert self.shoe is not None
        coup = self.shoe.deal_coup(
            on_card=lambda side, pos, card: self._emit(CardDealt(side, pos, card)))
        self.coup = coup
        self.phase = Phase.DEALT
        event = CoupDealt(self.round_no, coup, self.shoe.cards_left, self.shoe.cut_card_out)
        self._emit(event)
        return event

    def settle(self) -> RoundSettled:
        """Settle every spot, in L6 order within each spot."""
        if self.phase is not Phase.DEALT or self.coup is None:
            raise TableStateError("Only a dealt coup can be settled.")
        assert self.shoe is not None
        lines = {spot: settle_spot(bets, self.coup, self.rules) for spot, bets in self.bets.items()}
        self.phase = Phase.SETTLED
        event = RoundSettled(self.round_no, lines, self.shoe.finished)
        self._emit(event)
        return event


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
        if isinstance(event, ShoeStarted):
            shoe = Shoe.from_order(event.order, rules)
            check(shoe.burned == event.burned and shoe.cut_index == event.cut_index,
                  f"shoe {event.shoe_no}'s burned cards or cut card differ")
            continue
        if shoe is None:
            raise ReplayMismatch(f"The hand history does not replay: {event.kind} before any shoe.")
        if isinstance(event, RoundOpened):
            check(event.coup_in_shoe == shoe.coups_dealt + 1 and event.last_coup == shoe.is_last_coup,
                  f"round {event.round_no} opens at the wrong place in its shoe")
            bets, cards, coup = {}, [], None
        elif isinstance(event, BetPlaced):
            spot = bets.setdefault(event.spot, {})
            spot[event.bet] = spot.get(event.bet, 0) + event.stake
            check(spot[event.bet] == event.total, f"{event.spot}'s {event.bet.value} total differs")
        elif isinstance(event, BetWithdrawn):
            check(bets.get(event.spot, {}).pop(event.bet, None) == event.stake,
                  f"{event.spot} withdraws a {event.bet.value} bet it did not hold")
            if not bets[event.spot]:
                del bets[event.spot]
        elif isinstance(event, BetsClosed):
            check(bets == {s: dict(b) for s, b in event.bets.items()},
                  f"round {event.round_no}'s closed bets differ from those placed")
            for spot_name, spot_bets in bets.items():
                try:
                    verify_spot(spot_bets, rules)
                except BetRefused as refused:
                    check(False, f"{spot_name}'s bets break the rules ({refused.code})")
        elif isinstance(event, CardDealt):
            cards.append((event.side, event.card))
        elif isinstance(event, CoupDealt):
            coup = shoe.deal_coup()
            check(coup == event.coup and cards == coup.dealing_order(),
                  f"round {event.round_no}'s cards differ from the shoe's")
            check(shoe.cards_left == event.cards_left and shoe.cut_card_out == event.cut_card_out,
                  f"round {event.round_no}'s shoe position differs")
        elif isinstance(event, RoundSettled):
            check(coup is not None, f"round {event.round_no} is settled before its coup")
            assert coup is not None
            lines = {spot: settle_spot(spot_bets, coup, rules) for spot, spot_bets in bets.items()}
            check(lines == dict(event.lines) and event.shoe_finished == shoe.finished,
                  f"round {event.round_no}'s payouts differ")
            rounds.append(RoundSettled(event.round_no, lines, shoe.finished))
    return rounds
