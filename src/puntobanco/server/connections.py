"""The HTTP protocol every ``serve`` runs (issue 18): uvicorn's own, with one timer more and
(issue 21, fourth pass) a plain bet answered by the protocol itself.

uvicorn closes a keep-alive connection that stays idle ``timeout_keep_alive`` seconds after an
answer, but starts that timer only once a first answer is sent: a client that connects and
never sends a request kept its socket (and a file descriptor) open for as long as it liked (over
100 s seen). :class:`FirstRequestTimeout` starts the same timer when the connection is made, so
such a connection is closed exactly as an idle keep-alive one is; the first byte received stops
it, as it stops the keep-alive timer (uvicorn's ``data_received``).

A bet over HTTP (``POST /api/tables/{id}/bets``) cost the event loop more in uvicorn's and
ASGI's work per request than in the bet: the request's scope, its URL parsed, a
``RequestResponseCycle`` and a task to run the application, the body handed over through an
``asyncio.Event``, two ``send`` calls checking every header, then the application's coroutines.
:class:`HttpToolsFirstRequestTimeout` holds back a request that may be a plain bet — ``POST``,
that path with no query string, headers of :func:`~puntobanco.server.api.fastbets.plain_headers`,
no ``Expect``, no request of the connection still answering — until its body is read, then
gives it to :func:`~puntobanco.server.api.fastbets.quick_http_bet`, which queues it at the
desk and answers it through :meth:`~HttpToolsFirstRequestTimeout.reply` from the desk's
future: the same bytes uvicorn writes for the application's answer (its status line, its
``date``, the answer's headers, ``connection: close`` when the connection is not kept alive).
Everything else — and a bet the short way leaves — starts uvicorn's own cycle then, with the
body already read, exactly as if the request had just been read (``on_headers_complete`` then
``on_message_complete``). The connection's bookkeeping is uvicorn's: the request is its
``cycle`` while the bet waits (a pipelined request waits behind it, a client gone is not
answered, a graceful shutdown closes the connection after the answer), and the answer ends
with uvicorn's ``on_response_complete`` (the keep-alive timer, the next pipelined request).
With uvicorn's access log written (``--log-level info``), a concurrency limit or a root path,
nothing is held back.
"""

from __future__ import annotations

import asyncio
import logging
import re
from typing import Any

from starlette.datastructures import State
from uvicorn.protocols.http.h11_impl import H11Protocol

from puntobanco.server.api.fastbets import (
    JSON_ANSWER,
    bug_answer,
    plain_headers,
    quick_http_bet,
)
from puntobanco.server.api.schemas import MAX_ID

try:
    from uvicorn.protocols.http.httptools_impl import (
        STATUS_LINE,
        HttpToolsProtocol,
        RequestResponseCycle,
    )
except ImportError:  # pragma: no cover - uvicorn without httptools: h11 serves
    HttpToolsProtocol = None  # type: ignore[assignment,misc]

#: a bet's path, as the request line gives it (no query string, nothing escaped)
_BET_URL = re.compile(rb"/api/tables/([1-9][0-9]{0,9})/bets")


class _FirstRequestTimer:
    """Starts the keep-alive timer as soon as the connection is made."""

    loop: asyncio.AbstractEventLoop
    timeout_keep_alive: int
    timeout_keep_alive_task: asyncio.TimerHandle | None

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)  # type: ignore[misc]
        if self.timeout_keep_alive_task is None:
            self.timeout_keep_alive_task = self.loop.call_later(
                self.timeout_keep_alive, self.timeout_keep_alive_handler)
    timeout_keep_alive_handler: Any  # uvicorn's: closes the transport


class H11FirstRequestTimeout(_FirstRequestTimer, H11Protocol):
    """uvicorn's h11 protocol with the first-request timer."""


def app_state(app: Any) -> State | None:
    """The ``state`` of the puntobanco application under uvicorn's wrappers (its proxy
    headers middleware), or ``None`` (another application: nothing is taken short)."""
    for _ in range(8):
        if hasattr(app, "fast_bets"):  # app.PuntoBancoApp
            state: State = app.state
            return state
        app = getattr(app, "app", None)
        if app is None:
            break
    return None


