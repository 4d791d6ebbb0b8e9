"""The table round: open → closed → dealt → settled, L4, M3 "nothing changes", L6, events, replay."""

from __future__ import annotations

import dataclasses
import random

import pytest

from puntobanco.bets import BetKind, Outcome, settle_spot
from puntobanco.cards import Card
from puntobanco.errors import BetRefused, ReplayMismatch, TableStateError
from puntobanco.rules import Limits, RuleSet, Side
from puntobanco.shoe import Shoe
from puntobanco.table import (
    BetPlaced,
    BetsClosed,
    BetWithdrawn,
    CardDealt,
    CoupDealt,
    Event,
    Phase,
    RoundOpened,
    RoundSettled,
    ShoeStarted,
    Table,
    replay,
)

from .support import cards_of


def table_with(values: list[int], rules: RuleSet | None = None) -> Table:
    """A table whose shoes deal these card values in order (no burn), then zero-value cards."""
    rules = rules or RuleSet(burn=False)
    order = cards_of(values) + cards_of([0] * (52 * rules.decks - len(values)))
    return Table(rules, shoe_factory=lambda r: Shoe.from_order(order, r))


def open_table(seed: int = 1) -> Table:
    table = Table(RuleSet(), rng=random.Random(seed))
    table.open_round()
    return table


def play_round(table: Table, bets: dict[str, dict[BetKind, int]]) -> RoundSettled:
    table.open_round()
    for spot, spot_bets in bets.items():
        for kind, stake in spot_bets.items():
            table.place_bet(spot, kind, stake)
    table.close_bets()
    table.deal()
    return table.settle()


# --- the state machine -----------------------------------------------------------------------------

def test_round_runs_open_closed_dealt_settled() -> None:
    table = Table(RuleSet(), rng=random.Random(5))
    phases = [table.phase]
    opened = table.open_round()
    phases.append(table.phase)
    table.place_bet("ann", BetKind.BANCO, 2_500)
    closed = table.close_bets()
    phases.append(table.phase)
    dealt = table.deal()
    phases.append(table.phase)
    settled = table.settle()
    phases.append(table.phase)
    assert phases == [Phase.IDLE, Phase.OPEN, Phase.CLOSED, Phase.DEALT, Phase.SETTLED]
    assert opened.round_no == 1 and opened.coup_in_shoe == 1
    assert closed.bets == {"ann": {BetKind.BANCO: 2_500}}
    assert table.coup == dealt.coup
    assert [line.bet for line in settled.lines["ann"]] == [BetKind.BANCO]
    assert table.open_round().round_no == 2


@pytest.mark.parametrize("closed", [False, True])
def test_a_void_round_gives_its_bets_back_and_the_next_round_opens(closed: bool) -> None:
    """Issue 17: a round voided before its deal (a stop, a misdeal) returns its bets, deals no
    card, and leaves the table ready for the next round, whose coup takes the same number in
    the shoe; a dealt coup is settled, never voided."""
    table = open_table()
    table.place_bet("ann", BetKind.PUNTO, 2_000)
    if closed:
        table.close_bets()
    assert table.void_round_bets() == {"ann": {BetKind.PUNTO: 2_000}}
    assert table.phase is Phase.SETTLED and table.bets == {}
    assert table.shoe is not None and table.shoe.coups_dealt == 0
    again = table.open_round()
    assert (again.round_no, again.coup_in_shoe) == (2, 1)
    table.close_bets()
    table.deal()
    with pytest.raises(TableStateError):
        table.void_round_bets()


