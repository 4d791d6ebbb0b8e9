"""Issue 21: the deal in as few message moments as its pace allows.

Every moment costs each socket a write (~13 us, two thirds of it in the kernel), so a
server-dealt coup goes out in one write per socket (sixth pass; the fifth sent the first four
cards together, then each third card and the coup in moments of their own): every card, each
saying how long after the card before it the page turns it (``reveal_after_ms``), with the
coup (``coup-dealt``), the settlements and the result; the server then waits as long as the
pages take to turn them before the result's pause, so the round keeps the rhythm of a card per
``card_seconds``. A hand-dealt table shows each card as its dealer enters it, as before.

The in-process tests drive a real engine on a real database (SQLite and PostgreSQL) on a
:class:`ManualClock` and read what each socket's connection is given to write, moment by
moment (the hub's flush: ``Client.write``, as uvicorn's own connection takes it); the last
test reads the bytes a real server writes to a real socket.
"""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import json
import os
import socket
import time
from typing import Any

from puntobanco.bets import BetKind
from puntobanco.cards import Card
from puntobanco.rules import RuleSet, hand_total
from puntobanco.server.live.clock import ManualClock
from puntobanco.server.live.dealer import hand_dealt, server_dealt
from puntobanco.server.live.engine import TableDealer
from puntobanco.server.live.hub import Client

from .support import check_books, fast_settings, running
from .test_engine import Room, controls, run, started

CLOSED, PACE = 0.25, 0.5  # binary fractions: the manual clock's sums are exact
#: what a write holds: (the clock when the connection was given it, its messages)
Write = tuple[float, list[dict[str, Any]]]


def recording(player_id: int | None, clock: ManualClock, writes: list[Write]) -> Client:
    """A socket whose connection takes every write at once (uvicorn's, ``api/frames``): the
    hub corks its messages of a moment and hands them over together when the moment ends."""
    client = Client(player_id)

    def write(texts: list[str]) -> bool:
        writes.append((clock.now(), [json.loads(text) for text in texts]))
        return True

    client.write = write
    return client


async def dealt(engine: TableDealer, clock: ManualClock) -> None:
    """Deal and settle the closed coup, the clock moved, while the engine pauses, to the end
    of the first wait due (never past the pause's end: every moment happens at the time its
    pauses make; another part's wait due earlier only ends first)."""
    pausing: list[float] = []
    pause = engine.pause

    async def watched(seconds: float) -> bool:
        pausing.append(seconds)
        try:
            return await pause(seconds)
        finally:
            pausing.pop()

    engine.pause = watched  # type: ignore[method-assign]
    dealing = asyncio.ensure_future(engine.deal_and_settle())
    try:
        while not dealing.done():
            due = [at for at, _, _, timer in clock._due if not timer.done()]
            if pausing and due and min(due) > clock.now():
                await asyncio.sleep(0)  # the moment before the pause is written first
                clock.advance(min(due) - clock.now())
            await asyncio.sleep(0.002)
        await dealing
    finally:
        del engine.pause


def kinds(write: Write) -> list[str]:
    return [message["type"] for message in write[1]]


