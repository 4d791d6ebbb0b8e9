"""Many test players at once (``puntobanco players create``): one password hash for all, each
player with a wallet credited the welcome credit in the ledger, one transaction per chunk.

Sign-up pays a bcrypt hash per player (cost 12: about 0.25 s of CPU each); an operator making
test accounts, or a load test seating 5,000 players, pays it once here. The rows are those a
sign-up writes (:func:`puntobanco.server.db.auth.create_player`): the player (name NFKC, its
case-folded key and look-alike skeleton checked against every taken name), the wallet account
``wallet:<id>``, and a ``welcome`` ledger transaction of two entries from ``play-money`` —
written with :mod:`~puntobanco.server.db.bulk` (fixed SQL, a few statements a chunk), so
:func:`~puntobanco.server.db.ledger.audit` holds afterwards as after sign-ups.

**A database in play.** Test accounts in a casino whose players' money matters to them would
mix with real players (their reports, the player list, the house's figures). This module calls
a database *in play* when any money has moved beyond the welcome credits: any ledger
transaction other than ``welcome`` (a stake, a payout, a refund, an operator's credit). The
command refuses to write into one without ``--yes`` (:func:`in_play`).
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

from sqlalchemy import Table, select
from sqlalchemy.orm import Session

from puntobanco.errors import PuntoBancoError
from puntobanco.server.db import auth, bulk, ledger
from puntobanco.server.db.models import Account, LedgerTransaction, LoginSession, Player, utcnow
from puntobanco.server.usernames import skeleton

#: players written per transaction
CHUNK = 1000
#: the most players one command makes
MAX_COUNT = 100_000

_PLAYERS = cast(Table, Player.__table__)
_ACCOUNTS = cast(Table, Account.__table__)
_SESSIONS = cast(Table, LoginSession.__table__)


@dataclass(frozen=True, slots=True)
class Made:
    """A player written: its id, name, and a session token when one was asked for."""

    id: int
    username: str
    token: str | None = None


def usernames(prefix: str, count: int, *, start: int = 1) -> list[str]:
    """The names ``prefix<start>`` … ``prefix<start + count - 1>``, each checked as a sign-up's.

    >>> usernames("qa-", 3)
    ['qa-1', 'qa-2', 'qa-3']
    """
    if not 1 <= count <= MAX_COUNT:
        raise PuntoBancoError(f"--count is 1 to {MAX_COUNT:,}, not {count}.", code="bad-request")
    if start < 0:
        raise PuntoBancoError(f"--start is 0 or more, not {start}.", code="bad-request")
    return [auth.check_username(f"{prefix}{number}")
            for number in range(start, start + count)]


def in_play(session: Session) -> bool:
    """Whether money has moved here beyond welcome credits (see the module's docstring)."""
    return session.scalars(select(LedgerTransaction.id).where(
        LedgerTransaction.reason != "welcome").limit(1)).first() is not None


def taken(session: Session, names: Sequence[str]) -> str | None:
    """The first of ``names`` taken (ignoring case) or looking like a taken name, or ``None``."""
    keys = {name.lower(): name for name in names}
    shapes = {skeleton(name): name for name in names}
    for key in session.scalars(select(Player.username_key).where(
            Player.username_key.in_(list(keys)))):
        return keys[key]
    for shape in session.scalars(select(Player.username_skeleton).where(
            Player.username_skeleton.in_(list(shapes)))):
        if shape is not None:
            return shapes[shape]
    return None


def create_players(session: Session, names: Sequence[str], *, password_hash: str, lang: str,
                   welcome: int, sessions: bool = False) -> list[Made]:
    """Write ``names`` as players in the session's transaction (the caller chunks them), each
    with a wallet credited ``welcome`` cents of play money, and a session each when
    ``sessions``. A name taken or looking like a taken one refuses the whole call."""
    auth.check_lang(lang)
    if len({skeleton(name) for name in names}) != len(names):
        raise PuntoBancoError("Two of the new names look alike.", code="username-taken")
    clash = taken(session, names)
    if clash is not None:
        raise PuntoBancoError(f"The username {clash!r} is taken.", code="username-taken")
    issuer = ledger.ensure_account(session, ledger.ISSUER_CODE, kind="issuer").id
    now = utcnow()
    writes = bulk.Writes(session.connection())
    writes.reserve([(_PLAYERS, len(names)), (_ACCOUNTS, len(names)),
                    (ledger.TRANSACTIONS, len(names) if welcome > 0 else 0),
                    (_SESSIONS, len(names) if sessions else 0)])
    ids = writes.insert_with_ids(_PLAYERS, (
        "username", "username_key", "password_hash", "role", "lang", "created_at",
        "username_skeleton", "suspended"), [
        (name, name.lower(), password_hash, "player", lang, now, skeleton(name), False)
        for name in names])
    wallets = writes.insert_with_ids(_ACCOUNTS, ("code", "kind", "player_id", "table_id",
                                                 "balance"), [
        (ledger.wallet_code(player), "wallet", player, None, 0) for player in ids])
    writes.flush()  # the wallets exist before the credits lock and update them
    if welcome > 0:
        ledger.post(session, [ledger.Move(issuer, wallet, welcome, "welcome",
                                          player_id=player)
                              for player, wallet in zip(ids, wallets, strict=True)],
                    writes=writes)
    tokens: list[str | None] = [None] * len(ids)
    if sessions:
        tokens = [secrets.token_urlsafe(32) for _ in ids]
        writes.insert(_SESSIONS, ("player_id", "token_hash", "created_at", "last_seen_at"), [
            (player, auth.token_hash(token), now, now)
            for player, token in zip(ids, tokens, strict=True) if token is not None])
    writes.flush()
    return [Made(player, name, token)
            for player, name, token in zip(ids, names, tokens, strict=True)]