@pytest.mark.parametrize("phase", ["idle", "open", "closed", "dealt", "settled"])
def test_illegal_transitions_raise_table_state_error(phase: str) -> None:
    table = Table(RuleSet(), rng=random.Random(2))
    steps = {"idle": 0, "open": 1, "closed": 2, "dealt": 3, "settled": 4}[phase]
    actions = [table.open_round, table.close_bets, table.deal, table.settle]
    for action in actions[:steps]:
        action()
    assert table.phase.value == phase
    allowed = {"idle": "open_round", "open": "close_bets", "closed": "deal", "dealt": "settle",
               "settled": "open_round"}[phase]
    for action in [*actions, table.new_shoe]:
        name = action.__name__
        if name == allowed or (name == "new_shoe" and phase in ("idle", "settled")):
            continue
        log_length = len(table.log)
        with pytest.raises(TableStateError) as info:
            action()
        assert info.value.code == "bad-phase"
        assert len(table.log) == log_length and table.phase.value == phase
    # issue 12: every action has its verify/can/act trio, close, deal and settle included
    for name in ("open_round", "new_shoe", "close_bets", "deal", "settle"):
        allowed_here = name == allowed or (name == "new_shoe" and phase in ("idle", "settled"))
        assert getattr(table, f"can_{name}")() is allowed_here, name
        if not allowed_here:
            with pytest.raises(TableStateError):
                getattr(table, f"verify_{name}")()
    can_open = table.can_open_round()
    assert can_open is (phase in ("idle", "settled"))
    if not can_open:
        with pytest.raises(TableStateError):
            table.verify_open_round()


def test_new_shoe_between_rounds_starts_a_fresh_shoe() -> None:
    table = Table(RuleSet(), rng=random.Random(8))
    play_round(table, {})
    first = table.shoe
    started = table.new_shoe()
    assert table.shoe is not first and started.shoe_no == 2
    assert table.open_round().coup_in_shoe == 1


# --- L4 and M3 -------------------------------------------------------------------------------------

@pytest.mark.parametrize("phase", ["idle", "closed", "dealt", "settled"])
def test_L4_no_bet_placed_or_withdrawn_once_betting_is_closed(phase: str) -> None:
    table = Table(RuleSet(), rng=random.Random(3))
    if phase != "idle":
        table.open_round()
        table.place_bet("ann", BetKind.PUNTO, 1_000)
        table.close_bets()
        if phase in ("dealt", "settled"):
            table.deal()
        if phase == "settled":
            table.settle()
    before = (len(table.log), {s: dict(b) for s, b in table.bets.items()})
    for attempt in (lambda: table.place_bet("ann", BetKind.PUNTO, 1_000),
                    lambda: table.place_bet("bob", BetKind.LION_BANCO, 1_000),
                    lambda: table.withdraw_bet("ann", BetKind.PUNTO)):
        with pytest.raises(BetRefused) as info:
            attempt()
        assert info.value.code == "table-closed"
    assert not table.can_bet("bob", BetKind.BANCO, 1_000)
    assert not table.can_withdraw("ann", BetKind.PUNTO)
    assert (len(table.log), table.bets) == before


def test_L4_withdraw_while_open_takes_the_whole_bet_back() -> None:
    table = open_table()
    table.place_bet("ann", BetKind.PUNTO, 1_000)
    table.place_bet("ann", BetKind.PUNTO, 1_500)
    table.place_bet("ann", BetKind.EGALITE, 1_000)
    assert table.can_withdraw("ann", BetKind.PUNTO)
    withdrawn = table.withdraw_bet("ann", BetKind.PUNTO)
    assert withdrawn == BetWithdrawn("ann", BetKind.PUNTO, 2_500)
    assert table.bets == {"ann": {BetKind.EGALITE: 1_000}}
    table.withdraw_bet("ann", BetKind.EGALITE)
    assert table.bets == {}
    with pytest.raises(BetRefused) as info:
        table.withdraw_bet("ann", BetKind.EGALITE)
    assert info.value.code == "no-such-bet"
    assert not table.can_withdraw("bob", BetKind.PUNTO)


def test_bets_add_up_and_are_validated_as_a_whole() -> None:
    table = open_table()
    placed = table.place_bet("ann", BetKind.LION_PUNTO, 3_000)
    assert placed == BetPlaced("ann", BetKind.LION_PUNTO, 3_000, 3_000)
    assert table.place_bet("ann", BetKind.LION_PUNTO, 2_000).total == 5_000
    with pytest.raises(BetRefused) as info:  # L3: 51 € in all
        table.place_bet("ann", BetKind.LION_PUNTO, 100)
    assert info.value.code == "above-maximum"
    with pytest.raises(BetRefused) as info:  # L1: the other side on the same spot
        table.place_bet("ann", BetKind.LION_BANCO, 1_000)
    assert info.value.code == "both-lion-sides"
    table.place_bet("bob", BetKind.LION_BANCO, 1_000)  # another spot may back the other side


