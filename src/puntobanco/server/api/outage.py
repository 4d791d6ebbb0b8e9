"""The answers of a request that needs the database while it is away or its disk full (issue 22).

Such a request is answered **503** ``{"error": {"code": "database-unavailable" | "storage-full",
"message": <the sentence in the request's language>}}`` with ``Retry-After`` — never a 500 nor
plain text — by an exception handler of its own (Starlette's exception layer: the keep-alive
connection stays usable, where the catch-all 500 handler re-raised and the connection was
closed). The database's state changes are logged once each by
:class:`~puntobanco.server.db.health.Health`, not here: a refused request is only counted.
A database error that is not an outage (a constraint broken: a bug) is logged with its
traceback and answered ``internal-error`` as before, on a connection that stays open.

``GET /healthz`` is the load balancer's probe (``docs/server.md``, "When the database goes
away"): 200 ``{"ready": true, …}`` while this process reaches its database, 503 otherwise;
what it says is what the process knows already, so a probe costs no database query.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Awaitable
from typing import Annotated, Any, Literal, TypeVar

from fastapi import APIRouter, Depends, FastAPI, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from sqlalchemy import exc as sa_exc

from puntobanco.server.api.deps import (
    bearer_token,
    error_response,
    known_player,
    optional_player,
    request_lang,
)
from puntobanco.server.api.schemas import ERRORS
from puntobanco.server.db.auth import PlayerInfo
from puntobanco.server.db.health import (
    STORAGE_FULL,
    UNAVAILABLE,
    DatabaseUnavailable,
    Health,
    outage_code,
)
from puntobanco.server.messages import error_message

log = logging.getLogger("puntobanco.server.api")

router = APIRouter()
T = TypeVar("T")


def database_errors() -> tuple[type[Exception], ...]:
    """The exception classes a database call can raise: SQLAlchemy's, and the drivers' own
    (the batches of bets use the driver's cursor, ``db/bulk.py``)."""
    found: list[type[Exception]] = [sa_exc.DBAPIError, sa_exc.DisconnectionError,
                                        sa_exc.TimeoutError, sqlite3.Error, DatabaseUnavailable]
    try:
        import psycopg
    except ImportError:  # pragma: no cover - psycopg is a dependency
        pass
    else:
        found.append(psycopg.Error)
    return tuple(found)


def health_of(state: Any) -> Health | None:
    """The database health of the application's casino (``None`` before it started)."""
    casino = getattr(state, "casino", None)
    if casino is None:
        return None
    health: Health = casino.db.health
    return health


def refusal(health: Health | None, error: BaseException | None, path: str) -> str | None:
    """The outage code to answer ``error`` with (counted as a refusal), or ``None``."""
    code = outage_code(error) if error is not None else None
    if code is None:
        return None
    if health is not None:
        if code == UNAVAILABLE and health.code == STORAGE_FULL:
            code = STORAGE_FULL
        health.refuse("bets" if path.endswith("/bets") or "/bets/" in path else "requests")
    return code


def body(code: str, lang: str | None) -> dict[str, Any]:
    return {"error": {"code": code, "message": error_message(DatabaseUnavailable(code), lang)}}


async def on_database_error(request: Request, error: Exception) -> JSONResponse:
    code = refusal(health_of(request.app.state), error, request.url.path)
    if code is None:  # not an outage: a bug, answered as one (the connection stays usable)
        log.error("%s %s failed", request.method, request.url.path, exc_info=error)
        return error_response(request, "internal-error", "Something went wrong on the server.")
    return JSONResponse(body(code, request_lang(request)), status_code=503,
                        headers={"Retry-After": str(DatabaseUnavailable(code).retry_after)})


async def unless_away(read: Awaitable[T]) -> T | None:
    """What ``read`` gives, or ``None`` while the database is away (a snapshot served from
    memory without its database part)."""
    try:
        return await read
    except Exception as error:
        if outage_code(error) is None:
            raise
        return None


async def player_if_reachable(request: Request) -> PlayerInfo | None:
    """The signed-in player as :func:`~puntobanco.server.api.deps.optional_player` finds
    them; while the database is away, the player this process saw live in the last minute, or
    nobody (the answer is then a spectator's)."""
    casino = request.app.state.casino
    try:
        return await optional_player(request, casino)
    except Exception as error:
        if outage_code(error) is None:
            raise
    token = bearer_token(request)
    return known_player(casino, token) if token is not None else None


PlayerIfReachable = Annotated[PlayerInfo | None, Depends(player_if_reachable)]


def install(app: FastAPI) -> None:
    """The 503 handlers and ``/healthz``."""
    for kind in database_errors():
        app.add_exception_handler(kind, on_database_error)
    app.include_router(router)


class DatabaseHealth(BaseModel):
    available: bool
    code: Literal["database-unavailable", "storage-full"] | None
    since: int | None = Field(description="epoch ms")
    backend: str
    last_answer_seconds: float | None = Field(
        description="since the last call that reached the database")


class TablesHere(BaseModel):
    dealt_here: list[int]
    served: list[int]
    out_of_service: list[int]


class DiskOut(BaseModel):
    path: str
    free_bytes: int | None
    reserve_bytes: int
    wal_bytes: int | None
    bets_in_play: int


class HealthOut(BaseModel):
    ready: bool
    database: DatabaseHealth | None
    tables: TablesHere | None = None
    disk: DiskOut | None = Field(default=None, description="SQLite only")


@router.get("/healthz", tags=["health"], response_model=HealthOut, responses={
    **ERRORS, 503: {"model": HealthOut, "description": "not ready: the database is away"}})
async def healthz(request: Request) -> JSONResponse:
    """Ready (200) only while this process reaches its database; 503 otherwise (a full disk
    keeps it ready: it serves the tables and refuses bets, ``storage-full``). The answer is
    what the process knows (no query is made: a load balancer may ask every second; the
    database is probed in the background at least every few seconds): the database's state,
    how long ago it last answered, the tables dealt here, and on SQLite the free disk space
    and the reserve kept for the bets in play."""
    state = request.app.state
    casino = getattr(state, "casino", None)
    if casino is None:
        return JSONResponse({"ready": False, "database": None}, status_code=503,
                            headers={"Cache-Control": "no-store"})
    health: Health = casino.db.health
    last = health.last_ok
    dealt = sorted(table for table, dealer in casino.dealers.items() if not dealer.following)
    ready = health.code != UNAVAILABLE
    answer = {
        "ready": ready,
        "database": {**health.state(), "backend": health.backend,
                     "last_answer_seconds": None if last is None
                     else round(time.monotonic() - last, 3)},
        "tables": {"dealt_here": dealt, "served": sorted(casino.dealers),
                   "out_of_service": sorted(casino.broken)},
        "disk": health.disk(),
    }
    return JSONResponse(answer, status_code=200 if ready else 503,
                        headers={"Cache-Control": "no-store"})
