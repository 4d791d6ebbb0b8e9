"""Server settings: one frozen, keyword-only value built by ``puntobanco serve`` or by a test."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

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


def default_database_url(path: Path = DEFAULT_DATABASE_PATH) -> str:
    """The SQLAlchemy URL of the embedded SQLite file (its directory is created on demand)."""
    return f"sqlite:///{path}"


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
    bcrypt_rounds: int = 12
    welcome_credit: int = WELCOME_CREDIT
    operator_password: str | None = None
    default_tables: tuple[str, ...] = DEFAULT_TABLES
    static_dir: Path = STATIC_DIR
    #: a stopping dealer finishes the coup in progress, but waits at most this long for it
    stop_timeout: float = 10.0