@pytest.mark.parametrize(("setup", "bet", "stake", "available", "code"), [
    ([], BetKind.PUNTO, 900, None, "below-minimum"),
    ([], BetKind.EGALITE, 100_100, None, "above-maximum"),
    ([(BetKind.LION_PUNTO, 1_000)], BetKind.LION_BANCO, 1_000, None, "both-lion-sides"),
    ([], BetKind.BANCO, 1_050, None, "not-chip-multiple"),
    ([], BetKind.BANCO, 2_000, 1_900, "insufficient-balance"),
    # the table's limit is named before the balance: no top-up would make that bet acceptable
    ([], BetKind.PUNTO, 500_100, 100_000, "above-maximum"),
    ([], BetKind.EGALITE, 100_100, 100_000, "above-maximum"),
    ([], BetKind.BANCO, 0, None, "non-positive-stake"),
    ([], BetKind.BANCO, -1_000, 5_000, "non-positive-stake"),
    ([(BetKind.PUNTO, 499_000)], BetKind.PUNTO, 2_000, None, "above-maximum"),
])
def test_M3_refused_bet_changes_nothing(setup: list[tuple[BetKind, int]], bet: BetKind, stake: int,
                                        available: int | None, code: str) -> None:
    table = open_table()
    for kind, amount in setup:
        table.place_bet("ann", kind, amount)
    events: list[Event] = []
    table.subscribe(events.append)
    before = (table.log, table.bets, table.phase)
    assert not table.can_bet("ann", bet, stake, available=available)
    with pytest.raises(BetRefused) as info:
        table.place_bet("ann", bet, stake, available=available)
    assert info.value.code == code
    assert (table.log, table.bets, table.phase) == before
    assert events == []


def test_M3_a_spot_placed_at_once_is_its_bets_placed_one_by_one() -> None:
    """``place_spot`` (a server's close): the same events, bets and log as ``place_bet`` for
    each bet in turn."""
    one, whole = open_table(), open_table()
    one.place_bet("ann", BetKind.PUNTO, 1_000)
    whole.place_bet("ann", BetKind.PUNTO, 1_000)
    stakes = {BetKind.PUNTO: 2_000, BetKind.EGALITE: 1_000, BetKind.LION_BANCO: 1_000}
    placed = [one.place_bet("ann", kind, stake) for kind, stake in stakes.items()]
    assert whole.place_spot("ann", stakes) == placed
    assert (whole.bets, whole.log) == (one.bets, one.log)


@pytest.mark.parametrize(("stakes", "code"), [
    ({BetKind.LION_PUNTO: 1_000, BetKind.LION_BANCO: 1_000}, "both-lion-sides"),  # L1
    ({BetKind.PUNTO: 1_000, BetKind.EGALITE: 100_100}, "above-maximum"),  # M2
    ({BetKind.PUNTO: 1_000, BetKind.BANCO: 0}, "non-positive-stake"),  # M1
])
def test_M3_a_spot_placed_at_once_is_refused_whole(stakes: dict[BetKind, int],
                                                   code: str) -> None:
    table = open_table()
    before = (table.log, table.bets)
    with pytest.raises(BetRefused) as info:
        table.place_spot("ann", stakes)
    assert info.value.code == code
    assert (table.log, table.bets) == before
    table.close_bets()
    with pytest.raises(BetRefused) as info:  # L4
        table.place_spot("ann", {BetKind.PUNTO: 1_000})
    assert info.value.code == "table-closed"


def test_M3_L6_spots_placed_all_at_once_are_each_spot_placed_in_the_order_of_payment() -> None:
    """``place_spots`` (a server's close, one call a round): the same events, bets and log
    as ``place_spot`` for each spot in turn, each spot's bets in the order of payment (L6)
    whatever order they come in, a spot's earlier bets counted."""
    one, many = open_table(), open_table()
    for table in (one, many):
        table.place_bet("ann", BetKind.LION_PUNTO, 1_000)
    spots = {"ann": {BetKind.LION_PUNTO: 2_000, BetKind.PUNTO: 1_000},
             "bob": {BetKind.LION_BANCO: 1_000, BetKind.EGALITE: 1_000, BetKind.BANCO: 3_000},
             "cid": {BetKind.PUNTO: 1_000}}
    placed = [event for spot, stakes in spots.items() for event in one.place_spot(
        spot, {kind: stakes[kind] for kind in BetKind if kind in stakes})]
    assert many.place_spots(spots) == placed
    assert (many.bets, many.log) == (one.bets, one.log)
    assert [event.bet for event in placed if event.spot == "bob"] == [
        BetKind.BANCO, BetKind.EGALITE, BetKind.LION_BANCO]


