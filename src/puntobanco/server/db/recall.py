"""Game recall: the read-only JSON views of coups, settlement lines and shoes (``docs/api.md``).

Every function reads in the caller's session and returns plain JSON-ready values.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from puntobanco.bets import BetKind
from puntobanco.server.db import ledger
from puntobanco.server.db.models import (
    Account,
    BetRecord,
    CoupRecord,
    GameTable,
    LedgerEntry,
    LedgerTransaction,
    SettlementLineRecord,
    ShoeRecord,
    table_name_key,
)

_SIDE_POSITIONS = ((("punto", 0), ("banco", 0), ("punto", 1), ("banco", 1)))


def epoch_ms(moment: datetime | None) -> int | None:
    """A timestamp as epoch milliseconds (SQLite hands back naive UTC times)."""
    if moment is None:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1000)


def dealt_cards(row: CoupRecord) -> list[dict[str, Any]]:
    """The coup's cards in dealing order as ``{side, position, card}`` (R3: P B P B, then thirds)."""
    if not row.cards:
        return []
    cards = row.cards.split()
    placed = [{"side": side, "position": pos, "card": card}
              for (side, pos), card in zip(_SIDE_POSITIONS, cards, strict=False)]
    punto_third = len((row.punto_cards or "").split()) == 3
    extra = cards[4:]
    if punto_third and extra:
        placed.append({"side": "punto", "position": 2, "card": extra.pop(0)})
    if extra:
        placed.append({"side": "banco", "position": 2, "card": extra.pop(0)})
    return placed


def coup_json(row: CoupRecord, *, shoe_no: int) -> dict[str, Any]:
    """The public coup object (no settlement, no bets)."""
    def hand(cards: str | None, total: int | None) -> dict[str, Any]:
        return {"cards": cards.split() if cards else [], "total": total}

    return {
        "id": row.id, "table_id": row.table_id, "shoe_id": row.shoe_id, "shoe_no": shoe_no,
        "coup_in_shoe": row.coup_in_shoe, "round_no": row.round_no, "status": row.status,
        "punto": hand(row.punto_cards, row.punto_total),
        "banco": hand(row.banco_cards, row.banco_total),
        "winner": row.winner, "natural": row.natural, "margin": row.margin,
        "cards": dealt_cards(row), "dealt_at": epoch_ms(row.dealt_at),
        "settled_at": epoch_ms(row.settled_at),
    }


def line_json(line: SettlementLineRecord) -> dict[str, Any]:
    return {"bet": line.kind, "stake": line.stake, "outcome": line.outcome, "net": line.net,
            "pays": line.pays, "detail": line.detail, "returned": line.returned}


def lines_of(session: Session, coup_id: int, player_id: int) -> list[dict[str, Any]]:
    """A player's settlement lines on a coup, in L6 order."""
    return [line_json(line) for line in session.scalars(
        select(SettlementLineRecord).where(SettlementLineRecord.coup_id == coup_id,
                                           SettlementLineRecord.player_id == player_id)
        .order_by(SettlementLineRecord.seq))]


def shoe_no_of(session: Session, shoe_id: int) -> int:
    return session.execute(select(ShoeRecord.shoe_no).where(ShoeRecord.id == shoe_id)).scalar_one()


def coup_for(session: Session, coup_id: int, player_id: int | None) -> dict[str, Any] | None:
    """``GET /api/coups/{id}``: the coup, with the caller's bets and lines when signed in."""
    row = session.get(CoupRecord, coup_id)
    if row is None:
        return None
    data = coup_json(row, shoe_no=shoe_no_of(session, row.shoe_id))
    data["my_bets"] = recalled_bets(session, row.id, player_id) if player_id is not None else {}
    data["settlement"] = lines_of(session, row.id, player_id) if player_id is not None else []
    return data


