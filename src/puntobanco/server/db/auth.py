"""Players, passwords and sessions.

Passwords are hashed with bcrypt; session tokens are 32 random bytes given to the client once,
and only their SHA-256 is stored, so a copy of the database opens no session. A session ends
when unused for its idle lifetime (each use renews it: sliding), and in any case at its maximum
lifetime after the log-in; :func:`end_sessions` ends every session of a player at once (the
player's "log out everywhere", and the operator's suspension of a player).

Usernames are normalised (NFKC), matched whole, and refused when they look like an existing
one (:mod:`puntobanco.server.usernames`).
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from weakref import WeakKeyDictionary

import bcrypt
from sqlalchemy import Connection, delete, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from puntobanco.errors import PuntoBancoError
from puntobanco.i18n import LANGUAGES
from puntobanco.server.db import bulk, ledger
from puntobanco.server.db.models import LoginSession, Player, utcnow
from puntobanco.server.settings import MAX_PASSWORD, MIN_PASSWORD, GuardSettings
from puntobanco.server.usernames import normalise, skeleton, valid

#: checked against when the username is unknown (a hash of a random password, cost 12)
DUMMY_HASH = "$2b$12$YEZ.85XPrpJ6YX1rJWFDqOk8b2FBh.mXsX4vGSJOM6HAyUp3Aborm"


@dataclass(frozen=True, slots=True)
class PlayerInfo:
    """Who is signed in."""

    id: int
    username: str
    role: str
    lang: str

    @property
    def is_operator(self) -> bool:
        return self.role == "operator"


def info(player: Player) -> PlayerInfo:
    return PlayerInfo(player.id, player.username, player.role, player.lang)


def hash_password(password: str, *, rounds: int = 12) -> str:
    return bcrypt.hashpw(password.encode(), bcrypt.gensalt(rounds)).decode()


def password_matches(password: str, hashed: str) -> bool:
    encoded = password.encode()
    return len(encoded) <= MAX_PASSWORD and bcrypt.checkpw(encoded, hashed.encode())


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def check_username(username: str) -> str:
    """The name as it will be stored (NFKC), or a ``bad-username`` refusal."""
    name = normalise(username)
    if not valid(name):
        raise PuntoBancoError("A username is 3 to 32 letters, digits, dots, dashes or "
                              "underscores.", code="bad-username")
    return name


def check_password(password: str) -> None:
    if not MIN_PASSWORD <= len(password.encode()) <= MAX_PASSWORD:
        raise PuntoBancoError(f"A password is {MIN_PASSWORD} to {MAX_PASSWORD} bytes long.",
                              code="bad-password")


def check_lang(lang: str) -> str:
    if lang not in LANGUAGES:
        raise PuntoBancoError(f"The language is one of {', '.join(LANGUAGES)}, not {lang!r}.",
                              code="bad-lang")
    return lang


def create_player(session: Session, *, username: str, password_hash: str, lang: str,
                  role: str = "player", welcome: int = 0) -> PlayerInfo:
    """A new player with a wallet, credited ``welcome`` cents of play money (one transaction).

    The name is refused when it is taken ignoring case, or looks like a taken one."""
    username = check_username(username)
    shape = skeleton(username)
    if session.scalars(select(Player.id).where(
            (Player.username_key == username.lower()) | (Player.username_skeleton == shape))
            ).first():
        raise PuntoBancoError(f"The username {username!r} is taken.", code="username-taken")
    player = Player(username=username, username_key=username.lower(), password_hash=password_hash,
                    role=role, lang=lang, username_skeleton=shape)
    session.add(player)
    try:
        session.flush()
    except IntegrityError:  # the same name, signed up at the same moment
        raise PuntoBancoError(f"The username {username!r} is taken.",
                              code="username-taken") from None
    wallet = ledger.ensure_account(session, ledger.wallet_code(player.id), kind="wallet",
                                   player_id=player.id)
    if welcome > 0:
        issuer = ledger.ensure_account(session, ledger.ISSUER_CODE, kind="issuer")
        ledger.transfer(session, issuer.id, wallet.id, welcome, reason="welcome",
                        player_id=player.id)
    return info(player)


def find_by_username(session: Session, username: str) -> Player | None:
    """The player of that name (after NFKC), ignoring case; a name no one can have finds no one
    without asking the database (a NUL byte would be an error on PostgreSQL)."""
    name = normalise(username)
    if not valid(name):
        return None
    return session.scalars(select(Player).where(Player.username_key == name.lower())).first()


def open_session(session: Session, player_id: int) -> str:
    """A new session token for the player (only its hash is stored).

    The player's row is locked and its ``suspended`` flag read again in the transaction that
    writes the session (issue 18): a suspension committed while the password was being checked
    (bcrypt takes a quarter of a second) refuses the log-in, and one that commits after waits
    for the lock, then ends this session with the others (:func:`end_sessions`)."""
    suspended = session.execute(select(Player.suspended).where(Player.id == player_id)
                                .with_for_update()).scalar_one_or_none()
    if suspended is None:
        raise PuntoBancoError("Wrong username or password.", code="bad-credentials")
    if suspended:
        raise PuntoBancoError("This account is suspended.", code="account-suspended")
    token = secrets.token_urlsafe(32)
    now = utcnow()
    session.add(LoginSession(player_id=player_id, token_hash=token_hash(token), created_at=now,
                             last_seen_at=now))
    return token


def close_session(session: Session, token: str) -> None:
    session.execute(delete(LoginSession).where(LoginSession.token_hash == token_hash(token)))


def end_sessions(session: Session, player_id: int) -> int:
    """End every session of a player (log out everywhere; the operator's suspension). Returns
    how many ended. Their tokens stop working at once."""
    result = session.execute(delete(LoginSession).where(LoginSession.player_id == player_id))
    return int(result.rowcount)  # type: ignore[attr-defined]


@dataclass(frozen=True, slots=True)
class TokenLookup:
    """Who a token signs in, and whether its session is due for renewal."""

    player: PlayerInfo
    renew: bool


def _aware(moment: datetime) -> datetime:
    """SQLite gives naive datetimes back: they are UTC."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def lookup_token(session: Session, token: str, *, limits: GuardSettings,
                 now: datetime | None = None) -> TokenLookup | None:
    """The player of a live session, or ``None`` when the token is unknown, closed or expired:
    unused for ``session_idle_seconds`` or older than ``session_max_seconds``."""
    return lookup_tokens(session, [token], limits=limits, now=now).get(token)