@pytest.mark.parametrize(("stakes", "code"), [
    ({BetKind.LION_PUNTO: 1_000, BetKind.LION_BANCO: 1_000}, "both-lion-sides"),  # L1
    ({BetKind.LION_PUNTO: 4_500}, "above-maximum"),  # L3: with the 1,000 held already
    ({BetKind.PUNTO: 1_000, BetKind.BANCO: 0}, "non-positive-stake"),  # M1
    ({BetKind.PUNTO: 500}, "below-minimum"),  # M2
])
def test_M3_spots_placed_all_at_once_are_refused_all_if_one_is_wrong(
        stakes: dict[BetKind, int], code: str) -> None:
    table = open_table()
    table.place_bet("cid", BetKind.LION_PUNTO, 1_000)
    before = (table.log, table.bets)
    with pytest.raises(BetRefused) as info:
        table.place_spots({"ann": {BetKind.PUNTO: 1_000}, "cid": stakes,
                           "dan": {BetKind.BANCO: 1_000}})
    assert info.value.code == code
    assert (table.log, table.bets) == before
    table.close_bets()
    with pytest.raises(BetRefused) as info:  # L4
        table.place_spots({"ann": {BetKind.PUNTO: 1_000}})
    assert info.value.code == "table-closed"


def test_spots_holding_the_same_bets_are_settled_alike() -> None:
    """``settle`` settles each distinct spot once: every spot's lines are its own
    ``settle_spot`` (B1-B3, L5, L6)."""
    table = open_table(seed=7)
    spots = {f"p{n}": {BetKind.PUNTO: 1_000, BetKind.LION_PUNTO: 1_000} for n in range(3)}
    spots["q"] = {BetKind.BANCO: 2_000}
    spots["r"] = {BetKind.LION_PUNTO: 1_000, BetKind.PUNTO: 1_000}  # another order
    for spot, stakes in spots.items():
        table.place_spot(spot, stakes)
    table.close_bets()
    coup = table.deal().coup
    settled = table.settle()
    assert settled.lines == {spot: settle_spot(stakes, coup, table.rules)
                             for spot, stakes in spots.items()}
    assert replay(table.log, table.rules) == [settled]


def test_M3_punto_and_banco_refused_where_the_table_forbids_it() -> None:
    table = Table(RuleSet(allow_punto_and_banco=False), rng=random.Random(1))
    table.open_round()
    table.place_bet("ann", BetKind.PUNTO, 1_000)
    with pytest.raises(BetRefused) as info:
        table.place_bet("ann", BetKind.BANCO, 1_000)
    assert info.value.code == "punto-and-banco"
    assert table.bets == {"ann": {BetKind.PUNTO: 1_000}}


def test_M3_balance_check_allows_exactly_the_available_amount() -> None:
    table = open_table()
    assert table.can_bet("ann", BetKind.PUNTO, 2_000, available=2_000)
    assert not table.can_bet("ann", BetKind.PUNTO, 2_100, available=2_000)
    assert table.can_bet("ann", BetKind.PUNTO, 2_100)  # no balance given: not checked


# --- L6 and the settlement -------------------------------------------------------------------------

def test_L6_table_settles_each_spot_main_bets_first() -> None:
    # Punto 0,0,0 v Banco 0,0,6: Banco wins with 6 by 6 after a draw
    table = table_with([0, 0, 0, 0, 0, 6])
    settled = play_round(table, {
        "ann": {BetKind.LION_BANCO: 1_000, BetKind.EGALITE: 1_000, BetKind.BANCO: 2_000},
        "bob": {BetKind.LION_PUNTO: 5_000},
        "cat": {BetKind.PUNTO: 1_000, BetKind.LION_PUNTO: 1_000},
    })
    assert [(x.bet, x.outcome, x.net) for x in settled.lines["ann"]] == [
        (BetKind.BANCO, Outcome.WIN, 1_000), (BetKind.EGALITE, Outcome.LOSE, -1_000),
        (BetKind.LION_BANCO, Outcome.WIN, 4_000)]
    assert [x.bet for x in settled.lines["cat"]] == [BetKind.PUNTO, BetKind.LION_PUNTO]
    assert settled.net("ann") == 4_000 and settled.net("bob") == -5_000
    assert settled.returned("ann") == 2_000 + 1_000 + 1_000 + 4_000
    assert settled.net("nobody") == 0


