"""What keeps a hostile caller from taking the server down (issue 9): body limits, security
headers, rate limits, bounded password hashing and WebSocket caps.

Every limit is a constant here (or a :class:`~puntobanco.server.settings.ServerSettings` field
that defaults to one), and ``docs/server.md`` lists them all in its threat model.

>>> bucket = RateLimit(burst=2, per_second=1.0)
>>> bucket.take("ann", now=0.0), bucket.take("ann", now=0.0), bucket.take("ann", now=0.0)
(0.0, 0.0, 1.0)
>>> bucket.take("ann", now=1.0), bucket.take("bob", now=1.0)
(0.0, 0.0)
"""

from __future__ import annotations

import asyncio
import json
import math
import re
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import parse_qs

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from puntobanco.errors import PuntoBancoError
from puntobanco.i18n import DEFAULT_LANGUAGE, LANGUAGES
from puntobanco.server.db.auth import token_hash
from puntobanco.server.messages import message
from puntobanco.server.settings import GuardSettings

T = TypeVar("T")

#: The largest request body, in bytes: every body of the API is a small JSON object.
MAX_BODY_BYTES = 8 * 1024
#: How many rate-limit keys (accounts, addresses, players) each limiter remembers at most; the
#: least recently seen are forgotten first, so a flood of names cannot exhaust memory.
MAX_TRACKED_KEYS = 50_000

#: The page's Content-Security-Policy: its own ES modules, style sheets and images only, its own
#: origin for fetch and WebSocket, and never inside a frame.
PAGE_CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
            "form-action 'self'; frame-ancestors 'none'")
#: The API document (Swagger UI) from its CDN, when the local copy is not installed.
DOCS_CSP = ("default-src 'self'; script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
            "style-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net https://fonts.googleapis.com; "
            "img-src 'self' data: https://fastapi.tiangolo.com https://cdn.redoc.ly; "
            "font-src 'self' https://fonts.gstatic.com; worker-src 'self' blob:; "
            "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'")
_DOCS_PATHS = ("/docs",)
SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
)
#: What an answer to a bet carries besides its type and length (issue 21): a bet's answer is
#: JSON read by ``fetch``, never a document a browser renders or frames, so the document
#: headers above (CSP, frame options, referrer and opener policies: ~450 bytes) do nothing
#: there; ``nosniff`` stays, so that it is never taken for anything but JSON.
JSON_HEADERS: tuple[tuple[bytes, bytes], ...] = ((b"x-content-type-options", b"nosniff"),)
#: the bet routes (``POST …/bets``, ``…/bets/batch``, ``DELETE …/bets/{bet}``)
_BET_PATHS = re.compile(r"/api/tables/[^/]+/bets(/[^/]*)?")


class BodyTooLarge(HTTPException):
    """A body over :data:`MAX_BODY_BYTES` (answered 413 ``body-too-large``)."""

    def __init__(self) -> None:
        super().__init__(413, f"A request body is at most {MAX_BODY_BYTES} bytes")


class TooManyRequests(PuntoBancoError):
    """A rate limit was reached: answered 429 with ``Retry-After`` (whole seconds)."""

    code = "too-many-requests"

    def __init__(self, message: str, *, retry_after: float) -> None:
        super().__init__(message)
        self.retry_after = max(1, math.ceil(retry_after))


class Guard:
    """ASGI middleware: refuses an over-long body before reading it (``Content-Length``) or as
    soon as it grows past the limit (chunked), and adds the security headers to every answer
    (to a bet's answer only :data:`JSON_HEADERS`)."""

    def __init__(self, app: ASGIApp, *, max_body: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.max_body):
            await _refuse_body(send)
            return
        path = str(scope.get("path", ""))
        if "\x00" in path or b"%00" in scope.get("query_string", b"").lower():
            await _refuse_nul(scope, send)  # no database is asked about a NUL (issue 18)
            return
        csp = DOCS_CSP if path.startswith(_DOCS_PATHS) else PAGE_CSP
        added = JSON_HEADERS if _BET_PATHS.fullmatch(path) else SECURITY_HEADERS
        received = 0

        async def limited_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_body:
                    raise BodyTooLarge()
            return message

        async def secured_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {name.lower() for name, _ in headers}
                headers += [(name, value) for name, value in added if name not in present]
                if added is SECURITY_HEADERS and b"content-security-policy" not in present:
                    headers.append((b"content-security-policy", csp.encode()))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, limited_receive, secured_send)


