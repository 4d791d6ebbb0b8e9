"""What a table's round engine finds in the database when it (re)starts or takes a table over.

One read for both kinds of table (``live/replay.py`` replays it with one procedure): the money
first — a coup left dealt is settled exactly once, a round left open or closed is voided with
every stake refunded (unless the table's pacer resumes it: a hand-dealt round waits for its
dealer) — then the record of the shoe being dealt as one list of events in the order they
happened: burns, and each coup's cards (a coup's own cards together, whatever was pressed
between two of them: a cut card or "last coup" is an event of that coup, issue 17).

The cards of a coup are those its dealer entered (``dealer_entries``, the mistyped left out, a
misdeal's kept as a void coup's) or, for a coup no entry recorded (a server-dealt shoe's), the
cards written at its deal.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from puntobanco.bets import BetKind, settle_spot
from puntobanco.cards import Card, parse_cards
from puntobanco.coup import Coup
from puntobanco.errors import RuleSetError
from puntobanco.rules import RuleSet
from puntobanco.server.db import recall, settle, store
from puntobanco.server.db.models import CoupRecord, DealerEntry, ShoeRecord
from puntobanco.server.settings import table_rules_from_json

log = logging.getLogger("puntobanco.server.db.recovery")


@dataclass(frozen=True, slots=True)
class Burn:
    """Cards burned (S2): those seen, and those only counted face down."""

    cards: tuple[Card, ...] = ()
    counted: int = 0


@dataclass(frozen=True, slots=True)
class CoupCards:
    """A coup's recorded cards, in dealing order."""

    coup_id: int
    cards: tuple[Card, ...]


@dataclass(slots=True)
class RecordedShoe:
    """The shoe being dealt, as recorded."""

    id: int
    shoe_no: int
    rules: dict[str, Any]
    commitment: str
    #: the order a server-dealt shoe was shuffled to (empty for a hand-dealt shoe)
    order: tuple[Card, ...]
    cut_card_coup: int | None
    last_coup_no: int | None
    #: burns and coups, in the order they happened
    events: list[Burn | CoupCards] = field(default_factory=list)
    #: coup id → status, for the coups of the shoe
    coup_status: dict[int, str] = field(default_factory=dict)
    #: the settled coups of the shoe, as the roads show them
    roads: list[dict[str, Any]] = field(default_factory=list)


@dataclass(slots=True)
class KeptRound:
    """The round under way, kept for its dealer: its coup, number, status and bets."""

    coup_id: int
    round_no: int
    status: str
    bets: dict[int, dict[BetKind, int]]


@dataclass(slots=True)
class Recovered:
    """What a table's dealer finds in the database when it (re)starts: the money repaired,
    the shoe being dealt (``shoe``, if any) and the round kept for its dealer (``round``)."""

    last_round_no: int
    voided: list[int] = field(default_factory=list)
    settled: list[int] = field(default_factory=list)
    #: each voided round's refunds, per player (the pages are told)
    refunds: dict[int, dict[int, settle.Refund]] = field(default_factory=dict)
    #: the table's newest shoe number (being dealt or finished)
    shoe_no: int = 0
    shoe: RecordedShoe | None = None
    round: KeptRound | None = None
    #: the table's last settled coup, as ``GET /api/coups/{id}`` shows it to a spectator
    last_result: dict[str, Any] | None = None


def settle_recorded(session: Session, table_id: int, row: CoupRecord, rules: RuleSet) -> None:
    """Settle a coup left dealt, from its recorded cards and the bets still active (a
    recovery's work: exactly as the dealer would have, once)."""
    coup = Coup(punto=tuple(parse_cards(row.punto_cards or "")),
                banco=tuple(parse_cards(row.banco_cards or "")))
    spots = {player: {kind: stake for kind, (_, stake) in kinds.items()}
             for player, kinds in settle.active_bets(session, row.id).items()}
    settle.settle_coup(session, table_id=table_id, coup_id=row.id, bets=spots,
                      lines={player: settle_spot(spot, coup, rules)
                             for player, spot in spots.items()})


def last_settled_json(session: Session, table_id: int) -> dict[str, Any] | None:
    """The table's last settled coup as recall shows it (``None`` before the first)."""
    last = session.scalars(select(CoupRecord).where(
        CoupRecord.table_id == table_id, CoupRecord.status == "settled")
        .order_by(CoupRecord.round_no.desc()).limit(1)).one_or_none()
    if last is None:
        return None
    return recall.coup_json(last, shoe_no=recall.shoe_no_of(session, last.shoe_id))


def latest_shoe(session: Session, table_id: int) -> ShoeRecord | None:
    """The table's newest shoe (being dealt, or the last finished)."""
    return session.scalars(select(ShoeRecord).where(ShoeRecord.table_id == table_id)
                           .order_by(ShoeRecord.shoe_no.desc()).limit(1)).one_or_none()