#: the columns a token lookup reads, as fixed driver SQL (``db/bulk.py``) on the session's
#: connection: a Core ``select`` with an expanding ``IN`` list was compiled again for every
#: number of tokens and its rows went through SQLAlchemy's result machinery, 250-600 µs of a
#: bet batch's transaction against 50 for the query (issue 21); the timestamps are converted by
#: the result processor SQLAlchemy would use (:func:`_moment`)
_LOOKUP = bulk.Sql(
    "SELECT s.token_hash, p.id, p.username, p.role, p.lang, s.created_at, s.last_seen_at "
    "FROM sessions AS s JOIN players AS p ON p.id = s.player_id "
    "WHERE s.token_hash IN (SELECT value FROM json_each(?)) AND p.suspended IS 0",
    "SELECT s.token_hash, p.id, p.username, p.role, p.lang, s.created_at, s.last_seen_at "
    "FROM sessions AS s JOIN players AS p ON p.id = s.player_id "
    "WHERE s.token_hash = ANY(CAST(%b AS TEXT[])) AND p.suspended IS false")
#: :data:`_LOOKUP` on SQLite with the lifetimes applied by the query (issue 21, third pass):
#: SQLAlchemy stores an SQLite ``DATETIME`` as fixed-width text (``2026-12-01
#: 22:50:00.000000``, UTC), so the text of a moment compares as the moment does; the rows'
#: timestamps are neither read nor parsed (half of a batch's session check in Python). The same
#: rules as :func:`lookup_tokens`' loop: live while used within ``session_idle_seconds`` and
#: younger than ``session_max_seconds``; due for renewal once unused ``session_renew_seconds``
_LOOKUP_LIVE_SQLITE = (
    "SELECT s.token_hash, p.id, p.username, p.role, p.lang, "
    "coalesce(s.last_seen_at, s.created_at) < ? "
    "FROM sessions AS s JOIN players AS p ON p.id = s.player_id "
    "WHERE s.token_hash IN (SELECT value FROM json_each(?)) AND p.suspended IS 0 "
    "AND coalesce(s.last_seen_at, s.created_at) >= ? AND s.created_at >= ?")