async def _refuse_body(send: Send) -> None:
    body = (b'{"error":{"code":"body-too-large","message":"A request body is at most '
            + str(MAX_BODY_BYTES).encode() + b' bytes."}}')
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
               (b"connection", b"close"), *SECURITY_HEADERS,
               (b"content-security-policy", PAGE_CSP.encode())]
    await send({"type": "http.response.start", "status": 413, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _refuse_nul(scope: Scope, send: Send) -> None:
    """A 400 ``bad-request`` for a NUL character in the path or the query (PostgreSQL refuses
    it in text, and no name, id or word of the API holds one), in the request's language."""
    headers = dict(scope["headers"])
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    lang = asked_lang(query.get("lang", [None])[0],
                      headers.get(b"accept-language", b"").decode("latin-1")) or DEFAULT_LANGUAGE
    text = message("bad-nul", lang, "A request holds no NUL character.")
    body = json.dumps({"error": {"code": "bad-request", "message": text}},
                      ensure_ascii=False).encode()
    await send({"type": "http.response.start", "status": 400, "headers": [
        (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
        *SECURITY_HEADERS, (b"content-security-policy", PAGE_CSP.encode())]})
    await send({"type": "http.response.body", "body": body})


def asked_lang(query: str | None, accept_language: str) -> str | None:
    """The language a request asks for: ``?lang=``, else the first supported tag of
    ``Accept-Language`` (the page sends its chosen language there), else ``None``.

    >>> asked_lang(None, "de-CH, it;q=0.8"), asked_lang("es", "it"), asked_lang("xx", "")
    ('it', 'es', None)
    """
    if query in LANGUAGES:
        return query
    for part in accept_language.split(","):
        tag = part.split(";")[0].strip().lower()[:2]
        if tag in LANGUAGES:
            return tag
    return None


class RateLimit:
    """A token bucket per key: ``burst`` requests at once, then ``per_second`` on average.

    :meth:`take` answers 0 when the request may go on, else the seconds until it may.
    """

    def __init__(self, *, burst: int, per_second: float, max_keys: int = MAX_TRACKED_KEYS) -> None:
        self.burst = burst
        self.per_second = per_second
        self.max_keys = max_keys
        #: each key's [tokens, when last taken], the least recently seen first
        self._buckets: OrderedDict[str, list[float]] = OrderedDict()

    def take(self, key: str, *, now: float | None = None) -> float:
        """0 when ``key``'s request may go on (a token is taken), else the seconds until it
        may. A key's bucket is updated in place and moved to the end of the order (issue 21,
        sixth pass: a bet on the socket asks this once; the bucket popped and a new tuple
        stored each time cost ~2 µs of it): the same figures as a bucket rebuilt."""
        moment = time.monotonic() if now is None else now
        buckets = self._buckets
        bucket = buckets.get(key)
        burst = float(self.burst)
        if bucket is None:
            tokens = burst
            bucket = buckets[key] = [tokens, moment]
            while len(buckets) > self.max_keys:
                buckets.popitem(last=False)
        else:
            buckets.move_to_end(key)
            tokens = bucket[0] + (moment - bucket[1]) * self.per_second
            if tokens > burst:
                tokens = burst
        bucket[1] = moment
        if tokens >= 1:
            bucket[0] = tokens - 1
            return 0.0
        bucket[0] = tokens
        return (1 - tokens) / self.per_second

    def check(self, key: str, message: str) -> None:
        """Raise :class:`TooManyRequests` when ``key`` is over its limit."""
        wait = self.take(key)
        if wait > 0:
            raise TooManyRequests(message, retry_after=wait)


class HashSlots:
    """Bounded password hashing: at most ``slots`` bcrypt runs at once, each on a thread, and at
    most ``queue`` more waiting; beyond that the request is refused at once (429)."""

    def __init__(self, *, slots: int, queue: int) -> None:
        self._semaphore = asyncio.Semaphore(slots)
        self.queue = queue
        self.waiting = 0

    async def run(self, work: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        if self.waiting >= self.queue:
            raise TooManyRequests("Too many sign-ins at once: try again in a moment.",
                                  retry_after=1)
        self.waiting += 1
        try:
            async with self._semaphore:
                return await asyncio.to_thread(work, *args, **kwargs)
        finally:
            self.waiting -= 1


class SocketCounts:
    """Open WebSockets in all, anonymous ones per address, signed-in ones per player (the caps
    of ``docs/api.md``)."""

    def __init__(self) -> None:
        self.total = 0
        self.by_address: dict[str, int] = {}
        self.by_player: dict[int, int] = {}
        #: each signed-in socket's "session ended" event and its token's hash (the form in
        #: which another server process names a session it ended: ``live/casino.py``)
        self._sessions: dict[int, dict[asyncio.Event, str]] = {}

    def session_watch(self, player: int, token: str) -> asyncio.Event:
        """An event set when this socket's session is ended (:meth:`end_sessions`)."""
        ended = asyncio.Event()
        self._sessions.setdefault(player, {})[ended] = token_hash(token)
        return ended

    def session_unwatch(self, player: int, ended: asyncio.Event) -> None:
        watched = self._sessions.get(player, {})
        watched.pop(ended, None)
        if not watched:
            self._sessions.pop(player, None)

    def end_sessions(self, player: int, token: str | None = None, *,
                     hashed: str | None = None) -> int:
        """Close the player's sockets opened with ``token``, or with the token whose hash is
        ``hashed`` (all of them when neither is given): called on log-out, log-out-everywhere
        (relayed to every server process) and by the operator's suspension. Returns how many."""
        if token is not None:
            hashed = token_hash(token)
        ended = [event for event, opened in self._sessions.get(player, {}).items()
                 if hashed is None or opened == hashed]
        for event in ended:
            event.set()
        return len(ended)

    def refusal(self, address: str, player: int | None, *, total: int, per_address: int,
                per_player: int) -> str | None:
        """Why one more socket is refused, or ``None`` (then call :meth:`add`)."""
        if self.total >= total:
            return f"The server holds {total} sockets at most: try again later."
        if player is None and self.by_address.get(address, 0) >= per_address:
            return f"At most {per_address} anonymous sockets per address: sign in to watch."
        if player is not None and self.by_player.get(player, 0) >= per_player:
            return f"At most {per_player} sockets per player."
        return None

    def add(self, address: str, player: int | None) -> None:
        self.total += 1
        if player is None:
            self.by_address[address] = self.by_address.get(address, 0) + 1
        else:
            self.by_player[player] = self.by_player.get(player, 0) + 1

    def remove(self, address: str, player: int | None) -> None:
        self.total -= 1
        if player is None:
            _decrement(self.by_address, address)
        else:
            _decrement(self.by_player, player)


def _decrement(counts: dict[Any, int], key: Any) -> None:
    left = counts.get(key, 0) - 1
    if left > 0:
        counts[key] = left
    else:
        counts.pop(key, None)


class Guards:
    """Every limiter of one application (``app.state.guards``), built from its settings."""

    def __init__(self, limits: GuardSettings) -> None:
        self.limits = limits
        self.login_account = RateLimit(burst=limits.login_per_account[0],
                                       per_second=limits.login_per_account[1])
        self.login_address = RateLimit(burst=limits.login_per_address[0],
                                       per_second=limits.login_per_address[1])
        self.bets = RateLimit(burst=limits.bets_per_player[0],
                              per_second=limits.bets_per_player[1])
        self.hashing = HashSlots(slots=limits.hash_slots, queue=limits.hash_queue)
        self.sockets = SocketCounts()


def client_address(scope_client: Any) -> str:
    """The caller's address as the server sees it (a proxy in front makes it the proxy's: run
    one that limits per address itself, see docs/server.md)."""
    return str(scope_client[0]) if scope_client else "unknown"
