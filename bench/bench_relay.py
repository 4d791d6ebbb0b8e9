"""The event loop's CPU per bet that ``--workers 2``'s relay costs (issue 21, fourth pass).

With two server processes, every accepted bet's ``my-bets`` is relayed to the other process
(``live/cluster.py``: a ``PlayerMessage`` carrying the bets, which the other process counts in
its totals), packed with whatever else the same turn of the event loop relays into NOTIFY
payloads. This bench runs that path alone on a throw-away PostgreSQL: two :class:`Cluster`
members in one event loop, the sender's table hub relaying ``--bets`` bets' ``my-bets`` a
turn (one batch of bets answered), ``--moments`` times, the receiver parsing each item as the
server does (``RELAYED``) and counting the bets in a desk's totals way (``apply_remote``'s
work: a dict per player). It prints the loop thread's CPU (``time.thread_time``: the sender's
encoding and NOTIFY round trips, the receiver's notifications and parsing) per bet relayed.

Which source tree it measures is Python's ordinary choice: run it with ``PYTHONPATH=DIR/src``
for another tree (``git archive <commit> src | tar -x -C DIR``), alternately with this one.

Run: ``.venv/bin/python bench/bench_relay.py [--bets 15] [--moments 400] [--rounds 3]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import statistics
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from bench_server import Postgres


async def measure(url: str, *, bets: int, moments: int, gap: float) -> float:
    """CPU seconds of this thread per bet relayed (sent and received)."""
    import puntobanco.server.live.messages as msg
    from puntobanco.server.live.cluster import Cluster

    received = asyncio.Event()
    counted: dict[int, dict[str, int]] = {}
    expected = bets * moments
    seen = 0

    async def on_item(item: Any) -> None:
        nonlocal seen
        if isinstance(item, msg.PlayerMessage) and item.bets is not None:
            counted[item.player] = dict(item.bets.my_bets)
            seen += 1
            if seen == expected:
                received.set()

    async def unused(item: Any) -> None:
        pass

    sender, receiver = Cluster(url, on_item=unused), Cluster(url, on_item=on_item)
    await sender.start()
    await receiver.start()
    try:
        sender.peers = 2
        hub = sender.hub(1, lambda: None)
        # a table taking bets, its deadline far: what the sender's desk says when a bet's
        # my-bets is relayed in the window (``ClusterHub._may_wait``)
        sender.dealers[1] = SimpleNamespace(desk=SimpleNamespace(  # type: ignore[assignment]
            accepting=True, closes_at=time.time() + 3600, clock=SimpleNamespace(now=time.time)))
        send_bets = getattr(hub, "send_bets", None)  # (a tree before issue 21's fourth pass)
        began = time.thread_time()
        for moment in range(moments):
            for bet in range(bets):
                player = moment * bets + bet
                if send_bets is not None:
                    send_bets(player, 7, {"banco": 1000, "punto": 500}, 98_500)
                else:
                    hub.send(player, msg.MyBets(coup_id=7, my_bets={"banco": 1000, "punto": 500},
                                                balance=98_500))
            await asyncio.sleep(gap)  # the next batch answered
        await asyncio.wait_for(received.wait(), 60)
        return (time.thread_time() - began) / expected
    finally:
        await sender.close()
        await receiver.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bets", type=int, default=15, help="bets relayed per turn")
    parser.add_argument("--moments", type=int, default=200)
    parser.add_argument("--gap", type=float, default=0.03, help="seconds between two turns "
                        "(a process answers a batch every 25-60 ms in bench_load)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    import puntobanco

    print(f"machine: {platform.machine()}, {os.cpu_count()} cores; Python "
          f"{platform.python_version()}; load average {os.getloadavg()[0]:.1f}; tree "
          f"{Path(puntobanco.__file__).parent.parent}", flush=True)
    cluster = Postgres(durable=False)
    try:
        import uvloop

        figures = [uvloop.run(measure(cluster.new_database(), bets=args.bets,
                                      moments=args.moments, gap=args.gap))
                   for _ in range(args.rounds)]
    finally:
        cluster.stop()
    print(f"the loop's CPU per bet relayed (sent and received): "
          f"{' '.join(f'{1e6 * figure:.0f}' for figure in figures)} µs "
          f"(median {1e6 * statistics.median(figures):.0f}); {args.bets} bets a turn, "
          f"{args.moments} turns {1000 * args.gap:.0f} ms apart; load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
