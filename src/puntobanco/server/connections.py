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
body already read, exactly as if the request had just been read (its scope, then
``on_headers_complete`` and ``on_message_complete``). The connection's bookkeeping is
uvicorn's: the held request (:class:`_Bet`) is its ``cycle`` while the bet waits (a pipelined
request waits behind it, a client gone is not answered, a graceful shutdown closes the
connection after the answer), and the answer ends with ``on_response_complete`` (the idle
timer, the next pipelined request). With uvicorn's access log written (``--log-level info``),
a concurrency limit or a root path, nothing is held back.

Issue 21, fifth pass: what a held bet costs the protocol was cut to what it needs — no scope
(uvicorn's is made only for a request that goes its way), no ``RequestResponseCycle`` nor
``asyncio.Event`` (the held request is the cycle), the answer's head prepared once a second
per status (:func:`answer_head`), the table's path matched once per connection, and the idle
timer kept without a timer cancelled and another made per request (see
:class:`HttpToolsFirstRequestTimeout`; uvicorn's rule unchanged).

Issue 21, sixth pass: a peer that vanished (a phone that lost its network, a laptop shut) is
found by the kernel, not by a WebSocket ping each socket every 20 s (uvicorn's keep-alive ping,
turned off by ``serve``: a timer, a frame, a write and a pong read per socket, 30-60 ms of the
event loop a 10 s window at 1,000 sockets, ~20 µs of every bet). :func:`probe_dead_peers` sets
TCP keep-alive on every connection (probes after :data:`KEEPALIVE_IDLE` s of silence, given up
after :data:`KEEPALIVE_PROBES` unanswered ones) and a user timeout (a connection whose sent data
stays unacknowledged :data:`USER_TIMEOUT_MS` is closed): the kernel probes only a quiet
connection, for nothing in the process, and a table's sockets are never quiet for long. Either
way such a socket is closed within ~40 s, as the ping's 20 s and its 20 s timeout did; a peer
whose kernel answers but whose page does not read is dropped by the hub when its queue fills
(``live/hub.py``), as before.

Since these override and call uvicorn's private methods (``data_received``,
``on_response_complete``, ``_should_upgrade``, ``handle_websocket_upgrade`` …), the project
keeps uvicorn to the minor series they were written against (``pyproject.toml``: 0.54);
moving it on means reading its ``httptools_impl.py`` again and running ``test_fastbets.py``.
"""

from __future__ import annotations

import asyncio
import logging
import re
import socket
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
    import httptools
    from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol
except ImportError:  # pragma: no cover - uvicorn without httptools: h11 serves
    HttpToolsProtocol = None  # type: ignore[assignment,misc]

#: a bet's path, as the request line gives it (no query string, nothing escaped)
_BET_URL = re.compile(rb"/api/tables/([1-9][0-9]{0,9})/bets")


#: TCP keep-alive (:func:`probe_dead_peers`): the first probe after this many seconds of
#: silence, then one every :data:`KEEPALIVE_INTERVAL` s, given up after :data:`KEEPALIVE_PROBES`
KEEPALIVE_IDLE, KEEPALIVE_INTERVAL, KEEPALIVE_PROBES = 20, 5, 4
#: data sent and not acknowledged for this long closes the connection (``TCP_USER_TIMEOUT``)
USER_TIMEOUT_MS = 40_000


def probe_dead_peers(transport: Any) -> None:
    """Let the kernel find a vanished peer of this connection (the module's docstring): TCP
    keep-alive and the user timeout where the platform has them; nothing on a socket that takes
    no TCP option."""
    sock = transport.get_extra_info("socket")
    if sock is None:
        return
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
        for name, value in (("TCP_KEEPIDLE", KEEPALIVE_IDLE),
                            ("TCP_KEEPINTVL", KEEPALIVE_INTERVAL),
                            ("TCP_KEEPCNT", KEEPALIVE_PROBES),
                            ("TCP_USER_TIMEOUT", USER_TIMEOUT_MS)):
            option = getattr(socket, name, None)
            if option is not None:
                sock.setsockopt(socket.IPPROTO_TCP, option, value)
    except OSError:  # not a TCP socket (a Unix one): nothing to probe
        pass


class _FirstRequestTimer:
    """Starts the keep-alive timer as soon as the connection is made; sets the connection's
    dead-peer probes (:func:`probe_dead_peers`)."""

    loop: asyncio.AbstractEventLoop
    timeout_keep_alive: int
    timeout_keep_alive_task: asyncio.TimerHandle | None

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)  # type: ignore[misc]
        probe_dead_peers(transport)
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


class _NoEvent:
    """What uvicorn's protocol sets on a cycle's ``message_event`` (an ASGI ``receive``
    waits on it): a held bet has no ``receive``."""

    __slots__ = ()

    def set(self) -> None:
        pass


_NO_EVENT = _NoEvent()
#: the head of an answer (its status line, uvicorn's default headers — ``date`` — and the JSON
#: headers up to the length's value), by status, with the default headers they were made of:
#: uvicorn replaces that list each second (a new ``date``). One pair, replaced whole, so that
#: servers on other threads (tests) never mix their heads
_HEADS: list[tuple[list[tuple[bytes, bytes]], dict[int, bytes]]] = [([], {})]


def answer_head(default_headers: list[tuple[bytes, bytes]], status: int) -> bytes:
    """The bytes uvicorn writes before an application's JSON answer of ``status``, up to the
    value of ``content-length`` (the ``date`` and other default headers of this second)."""
    made_of, heads = _HEADS[0]
    if made_of is not default_headers:
        heads = {}
        _HEADS[0] = (default_headers, heads)
    head = heads.get(status)
    if head is None:
        head = heads[status] = b"".join([STATUS_LINE[status], *(
            name + b": " + value + b"\r\n" for name, value in default_headers), JSON_ANSWER])
    return head


class _Bet:
    """A request that may be a plain bet: read while its body comes, then the connection's
    cycle (uvicorn's ``cycle``: the few attributes its protocol reads of one) while the bet
    waits for its batch, and the callable the answer is given to (``fastbets.Reply``)."""

    __slots__ = ("body", "disconnected", "keep_alive", "language", "protocol",
                 "response_complete", "table_id", "token")
    message_event = _NO_EVENT

    def __init__(self, protocol: HttpToolsFirstRequestTimeout, table_id: int, token: str,
                 language: bytes, keep_alive: bool) -> None:
        self.protocol = protocol
        self.table_id = table_id
        self.token = token
        self.language = language
        self.keep_alive = keep_alive
        self.body = b""
        self.response_complete = self.disconnected = False

    def __call__(self, answer: tuple[int, bytes, int | None] | None) -> None:
        self.protocol.reply(self, answer)


if HttpToolsProtocol is not None:
    class HttpToolsFirstRequestTimeout(HttpToolsProtocol):
        """uvicorn's httptools protocol (its ``auto`` choice) with the first-request timer,
        and a plain bet answered by the protocol (see the module's docstring).

        The idle timer is uvicorn's rule — close a connection that received nothing for
        ``timeout_keep_alive`` seconds since it was made or since its last answer — kept
        without touching a timer per request (uvicorn cancels it on every read and makes a new
        one after every answer): one timer per connection, which, when it fires, closes the
        connection if it is still idle and long enough, waits the rest if an answer came
        meanwhile, or lapses while a request is under way (the next answer starts it again).
        """

        #: the request held back, while its body is read
        held: _Bet | None = None
        #: what a held bet needs of the application — its casino and guards — once found
        #: (``None``: another application, or not started yet)
        bets: tuple[Any, Any] | None = None
        #: nothing received since the connection was made or since its last answer
        quiet = True
        #: when that quiet began (the loop's clock)
        quiet_since = 0.0
        #: the last bet path read on this connection, and its table
        bet_url: bytes | None = None
        bet_table = 0
        #: whether a request may be held back at all (uvicorn's options, see connection_made)
        may_hold = False

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            probe_dead_peers(transport)
            self.quiet_since = self.loop.time()
            self.timeout_keep_alive_task = self.loop.call_later(
                self.timeout_keep_alive, self.idle_check)
            # what a request may be held back for (uvicorn's options do not change)
            self.may_hold = not (
                self.root_path or self.limit_concurrency is not None
                or (self.access_log and self.access_logger.isEnabledFor(logging.INFO)))

        def idle_check(self) -> None:
            """The idle timer fired (see the class's docstring)."""
            self.timeout_keep_alive_task = None
            if self.transport.is_closing() or not self.quiet:
                return  # gone, or a request under way: its answer starts the timer again
            left = self.quiet_since + self.timeout_keep_alive - self.loop.time()
            if left > 0:  # answered since the timer was set
                self.timeout_keep_alive_task = self.loop.call_later(left, self.idle_check)
            else:
                self.transport.close()

        def data_received(self, data: bytes) -> None:
            # uvicorn's, without cancelling the idle timer: the connection is not quiet
            self.quiet = False
            try:
                self.parser.feed_data(data)
            except httptools.HttpParserError:
                message = "Invalid HTTP request received."
                self.logger.warning(message)
                self.send_400_response(message)
            except httptools.HttpParserUpgrade:
                if self._should_upgrade():  # a WebSocket now: no idle timer of this protocol
                    self._unset_keepalive_if_required()
                    self.handle_websocket_upgrade()
                else:
                    self._unsupported_upgrade_warning()

        def on_response_complete(self) -> None:
            # uvicorn's, with the idle timer above
            self.server_state.total_requests += 1
            if self.transport.is_closing():
                return
            if self.flow.read_paused:
                self.flow.resume_reading()
            if self.pipeline:
                cycle, app = self.pipeline.pop()
                self._start_asgi_task(cycle, app)
                return
            self.quiet = True
            self.quiet_since = self.loop.time()
            if self.timeout_keep_alive_task is None:
                self.timeout_keep_alive_task = self.loop.call_later(
                    self.timeout_keep_alive, self.idle_check)

        def on_message_begin(self) -> None:
            # uvicorn's scope is made only for a request that is not held back (uvicorn_scope)
            self.url = b""
            self.expect_100_continue = False
            self.headers = []

        def uvicorn_scope(self) -> None:
            """The request's scope as uvicorn's ``on_message_begin`` makes it (the URL and the
            headers read kept): before a request goes uvicorn's way."""
            url, headers, expect = self.url, self.headers, self.expect_100_continue
            super().on_message_begin()
            self.url, self.expect_100_continue = url, expect
            self.headers = self.scope["headers"] = headers

        def on_headers_complete(self) -> None:
            self.held = self._plain_bet()
            if self.held is None:
                self.uvicorn_scope()
                super().on_headers_complete()

        def _plain_bet(self) -> _Bet | None:
            if (not self.may_hold or self.parser.get_method() != b"POST"
                    or (self.cycle is not None and not self.cycle.response_complete)
                    or self.expect_100_continue or self.parser.should_upgrade()):
                return None
            url = self.url
            if url != self.bet_url:
                found = _BET_URL.fullmatch(url)
                if found is None or int(found.group(1)) > MAX_ID:
                    return None
                self.bet_url, self.bet_table = url, int(found.group(1))
            plain = plain_headers(self.headers)
            if plain is None:
                return None
            bets = self.bets
            if bets is None:
                state = app_state(self.app)
                casino = getattr(state, "casino", None)
                guards = getattr(state, "guards", None)
                if casino is None or guards is None:  # another application, or not started
                    return None
                bets = self.bets = (casino, guards)
            return _Bet(self, self.bet_table, plain[0], plain[1],
                        self.parser.should_keep_alive()
                        and self.parser.get_http_version() != "1.0")

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
            self.cycle = held  # type: ignore[assignment]  # uvicorn's bookkeeping, see _Bet
            assert self.bets is not None
            try:
                if quick_http_bet(self.bets[0], self.bets[1], held.table_id, held.token,
                                  held.body, held.language, held):
                    return
            except Exception as error:  # a bug: the bet may be queued, so no second try
                self.reply(held, bug_answer(error))
                return
            # not plain after all: uvicorn's cycle, as if the request had just been read
            self.cycle = None  # type: ignore[assignment]
            self.uvicorn_scope()
            super().on_headers_complete()
            self.cycle.body += held.body
            super().on_message_complete()

        def reply(self, cycle: _Bet, answer: tuple[int, bytes, int | None] | None) -> None:
            """Write ``answer`` (status, JSON text, ``Retry-After``) as uvicorn writes an
            application's (``RequestResponseCycle.send``), then end the request as it does;
            ``None``: close the connection unanswered."""
            if cycle.response_complete:
                return
            cycle.response_complete = True
            if cycle.disconnected or self.transport.is_closing():
                return  # the client went away: the bet stands, unanswered
            if answer is None:
                self.transport.close()
                return
            status, text, retry_after = answer
            head = answer_head(self.server_state.default_headers, status)
            if retry_after is None and cycle.keep_alive:
                self.transport.write(b"%s%d\r\n\r\n%s" % (head, len(text), text))
                self.on_response_complete()
                return
            content = [head, b"%d\r\n" % len(text)]
            if retry_after is not None:
                content.append(b"retry-after: %d\r\n" % retry_after)
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