#: :data:`_LOOKUP`'s rows as one JSON array (PostgreSQL), a column of a query the caller sends
#: anyway (the desk's batch: ``store.read_coup``, issue 21), its timestamps ISO text
#: Each token is looked up by its index (a lateral subquery per token, fenced by ``OFFSET 0``):
#: joined, the planner hashed the whole players table (and, before its statistics, the
#: sessions table) for every batch — 0.5 ms of PostgreSQL's CPU per thousand players.
LOOKUP_JSON_PG = (
    "(SELECT json_agg(json_build_array(s.token_hash, p.id, p.username, p.role, p.lang, "
    "s.created_at, s.last_seen_at)) FROM unnest(CAST(%b AS TEXT[])) AS asked(hash) "
    "CROSS JOIN LATERAL (SELECT token_hash, player_id, created_at, last_seen_at FROM sessions "
    "WHERE token_hash = asked.hash OFFSET 0) AS s "
    "CROSS JOIN LATERAL (SELECT id, username, role, lang FROM players "
    "WHERE id = s.player_id AND suspended IS false OFFSET 0) AS p)")
_MOMENTS: dict[str, Callable[[Any], Any] | None] = {}
#: a session's timestamps' column type (its bind processor writes them)
_RENEWED = LoginSession.__table__.c.last_seen_at.type


def _moment(connection: Connection) -> Callable[[Any], Any]:
    """A stored timestamp as SQLAlchemy's column type reads it (SQLite's text; PostgreSQL's
    driver gives a ``datetime`` already)."""
    name = connection.dialect.name
    if name not in _MOMENTS:
        column_type = LoginSession.__table__.c.created_at.type
        _MOMENTS[name] = column_type.dialect_impl(connection.dialect).result_processor(
            connection.dialect, None)
    return _MOMENTS[name] or (lambda value: value)


def lookup_tokens(session: Session | Connection, tokens: Collection[str], *,
                  limits: GuardSettings,
                  now: datetime | None = None, rows: Sequence[Sequence[Any]] | None = None,
                  ) -> dict[str, TokenLookup]:
    """:func:`lookup_token` for many tokens in one query (the server gathers the requests of a
    moment): each live session's token → its lookup; unknown, closed or expired ones are left
    out, and so is every session of a suspended player (issue 18: whatever session a suspension
    missed, no door opens for it — HTTP, WebSocket, the bet's short way and its group commit
    all look sessions up here). ``rows``: the lookup's rows already read, as
    :data:`LOOKUP_JSON_PG` gives them."""
    hashes = {token_hash(token): token for token in tokens}
    if not hashes:
        return {}
    moment = now or utcnow()
    idle = timedelta(seconds=limits.session_idle_seconds)
    longest = timedelta(seconds=limits.session_max_seconds)
    renew = timedelta(seconds=limits.session_renew_seconds)
    found: dict[str, TokenLookup] = {}
    connection = bulk.connection_of(session)
    if rows is None and not bulk.is_postgresql(connection):  # the lifetimes judged by SQLite
        stamp = _RENEWED.dialect_impl(connection.dialect).bind_processor(connection.dialect)
        assert stamp is not None
        for hashed, player_id, username, role, lang, due in bulk.execute(
                connection, _LOOKUP_LIVE_SQLITE, (
                    stamp(moment - renew), bulk.json_list(hashes), stamp(moment - idle),
                    stamp(moment - longest))):
            found[hashes[hashed]] = TokenLookup(PlayerInfo(player_id, username, role, lang),
                                                bool(due))
        return found
    if rows is None:
        moment_of = _moment(connection)
        asked = (bulk.packed(list(hashes), "TEXT") if bulk.is_postgresql(connection)
                 else bulk.json_list(hashes))
        rows = _LOOKUP.run(connection, (asked,))
    else:
        moment_of = datetime.fromisoformat
    for hashed, player_id, username, role, lang, created_at, last_seen_at in rows:
        if hashed not in hashes:
            continue
        created = _aware(moment_of(created_at))
        seen = _aware(moment_of(last_seen_at)) if last_seen_at is not None else created
        if moment - seen > idle or moment - created > longest:
            continue
        found[hashes[hashed]] = TokenLookup(PlayerInfo(player_id, username, role, lang),
                                            moment - seen > renew)
    return found


class KnownSessions:
    """The sessions the desk's batches found live on SQLite (issue 21, fifth pass): each
    token's player and the moment until which it stays live and not due for renewal by its
    own lifetimes, remembered with ``session_changes.serial`` (migration 0010) as it was read.
    While the serial has not moved no session was deleted or changed and no player's
    ``suspended`` changed — by any process: the database's triggers count them — so a
    remembered session is what the lookup would find until its moment. Any serial read
    otherwise forgets them all."""

    __slots__ = ("owners", "serial")

    #: the most sessions remembered (all forgotten beyond)
    MOST = 100_000

    def __init__(self) -> None:
        self.serial: int | None = None
        #: token → (its player, trusted before this moment)
        self.owners: dict[str, tuple[int, datetime]] = {}


_KNOWN: WeakKeyDictionary[Any, KnownSessions] = WeakKeyDictionary()