def test_a_coup_goes_out_in_one_write_and_the_round_keeps_its_pace(
        db_url: str) -> None:
    """Issue 21, sixth pass: every card of the coup (R3: Punto, Banco, Punto, Banco; R5/R6:
    the third cards) in one moment with the coup, the settlement and the result (one write
    per socket; the settlement waited for, ``SETTLEMENT_WAIT``), the page told to turn the
    cards ``card_seconds`` apart; the result's pause starts once the pages have turned them.
    Rounds are played until a coup of four, five and six cards has each been seen."""
    room = Room(db_url, dealing="server", rules=RuleSet())
    room.config = dataclasses.replace(room.config, closed_seconds=CLOSED, card_seconds=PACE)
    writes: list[Write] = []
    coups: list[tuple[float, list[Write], float]] = []

    async def play() -> None:
        engine = await started(room.engine(server_dealt))
        engine.hub.add(recording(room.ann, room.clock, writes))
        await engine.start_shoe()
        shapes: set[int] = set()
        while len(shapes) < 3 and len(coups) < 80:
            await engine.open_round(seconds=None)
            await engine.place_bet(room.ann, BetKind.BANCO, 1_000, None, role="player")
            await engine.close_round()
            await asyncio.sleep(0.01)  # the close's moment is written
            closed, first = room.clock.now(), len(writes)
            await dealt(engine, room.clock)
            await asyncio.sleep(0.01)  # the result's moment is written
            coups.append((closed, writes[first:], engine.result_until))
            shapes.add(len(engine.view.cards))
        await engine.stop()

    try:
        run(play)
    finally:
        room.close()
    seen: dict[int, int] = {}
    for closed, deal, result_until in coups:
        cards = [m for _, messages in deal for m in messages if m["type"] == "card-dealt"]
        coup = next(m["coup"] for _, messages in deal for m in messages
                    if m["type"] == "coup-dealt")
        count = len(cards)
        seen[count] = seen.get(count, 0) + 1
        # the cards are the coup's, in its dealing order (R3, then Punto's third, Banco's)
        order = [("punto", 0), ("banco", 0), ("punto", 1), ("banco", 1)]
        order += [(side, 2) for side in ("punto", "banco") if len(coup[side]["cards"]) == 3]
        assert [(c["side"], c["position"]) for c in cards] == order
        assert [c["card"] for c in cards] == [coup[s]["cards"][p] for s, p in order]
        # each card's totals are those of the cards shown so far (R2)
        for index, card in enumerate(cards):
            so_far = {"punto": [], "banco": []}  # type: dict[str, list[int]]
            for before in cards[:index + 1]:
                so_far[before["side"]].append(Card.parse(before["card"]).value)
            assert (card["punto_total"], card["banco_total"]) == (
                hand_total(so_far["punto"]), hand_total(so_far["banco"]))
        # the whole coup: one write, "no more bets" shown CLOSED before it, the pages told
        # to turn each card PACE after the one before
        start = closed + CLOSED
        assert [(at, kinds((at, messages))) for at, messages in deal] == [
            (start, ["card-dealt"] * count + ["coup-dealt", "settlement", "round-settled"])]
        assert [c["reveal_after_ms"] for c in cards] == [0] + [500] * (count - 1)
        # the result's pause starts once the pages have turned the last card
        assert result_until == start + PACE * (count - 1) + room.config.result_seconds
    assert set(seen) == {4, 5, 6}, seen
    books = check_books(db_url)
    assert books["active_bets"] == 0 and set(books["in_play"].values()) == {0}


def test_a_hand_dealt_table_shows_each_card_as_its_dealer_enters_it(sqlite_url: str) -> None:
    """A dealer's real shoe: each card entered is its own moment, turned at once
    (``reveal_after_ms`` 0), the clock never moved; the coup and its settlement when the dealer
    settles. Punto 4, 2 = 6 stands (R5); Banco 3, K = 3 draws, Punto having stood (R6): a
    fifth card, Banco's."""
    room = Room(sqlite_url, dealing="dealer", rules=RuleSet(decks=1, cut_card=14))
    writes: list[Write] = []
    start = room.clock.now()

    async def play() -> None:
        engine = await started(room.engine(hand_dealt))
        engine.hub.add(recording(room.ann, room.clock, writes))
        hand = controls(engine)
        await hand.new_shoe(room.dealer, decks=None)
        await hand.open_betting(room.dealer)
        await engine.place_bet(room.ann, BetKind.PUNTO, 1_000, None, role="player")
        await asyncio.sleep(0.01)
        writes.clear()
        await hand.close_betting(room.dealer)
        await asyncio.sleep(0.01)
        for text in ["4h", "3d", "2s", "kc", "5h"]:
            await hand.enter_card(room.dealer, Card.parse(text), side=None)
            await asyncio.sleep(0.01)  # the dealer's next card comes in a later moment
        await hand.settle(room.dealer)
        await asyncio.sleep(0.01)
        await engine.stop()

    try:
        run(play)
    finally:
        room.close()
    moments = [(kinds(write), write[1]) for write in writes if "card-dealt" in kinds(write)]
    assert [names for names, _ in moments] == [["card-dealt"]] * 5
    cards = [messages[0] for _, messages in moments]
    assert [(c["side"], c["position"], c["card"], c["reveal_after_ms"]) for c in cards] == [
        ("punto", 0, "4H", 0), ("banco", 0, "3D", 0), ("punto", 1, "2S", 0),
        ("banco", 1, "KC", 0), ("banco", 2, "5H", 0)]
    assert (cards[-1]["punto_total"], cards[-1]["banco_total"]) == (6, 8)
    assert all(at == start for at, _ in writes)  # paced by the dealer, not by the clock