class _Held:
    """A request that may be a plain bet, read while its body comes."""

    __slots__ = ("body", "keep_alive", "language", "table_id", "token")

    def __init__(self, table_id: int, token: str, language: bytes, keep_alive: bool) -> None:
        self.table_id = table_id
        self.token = token
        self.language = language
        self.keep_alive = keep_alive
        self.body = b""


if HttpToolsProtocol is not None:
    class HttpToolsFirstRequestTimeout(_FirstRequestTimer, HttpToolsProtocol):
        """uvicorn's httptools protocol (its ``auto`` choice) with the first-request timer,
        and a plain bet answered by the protocol (see the module's docstring)."""

        #: the request held back, while its body is read
        held: _Held | None = None
        #: the application's state, once looked for (``False``: not yet)
        bets_state: State | bool | None = False

        def on_headers_complete(self) -> None:
            self.held = self._plain_bet()
            if self.held is None:
                super().on_headers_complete()

        def _plain_bet(self) -> _Held | None:
            if (self.parser.get_method() != b"POST"
                    or (found := _BET_URL.fullmatch(self.url)) is None
                    or (self.cycle is not None and not self.cycle.response_complete)
                    or self.expect_100_continue or self.root_path
                    or (self.access_log and self.access_logger.isEnabledFor(logging.INFO))
                    or self.limit_concurrency is not None or self.parser.should_upgrade()
                    or int(found.group(1)) > MAX_ID
                    or (plain := plain_headers(self.headers)) is None):
                return None
            if self.bets_state is False:
                self.bets_state = app_state(self.app)
            if self.bets_state is None:
                return None
            return _Held(int(found.group(1)), plain[0], plain[1],
                         self.parser.get_http_version() != "1.0"
                         and self.parser.should_keep_alive())

        def on_body(self, body: bytes) -> None:
            if self.held is None:
                super().on_body(body)
            else:  # at most its Content-Length (plain_headers: within the guard's limit)
                self.held.body += body

        def on_message_complete(self) -> None:
            held, self.held = self.held, None
            if held is None:
                super().on_message_complete()
                return
            self.scope["method"] = "POST"
            cycle = RequestResponseCycle(
                scope=self.scope, transport=self.transport, flow=self.flow,
                logger=self.logger, access_logger=self.access_logger,
                access_log=self.access_log, default_headers=self.server_state.default_headers,
                message_event=asyncio.Event(), expect_100_continue=False,
                keep_alive=held.keep_alive, on_response=self.on_response_complete)
            self.cycle = cycle
            assert isinstance(self.bets_state, State)
            try:
                if quick_http_bet(self.bets_state, held.table_id, held.token, held.body,
                                  held.language, lambda answer: self.reply(cycle, answer)):
                    return
            except Exception as error:  # a bug: the bet may be queued, so no second try
                self.reply(cycle, bug_answer(error))
                return
            # not plain after all: uvicorn's cycle, as if the request had just been read
            self.cycle = None  # type: ignore[assignment]
            super().on_headers_complete()
            self.cycle.body += held.body
            super().on_message_complete()

        def reply(self, cycle: RequestResponseCycle,
                  answer: tuple[int, bytes, int | None] | None) -> None:
            """Write ``answer`` (status, JSON text, ``Retry-After``) as uvicorn writes an
            application's (``RequestResponseCycle.send``), then end the request as it does;
            ``None``: close the connection unanswered."""
            if cycle.response_complete:
                return
            cycle.response_complete = True
            cycle.message_event.set()
            if cycle.disconnected or self.transport.is_closing():
                return  # the client went away: the bet stands, unanswered
            if answer is None:
                self.transport.close()
                return
            status, text, retry_after = answer
            content = [STATUS_LINE[status]]
            for name, value in self.server_state.default_headers:
                content += [name, b": ", value, b"\r\n"]
            content += [JSON_ANSWER, str(len(text)).encode(), b"\r\n"]
            if retry_after is not None:
                content += [b"retry-after: ", str(retry_after).encode(), b"\r\n"]
            if not cycle.keep_alive:
                content.append(b"connection: close\r\n")
            content += [b"\r\n", text]
            self.transport.write(b"".join(content))
            if not cycle.keep_alive:
                self.transport.close()
            self.on_response_complete()

    FirstRequestTimeout: type[asyncio.Protocol] = HttpToolsFirstRequestTimeout
else:  # pragma: no cover
    FirstRequestTimeout = H11FirstRequestTimeout