def _settling_rules(session: Session, table_id: int, shoe: ShoeRecord) -> RuleSet:
    """The rules a coup left dealt is settled by: its shoe's, or — when the core now refuses
    them (an older server accepted, say, a negative Lion pay) — the table's current settings,
    which the operator can correct while the table is out of service (issue 9)."""
    try:
        return table_rules_from_json(shoe.rules)[0]
    except RuleSetError:
        log.warning("table %s: shoe %s's rules are refused; settling by the table's settings",
                    table_id, shoe.id)
        return store.load_table(session, table_id).rules


def recover(session: Session, table_id: int, *, keep_round: bool = False) -> Recovered:
    """Settle the coup a stop left dealt; void the rounds it left open or closed (but the
    last, with ``keep_round``: its dealer goes on with it); read the shoe being dealt."""
    last_round = session.execute(select(func.coalesce(func.max(CoupRecord.round_no), 0))
                                 .where(CoupRecord.table_id == table_id)).scalar_one()
    found = Recovered(last_round_no=int(last_round))
    unfinished = session.scalars(select(CoupRecord).where(
        CoupRecord.table_id == table_id,
        CoupRecord.status.in_(("open", "closed", "dealt"))).order_by(CoupRecord.id)).all()
    undealt = [row for row in unfinished if row.status != "dealt"]
    kept = undealt[-1] if keep_round and undealt else None
    for row in unfinished:
        if row.status == "dealt":
            settle_recorded(session, table_id, row, _settling_rules(
                session, table_id, session.get_one(ShoeRecord, row.shoe_id)))
            found.settled.append(row.id)
        elif row is not kept:
            found.refunds[row.id] = settle.void_coup(session, table_id=table_id, coup_id=row.id)
            found.voided.append(row.id)
    found.last_result = last_settled_json(session, table_id)
    shoe = latest_shoe(session, table_id)
    if shoe is None:
        return found
    found.shoe_no = shoe.shoe_no
    if shoe.status != "dealing":
        return found
    found.shoe = _recorded_shoe(session, shoe)
    if kept is not None and kept.shoe_id == shoe.id:
        found.round = KeptRound(
            coup_id=kept.id, round_no=kept.round_no, status=kept.status,
            bets={player: {kind: stake for kind, (_, stake) in kinds.items()}
                  for player, kinds in settle.active_bets(session, kept.id).items()})
    elif kept is not None:  # a round of a shoe no longer dealt: void after all
        found.refunds[kept.id] = settle.void_coup(session, table_id=table_id, coup_id=kept.id)
        found.voided.append(kept.id)
    return found


def _recorded_shoe(session: Session, shoe: ShoeRecord) -> RecordedShoe:
    """The shoe's record as events: burns and each coup's cards, in the order they happened."""
    found = RecordedShoe(id=shoe.id, shoe_no=shoe.shoe_no, rules=dict(shoe.rules),
                         commitment=shoe.commitment,
                         order=tuple(parse_cards(shoe.card_order)),
                         cut_card_coup=shoe.cut_card_coup, last_coup_no=shoe.last_coup_no)
    coups = session.scalars(select(CoupRecord).where(CoupRecord.shoe_id == shoe.id)
                            .order_by(CoupRecord.id)).all()
    found.coup_status = {row.id: row.status for row in coups}
    entered: dict[int, list[Card]] = {}
    for entry in session.scalars(select(DealerEntry).where(
            DealerEntry.shoe_id == shoe.id, DealerEntry.status != "mistyped")
            .order_by(DealerEntry.id)):
        if entry.kind == "burn" and entry.card is not None:
            found.events.append(Burn(cards=(Card.parse(entry.card),)))
        elif entry.kind == "counted" and entry.count:
            found.events.append(Burn(counted=entry.count))
        elif entry.kind == "card" and entry.card is not None and entry.coup_id is not None:
            if entry.coup_id not in entered:  # a coup's cards go together, at its first card
                entered[entry.coup_id] = []
                found.events.append(CoupCards(entry.coup_id, ()))
            entered[entry.coup_id].append(Card.parse(entry.card))
        # a cut card or "last coup" is a mark of the shoe (its coup recorded with the shoe)
    found.events = [CoupCards(event.coup_id, tuple(entered[event.coup_id]))
                    if isinstance(event, CoupCards) else event for event in found.events]
    for row in coups:
        if row.id not in entered and row.cards and row.status != "void":
            found.events.append(CoupCards(row.id, tuple(parse_cards(row.cards))))
        if row.status == "settled":
            found.roads.append(recall.road_json(recall.coup_json(row, shoe_no=shoe.shoe_no)))
    return found
