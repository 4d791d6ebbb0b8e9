"""Players, passwords and sessions.

Passwords are hashed with bcrypt; session tokens are 32 random bytes given to the client once,
and only their SHA-256 is stored, so a copy of the database opens no session.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass

import bcrypt
from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from puntobanco.errors import PuntoBancoError
from puntobanco.i18n import LANGUAGES
from puntobanco.server.db import ledger
from puntobanco.server.db.models import LoginSession, Player
from puntobanco.server.settings import MAX_PASSWORD, MIN_PASSWORD

USERNAME = re.compile(r"^[A-Za-z0-9_.\-]{3,32}$")
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


def check_username(username: str) -> None:
    if not USERNAME.match(username):
        raise PuntoBancoError("A username is 3 to 32 letters, digits, dots, dashes or "
                              "underscores.", code="bad-username")


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
    """A new player with a wallet, credited ``welcome`` cents of play money (one transaction)."""
    if session.scalars(select(Player.id).where(Player.username_key == username.lower())).first():
        raise PuntoBancoError(f"The username {username!r} is taken.", code="username-taken")
    player = Player(username=username, username_key=username.lower(), password_hash=password_hash,
                    role=role, lang=lang)
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
    return session.scalars(select(Player).where(Player.username_key == username.lower())).first()


def open_session(session: Session, player_id: int) -> str:
    """A new session token for the player (only its hash is stored)."""
    token = secrets.token_urlsafe(32)
    session.add(LoginSession(player_id=player_id, token_hash=token_hash(token)))
    return token


def close_session(session: Session, token: str) -> None:
    session.execute(delete(LoginSession).where(LoginSession.token_hash == token_hash(token)))


def player_for_token(session: Session, token: str) -> PlayerInfo | None:
    player = session.scalars(select(Player).join(LoginSession).where(
        LoginSession.token_hash == token_hash(token))).first()
    return None if player is None else info(player)