# --- events ----------------------------------------------------------------------------------------

def test_events_come_in_order_and_reach_listeners() -> None:
    table = table_with([4, 2, 9, 3, 7, 5])  # 4H 2S 9S 3D 7C 5C: both draw, 0 v 0
    seen: list[Event] = []
    table.subscribe(seen.append)
    settled = play_round(table, {"ann": {BetKind.EGALITE: 1_000}})
    kinds = [type(event) for event in table.log]
    assert kinds == [ShoeStarted, RoundOpened, BetPlaced, BetsClosed, *[CardDealt] * 6, CoupDealt,
                     RoundSettled]
    assert tuple(seen) == table.log
    cards = [e for e in table.log if isinstance(e, CardDealt)]
    assert [(e.side, e.position, e.card.value) for e in cards] == [
        (Side.PUNTO, 0, 4), (Side.BANCO, 0, 2), (Side.PUNTO, 1, 9), (Side.BANCO, 1, 3),
        (Side.PUNTO, 2, 7), (Side.BANCO, 2, 5)]
    assert settled.lines["ann"][0].net == 8_000
    assert [e.kind for e in table.log][:2] == ["shoe-started", "round-opened"]


def test_events_are_frozen() -> None:
    table = open_table()
    event = table.place_bet("ann", BetKind.PUNTO, 1_000)
    with pytest.raises(dataclasses.FrozenInstanceError):
        event.stake = 1  # type: ignore[misc]


def test_shoe_started_records_the_whole_order_burn_and_cut_card() -> None:
    table = Table(RuleSet(), rng=random.Random(4))
    table.open_round()
    started = table.log[0]
    assert isinstance(started, ShoeStarted) and table.shoe is not None
    assert started.order == table.shoe.order and len(started.order) == 312
    assert started.burned == table.shoe.burned and started.cut_index == 298


def test_S3_rounds_run_through_the_shoe_and_a_new_shoe_starts() -> None:
    table = Table(RuleSet(), rng=random.Random(9))
    last_coups: list[int] = []
    shoes_seen = set()
    while table.shoe_no < 3:
        settled = play_round(table, {})
        opened = [e for e in table.log if isinstance(e, RoundOpened)][-1]
        shoes_seen.add(opened.shoe_no)
        if opened.last_coup:
            last_coups.append(opened.round_no)
            assert settled.shoe_finished
        elif settled.shoe_finished:
            pytest.fail("a shoe finished on a coup not announced as the last")
    assert shoes_seen == {1, 2, 3} and len(last_coups) == 2
    assert sum(isinstance(e, ShoeStarted) for e in table.log) == 3


# --- replay ----------------------------------------------------------------------------------------

def _played_table(seed: int, rounds: int) -> Table:
    table = Table(RuleSet(), rng=random.Random(seed))
    rng = random.Random(seed + 100)
    for _ in range(rounds):
        table.open_round()
        for spot in ("ann", "bob"):
            kind = rng.choice(list(BetKind))
            table.place_bet(spot, kind, rng.randrange(1_000, 5_001, 100))
        if rng.random() < 0.3:
            table.withdraw_bet("ann", next(iter(table.bets["ann"])))
        table.close_bets()
        table.deal()
        table.settle()
    return table


def test_replay_rebuilds_every_round_across_shoes() -> None:
    table = _played_table(seed=21, rounds=170)  # more than two shoes
    assert table.shoe_no >= 3
    recorded = [e for e in table.log if isinstance(e, RoundSettled)]
    assert replay(table.log, table.rules) == recorded
    assert len(recorded) == 170


def _tamper(log: list[Event], index: int, event: Event) -> list[Event]:
    return [*log[:index], event, *log[index + 1:]]


