"""Signing up and in, the player's own record, and the table's words."""

from __future__ import annotations

import functools
import hashlib
import json
from typing import Any

from fastapi import APIRouter, Request, Response
from sqlalchemy import update
from sqlalchemy.orm import Session

from puntobanco.errors import PuntoBancoError
from puntobanco.i18n import all_words
from puntobanco.server.api.deps import (
    CasinoDep,
    GuardsDep,
    SignedIn,
    bearer_token,
    forget_sessions,
    request_lang,
)
from puntobanco.server.api.guard import client_address
from puntobanco.server.api.schemas import (
    ERRORS,
    AuthOut,
    LangIn,
    LoginIn,
    LogoutOut,
    OkOut,
    PlayerOut,
    SignupIn,
)
from puntobanco.server.db import auth, ledger
from puntobanco.server.db.auth import PlayerInfo
from puntobanco.server.db.models import Player
from puntobanco.server.usernames import normalise

router = APIRouter(prefix="/api", tags=["players"], responses=ERRORS)


def player_fields(player: PlayerInfo, balance: int) -> dict[str, Any]:
    """The ``player`` object of docs/api.md."""
    return {"id": player.id, "username": player.username, "role": player.role,
            "lang": player.lang, "balance": balance}


def player_json(session: Session, player: PlayerInfo) -> dict[str, Any]:
    return player_fields(player, ledger.wallet_balance(session, player.id))


@router.post("/signup", status_code=201, response_model=AuthOut)
async def signup(body: SignupIn, request: Request, casino: CasinoDep,
                 guards: GuardsDep) -> dict[str, Any]:
    """Open an account; it starts with a play-money welcome credit (a ledger transaction).

    The name is normalised (NFKC) and refused when it looks like a taken one."""
    request.state.lang = body.lang  # a refusal speaks the language the player asked for
    username = auth.check_username(body.username)
    auth.check_password(body.password)
    guards.login_address.check(client_address(request.client),
                               "Too many sign-ins from this address: wait a moment.")
    lang = body.lang or request_lang(request)
    hashed = await guards.hashing.run(auth.hash_password, body.password,
                                      rounds=casino.config.bcrypt_rounds)

    def create(session: Session) -> dict[str, Any]:
        player = auth.create_player(session, username=username, password_hash=hashed,
                                    lang=lang, welcome=casino.config.welcome_credit)
        return {"token": auth.open_session(session, player.id),
                "player": player_json(session, player)}

    return await casino.db.run_write(create)


@router.post("/login", response_model=AuthOut)
async def login(body: LoginIn, request: Request, casino: CasinoDep,
                guards: GuardsDep) -> dict[str, Any]:
    """Sign in. Attempts are limited per account name and per address (429, ``Retry-After``)."""
    account = normalise(body.username).casefold()[:64]
    guards.login_address.check(client_address(request.client),
                               "Too many sign-ins from this address: wait a moment.")
    guards.login_account.check(account, "Too many sign-ins for this account: wait a moment.")
    found = await casino.db.run_read(lambda s: auth.find_by_username(s, body.username))
    # an unknown name costs a hash check too, so the answer's timing does not tell names apart
    hashed = found.password_hash if found is not None else auth.DUMMY_HASH
    matches = await guards.hashing.run(auth.password_matches, body.password, hashed)
    if found is None or not matches:
        raise PuntoBancoError("Wrong username or password.", code="bad-credentials")
    if found.suspended:  # docs/operator.md: a suspended player cannot sign in
        raise PuntoBancoError("This account is suspended.", code="account-suspended")
    player = auth.info(found)

    def open_session(session: Session) -> dict[str, Any]:
        return {"token": auth.open_session(session, player.id),
                "player": player_json(session, player)}

    return await casino.db.run_write(open_session)


@router.post("/logout", response_model=OkOut)
async def logout(request: Request, player: SignedIn, casino: CasinoDep) -> dict[str, Any]:
    """Close this session (the token stops working, its WebSockets are closed on every server
    process)."""
    token = bearer_token(request)
    assert token is not None
    await casino.db.run_write(lambda s: auth.close_session(s, token))
    forget_sessions(casino, player.id, token)
    casino.end_sessions(player.id, auth.token_hash(token))  # its sockets, on every process
    return {"ok": True}


@router.post("/logout-everywhere", response_model=LogoutOut)
async def logout_everywhere(player: SignedIn, casino: CasinoDep) -> dict[str, Any]:
    """Close every session of the caller, this one included (every token stops working, every
    signed-in WebSocket of the caller is closed with 4401, on every server process)."""
    ended = await casino.db.run_write(lambda s: auth.end_sessions(s, player.id))
    forget_sessions(casino, player.id)
    casino.end_sessions(player.id)  # the player's sockets, on every process
    return {"ok": True, "sessions": ended}


@router.get("/me", response_model=PlayerOut)
async def me(player: SignedIn, casino: CasinoDep) -> dict[str, Any]:
    return await casino.db.run_read(lambda s: player_json(s, player))


@router.patch("/me", response_model=PlayerOut)
async def set_language(body: LangIn, player: SignedIn, casino: CasinoDep) -> dict[str, Any]:
    """Choose the language of the page and of refusals."""

    def change(session: Session) -> dict[str, Any]:
        session.execute(update(Player).where(Player.id == player.id).values(lang=body.lang))
        changed = PlayerInfo(player.id, player.username, player.role, body.lang)
        return player_json(session, changed)

    answer = await casino.db.run_write(change)
    forget_sessions(casino, player.id)  # a bet's refusals are in the new language at once
    return answer


@functools.cache
def _words_body() -> tuple[bytes, str]:
    """The words as JSON once, with their ETag (a digest: it changes when a word does)."""
    body = json.dumps(all_words(), ensure_ascii=False, separators=(",", ":")).encode()
    return body, f'"{hashlib.sha256(body).hexdigest()[:20]}"'


@router.get("/words", response_model=dict[str, dict[str, str]])
async def words(request: Request) -> Response:
    """Every word of the table in every language (bet names, refusals), with an ETag: a page
    that has them asks again with ``If-None-Match`` and gets a bodiless 304."""
    body, etag = _words_body()
    headers = {"ETag": etag, "Cache-Control": "no-cache"}
    if etag in request.headers.get("if-none-match", ""):
        return Response(status_code=304, headers=headers)
    return Response(body, media_type="application/json", headers=headers)
