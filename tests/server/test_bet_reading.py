"""Issue 21, sixth pass: a bet read off the socket costs less, and is judged exactly as before.

The short way (``api/wsbets.quick_bet``, ``api/fastbets.plain_bet``/``queue_plain``,
``deps.known_player``, ``guard.RateLimit.take``, ``TableDealer.queue_bet``, ``BetDesk.check``)
was rewritten without sets, closures or tuples made for every bet; these tests hold it to what
it did: the same rate limit, the same bets read from the same names, the same messages left to
the long way (and so refused in its words), the same session trusted only for its own casino.
"""

from __future__ import annotations

import random
from collections import OrderedDict
from typing import Any

import pytest

from puntobanco.bets import BetKind
from puntobanco.errors import PuntoBancoError
from puntobanco.server.api import deps, wsbets
from puntobanco.server.api.fastbets import plain_bet
from puntobanco.server.api.guard import RateLimit

from .support import Watcher, fast_settings, running


class _BucketsAsBefore:
    """The token bucket as it was written before (a tuple popped and stored again per take):
    the reference the in-place one must match, figure for figure."""

    def __init__(self, *, burst: int, per_second: float, max_keys: int) -> None:
        self.burst, self.per_second, self.max_keys = burst, per_second, max_keys
        self.buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def take(self, key: str, now: float) -> float:
        tokens, last = self.buckets.pop(key, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - last) * self.per_second)
        wait = 0.0
        if tokens >= 1:
            tokens -= 1
        else:
            wait = (1 - tokens) / self.per_second
        self.buckets[key] = (tokens, now)
        while len(self.buckets) > self.max_keys:
            self.buckets.popitem(last=False)
        return wait


@pytest.mark.parametrize("burst, per_second, max_keys", [(5, 1.0, 50_000), (3, 0.01, 4),
                                                          (2, 10.0, 5), (1, 2.5, 1)])
def test_issue21_the_bet_rate_limit_waits_exactly_as_before(burst: int, per_second: float,
                                                            max_keys: int) -> None:
    limit = RateLimit(burst=burst, per_second=per_second, max_keys=max_keys)
    before = _BucketsAsBefore(burst=burst, per_second=per_second, max_keys=max_keys)
    draw = random.Random(21)
    now, refused = 0.0, 0
    for _ in range(5000):
        now += draw.choice((0.0, 0.0, 0.001, 0.05, 0.3, 2.0))
        key = str(draw.randrange(7))
        wait = limit.take(key, now=now)
        assert wait == before.take(key, now), (key, now)
        refused += wait > 0
    assert refused > 20  # the limit did refuse, in every setting
    # the same keys remembered, the least recently seen forgotten first
    assert list(limit._buckets) == list(before.buckets)


def test_issue21_a_bet_named_by_its_own_name_is_the_bet_the_core_reads() -> None:
    names = [kind.value for kind in BetKind] + ["Banco", " punto ", "lion_banco", "tie",
                                                "égalité", "player", "banker", "zebra", ""]
    for name in names:
        try:
            expected: BetKind | None = BetKind.parse(name)
        except PuntoBancoError:
            expected = None
        assert plain_bet("k", name, 1000, None) is expected, name


def _answer(watcher: Watcher, key: str | None) -> dict[str, Any]:
    found: dict[str, Any] = watcher.next(
        where=lambda m: m["type"] in ("bet-accepted", "bet-refused") and m.get("key") == key,
        timeout=20)
    return found


def test_issue21_only_a_plain_bet_s_fields_take_the_short_way(sqlite_url: str) -> None:
    """A message with exactly a plain bet's fields (with or without its coup) is taken the
    short way; one field more, or one missing, is left to the model, which refuses it in its
    words (``bad-request`` naming the field), as before."""
    with running(fast_settings(sqlite_url, betting_seconds=6.0)) as server:
        ann = server.signup("ann", lang="en")
        watcher = server.watch(1, ann)
        coup = watcher.next("round-opened")["coup_id"]
        server.http.get("/api/me", headers=ann.headers)  # the session seen live
        quick = wsbets.FIGURES["quick"]
        for key, extra in (("with-coup", {"coup_id": coup}), ("no-coup", {})):
            watcher.send({"type": "bet", "key": key, "bet": "banco", "stake": 1000, **extra})
            assert _answer(watcher, key)["type"] == "bet-accepted"
        assert wsbets.FIGURES["quick"] == quick + 2
        for key, body, field in (
                ("extra", {"bet": "banco", "stake": 1000, "coup_id": coup, "more": 1}, "more"),
                ("no-stake", {"bet": "banco", "coup_id": coup, "lion": 1}, "stake")):
            watcher.send({"type": "bet", "key": key, **body})
            refused = _answer(watcher, key)
            assert refused["type"] == "bet-refused", refused
            assert refused["error"]["code"] == "bad-request"
            assert field in refused["error"]["message"], refused
        watcher.send({"type": "bet", "coup_id": coup, "bet": "banco", "stake": 1000})
        assert _answer(watcher, None)["error"]["code"] == "bad-request"  # no key
        assert wsbets.FIGURES["quick"] == quick + 2  # none of those the short way
        watcher.close()


def test_issue21_a_session_seen_by_one_casino_is_not_known_to_another(
        sqlite_url: str, tmp_path: Any) -> None:
    (tmp_path / "other").mkdir()
    other_url = f"sqlite:///{tmp_path / 'other' / 'other.sqlite3'}"
    with running(fast_settings(sqlite_url)) as first, running(fast_settings(other_url)) as other:
        ann = first.signup("ann")
        assert first.http.get("/api/me", headers=ann.headers).status_code == 200
        seen = deps.known_player(first.casino, ann.token)
        assert seen is not None and seen.id == ann.id
        assert deps.known_player(other.casino, ann.token) is None
        assert deps.known_player(first.casino, ann.token) == seen  # asked again, after the other
