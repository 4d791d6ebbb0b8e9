"""When a server process collects its cyclic garbage (issue 8).

Python's collector of reference cycles runs a full collection — every tracked object of the
process visited, with the GIL held — when enough objects have survived into its oldest
generation. With 1,000 players connected a full collection took 100–260 ms, and it came when
the most objects were being made: in the last seconds of a betting window, where one pause held
every bet of that moment (a 1,000-player round on PostgreSQL: p50 20 ms, p99 390 ms, all of the
tail one 259 ms collection). Made after a settlement instead, it held the first bets of the next
window, which players place at once.

So a serving process chooses the moment:

- at start, after the tables are loaded, one collection, then :func:`gc.freeze`: the modules,
  the application and the tables (160,000 objects) are never visited again;
- the automatic full collections are off (the two young generations still collect as usual:
  they are small and fast);
- a full collection runs when a table has just told everyone its result (:func:`quiet_moment`:
  no bet of it is waited on, the result's frames are written, the next window has not begun;
  the time it takes comes out of the pause after the result, 4 s by default) and the last one
  is at least :data:`FULL_EVERY` seconds old, and in any case every :data:`BACKSTOP` seconds
  (an idle process, or a table that never deals, still collects). Issue 8 chose the moment
  just after "no more bets", taken out of the pause before the first card; issue 21 moved it:
  with 5,000 players connected a collection took 0.57 s, and every socket's settlement waited
  for it whenever that pause was shorter (``--closed-seconds 0``).

After each full collection what survived is frozen too (issue 21, fourth pass): a serving
process's surviving objects are mostly its sockets' (uvicorn's protocol and transport, the
hub's client, its queue and events, the connection's task), which live as long as the socket
and were walked again by every full collection — 0.6 s of the loop with 5,000 players
connected, about 100 ms with 1,000, every other round. A frozen object is still freed when its
last reference goes; only a reference cycle among frozen objects waits: every
:data:`THAW_EVERY` seconds a full collection unfreezes everything first, so such garbage (a
closed socket's cycles) lives that long at most.

A socket's long-lived objects are frozen as soon as it is set up (:func:`connected`, issue
21, fifth pass): the first full collection after the sockets connected walked them all once
(139–175 ms at 1,000 sockets, ~600 ms at 5,000), and the young collections walked them while
they connected. What is frozen with them is what the process made since the last freeze — the
other sockets' set-up, the bets in flight, which their references still free — and a cycle
among them waits for the next thaw, as after a full collection. So that a client connecting and
leaving again and again cannot pile up garbage that way, a freeze at a connection collects the
two young generations first and comes at most every :data:`CONNECT_FREEZE_GAP` seconds (a
socket set up in between is frozen by the next one, or left to the next full collection), and
once :data:`THAW_AFTER_CLOSED` sockets have closed since the last thaw the next full collection
thaws (a closed socket's own cycles were frozen with it): the garbage they leave is bounded by
that many sockets, or :data:`THAW_EVERY` seconds, whichever comes first.

The two young generations keep Python's thresholds (700, 10) (issue 21, fifth pass, measured
with the collector's own timing, ``gc.callbacks`` and the thread's CPU time, at 1,000 sockets
and 2,000 bets a window): they cost the loop 5–11 ms of CPU a window, 2.5–5 µs a bet, each young
collection under 1 ms and each middle one under 7 ms. Larger thresholds save at most those few
µs — below the ±50 µs a bet that runs swing by — and make the pauses longer where many objects
survive, as when the sockets connect (each one's objects live as long as it): with (10,000, 5)
a middle collection held the loop 35–39 ms then, with (10,000, 20) 131 ms of wall time, and a
young one at (50,000, 50) up to 38 ms: longer than an ack's budget for one pause. With the
sockets frozen as they connect, (10,000, 10) still saved only ~2 ms of a 2,000-bet window
(~1 µs a bet) and made each young collection 2–3 ms instead of under 1.

The settings are the process's: with several servers in one process (the tests) the first to
start applies them and the last to stop restores them.

>>> FULL_EVERY < BACKSTOP
True
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time

log = logging.getLogger("puntobanco.server.live.collector")

#: the shortest gap between two full collections made at a quiet moment, and the longest gap
#: between two full collections at all (seconds)
FULL_EVERY, BACKSTOP = 30.0, 120.0
#: the oldest generation's threshold while a server runs: never reached
NEVER = 1 << 30
#: the longest gap (seconds) between two full collections that walk every object, frozen ones
#: included (the others walk only what was made since the last one)
THAW_EVERY = 600.0
#: the shortest gap (seconds) between two freezes made as sockets connect, and the sockets
#: closed since the last thaw that make the next full collection thaw
CONNECT_FREEZE_GAP, THAW_AFTER_CLOSED = 1.0, 500


class _State:
    users = 0
    thresholds: tuple[int, int, int] = (700, 10, 10)
    last = 0.0
    #: when the last full collection walked the frozen objects too
    thawed = 0.0
    #: when a connecting socket last froze the process's objects, and the sockets closed since
    #: the last thaw
    connect_frozen = 0.0
    closed = 0
    #: figures: full collections made, and the longest one (seconds)
    collections = 0
    longest = 0.0


def start() -> None:
    """A server starts: the first applies the policy (see the module's docstring)."""
    _State.users += 1
    if _State.users > 1:
        return
    _State.thresholds = gc.get_threshold()
    gc.collect()
    gc.freeze()
    young, middle, _ = _State.thresholds
    gc.set_threshold(young, middle, NEVER)
    _State.last = _State.thawed = time.monotonic()


def stop() -> None:
    """A server stops: the last gives the process its usual collector back."""
    _State.users = max(0, _State.users - 1)
    if _State.users:
        return
    gc.unfreeze()
    gc.set_threshold(*_State.thresholds)


def connected() -> None:
    """A socket has just been set up (its connection, tasks, queue and hub client made): what
    the process holds now is frozen, so neither the young collections nor the next full one
    walk it again (issue 21, fifth pass: the first full collection after 1,000 sockets
    connected took 139–175 ms, every later one a few ms). Freezing is a splice of the
    generations' lists, whatever they hold. A cycle frozen here waits for the next thaw, as
    one frozen after a full collection does: the young generations are collected first, and
    at most one freeze comes every :data:`CONNECT_FREEZE_GAP` seconds."""
    now = time.monotonic()
    if _State.users and now - _State.connect_frozen >= CONNECT_FREEZE_GAP:
        _State.connect_frozen = now
        gc.collect(1)
        gc.freeze()


def disconnected() -> None:
    """A table socket has closed: its objects frozen when it was set up wait for a thaw, which
    comes sooner once :data:`THAW_AFTER_CLOSED` have closed."""
    _State.closed += 1


def collect() -> float:
    """A full collection now, of what was made since the last one (everything once
    :data:`THAW_EVERY` seconds have passed), then what survived frozen; its duration in
    seconds."""
    began = time.perf_counter()
    if (time.monotonic() - _State.thawed >= THAW_EVERY
            or _State.closed >= THAW_AFTER_CLOSED):
        gc.unfreeze()
        _State.thawed = time.monotonic()
        _State.closed = 0
    gc.collect()
    if _State.users:  # a stopped server's process keeps its usual collector
        gc.freeze()
    spent = time.perf_counter() - began
    _State.last = time.monotonic()
    _State.collections += 1
    _State.longest = max(_State.longest, spent)
    if spent > 0.05:
        log.info("a full garbage collection took %.0f ms", spent * 1000)
    return spent


def due() -> bool:
    """A server runs and its last full collection is old enough for a quiet moment."""
    return bool(_State.users) and time.monotonic() - _State.last >= FULL_EVERY


def quiet_moment() -> float:
    """A table is between its bets and its next window: collect if the last full collection
    is old enough. The seconds spent (0 when none was due)."""
    return collect() if due() else 0.0


async def backstop() -> None:
    """Run for the server's life: a full collection at least every :data:`BACKSTOP` s."""
    while True:
        await asyncio.sleep(BACKSTOP / 4)
        if time.monotonic() - _State.last >= BACKSTOP:
            collect()