def _frames(data: bytes) -> tuple[list[tuple[int, str]], bytes]:
    """The complete text frames at the start of ``data`` (a server's frames are not masked)
    with the offset where each ends, and what is left."""
    frames, at = [], 0
    while len(data) - at >= 2:
        length, head = data[at + 1] & 0x7F, 2
        if length == 126:
            if len(data) - at < 4:
                break
            length, head = int.from_bytes(data[at + 2:at + 4], "big"), 4
        elif length == 127:
            if len(data) - at < 10:
                break
            length, head = int.from_bytes(data[at + 2:at + 10], "big"), 10
        if len(data) - at < head + length:
            break
        frames.append((at + head + length, data[at + head:at + head + length].decode()))
        at += head + length
    return frames, data[at:]


def test_a_real_socket_reads_the_whole_coup_in_one_chunk_and_recall_agrees(
        sqlite_url: str) -> None:
    """The real server on a real socket: the bytes of every ``card-dealt`` frame, the coup's
    and the result's arrive together (one write: one read takes them all), the next round at
    least the cards' paces and the result's pause later; the cards shown, in order, are the
    recalled coup's (R3, R5, R6)."""
    settings = fast_settings(sqlite_url, closed_seconds=0.2, card_seconds=0.3,
                             betting_seconds=0.5)
    with running(settings) as live:
        host, port = "127.0.0.1", int(live.url.rsplit(":", 1)[1])
        sock = socket.create_connection((host, port), timeout=30)
        key = base64.b64encode(os.urandom(16)).decode()
        sock.sendall((f"GET /ws/tables/1 HTTP/1.1\r\nHost: {host}:{port}\r\n"
                      "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                      f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        data = b""
        while b"\r\n\r\n" not in data:
            data += sock.recv(65536)
        answer, _, data = data.partition(b"\r\n\r\n")
        assert answer.startswith(b"HTTP/1.1 101")
        reads: list[tuple[float, list[dict[str, Any]]]] = []  # (when, messages completed)
        coup_id: int | None = None
        cards: list[dict[str, Any]] = []
        try:
            while True:
                frames, data = _frames(data)
                messages = [json.loads(text) for _, text in frames]
                if messages:
                    reads.append((time.monotonic(), messages))
                for message in messages:
                    if message["type"] == "card-dealt" and coup_id is not None:
                        cards.append(message)
                    if message["type"] == "bets-closed" and coup_id is None:
                        coup_id = int(message["coup_id"])
                if coup_id is not None and any(m["type"] == "round-opened" for m in messages):
                    break  # the next round
                data += sock.recv(65536)
        finally:
            sock.close()
        recalled = live.http.get(f"/api/coups/{coup_id}").json()
    with_cards = [(at, [m["type"] for m in messages]) for at, messages in reads
                  if any(m["type"] in ("card-dealt", "coup-dealt") for m in messages)]
    first_at, first = with_cards[0]
    assert len(with_cards) == 1 and first == ["card-dealt"] * len(cards) + [
        "coup-dealt", "round-settled"], with_cards
    assert [c["reveal_after_ms"] for c in cards] == [0] + [300] * (len(cards) - 1)
    opened_at = reads[-1][0]  # the next round opens once the pages turned the cards, and the
    # result's pause after that (a lower bound only: a pause never ends early)
    assert opened_at - first_at >= 0.3 * (len(cards) - 1) + settings.result_seconds - 0.01
    punto, banco = recalled["punto"]["cards"], recalled["banco"]["cards"]
    order = [punto[0], banco[0], punto[1], banco[1], *punto[2:], *banco[2:]]
    assert [c["card"] for c in cards] == order
