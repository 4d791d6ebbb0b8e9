"""The writes and reads of hand-dealt tables (``docs/dealer.md``): dealers and their tables, the
record of every card a dealer enters, and what a restarted server resumes from.

Money moves through :mod:`puntobanco.server.db.store` (bets, settlement, void) exactly as on a
server-dealt table; this module adds only the record of the physical shoe.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from puntobanco.errors import PuntoBancoError
from puntobanco.server.db.models import (
    CoupRecord,
    DealerEntry,
    DealerTable,
    GameTable,
    Player,
    SettlementLineRecord,
    ShoeRecord,
)
from puntobanco.server.db.recall import epoch_ms

DEALING_MODES = ("server", "dealer")


# --- tables and dealers -------------------------------------------------------------------


def dealing_of(session: Session, table_id: int) -> str:
    return str(session.execute(select(GameTable.dealing).where(GameTable.id == table_id))
               .scalar_one())


def set_dealing(session: Session, table_id: int, dealing: str) -> None:
    """Set a new table's dealing mode (``server`` or ``dealer``)."""
    if dealing not in DEALING_MODES:
        raise PuntoBancoError(f"A table is dealt by the server or a dealer, not {dealing!r}.",
                              code="bad-dealing")
    session.execute(update(GameTable).where(GameTable.id == table_id).values(dealing=dealing))


def dealer_tables(session: Session, dealer_id: int) -> list[int]:
    return list(session.scalars(select(DealerTable.table_id).where(
        DealerTable.dealer_id == dealer_id).order_by(DealerTable.table_id)))


def assign_tables(session: Session, dealer_id: int, table_ids: Sequence[int]) -> list[int]:
    """Make ``table_ids`` exactly the tables the dealer may drive (hand-dealt tables only)."""
    dealer = session.get(Player, dealer_id)
    if dealer is None or dealer.role != "dealer":
        raise PuntoBancoError(f"There is no dealer {dealer_id}.", code="not-found")
    wanted = sorted(set(table_ids))
    for table_id in wanted:
        table = session.get(GameTable, table_id)
        if table is None:
            raise PuntoBancoError(f"There is no table {table_id}.", code="not-found")
        if table.dealing != "dealer":
            raise PuntoBancoError(f"Table {table_id} is dealt by the server: no dealer drives it.",
                                  code="not-dealer-table")
    session.execute(delete(DealerTable).where(DealerTable.dealer_id == dealer_id))
    for table_id in wanted:
        session.add(DealerTable(dealer_id=dealer_id, table_id=table_id))
    session.flush()
    return wanted


def may_drive(session: Session, dealer_id: int, table_id: int) -> bool:
    return session.scalars(select(DealerTable.table_id).where(
        DealerTable.dealer_id == dealer_id, DealerTable.table_id == table_id)).first() is not None


def dealers(session: Session) -> list[dict[str, Any]]:
    rows = session.scalars(select(Player).where(Player.role == "dealer").order_by(Player.id))
    return [{"id": row.id, "username": row.username, "lang": row.lang,
             "tables": dealer_tables(session, row.id)} for row in rows]


# --- the shoe's record --------------------------------------------------------------------


def create_shoe(session: Session, *, table_id: int, shoe_no: int,
                rules_json: dict[str, Any]) -> int:
    """A hand-dealt shoe: no order and no commitment; its cards are recorded as entered."""
    row = ShoeRecord(table_id=table_id, shoe_no=shoe_no, card_order="", salt="", commitment="",
                     rules=rules_json, cut_index=0, burned=0, status="dealing", dealing="dealer")
    session.add(row)
    session.flush()
    return row.id


def add_entry(session: Session, *, table_id: int, shoe_id: int, kind: str,
              dealer_id: int | None, coup_id: int | None = None, card: str | None = None,
              side: str | None = None, position: int | None = None,
              count: int | None = None) -> int:
    row = DealerEntry(table_id=table_id, shoe_id=shoe_id, coup_id=coup_id, kind=kind, card=card,
                      side=side, position=position, count=count, status="ok",
                      dealer_id=dealer_id)
    session.add(row)
    session.flush()
    return row.id


