"""Signing up and in, the player's own record, and the table's words."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from sqlalchemy import update
from sqlalchemy.orm import Session

from puntobanco.errors import PuntoBancoError
from puntobanco.i18n import all_words
from puntobanco.server.api.deps import CasinoDep, SignedIn, bearer_token, request_lang
from puntobanco.server.api.schemas import AuthOut, LangIn, LoginIn, OkOut, PlayerOut, SignupIn
from puntobanco.server.db import auth, ledger
from puntobanco.server.db.auth import PlayerInfo
from puntobanco.server.db.models import Player

router = APIRouter(prefix="/api", tags=["players"])


def player_fields(player: PlayerInfo, balance: int) -> dict[str, Any]:
    """The ``player`` object of docs/api.md."""
    return {"id": player.id, "username": player.username, "role": player.role,
            "lang": player.lang, "balance": balance}


def player_json(session: Session, player: PlayerInfo) -> dict[str, Any]:
    return player_fields(player, ledger.wallet_balance(session, player.id))


@router.post("/signup", status_code=201, response_model=AuthOut)
async def signup(body: SignupIn, request: Request, casino: CasinoDep) -> dict[str, Any]:
    """Open an account; it starts with a play-money welcome credit (a ledger transaction)."""
    request.state.lang = body.lang  # a refusal speaks the language the player asked for
    auth.check_username(body.username)
    auth.check_password(body.password)
    lang = body.lang or request_lang(request)
    hashed = await run_in_threadpool(auth.hash_password, body.password,
                                     rounds=casino.config.bcrypt_rounds)

    def create(session: Session) -> dict[str, Any]:
        player = auth.create_player(session, username=body.username, password_hash=hashed,
                                    lang=lang, welcome=casino.config.welcome_credit)
        return {"token": auth.open_session(session, player.id),
                "player": player_json(session, player)}

    return await casino.db.run_write(create)


@router.post("/login", response_model=AuthOut)
async def login(body: LoginIn, casino: CasinoDep) -> dict[str, Any]:
    found = await casino.db.run_read(lambda s: auth.find_by_username(s, body.username))
    # an unknown name costs a hash check too, so the answer's timing does not tell names apart
    hashed = found.password_hash if found is not None else auth.DUMMY_HASH
    matches = await run_in_threadpool(auth.password_matches, body.password, hashed)
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
    """Close this session (the token stops working)."""
    token = bearer_token(request)
    assert token is not None
    await casino.db.run_write(lambda s: auth.close_session(s, token))
    return {"ok": True}


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

    return await casino.db.run_write(change)


@router.get("/words")
async def words() -> dict[str, dict[str, str]]:
    """Every word of the table in every language (bet names, refusals)."""
    return all_words()
