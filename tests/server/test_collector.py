"""Issue 8: a serving process makes its full garbage collections at quiet moments only
(``live/collector.py``): a full collection with 1,000 players connected took 100–260 ms, and the
automatic ones fell in the busiest seconds of a betting window."""

from __future__ import annotations

import gc
import time

import pytest

from puntobanco.server.live import collector


def test_issue8_a_server_turns_the_automatic_full_collections_off_and_back_on() -> None:
    if collector._State.users:  # a server of another test still runs in this process
        pytest.skip("another server runs in this test process: the settings are its")
    before = gc.get_threshold()
    collector.start()
    try:
        assert gc.get_threshold()[2] == collector.NEVER  # no full collection by itself
        assert gc.get_threshold()[:2] == before[:2]  # the young generations as usual
        assert gc.get_freeze_count() > 0  # what existed at the start is never visited again
        collector.start()  # a second server in the same process
        collector.stop()
        assert gc.get_threshold()[2] == collector.NEVER  # the first still runs
    finally:
        collector.stop()
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0


def test_issue8_a_full_collection_at_a_quiet_moment_when_one_is_due() -> None:
    collector.start()
    try:
        done = collector._State.collections
        collector.quiet_moment()  # the start has just collected: not due
        assert collector._State.collections == done
        collector._State.last = time.monotonic() - collector.FULL_EVERY - 1
        collector.quiet_moment()
        assert collector._State.collections == done + 1
    finally:
        collector.stop()
    collector.quiet_moment()  # no server runs: nothing to decide
    assert collector._State.collections == done + 1
