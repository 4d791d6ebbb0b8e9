"""A coup's end in the database: "no more bets" (its live bets), the settlement of a dealt coup
and the void of one that was not, each in the caller's transaction (money moves as
:mod:`puntobanco.server.db.store`'s table says: ``house-pay``, ``payout``, ``house-win``,
``refund``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple, cast

from sqlalchemy import Connection, Table, select, text, update
from sqlalchemy.orm import Session

from puntobanco.bets import BetKind, Outcome, SettlementLine, pays_text
from puntobanco.errors import TableStateError
from puntobanco.server.db import bulk, ledger
from puntobanco.server.db.models import (
    Account,
    BetRecord,
    CoupRecord,
    SettlementLineRecord,
    utcnow,
)
from puntobanco.server.db.store import KIND_NAMED, SpotBets, close_coup, move_coup

_LINES = cast(Table, SettlementLineRecord.__table__)
_LINE_COLUMNS = ("coup_id", "bet_id", "player_id", "seq", "kind", "stake", "outcome", "net",
                 "returned", "pays", "detail")


def active_bets(session: Session, coup_id: int) -> dict[int, dict[BetKind, tuple[int, int]]]:
    """The live bets of a coup: player → kind → (bet id, stake)."""
    return active_bets_of(session.connection(), coup_id)


def active_bets_of(connection: Connection, coup_id: int
                   ) -> dict[int, dict[BetKind, tuple[int, int]]]:
    """:func:`active_bets` on a connection."""
    found: dict[int, dict[BetKind, tuple[int, int]]] = {}
    for bet_id, player, kind, stake in _LIVE_BETS.run(connection, (coup_id,)):
        found.setdefault(player, {})[KIND_NAMED[kind]] = (bet_id, stake)
    return found


#: the live bets of a coup (``active_bets``): fixed driver SQL, not an ORM select (10,000 rows
#: at 5,000 players, read at the close and again at the settlement)
_LIVE = "FROM bets AS b WHERE b.coup_id = {} AND b.status = 'active' AND b.stake > 0"
_LIVE_BETS = bulk.Sql(f"SELECT b.id, b.player_id, b.kind, b.stake {_LIVE.format('?')}",
                      f"SELECT b.id, b.player_id, b.kind, b.stake {_LIVE.format('%s')}")
#: the wallets' balances of the players a coup's settlement paid (its bets are settled then)
_SETTLED = ("SELECT a.player_id, a.balance FROM accounts AS a WHERE a.kind = 'wallet' AND "
            "a.player_id IN (SELECT b.player_id FROM bets AS b WHERE b.coup_id = {} AND "
            "b.status = 'settled' AND b.stake > 0)")
_SETTLED_BALANCES = bulk.Sql(_SETTLED.format("?"), _SETTLED.format("%s"))


def active_or_settled_players(session: Session, coup_id: int) -> set[int]:
    """The players with a bet on a coup that is live or settled (not withdrawn)."""
    return set(session.scalars(select(BetRecord.player_id).where(
        BetRecord.coup_id == coup_id, BetRecord.status.in_(("active", "settled")),
        BetRecord.stake > 0)))


def close_coup_with_bets(session: Session, coup_id: int) -> dict[int, SpotBets]:
    """"No more bets" in the database: the coup ``open → closed`` (on PostgreSQL this waits for
    the bet batches that hold its row ``FOR SHARE``), and the bets it closed with, per player."""
    close_coup(session, coup_id)
    found: dict[int, SpotBets] = {}
    for _, player, kind, stake in _LIVE_BETS.run(session.connection(), (coup_id,)):
        found.setdefault(player, {})[KIND_NAMED[kind]] = stake
    return found




def settle_coup(work: Session | Connection, *, table_id: int, coup_id: int,
                bets: Mapping[int, SpotBets],
                lines: Mapping[int, Sequence[SettlementLine]]) -> dict[int, int]:
    """Settle a dealt coup, exactly once, in the caller's (single) transaction: an ORM
    session's or a bare connection's.

    ``bets`` are the bets the table closed with and ``lines`` the core's settlement of them, per
    player, in L6 order. They must be exactly the coup's live bets in the database; the guard
    ``dealt → settled`` makes a second settlement fail without paying anything. Returns each
    bettor's wallet balance afterwards. The lines are written from Python, the moves they make
    derived from them by the database (:func:`ledger.post_settlement`).
    """
    connection = bulk.connection_of(work)
    move_coup(work, coup_id, "dealt", "settled", settled_at=utcnow())
    stored = active_bets_of(connection, coup_id)
    closed = {player: {kind: stake for kind, (_, stake) in kinds.items()}
              for player, kinds in stored.items()}
    wanted = {player: dict(spot) for player, spot in bets.items() if spot}
    if closed != wanted:
        raise RuntimeError(f"coup {coup_id}: the table closed with {wanted} but the database "
                           f"holds {closed}")
    accounts: dict[str, int] = {code: account for code, account in connection.execute(
        _TABLE_ACCOUNTS, {"in_play": ledger.in_play_code(table_id),
                          "house": ledger.house_code(table_id)})}
    rows: list[tuple[Any, ...]] = []
    # a line's columns, made once for every bettor holding it (the core settles every spot
    # holding the same bets with the same lines): by its identity, the line kept alive by
    # ``lines`` (its hash, of a ``Fraction`` and enums in Python, cost more than the columns)
    columns: dict[int, tuple[Any, ...]] = {}
    lose = Outcome.LOSE
    for player, player_lines in lines.items():
        spot = stored[player]
        for seq, line in enumerate(player_lines):
            bet_id, stake = spot[line.bet]
            if stake != line.stake:
                raise RuntimeError(f"coup {coup_id}: bet {bet_id} staked {stake}, settled "
                                   f"{line.stake}")
            made = columns.get(id(line))
            if made is None:
                returned = line.returned
                if line.outcome is not lose and returned <= 0:  # as ledger.post refuses it
                    raise ValueError(f"A transfer moves a positive amount, not {returned}.")
                made = columns[id(line)] = (line.bet.value, stake, line.outcome.value,
                                            line.net, returned, pays_text(line),
                                            line.reason.value)
            rows.append((coup_id, bet_id, player, seq, *made))
    bulk.insert(connection, _LINES, _LINE_COLUMNS, rows)
    ledger.post_settlement(connection, coup_id=coup_id,
                           in_play=accounts[ledger.in_play_code(table_id)],
                           house=accounts[ledger.house_code(table_id)])
    connection.execute(_SETTLE_BETS, {"coup": coup_id})
    return {int(player): balance for player, balance
            in _SETTLED_BALANCES.run(connection, (coup_id,))}


#: a table's in-play and house accounts, by code
_TABLE_ACCOUNTS = text("SELECT code, id FROM accounts WHERE code = :in_play OR code = :house")
_SETTLE_BETS = text("UPDATE bets SET status = 'settled' WHERE coup_id = :coup "
                    "AND status = 'active'")


class Refund(NamedTuple):
    """What a void round gave one player back (cents), and their wallet afterwards."""

    amount: int
    balance: int


def void_coup(session: Session, *, table_id: int, coup_id: int) -> dict[int, Refund]:
    """Void a round that was not dealt: every live stake goes back to its wallet. Returns
    each bettor's refund and balance afterwards."""
    row = session.get_one(CoupRecord, coup_id)
    if row.status not in ("open", "closed"):
        raise TableStateError(f"Coup {coup_id} was dealt: it is settled, not voided.",
                              code="bad-coup-status")
    move_coup(session, coup_id, row.status, "void", settled_at=utcnow())
    in_play = ledger.account_id(session, ledger.in_play_code(table_id))
    live = active_bets(session, coup_id)
    wallets = _wallets(session, list(live))
    ledger.post(session, [ledger.Move(in_play, wallets[player], stake, "refund", coup_id, bet_id,
                                      player)
                          for player, kinds in live.items() for bet_id, stake in kinds.values()])
    session.execute(update(BetRecord).where(BetRecord.coup_id == coup_id,
                                            BetRecord.status == "active")
                    .values(status="refunded"))
    balances = wallet_balances(session, list(wallets))
    return {player: Refund(sum(stake for _, stake in kinds.values()), balances[player])
            for player, kinds in live.items() if player in balances}


def _wallets(session: Session, players: Sequence[int]) -> dict[int, int]:
    """The wallet account ids of some players."""
    found = session.execute(select(Account.player_id, Account.id).where(
        Account.kind == "wallet", Account.player_id.in_(players))).all()
    return {int(player): account for player, account in found if player is not None}


def wallet_balances(session: Session, players: Sequence[int]) -> dict[int, int]:
    found = session.execute(select(Account.player_id, Account.balance).where(
        Account.kind == "wallet", Account.player_id.in_(players))).all()
    return {int(player): balance for player, balance in found if player is not None}
