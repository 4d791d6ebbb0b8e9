"""The application factory: FastAPI, the REST and WebSocket routes, the page, and the casino.

Nothing touches the database until the application starts:

>>> app = create_app(ServerSettings(database_url="sqlite:///unused.sqlite3"))
>>> "/api/tables/{table_id}/bets" in app.openapi()["paths"]
True
"""

from __future__ import annotations

import asyncio
import re
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import parse_qsl

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.gzip import GZipMiddleware
from fastapi.responses import HTMLResponse, JSONResponse, Response
from starlette.exceptions import HTTPException
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket

from puntobanco import __version__
from puntobanco.errors import PuntoBancoError
from puntobanco.server.api import auth as api_auth
from puntobanco.server.api import dealer as api_dealer
from puntobanco.server.api import operator as api_operator
from puntobanco.server.api import outage, ws
from puntobanco.server.api import recall as api_recall
from puntobanco.server.api import reports as api_reports
from puntobanco.server.api import tables as api_tables
from puntobanco.server.api.deps import (
    error_response,
    on_http_error,
    on_puntobanco_error,
    on_validation_error,
)
from puntobanco.server.api.fastbets import FastBets
from puntobanco.server.api.guard import Guard, Guards
from puntobanco.server.api.schemas import MAX_ID
from puntobanco.server.db.engine import migrate
from puntobanco.server.db.health import outage_code
from puntobanco.server.live import collector
from puntobanco.server.live.casino import Casino
from puntobanco.server.live.clock import Clock
from puntobanco.server.settings import ServerSettings
from puntobanco.server.static_files import add_docs_routes, mount_static, versioned_page

DESCRIPTION = """Punto Banco "2000" with the Lion Bonus: a live multi-player table.

Amounts are integer cents. Errors answer `{"error": {"code", "message"}}`. The table's events
are pushed on the WebSocket `/ws/tables/{id}`; see `docs/api.md` for the messages and for the
provably fair commitment of each shoe."""


#: seconds between the interpreter's forced GIL hand-overs in a server process (see lifespan)
SWITCH_INTERVAL = 0.0002


#: a table's socket, taken the short way: ``/ws/tables/{id}`` with at most a ``token``
_TABLE_SOCKET = re.compile(r"/ws/tables/([1-9][0-9]{0,9})")


class PuntoBancoApp(FastAPI):
    """FastAPI, with a plain bet taken the short way before any middleware
    (:class:`~puntobanco.server.api.fastbets.FastBets`, issue 8), and a table's WebSocket too
    (issue 21): no middleware does anything to a WebSocket but wrap each message it sends
    (Starlette's exception layer), and the socket's endpoint is called with uvicorn's own
    ``send``, so that a table message is written as one pre-built frame
    (:mod:`puntobanco.server.api.frames`). The endpoint is the route's
    (:func:`puntobanco.server.api.ws.table_socket`); a path or query it does not take plainly
    goes to the route."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.fast_bets = FastBets(super().__call__, self.state)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "POST":
            await self.fast_bets(scope, receive, send)
        elif scope["type"] == "websocket" and (
                found := _TABLE_SOCKET.fullmatch(scope["path"])) is not None and (
                (query := _token_query(scope["query_string"])) is not None) and (
                int(found.group(1)) <= MAX_ID):
            scope["app"] = self
            await ws.table_socket(WebSocket(scope, receive, send), int(found.group(1)),
                                  query or None)
        else:
            await super().__call__(scope, receive, send)


def _token_query(query: bytes) -> str | None:
    """The token of a query string ``""`` or ``token=…`` (``""``: none), else ``None``.

    >>> _token_query(b""), _token_query(b"token=abc"), _token_query(b"token=a&lang=fr")
    ('', 'abc', None)
    """
    if not query:
        return ""
    pairs = parse_qsl(query.decode("latin-1"), keep_blank_values=True)
    if len(pairs) != 1 or pairs[0][0] != "token":
        return None
    return pairs[0][1]


def create_app(settings: ServerSettings | None = None, *,
               on_ready: Callable[[Casino], None] | None = None,
               clock: Clock | None = None) -> FastAPI:
    """The web application. Starting it migrates the database, seeds an empty one and starts
    every table's dealer; stopping it lets each dealer finish its coup (or void its open round).
    ``clock`` paces the rounds (``live/clock.py``; the wall clock unless a test passes its own).
    """
    config = settings if settings is not None else ServerSettings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # The database threads give the GIL back on every SQLite step or network wait; with the
        # default 5 ms switch interval a busy event loop made a batch of bets wait ~5 ms for
        # each of them (a 45 ms batch took 0.9 s). Issue 8: 0.2 ms keeps them moving.
        sys.setswitchinterval(SWITCH_INTERVAL)
        await asyncio.to_thread(migrate, config.database_url)
        casino = Casino(config, clock=clock)
        app.state.casino = casino
        casino.end_player_sockets = app.state.guards.sockets.end_sessions  # a suspension
        try:
            await casino.open()
            collector.start()  # full garbage collections at quiet moments only (issue 8)
            backstop = asyncio.create_task(collector.backstop())
            try:
                if on_ready is not None:
                    on_ready(casino)
                yield
            finally:
                backstop.cancel()
                collector.stop()
        finally:
            await casino.close()

    app = PuntoBancoApp(title="puntobanco", version=__version__, description=DESCRIPTION,
                  lifespan=lifespan, docs_url=None, redoc_url=None)  # /docs is served locally
    app.state.guards = Guards(config.guard)
    # Compressed answers (the page's scripts, the snapshot); small ones are not worth it.
    app.add_middleware(GZipMiddleware, minimum_size=500)
    app.add_middleware(Guard)  # body limit and security headers (issue 9), outermost
    app.add_exception_handler(PuntoBancoError, on_puntobanco_error)
    app.add_exception_handler(RequestValidationError, on_validation_error)
    app.add_exception_handler(HTTPException, on_http_error)
    outage.install(app)  # 503 while the database is away or full, /healthz (issue 22)
    app.add_exception_handler(Exception, _on_unexpected)
    for module in (api_auth, api_tables, api_recall, api_operator, api_reports, api_dealer,
                   ws):
        app.include_router(module.router)
    mount_static(app, config.static_dir)
    add_docs_routes(app)

    # The three pages: the player's table, the operator console (its API answers operators
    # only; docs/operator.md) and the dealer's page of a hand-dealt table (docs/dealer.md).
    for path, file, missing in (
            ("/", "index.html", "The table's page is not installed; the API is at "
                                "<a href=/docs>/docs</a>."),
            ("/operator", "operator.html", "The operator console is not installed."),
            ("/dealer", "dealer.html", "The dealer's page is not installed.")):
        app.add_api_route(path, _page(config, file, missing), methods=["GET", "HEAD"],
                          include_in_schema=False)  # HEAD: uptime checks (issue 18)

    return app


def _page(config: ServerSettings, file: str, missing: str) -> Callable[[], Awaitable[Response]]:
    async def page() -> Response:
        text = versioned_page(config.static_dir, file)
        if text is not None:
            return HTMLResponse(text, headers={"Cache-Control": "no-cache"})
        return HTMLResponse(f"<!doctype html><title>puntobanco</title><p>{missing}",
                            status_code=503)

    return page


async def _on_unexpected(request: Request, error: Exception) -> JSONResponse:
    if outage_code(error) is not None:  # a database outage under another exception: a 503
        return await outage.on_database_error(request, error)
    return error_response(request, "internal-error", "Something went wrong on the server.")
