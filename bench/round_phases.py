"""Where a round's CPU goes on the server's event loop thread, outside the bets (issue 21).

Imported by ``bench_load.py``'s server launcher when ``PB_BENCH_PHASES`` names a file
(``--phases``): it wraps, in the serving process only, the hub's pushes, the moment's flush
(``hub._flush``: the socket writes), the full garbage collection and the core's steps, and cuts
the loop thread's CPU (``time.thread_time``) into a round's phases at its messages:

* ``window``: round-opened → bets-closed (the bets: not this bench's subject);
* ``close``: bets-closed → the first card (the last batch, the coup closed in the database, the
  core taking the bets);
* ``cards``: the first card → coup-dealt (each card to every socket; the settlement's
  transaction written meanwhile on its thread);
* ``settle``: coup-dealt → round-settled (waiting for the settlement, each player's
  ``settlement``);
* ``after``: round-settled → the next round-opened (the result's flush, the garbage collection,
  the pause, a shoe's end and start, the next coup opened).

With ``PB_BENCH_PHASES_DETAIL=1`` in the environment the window's parts are timed too, each
inclusively (``~name``: the batch's transaction, ``apply_bets``, the socket reads, the keepalive
pings, every garbage collection by generation, …), nested parts counted in each.

Each phase says its CPU, and within it the pushes, flushes, collections and core steps by name;
per message type it counts the texts queued (one per socket reached) and their bytes. The file
is rewritten every second: ``{"rounds": [{phase: {"cpu": s, "parts": {name: s}}, "texts":
{type: [texts, bytes]}, "sockets": n}, ...]}``.
"""

from __future__ import annotations

import atexit
import gc
import json
import os
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from puntobanco.server.live import collector, engine, hub
from puntobanco.table import Table

MAIN = threading.main_thread().ident
PHASE_AT = {"round-opened": "window", "bets-closed": "close", "card-dealt": "cards",
            "coup-dealt": "settle", "round-settled": "after"}


class _Round:
    def __init__(self) -> None:
        self.phases: dict[str, dict[str, Any]] = {}
        self.texts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        self.sockets = 0


class _State:
    rounds: ClassVar[list[_Round]] = []
    current: _Round | None = None
    phase = "before"
    mark = 0.0
    last_type = "?"
    depth = 0


def _kind(text: str) -> str:
    return text[9:text.find('"', 9)] if text.startswith('{"type":"') else "?"


def _enter(phase: str, kind: str) -> None:
    """A message that starts a phase is pushed: the loop's CPU since the last mark is the
    previous phase's."""
    now = time.thread_time()
    state = _State
    if state.current is not None:
        entry = state.current.phases.setdefault(state.phase, {"cpu": 0.0, "parts": {}})
        entry["cpu"] += now - state.mark
    if kind == "round-opened":
        state.current = _Round()
        state.rounds.append(state.current)
    state.phase, state.mark = phase, now


def _part(name: str, spent: float) -> None:
    state = _State
    if state.current is None or state.depth:
        return
    parts = state.current.phases.setdefault(state.phase, {"cpu": 0.0, "parts": {}})["parts"]
    parts[name] = parts.get(name, 0.0) + spent


def _timed(name: str | None, call: Any) -> Any:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if threading.get_ident() != MAIN:
            return call(*args, **kwargs)
        began = time.thread_time()
        _State.depth += 1
        try:
            return call(*args, **kwargs)
        finally:
            _State.depth -= 1
            _part(name or f"flush after {_State.last_type}", time.thread_time() - began)
    return wrapper


def _inclusive(name: str, call: Any) -> Any:
    """``call`` timed on the loop thread whatever else times it (``~name``: inclusive, nested
    parts counted in each)."""
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if threading.get_ident() != MAIN:
            return call(*args, **kwargs)
        began = time.thread_time()
        try:
            return call(*args, **kwargs)
        finally:
            _add(f"~{name}", time.thread_time() - began)
    return wrapper


def _add(name: str, spent: float) -> None:
    if _State.current is not None:
        parts = _State.current.phases.setdefault(_State.phase, {"cpu": 0.0, "parts": {}})["parts"]
        parts[name] = parts.get(name, 0.0) + spent


def time_collections(record: Callable[[int, float], None]) -> None:
    """Every collection on the loop thread, told to ``record`` (its generation, its CPU
    seconds): ``~gc N`` here, ``bench/read_timers.py`` too."""
    began = [0.0]

    def timed(phase: str, info: dict[str, int]) -> None:
        if threading.get_ident() != MAIN:
            return
        if phase == "start":
            began[0] = time.thread_time()
        else:
            record(info["generation"], time.thread_time() - began[0])
    gc.callbacks.append(timed)


