"""Server settings: one frozen, keyword-only value built by ``puntobanco serve`` or by a test.

Also a table's stored ``rules`` object: the core's :mod:`puntobanco.rules_json` mapping plus the
one server-only value, the betting window ``betting_seconds``.

>>> data = table_rules_to_json(RuleSet(), betting_seconds=15)
>>> data["limits"]["lion-banco"], data["commission"], data["betting_seconds"]
([1000, 5000], '0.05', 15)
>>> rules, seconds = table_rules_from_json({"tie_pays": 9, "betting_seconds": 20})
>>> rules.tie_pays, seconds
(9, 20.0)
>>> table_rules_from_json({"betting_seconds": 0})
Traceback (most recent call last):
...
puntobanco.errors.RuleSetError: The betting window lasts 1 to 600 seconds, not 0.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from puntobanco.errors import RuleSetError
from puntobanco.rules import RuleSet
from puntobanco.rules_json import rules_from_json, rules_to_json

#: Where ``puntobanco serve`` keeps its SQLite file when no ``--database-url`` is given.
DEFAULT_DATABASE_PATH = Path("var") / "puntobanco.sqlite3"
#: The web page's files (written by the page's own authors, served as they are).
STATIC_DIR = Path(__file__).resolve().parent / "static"
#: The play money every new player is credited with (1,000.00 €).
WELCOME_CREDIT = 100_000
#: The tables an empty database starts with.
DEFAULT_TABLES: tuple[str, ...] = ("Sanremo", "Enghien")
OPERATOR_USERNAME = "operator"
#: A password's length in bytes (bcrypt reads at most 72).
MIN_PASSWORD, MAX_PASSWORD = 6, 72


#: A table's betting window (seconds): its default and its range.
DEFAULT_BETTING_SECONDS = 15
MIN_BETTING_SECONDS, MAX_BETTING_SECONDS = 1, 600


def table_rules_to_json(rules: RuleSet, *, betting_seconds: float) -> dict[str, Any]:
    """A table's JSON ``rules`` object (``docs/api.md``): the rule set and its betting window."""
    return {**rules_to_json(rules), "betting_seconds": _number(betting_seconds)}


def table_rules_from_json(
    data: Mapping[str, Any],
    *,
    base: RuleSet | None = None,
    base_seconds: float = DEFAULT_BETTING_SECONDS,
) -> tuple[RuleSet, float]:
    """Read a (partial) table ``rules`` object; raise :class:`RuleSetError` if wrong."""
    if not isinstance(data, Mapping):
        raise RuleSetError("The rules are a JSON object.")
    seconds = base_seconds
    if "betting_seconds" in data:
        seconds = betting_seconds_from_json(data["betting_seconds"])
    rest = {key: value for key, value in data.items() if key != "betting_seconds"}
    return rules_from_json(rest, base=base), seconds