def test_replay_refuses_a_changed_payout() -> None:
    table = _played_table(seed=22, rounds=3)
    index = max(i for i, e in enumerate(table.log) if isinstance(e, RoundSettled))
    settled = table.log[index]
    assert isinstance(settled, RoundSettled)
    spot, lines = next(iter(settled.lines.items()))
    forged_line = dataclasses.replace(lines[0], net=lines[0].net + 100)
    forged = dataclasses.replace(settled, lines={**settled.lines, spot: (forged_line, *lines[1:])})
    with pytest.raises(ReplayMismatch, match="payouts differ") as info:
        replay(_tamper(table.log, index, forged), table.rules)
    assert info.value.code == "replay-mismatch"


def test_replay_refuses_a_changed_card_or_coup() -> None:
    table = _played_table(seed=23, rounds=2)
    index = next(i for i, e in enumerate(table.log) if isinstance(e, CardDealt))
    dealt = table.log[index]
    assert isinstance(dealt, CardDealt)
    other = Card.parse("KS") if dealt.card != Card.parse("KS") else Card.parse("QS")
    with pytest.raises(ReplayMismatch, match="cards differ"):
        replay(_tamper(table.log, index, dataclasses.replace(dealt, card=other)), table.rules)
    # a shoe order swapped under the log: the coups no longer follow from it
    started = table.log[0]
    assert isinstance(started, ShoeStarted)
    shifted = dataclasses.replace(started, order=(*started.order[1:], started.order[0]))
    with pytest.raises(ReplayMismatch):
        replay(_tamper(table.log, 0, shifted), table.rules)


def test_replay_refuses_bets_that_do_not_add_up_or_break_the_rules() -> None:
    table = _played_table(seed=24, rounds=1)
    index = next(i for i, e in enumerate(table.log) if isinstance(e, BetsClosed))
    closed = table.log[index]
    assert isinstance(closed, BetsClosed)
    extra = {**closed.bets, "eve": {BetKind.PUNTO: 1_000}}
    with pytest.raises(ReplayMismatch, match="closed bets differ"):
        replay(_tamper(table.log, index, dataclasses.replace(closed, bets=extra)), table.rules)
    # the same log replayed under rules it broke: every limit lowered below the stakes placed
    low = Limits(100, 500)
    strict = RuleSet(punto_limits=low, banco_limits=low, egalite_limits=low, lion_limits=low)
    assert min(e.stake for e in table.log if isinstance(e, BetPlaced)) > 500
    with pytest.raises(ReplayMismatch, match="break the rules"):
        replay(table.log, strict)


def test_replay_refuses_events_before_any_shoe() -> None:
    table = _played_table(seed=25, rounds=1)
    with pytest.raises(ReplayMismatch, match="before any shoe"):
        replay(table.log[1:], table.rules)


def test_replay_refuses_a_settlement_before_its_coup() -> None:
    table = _played_table(seed=26, rounds=1)
    log = [e for e in table.log if not isinstance(e, (CardDealt, CoupDealt))]
    with pytest.raises(ReplayMismatch, match="before its coup"):
        replay(log, table.rules)


def test_issue12_table_state_is_read_only_from_outside() -> None:
    table = Table(RuleSet(), rng=random.Random(2), round_no=41, shoe_no=6)
    table.open_round()
    table.place_bet("ann", BetKind.PUNTO, 1_000)
    assert (table.round_no, table.shoe_no) == (42, 7)  # numbering resumed where it was left
    for name in ("phase", "round_no", "shoe_no", "shoe", "coup", "bets", "log", "rules"):
        with pytest.raises(AttributeError):
            setattr(table, name, None)
    table.bets["ann"][BetKind.PUNTO] = 5  # a copy: the table keeps its own
    table.spot_bets("ann")[BetKind.BANCO] = 5
    assert table.bets == {"ann": {BetKind.PUNTO: 1_000}}
    assert isinstance(table.log, tuple)
    table.clear_log()
    assert table.log == ()
    table.close_bets()
    table.deal()
    table.settle()
    started = table.new_shoe(rules=RuleSet(tie_pays=9))  # a new shoe may bring new rules
    assert (started.shoe_no, table.rules.tie_pays) == (8, 9)
