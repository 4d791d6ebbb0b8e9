"""The one recovery of a table, after a restart or a hand-over, for both kinds of table.

The database repairs the money first (``db/recovery.py``: a dealt coup settled exactly once,
the rounds a stop left undealt voided and refunded — but the round a hand-dealt table's dealer
goes on with), then :func:`recover` replays the shoe's record with one procedure: the core
starts the recorded shoe again, each recorded event is given back to it in order through the
table's card source (``live/sources.py``: a server shoe deals each coup from its committed
order and checks it, a hand-dealt shoe takes the cards entered), the shoe's marks are put back,
and the round kept for its dealer is opened again with its bets and the cards already entered.
Then the pages are told what the recovery did, as if the dealer had.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from sqlalchemy.orm import Session

from puntobanco.cards import Card
from puntobanco.errors import RuleSetError
from puntobanco.server.db import recall, recovery, settle, store
from puntobanco.server.db.health import recovery_counts
from puntobanco.server.db.models import CoupRecord
from puntobanco.server.live import messages as msg
from puntobanco.server.live.views import View
from puntobanco.server.settings import table_rules_from_json

if TYPE_CHECKING:
    from puntobanco.server.live.engine import TableDealer

log = logging.getLogger("puntobanco.server.live.replay")


async def recover(engine: TableDealer) -> None:
    """Repair what a stop left behind, replay the shoe being dealt and tell the pages."""
    async with engine.lock:
        keep = engine.pacer.keeps_round
        found = await engine.write(lambda s: recovery.recover(s, engine.id, keep_round=keep))
        if engine.db.health.recovering(engine.id):  # the "database back" line says it
            counts = await engine.db.run_read(
                lambda s: recovery_counts(s, found.voided, found.settled))
            engine.db.health.dealer_recovered(engine.id, found.voided, found.settled, *counts)
        elif found.voided or found.settled:
            log.warning("table %s: voided rounds %s, settled coups %s left by a stop",
                        engine.id, found.voided, found.settled)
        await replay(engine, found)
        await announce(engine, found.settled, found.refunds)


async def replay(engine: TableDealer, found: recovery.Recovered) -> None:
    """Rebuild the core round, the shoe and the view from the record (the lock held)."""
    engine.settings = await engine.db.run_read(lambda s: store.load_table(s, engine.id))
    engine.new_table(round_no=found.last_round_no, shoe_no=found.shoe_no)
    engine.shoe_id = None
    engine.view = View(round_no=found.last_round_no, last_result=found.last_result)
    shoe = found.shoe
    if shoe is None:
        return
    try:
        rules, seconds = table_rules_from_json(shoe.rules)
    except RuleSetError:  # rules an older server accepted: end that shoe (issue 9)
        log.warning("table %s: shoe %s's rules are refused; it ends here", engine.id, shoe.id)
        await engine.finish_shoe(shoe.id)
        return
    kept = found.round
    # the shoe starts again as the number it had, the round kept as the number it had
    table = engine.new_table(round_no=found.last_round_no if kept is None else kept.round_no - 1,
                             shoe_no=shoe.shoe_no - 1, rules=rules)
    source = engine.source
    source.resume_shoe(shoe.order, shoe.commitment)
    table.new_shoe(rules=rules)
    engine.shoe_id = shoe.id
    engine.shoe_rules, engine.betting_seconds = shoe.rules, seconds
    in_round: tuple[Card, ...] = ()
    for event in shoe.events:
        if isinstance(event, recovery.Burn):
            source.replay_burn(event.cards, event.counted)
        elif kept is not None and event.coup_id == kept.coup_id:
            in_round = event.cards  # the coup in progress: its cards once it is open again
        else:
            source.replay_coup(event.coup_id, event.cards,
                               void=shoe.coup_status.get(event.coup_id) == "void")
    source.replay_marks(cut_card_coup=shoe.cut_card_coup, last_coup_no=shoe.last_coup_no)
    engine.view.roads = shoe.roads
    engine.view.shoe = engine.shoe_view()
    if kept is None:
        if table.shoe is not None and table.shoe.finished:
            await engine.finish_shoe(shoe.id)
        return
    opened = table.open_round()
    engine.view = View(phase="open", round_no=opened.round_no, coup_id=kept.coup_id,
                       coup_in_shoe=opened.coup_in_shoe, last_result=engine.view.last_result,
                       roads=engine.view.roads)
    if kept.status == "open":  # the bets are the desk's while betting is open
        engine.seed_desk(kept.coup_id, opened.round_no, kept.bets)
    else:
        for player, bets in kept.bets.items():
            for kind, stake in bets.items():
                table.place_bet(str(player), kind, stake)
        table.close_bets()
        engine.view.phase = "closed"
        for shown in source.replay_round_cards(in_round):
            engine.view.cards.append({"side": shown.side.value, "position": shown.position,
                                      "card": shown.card})
    engine.view.shoe = engine.shoe_view()


async def announce(engine: TableDealer, settled: list[int],
                   voided: Mapping[int, Mapping[int, settle.Refund]]) -> None:
    """Tell the sockets what a recovery did, as if the dealer had: a coup it settled (its
    cards, each player's settlement, the result), a round it voided (each player's refund).
    Nothing to say to a table nobody watches yet (a start)."""
    for coup_id in settled:
        def read(session: Session, coup_id: int = coup_id) -> tuple[
                dict[str, Any], dict[int, tuple[list[dict[str, Any]], int]]]:
            row = session.get_one(CoupRecord, coup_id)
            result = recall.coup_json(row, shoe_no=recall.shoe_no_of(session, row.shoe_id))
            players = sorted(settle.active_or_settled_players(session, coup_id))
            balances = settle.wallet_balances(session, players)
            return result, {player: (recall.lines_of(session, coup_id, player),
                                     balances[player]) for player in players}

        result, per_player = await engine.db.run_read(read)
        shoe = engine.view.shoe
        engine.hub.publish(msg.CoupDealt(coup=result,
                                         cards_left=shoe["cards_left"] if shoe else 0,
                                         cut_card_out=bool(shoe and shoe["cut_card_out"])))
        for player, (player_lines, balance) in per_player.items():
            engine.hub.send(player, msg.Settlement(coup_id=coup_id, lines=player_lines,
                                                   balance=balance))
        engine.hub.publish(msg.RoundSettled(
            round_no=result["round_no"], coup_id=coup_id, shoe_no=result["shoe_no"],
            coup_in_shoe=result["coup_in_shoe"], winner=result["winner"], shoe_finished=False))
    for coup_id, refunds in voided.items():
        def named(session: Session, coup_id: int = coup_id) -> tuple[int, int, int]:
            row = session.get_one(CoupRecord, coup_id)
            return row.round_no, recall.shoe_no_of(session, row.shoe_id), row.coup_in_shoe

        round_no, shoe_no, coup_in_shoe = await engine.db.run_read(named)
        engine.tell_void(coup_id, round_no, refunds, shoe_no=shoe_no, coup_in_shoe=coup_in_shoe)