def recent_coups(session: Session, player_id: int, *, limit: int) -> list[dict[str, Any]]:
    """``GET /api/me/coups``: the player's last coups with a bet, newest first.

    The coups are found from the player's wallet: every bet's stake left it by a ``stake``
    transaction naming the coup (``ix_ledger_entries_account``), and the coup is kept when the
    player still has a bet on it (not withdrawn to nothing: the bets' unique key, which begins
    with the coup). The bets carry no index by player (migration 0012): one a bet, scattered
    by player, was ~5 µs of every bet's batch on the event loop (issue 21, sixth pass)."""
    wallet = select(Account.id).where(
        Account.code == ledger.wallet_code(player_id)).scalar_subquery()
    staked = (select(LedgerTransaction.coup_id)
              .join(LedgerEntry, LedgerEntry.transaction_id == LedgerTransaction.id)
              .where(LedgerEntry.account_id == wallet, LedgerTransaction.reason == "stake"))
    holds = select(BetRecord.id).where(
        BetRecord.coup_id == CoupRecord.id, BetRecord.player_id == player_id,
        BetRecord.stake > 0, BetRecord.status.in_(("active", "settled", "refunded"))).exists()
    rows = session.scalars(select(CoupRecord).where(CoupRecord.id.in_(staked), holds)
                           .order_by(CoupRecord.id.desc()).limit(limit)).all()
    shoe_nos = dict(session.execute(select(ShoeRecord.id, ShoeRecord.shoe_no).where(
        ShoeRecord.id.in_({row.shoe_id for row in rows}))).all())
    found = []
    for row in rows:
        data = coup_json(row, shoe_no=shoe_nos[row.shoe_id])
        data["my_bets"] = recalled_bets(session, row.id, player_id)
        data["settlement"] = lines_of(session, row.id, player_id)
        found.append(data)
    return found


def recalled_bets(session: Session, coup_id: int, player_id: int) -> dict[str, int]:
    """A player's stakes on a coup by bet kind (withdrawn bets left out), in payment order."""
    rows = dict(session.execute(select(BetRecord.kind, BetRecord.stake).where(
        BetRecord.coup_id == coup_id, BetRecord.player_id == player_id, BetRecord.stake > 0,
        BetRecord.status.in_(("active", "settled", "refunded")))).all())
    return {kind.value: rows[kind.value] for kind in BetKind if kind.value in rows}


def shoe_json(session: Session, shoe_id: int) -> dict[str, Any] | None:
    """``GET /api/shoes/{id}``: the shoe, revealed only once it is finished."""
    shoe = session.get(ShoeRecord, shoe_id)
    if shoe is None:
        return None
    coups = session.scalars(select(CoupRecord).where(CoupRecord.shoe_id == shoe_id)
                            .order_by(CoupRecord.coup_in_shoe, CoupRecord.id)).all()
    finished = shoe.status == "finished"
    table = session.get(GameTable, shoe.table_id)
    return {
        "id": shoe.id, "table_id": shoe.table_id, "table_name": table.name if table else None,
        "shoe_no": shoe.shoe_no,
        "commitment": shoe.commitment, "status": shoe.status,
        "revealed": {"order": shoe.card_order.split(), "salt": shoe.salt} if finished else None,
        "rules": shoe.rules, "cut_index": shoe.cut_index, "burned": shoe.burned,
        "dealing": shoe.dealing,
        "cards": len(shoe.card_order.split()),
        "started_at": epoch_ms(shoe.started_at), "finished_at": epoch_ms(shoe.finished_at),
        "coups": [{"id": c.id, "coup_in_shoe": c.coup_in_shoe, "status": c.status,
                   "cards": c.cards.split() if c.cards else []} for c in coups],
    }


def table_shoe_json(session: Session, table: str, shoe_no: int, *,
                    table_id: int | None = None) -> dict[str, Any] | None:
    """``GET /api/tables/{table}/shoes/{shoe_no}``: a table's shoe by the number the page shows.

    ``table`` is the table's name (any case); ``table_id`` the id it names, if it names one
    (``api/schemas.row_id``: the route parses it, bounded).
    """
    found = session.scalar(select(GameTable).where(GameTable.name_key == table_name_key(table)))
    if found is None and table_id is not None:
        found = session.get(GameTable, table_id)
    if found is None:
        return None
    shoe_id = session.scalar(select(ShoeRecord.id).where(ShoeRecord.table_id == found.id,
                                                         ShoeRecord.shoe_no == shoe_no))
    return None if shoe_id is None else shoe_json(session, shoe_id)


def road_json(coup: dict[str, Any]) -> dict[str, Any]:
    """One entry of a shoe's scoreboard (the roads), from a dealt coup's JSON."""
    return {"coup_id": coup["id"], "winner": coup["winner"], "punto_total": coup["punto"]["total"],
            "banco_total": coup["banco"]["total"], "natural": coup["natural"]}