def known_sessions(owner: Any) -> KnownSessions:
    """The :class:`KnownSessions` of one database (``owner``: its ``Database``)."""
    found = _KNOWN.get(owner)
    if found is None:
        found = _KNOWN[owner] = KnownSessions()
    return found


_SERIAL_SQLITE = "SELECT serial FROM session_changes"
#: :data:`_LOOKUP_LIVE_SQLITE` with the timestamps a remembered session needs
_LOOKUP_KNOWN_SQLITE = (
    "SELECT s.token_hash, p.id, coalesce(s.last_seen_at, s.created_at) < ?, "
    "coalesce(s.last_seen_at, s.created_at), s.created_at "
    "FROM sessions AS s JOIN players AS p ON p.id = s.player_id "
    "WHERE s.token_hash IN (SELECT value FROM json_each(?)) AND p.suspended IS 0 "
    "AND coalesce(s.last_seen_at, s.created_at) >= ? AND s.created_at >= ?")


def live_owners(connection: Connection, tokens: Collection[str], *, limits: GuardSettings,
                known: KnownSessions, now: datetime | None = None,
                ) -> tuple[dict[str, int], list[str]]:
    """:func:`lookup_tokens` for the desk's batch on SQLite, with the sessions it found live
    remembered (:class:`KnownSessions`): each live session's token → its player, and the
    tokens due for renewal (the caller renews them). One read of ``session_changes`` and the
    lookup of the tokens not remembered, or remembered past their moment; the same answer as
    :func:`lookup_tokens` (``tests/server/test_known_sessions.py``)."""
    moment = now or utcnow()
    serial = bulk.execute(connection, _SERIAL_SQLITE)[0][0]
    owners = known.owners
    if serial != known.serial or len(owners) > known.MOST:
        owners.clear()
        known.serial = serial
    found: dict[str, int] = {}
    asked: dict[str, str] = {}
    for token in tokens:
        entry = owners.get(token)
        if entry is not None and moment < entry[1]:
            found[token] = entry[0]
        else:
            asked[token_hash(token)] = token
    due: list[str] = []
    if not asked:
        return found, due
    stamp = _RENEWED.dialect_impl(connection.dialect).bind_processor(connection.dialect)
    assert stamp is not None
    moment_of = _moment(connection)
    renew = timedelta(seconds=limits.session_renew_seconds)
    idle = timedelta(seconds=limits.session_idle_seconds)
    longest = timedelta(seconds=limits.session_max_seconds)
    for hashed, player_id, renewal, seen, created in bulk.execute(
            connection, _LOOKUP_KNOWN_SQLITE, (
                stamp(moment - renew), bulk.json_list(asked), stamp(moment - idle),
                stamp(moment - longest))):
        token = asked[hashed]
        found[token] = player_id
        if renewal:
            due.append(token)  # its renewal is written in this transaction: looked up again
            continue
        until = min(_aware(moment_of(seen)) + min(renew, idle),
                    _aware(moment_of(created)) + longest)
        owners[token] = (player_id, until)
    return found, due


def renew_session(session: Session, token: str, *, now: datetime | None = None) -> None:
    """Slide the session's idle lifetime forward (it was just used)."""
    session.execute(update(LoginSession).where(LoginSession.token_hash == token_hash(token))
                    .values(last_seen_at=now or utcnow()))


def renew_sessions(session: Session | Connection, tokens: Collection[str], *,
                   now: datetime | None = None) -> None:
    """:func:`renew_session` for many tokens at once (one statement; on a bare SQLite
    connection, the desk's batch: driver SQL, the timestamp as SQLAlchemy writes it; on
    PostgreSQL, a Core statement on the session or the Core connection)."""
    if tokens and isinstance(session, Connection) and not bulk.is_postgresql(session):
        seen = now or utcnow()
        convert = _RENEWED.dialect_impl(session.dialect).bind_processor(session.dialect)
        bulk.execute(session, "UPDATE sessions SET last_seen_at = ? WHERE token_hash IN "
                     "(SELECT value FROM json_each(?))",
                     (convert(seen) if convert else seen,
                      bulk.json_list(token_hash(t) for t in tokens)))
    elif tokens:
        session.execute(update(LoginSession)
                        .where(LoginSession.token_hash.in_([token_hash(t) for t in tokens]))
                        .values(last_seen_at=now or utcnow()))


def player_for_token(session: Session, token: str) -> PlayerInfo | None:
    """The player of a live session with the default lifetimes (no renewal)."""
    found = lookup_token(session, token, limits=GuardSettings())
    return None if found is None else found.player
