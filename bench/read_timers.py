"""Where a socket bet's read goes, timed inside the server (issue 21, sixth pass).

Runs ``bench_socket_loop.py`` (its options after ``--``) with, in each server it starts, the
functions of a bet's way from the socket to the desk wrapped in inclusive timers (the loop
thread's ``time.thread_time``; each wrapper costs ~1.6 µs, counted in every timer around it).
They are installed before the application is imported, so that the names ``api/ws.py`` and
``api/wsbets.py`` import are the wrapped ones (``round_phases.py`` wraps the modules' names
after that: its ``~quick_bet`` never fires). With ``--timers calls`` it counts instead the
calls (Python and C, ``sys.setprofile``) made while reading a bet and in ``BetDesk._changed``:
deterministic, and the profiler's own cost does not matter there.

Each server writes its figures when it stops (A, B, A, B, ... in the order they ran): per
timer, its calls, its CPU and its CPU per call. ``uvicorn parse`` is uvicorn's own reading of
the frames the short way leaves it (the keep-alive pongs), inside ``Reader.data_received``;
``ws take`` is each text's handling after its frame (the bet's whole way to the desk), and
``gc in take`` the collections that ran inside it (any allocation may start one: what was
allocated before counts as much as the bet).

Run: ``.venv/bin/python bench/read_timers.py [--timers reads,parse,changed,gc] -- --players 1000
--bets 2 --rounds 3 --spread 2 [--a /tmp/A/src --b src --pairs 2]`` (``--timers all``: every
part; the tree's names must exist in each tree measured: ``queue_plain``, ``quick_bet``, ...).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SPENT: dict[str, Any] = {}
MAIN = threading.main_thread().ident


def _timed(name: str, call: Callable[..., Any]) -> Callable[..., Any]:
    clock = time.thread_time

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        began = clock()
        try:
            return call(*args, **kwargs)
        finally:
            entry = SPENT.setdefault(name, [0, 0.0])
            entry[0] += 1
            entry[1] += clock() - began
    return wrapper


#: set while a text is handled (``ws take``): the collections that run then are counted apart
INSIDE: list[bool] = []


def _inside(call: Callable[[str], None]) -> Callable[[str], None]:
    def wrapper(text: str) -> None:
        INSIDE.append(True)
        try:
            call(text)
        finally:
            INSIDE.pop()
    return wrapper


def _counting(name: str, call: Callable[..., Any], counts: dict[str, int]
              ) -> Callable[..., Any]:
    def counter(frame: Any, event: str, arg: Any) -> None:
        if event == "call":
            key = f"{Path(frame.f_code.co_filename).name}:{frame.f_code.co_name}"
        elif event == "c_call":
            key = f"C:{getattr(arg, '__qualname__', '?')}"
        else:
            return
        counts[key] = counts.get(key, 0) + 1

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        SPENT.setdefault(name, [0, 0.0])[0] += 1
        sys.setprofile(counter)
        try:
            return call(*args, **kwargs)
        finally:
            sys.setprofile(None)
    return wrapper


def start() -> None:
    """In the server (called by ``bench_load.LAUNCH`` as ``profiler.start``): the timers."""
    out = os.environ.get("PB_READ_TIMERS_OUT")
    if not out:
        return
    which = set(os.environ.get("PB_READ_TIMERS", "reads,parse,changed,gc").split(","))
    from uvicorn.protocols.websockets import websockets_sansio_impl as sansio

    from puntobanco.server.api import deps, fastbets, guard, wsread
    from puntobanco.server.live import desk, engine, hub, messages

    if "calls" in which:
        counts: dict[str, int] = {}
        SPENT["calls"] = counts
        wsread.Reader.data_received = _counting(  # type: ignore[method-assign]
            "reads", wsread.Reader.data_received, counts)
        desk.BetDesk._changed = _counting(  # type: ignore[method-assign]
            "changed", desk.BetDesk._changed, counts)
        which = set()
    every = "all" in which
    for name, owner, attribute, label in (
            ("parse", sansio.WebSocketsSansIOProtocol, "data_received", "uvicorn parse"),
            ("reads", wsread.Reader, "data_received", "Reader.data_received"),
            ("loads", fastbets, "loads", "loads"),
            ("plain_bet", fastbets, "plain_bet", "plain_bet"),
            ("queue_plain", fastbets, "queue_plain", "queue_plain"),
            ("queue_bet", engine.TableDealer, "queue_bet", "queue_bet"),
            ("check", desk.BetDesk, "check", "desk.check"),
            ("submit", desk.BetDesk, "submit", "desk.submit"),
            ("take", guard.RateLimit, "take", "RateLimit.take"),
            ("changed", desk.BetDesk, "_changed", "desk._changed"),
            ("send_bets", hub.Hub, "send_bets", "hub.send_bets"),
            ("accepted_texts", messages, "bet_accepted_texts", "bet_accepted_texts"),
            ("answered", hub.Client, "answered", "Client.answered")):
        if (every or name in which) and hasattr(owner, attribute):
            setattr(owner, attribute, _timed(label, getattr(owner, attribute)))
    if every or "take" in which or "reads" in which:
        # each text's handling (``api/ws._receive``'s ``take``: everything after the frame),
        # without uvicorn's pongs, and the collections that ran inside it (``gc in take``)
        installed = wsread.install

        def install(asgi_send: Any, on_text: Callable[[str], None]) -> Any:
            return installed(asgi_send, _inside(_timed("ws take", on_text)))
        wsread.install = install  # type: ignore[assignment]
    if every or "known_player" in which:
        deps.known_player = _timed("known_player", deps.known_player)  # type: ignore[assignment]
        fastbets.known_player = deps.known_player  # type: ignore[attr-defined]
    from puntobanco.server.api import wsbets  # after what it imports is wrapped

    if every or "quick_bet" in which:
        wsbets.quick_bet = _timed("quick_bet", wsbets.quick_bet)  # type: ignore[assignment]
    if every or "gc" in which:
        import round_phases

        def collected(generation: int, spent: float) -> None:
            for name in (f"gc {generation}", *(("gc in take",) if INSIDE else ())):
                entry = SPENT.setdefault(name, [0, 0.0])
                entry[0] += 1
                entry[1] += spent
        round_phases.time_collections(collected)
    written: list[bool] = []

    def dump(*_: Any) -> None:
        if not written:
            written.append(True)
            Path(out).write_text(json.dumps(SPENT))

    import atexit
    import signal
    atexit.register(dump)

    def stopped(*_: Any) -> None:  # uvicorn gives SIGTERM back to the handler it found
        dump()
        sys.exit(0)
    signal.signal(signal.SIGTERM, stopped)


def show(path: Path) -> None:
    found = json.loads(path.read_text())
    calls = found.pop("calls", None)
    for name, (number, spent) in sorted(found.items(), key=lambda item: -item[1][1]):
        per = f"{1e6 * spent / max(1, number):8.2f} µs/call" if calls is None else ""
        print(f"  {name:24s} {number:7d} calls {1000 * spent:9.1f} ms {per}")
    if calls is not None:
        bets = max(1, found.get("changed", [0])[0])
        print(f"  {sum(calls.values()) / bets:.1f} calls a bet (read and _changed):")
        for name, number in sorted(calls.items(), key=lambda item: -item[1])[:40]:
            print(f"    {number / bets:5.2f}  {name}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--timers", default="reads,parse,changed,gc",
                        help="comma-separated: reads, parse, loads, plain_bet, known_player, "
                             "quick_bet, queue_plain, queue_bet, check, submit, take, changed, "
                             "send_bets, accepted_texts, answered, gc; all; or calls")
    parser.add_argument("rest", nargs=argparse.REMAINDER, help="-- bench_socket_loop options")
    args = parser.parse_args()
    rest = args.rest[1:] if args.rest[:1] == ["--"] else args.rest
    folder = Path(tempfile.mkdtemp(prefix="pb-read-timers-"))
    # bench_load.LAUNCH imports ``profiler`` from PB_BENCH_DIR and starts it: here, these timers
    (folder / "profiler.py").write_text(
        f"import sys\nsys.path.insert(0, {str(HERE)!r})\nfrom read_timers import start\n")
    sys.path.insert(0, str(HERE))
    import bench_socket_loop

    served = bench_socket_loop.serve_and_measure
    outputs: list[Path] = []

    def measured(source: Path, **options: Any) -> tuple[float, float]:
        out = folder / f"timers-{len(outputs)}.json"
        outputs.append(out)
        os.environ["PB_READ_TIMERS_OUT"], os.environ["PB_READ_TIMERS"] = str(out), args.timers
        return served(source, **options)

    bench_socket_loop.HERE = folder  # the servers' PB_BENCH_DIR
    bench_socket_loop.serve_and_measure = measured  # type: ignore[assignment]
    if "--a" not in rest:
        rest = ["--a", str(HERE.parent / "src"), *rest]
    sys.argv = [sys.argv[0], *rest]
    bench_socket_loop.main()
    for number, out in enumerate(outputs):
        print(f"server {number + 1} ({'AB'[number % 2] if '--b' in rest else 'A'}):")
        if out.exists():
            show(out)
        else:
            print("  (no figures: the server wrote none)")


if __name__ == "__main__":
    main()