def betting_seconds_from_json(value: Any) -> float:
    """Read a betting window in seconds (MIN_BETTING_SECONDS to MAX_BETTING_SECONDS)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise RuleSetError(f"The betting window is a number of seconds, not {value!r}.")
    if not MIN_BETTING_SECONDS <= value <= MAX_BETTING_SECONDS:
        raise RuleSetError(f"The betting window lasts {MIN_BETTING_SECONDS} to "
                           f"{MAX_BETTING_SECONDS} seconds, not {value}.")
    return float(value)


def _number(value: float) -> float | int:
    return int(value) if float(value).is_integer() else value


@dataclass(frozen=True, kw_only=True, slots=True)
class GuardSettings:
    """The limits that keep a hostile caller from taking the server down (issue 9; the threat
    model of ``docs/server.md`` lists them). A rate is ``(burst, per_second)``: so many at
    once, then so many per second on average."""

    #: log-in attempts per account name, and log-in + sign-up attempts per address (each one
    #: costs a bcrypt: 4 a second is about one core; many players may share one address)
    login_per_account: tuple[int, float] = (10, 1 / 30)
    login_per_address: tuple[int, float] = (100, 4.0)
    #: bets and withdrawals per player (all tables together)
    bets_per_player: tuple[int, float] = (20, 10.0)
    #: bcrypt runs at once (each on a thread) and requests allowed to wait for one
    hash_slots: int = 2
    hash_queue: int = 32
    #: open WebSockets in all, anonymous ones (spectators) per address, per signed-in player;
    #: a signed-in socket is not capped per address (a casino floor, a NAT or a proxy puts many
    #: players behind one address), only per player and in all
    sockets_total: int = 2_000
    sockets_per_address: int = 100
    sockets_per_player: int = 8
    #: a session ends after this long unused (each use renews it, at most once per
    #: ``session_renew_seconds``) and, whatever its use, this long after the log-in
    session_idle_seconds: float = 7 * 24 * 3600
    session_max_seconds: float = 30 * 24 * 3600
    session_renew_seconds: float = 300
    #: how often an open signed-in WebSocket checks that its session still lives (no renewal)
    session_recheck_seconds: float = 300


def default_database_url(path: Path = DEFAULT_DATABASE_PATH) -> str:
    """The SQLAlchemy URL of the embedded SQLite file (its directory is created on demand)."""
    return f"sqlite:///{path}"


#: how long a table's batch of bets waits for more after its first one (``live/desk.py``), by
#: database. At 1,000 bets a second 25 ms made batches of ~30 instead of ~13, a bet's server
#: CPU 370-378 instead of 455-522 µs, for an ack p99 of 53-55 ms (docs/server.md, issue 21's
#: third pass). SQLite's batch runs on the event loop's thread and costs it the same CPU
#: whatever it holds, besides the bets: 50 ms (batches of ~60) saved ~30 µs of a bet's ~300
#: more for an ack p99 of 67-76 ms (issue 21, seventh pass). A PostgreSQL batch waits for its
#: commit's flush to the disk, while the next one gathers anyway: longer only added to the wait.
BET_LINGER_SECONDS = {"sqlite": 0.05, "postgresql": 0.025}


def bet_linger_seconds(backend: str) -> float:
    """The default linger of a table's batch of bets on ``backend`` (``sqlite`` or
    ``postgresql``).

    >>> bet_linger_seconds("sqlite"), bet_linger_seconds("postgresql")
    (0.05, 0.025)
    """
    return BET_LINGER_SECONDS[backend]


@dataclass(frozen=True, kw_only=True, slots=True)
class ServerSettings:
    """Everything the application factory needs.

    ``betting_seconds`` overrides every table's own betting window when set (tests, benches);
    ``closed_seconds`` is the pause between "no more bets" and the first card pushed to the
    page (so that a player sees the betting close), ``card_seconds`` the pause between two
    cards pushed, ``result_seconds`` the pause between a settled coup and the next window.
    ``idle_when_unwatched`` lets a dealer wait, instead of dealing to nobody, while no
    WebSocket client watches its table.
    """

    database_url: str = field(default_factory=default_database_url)
    betting_seconds: float | None = None
    closed_seconds: float = 1.0
    card_seconds: float = 0.6
    result_seconds: float = 4.0
    idle_when_unwatched: bool = True
    #: a table's group commit is written this long after its first bet was queued (or at
    #: once with 200 queued, or at the close): fewer, larger transactions (``live/desk.py``);
    #: ``None``: the database's own (:data:`BET_LINGER_SECONDS`)
    bet_linger_seconds: float | None = None
    bcrypt_rounds: int = 12
    welcome_credit: int = WELCOME_CREDIT
    operator_password: str | None = None
    default_tables: tuple[str, ...] = DEFAULT_TABLES
    static_dir: Path = STATIC_DIR
    #: a stopping dealer finishes the coup in progress, but waits at most this long for it
    stop_timeout: float = 10.0
    #: several processes on PostgreSQL: how often a process tries the table locks it lacks
    cluster_retry_seconds: float = 1.0
    #: rate limits, caps and session lifetimes (issue 9)
    guard: GuardSettings = field(default_factory=GuardSettings)