def note_burn(session: Session, shoe_id: int, cards: int) -> None:
    session.execute(update(ShoeRecord).where(ShoeRecord.id == shoe_id)
                    .values(burned=ShoeRecord.burned + cards))


def mark_mistyped(session: Session, coup_id: int) -> DealerEntry:
    """The last card entered on a coup was mistyped: it stays in the record, marked so."""
    row = session.scalars(select(DealerEntry).where(
        DealerEntry.coup_id == coup_id, DealerEntry.kind == "card", DealerEntry.status == "ok")
        .order_by(DealerEntry.id.desc()).limit(1)).one()
    row.status = "mistyped"
    return row


def void_entries(session: Session, coup_id: int) -> None:
    """A misdeal: the coup's cards stay in the record, marked void."""
    session.execute(update(DealerEntry).where(DealerEntry.coup_id == coup_id,
                                              DealerEntry.status == "ok")
                    .values(status="void"))


def set_shoe_marks(session: Session, shoe_id: int, *, cut_card_coup: int | None = None,
                   last_coup_no: int | None = None) -> None:
    values = {key: value for key, value in (("cut_card_coup", cut_card_coup),
                                            ("last_coup_no", last_coup_no)) if value is not None}
    session.execute(update(ShoeRecord).where(ShoeRecord.id == shoe_id).values(**values))


def entry_json(row: DealerEntry, dealer_names: dict[int, str]) -> dict[str, Any]:
    return {"seq": row.id, "kind": row.kind, "card": row.card, "side": row.side,
            "position": row.position, "count": row.count, "status": row.status,
            "coup_id": row.coup_id, "entered_at": epoch_ms(row.entered_at),
            "dealer": dealer_names.get(row.dealer_id) if row.dealer_id is not None else None}


def shoe_entries(session: Session, shoe_id: int) -> list[DealerEntry]:
    return list(session.scalars(select(DealerEntry).where(DealerEntry.shoe_id == shoe_id)
                                .order_by(DealerEntry.id)))


def hand_dealt_shoe_json(session: Session, shoe: ShoeRecord,
                         coups: Sequence[CoupRecord]) -> dict[str, Any]:
    """What ``GET /api/shoes/{id}`` adds for a hand-dealt shoe once it is finished: every entry
    (card, time, dealer) and each coup's settlement by anonymous spot (for ``verify``)."""
    rows = shoe_entries(session, shoe.id)
    names = dict(session.execute(select(Player.id, Player.username).where(
        Player.id.in_({row.dealer_id for row in rows if row.dealer_id is not None}))).all())
    settlements: dict[int, list[dict[str, Any]]] = {}
    coup_ids = [c.id for c in coups if c.status == "settled"]
    spots: dict[tuple[int, int], dict[str, Any]] = {}
    for line in session.scalars(select(SettlementLineRecord).where(
            SettlementLineRecord.coup_id.in_(coup_ids))
            .order_by(SettlementLineRecord.coup_id, SettlementLineRecord.player_id,
                      SettlementLineRecord.seq)):
        key = (line.coup_id, line.player_id)
        if key not in spots:
            spots[key] = {"bets": {}, "lines": []}
            settlements.setdefault(line.coup_id, []).append(spots[key])
        spots[key]["bets"][line.kind] = line.stake
        spots[key]["lines"].append({"bet": line.kind, "stake": line.stake,
                                    "outcome": line.outcome, "net": line.net})
    return {"entries": [entry_json(row, names) for row in rows],
            "cut_card_coup": shoe.cut_card_coup, "last_coup_no": shoe.last_coup_no,
            "settlements": {str(coup_id): found for coup_id, found in settlements.items()}}
