"""A table socket's small text frames read straight from uvicorn's connection (issue 21).

Through ASGI, each message a client sends — a bet, a ping — costs the event loop websockets'
frame parser (a generator per frame), uvicorn's event dict, an ``asyncio.Queue`` and the
receiving task's wake-up, Starlette's checks, and two system calls: uvicorn pauses reading
after every message until the application has read it, then resumes it. That was about a
quarter of the loop's CPU per bet sent on the socket. :func:`install` reads the frames itself
and hands each text to the socket's handler at once (``api/ws._receive``), in the order they
came.

It takes only the plain case: a whole frame (FIN), text, masked as RFC 6455 requires of a
client, no reserved bit (no extension is negotiated: ``ws_per_message_deflate`` is off), at most
:data:`LARGEST` bytes, valid UTF-8. A control frame (the pong to uvicorn's keep-alive ping, a
ping, a close) goes whole to uvicorn's own ``data_received``, whose parser is then between two
frames as before. Anything else — a fragment, a binary frame, a larger frame, bad UTF-8, an
unmasked frame, a close — hands everything from that frame on to uvicorn's parser for the rest
of the connection, which answers it as it always did (a message, or the connection closed with
its code). An incomplete frame waits for its end here (never more than :data:`LARGEST` bytes
and a header). On another server, or another uvicorn protocol, nothing is installed: the
messages come through ASGI as before.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

try:  # websockets' own, in C
    from websockets.speedups import apply_mask
except ImportError:  # pragma: no cover - a build without its C part
    from websockets.utils import apply_mask

log = logging.getLogger("puntobanco.server.api.wsread")

#: texts read here in this process (a figure; the tests read it)
FIGURES = {"texts": 0}
#: the largest frame payload read here (a client's message is at most ``ws.MAX_CLIENT_TEXT``
#: characters; a longer one is refused the same way whichever parser reads it)
LARGEST = 4096


class Reader:
    """The frames of one connection (see the module's docstring)."""

    def __init__(self, protocol: Any, on_text: Callable[[str], None]) -> None:
        self.protocol = protocol
        self.parse = type(protocol).data_received.__get__(protocol)  # uvicorn's own
        self.on_text = on_text
        self.buffer = b""
        #: ``False`` once uvicorn's parser reads everything (the rest of the connection)
        self.active = True

    def stop(self) -> None:
        """From now on uvicorn's parser reads everything (what is buffered here first)."""
        if self.active:
            self.active = False
            buffered, self.buffer = self.buffer, b""
            if buffered:
                self.parse(buffered)

    def data_received(self, data: bytes) -> None:
        if not self.active:
            self.parse(data)
            return
        buffer = self.buffer + data if self.buffer else data
        at, size = 0, len(buffer)
        while True:
            if size - at < 2:
                break  # the next header is incomplete
            head, second = buffer[at], buffer[at + 1]
            length = second & 0x7F
            if length == 126:
                if size - at < 4:
                    break
                length = int.from_bytes(buffer[at + 2:at + 4], "big")
                start = at + 8  # the header, the length and the mask
            elif length == 127:
                self._hand_over(buffer, at)
                return
            else:
                start = at + 6
            if head & 0x70 or not second & 0x80:  # a reserved bit, or not masked
                self._hand_over(buffer, at)
                return
            end = start + length
            if head & 0x0F >= 8:  # a control frame
                if not head & 0x80 or length > 125:
                    self._hand_over(buffer, at)
                    return
                if end > size:
                    break
                self.parse(buffer[at:end])  # uvicorn answers it, between two frames again
                at = end
                if head == 0x88 or not self.active:  # a close: uvicorn reads the rest
                    self._hand_over(buffer, at)
                    return
                continue
            if (head != 0x81 or length > LARGEST or self.protocol.close_sent
                    or self.protocol.disconnected):
                self._hand_over(buffer, at)
                return
            if end > size:
                break
            try:
                text = apply_mask(buffer[start:end], buffer[start - 4:start]).decode()
            except UnicodeDecodeError:
                self._hand_over(buffer, at)
                return
            at = end
            FIGURES["texts"] += 1
            try:
                self.on_text(text)
            except Exception:  # a bug: said, and the connection goes on
                log.exception("a socket's message failed")
            if not self.active:  # the handler stopped the reading here
                self._hand_over(buffer, at)
                return
        self.buffer = buffer[at:]

    def _hand_over(self, buffer: bytes, at: int) -> None:
        """uvicorn's parser reads ``buffer`` from ``at`` on, and everything after."""
        self.active = False
        self.buffer = b""
        if at < len(buffer):
            self.parse(buffer[at:])


def install(asgi_send: Any, on_text: Callable[[str], None]) -> Reader | None:
    """Read the socket's frames with a :class:`Reader` when ``asgi_send`` is the ``send`` of
    uvicorn's ``websockets-sansio`` protocol of an open connection that negotiated no
    extension (``serve`` offers none; ``None``: nothing done, the messages come through
    ASGI)."""
    try:
        from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
    except ImportError:  # pragma: no cover - uvicorn is a dependency
        return None
    protocol = getattr(asgi_send, "__self__", None)
    if (not isinstance(protocol, WebSocketsSansIOProtocol) or protocol.transport is None
            or protocol.close_sent or protocol.disconnected or not protocol.handshake_complete
            or protocol.transport.is_closing() or protocol.conn.extensions):
        return None
    reader = Reader(protocol, on_text)
    protocol.data_received = reader.data_received  # type: ignore[method-assign]
    # uvloop keeps the protocol's data_received when the protocol is set: set it again
    protocol.transport.set_protocol(protocol)
    return reader