def _inclusives() -> None:
    """The window's parts, each timed inclusively (``PB_BENCH_PHASES_DETAIL``)."""
    from puntobanco.server.api import fastbets, ws, wsbets, wsread
    from puntobanco.server.db import engine as db_engine
    from puntobanco.server.db import store
    from puntobanco.server.live import desk
    time_collections(lambda generation, spent: _add(f"~gc {generation}", spent))
    wsread.Reader.data_received = _inclusive(  # type: ignore[method-assign]
        "socket reads", wsread.Reader.data_received)
    wsbets.quick_bet = _inclusive("quick_bet", wsbets.quick_bet)
    ws.quick_bet = wsbets.quick_bet  # the name api/ws.py imported (a socket's partial reads it)
    fastbets.queue_plain = _inclusive("queue_plain", fastbets.queue_plain)
    db_engine.Database._batch_inline = _inclusive(  # type: ignore[method-assign]
        "batch transaction", db_engine.Database._batch_inline)
    store.apply_bets = _inclusive("apply_bets", store.apply_bets)
    store._write_bets = _inclusive("_write_bets", store._write_bets)
    desk.BetDesk._changed = _inclusive("desk _changed", desk.BetDesk._changed)  # type: ignore[method-assign]
    desk._answer = _inclusive("desk answers (callbacks run later)", desk._answer)
    try:
        from uvicorn.protocols.websockets import websockets_sansio_impl as sansio
        cls = sansio.WebSocketsSansIOProtocol
        cls.send_keepalive_ping = _inclusive(  # type: ignore[method-assign]
            "keepalive pings", cls.send_keepalive_ping)
        cls.handle_pong = _inclusive("pongs", cls.handle_pong)  # type: ignore[method-assign]
    except ImportError:
        pass
    answered = hub.Client.answered
    hub.Client.answered = _inclusive("Client.answered", answered)  # type: ignore[method-assign]


def install() -> None:
    broadcast, send_text = hub.Hub.broadcast_text, hub.Hub.send_text
    if os.environ.get("PB_BENCH_PHASES_DETAIL"):
        _inclusives()

    def broadcast_text(self: hub.Hub, text: str) -> None:
        kind = _kind(text)
        phase = PHASE_AT.get(kind)
        if phase is not None and threading.get_ident() == MAIN and (
                phase != "cards" or _State.phase == "close"):
            _enter(phase, kind)
        _State.last_type = kind
        began = time.thread_time()
        broadcast(self, text)
        _part(f"push {kind}", time.thread_time() - began)
        if _State.current is not None:
            counted = _State.current.texts[kind]
            counted[0] += len(self.clients)
            counted[1] += len(self.clients) * len(text.encode())
            _State.current.sockets = max(_State.current.sockets, len(self.clients))

    def mine(self: hub.Hub, player_id: int, text: str) -> None:
        kind = _kind(text)
        _State.last_type = kind
        reached = len(self._by_player.get(player_id, ()))
        began = time.thread_time()
        send_text(self, player_id, text)
        _part(f"push {kind}", time.thread_time() - began)
        if _State.current is not None:
            counted = _State.current.texts[kind]
            counted[0] += reached
            counted[1] += reached * len(text.encode())

    hub.Hub.broadcast_text = broadcast_text  # type: ignore[method-assign]
    hub.Hub.send_text = mine  # type: ignore[method-assign]
    hub._flush = _timed(None, hub._flush)
    collector.collect = _timed("full garbage collection", collector.collect)
    for name in ("deal", "settle", "place_bet", "close_bets", "open_round"):
        setattr(Table, name, _timed(f"core {name}", getattr(Table, name)))
    engine.msg.Settlement = _settlement(engine.msg.Settlement)  # type: ignore[misc]

    path = os.environ["PB_BENCH_PHASES"]

    def dump() -> None:
        rounds = [{"phases": r.phases, "texts": dict(r.texts), "sockets": r.sockets}
                  for r in _State.rounds]
        with open(path + ".tmp", "w") as out:
            json.dump({"rounds": rounds}, out)
        os.replace(path + ".tmp", path)

    def dumping() -> None:
        while True:
            time.sleep(1.0)
            dump()

    threading.Thread(target=dumping, daemon=True).start()
    atexit.register(dump)


def _settlement(model: Any) -> Any:
    """The settlement model's construction, timed (the engine builds one per bettor)."""
    def build(**fields: Any) -> Any:
        began = time.thread_time()
        try:
            return model(**fields)
        finally:
            _part("settlement models", time.thread_time() - began)
    return build


def report(path: str, *, skip: int = 1) -> None:
    """Print the rounds the file holds (the first ``skip`` left out: players still
    connecting)."""
    rounds = json.loads(Path(path).read_text())["rounds"][skip:]
    for number, found in enumerate(rounds, start=skip + 1):
        sockets = found["sockets"] or 1
        texts = found["texts"]
        count = sum(v[0] for k, v in texts.items() if k not in ("bet-accepted", "my-bets",
                                                                 "bet-refused"))
        size = sum(v[1] for k, v in texts.items() if k not in ("bet-accepted", "my-bets",
                                                                "bet-refused"))
        print(f"  round {number}: {sockets} sockets; per socket {count / sockets:.1f} "
              f"messages besides bet answers, {size / sockets:,.0f} bytes:")
        print("    " + ", ".join(f"{k} {v[0] / sockets:.2f}×{v[1] / max(1, v[0]):.0f} B"
                                  for k, v in sorted(texts.items())))
        for phase in ("close", "cards", "settle", "after", "window"):
            entry = found["phases"].get(phase)
            if entry is None:
                continue
            parts = sorted(entry["parts"].items(), key=lambda item: -item[1])
            shown = ", ".join(f"{name} {1000 * spent:.1f}" for name, spent in parts
                              if spent >= 0.0005)
            print(f"    {phase}: loop CPU {1000 * entry['cpu']:.1f} ms ({shown})")
