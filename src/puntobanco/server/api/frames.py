"""A table message written to a socket as one pre-built WebSocket frame (issue 21).

A message goes to every socket of a table as the same JSON text (the hub serialises it once).
Sent through ASGI, each socket then paid for it again: Starlette's wrappers, uvicorn's checks,
the text encoded to UTF-8 and framed by ``websockets`` — about half the CPU of a round's
fan-out, more than the system call itself. A server's frame is not masked, so its bytes are
the same for every socket: :func:`frame` builds them once per text (a small cache keyed by
the text, whose hash Python keeps in the string) and :func:`writer` writes them straight to
the connection's transport.

This is an adapter over uvicorn's ``websockets-sansio`` protocol (the one ``serve`` runs):
:func:`writer` uses the transport only when the ASGI ``send`` it was given is that protocol's
own (the socket is taken before any middleware, ``app.PuntoBancoApp``), and each write only
while the connection is open and takes data (no close sent or received, not paused by flow
control); otherwise — another server, a socket closing, a client not reading — the message
goes through ASGI's ``send`` as before, which waits for the connection or says it is gone. A
frame is always written whole, so the protocol's own frames (pings, the close) never
interleave with it. ``tests/server/test_ws.py`` checks that the short way is taken and that
what arrives is the same.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Coroutine
from typing import Any

from starlette.websockets import WebSocket

#: the texts whose frames are kept (a round's messages to every socket), the least recently
#: used dropped first: a burst of bet answers, each sent once, passes through without pushing
#: out a message being written to every socket
CACHED = 64
_FRAMES: OrderedDict[str, bytes] = OrderedDict()

Writer = Callable[[str], Coroutine[Any, Any, None]]


def frame(text: str) -> bytes:
    """The unmasked WebSocket text frame of ``text`` (RFC 6455 §5.2), built once per text.

    >>> frame("hi")
    b'\\x81\\x02hi'
    >>> len(frame("x" * 200)), frame("x" * 200)[:4]
    (204, b'\\x81~\\x00\\xc8')
    """
    built = _FRAMES.get(text)
    if built is not None:
        _FRAMES.move_to_end(text)
        return built
    payload = text.encode()
    size = len(payload)
    if size < 126:
        head = bytes((0x81, size))
    elif size < 65536:
        head = bytes((0x81, 126)) + size.to_bytes(2, "big")
    else:
        head = bytes((0x81, 127)) + size.to_bytes(8, "big")
    built = _FRAMES[text] = head + payload
    if len(_FRAMES) > CACHED:
        _FRAMES.popitem(last=False)
    return built


#: the last texts joined and their frames: the moment's texts are the same for every socket
#: but a player's own (the last card with the coup), joined once for all of them
_JOINED: list[tuple[list[str], bytes]] = [([], b"")]


def joined(texts: list[str]) -> bytes:
    """The frames of several texts, one after the other (built once for a run of sockets
    that get the same texts).

    >>> joined(["a", "b"]) == frame("a") + frame("b")
    True
    """
    last, built = _JOINED[0]
    if texts == last:  # the same strings: compared by identity first
        return built
    built = b"".join([frame(text) for text in texts])
    _JOINED[0] = (list(texts), built)
    return built


def _protocol(asgi_send: Any) -> tuple[Any, Any] | None:
    """uvicorn's protocol and transport behind ``asgi_send`` when it is the protocol's own
    ``send``, else ``None``."""
    protocol = getattr(asgi_send, "__self__", None)
    transport = getattr(protocol, "transport", None)
    needed = ("writable", "close_sent", "disconnected", "conn")
    if protocol is None or transport is None or not all(hasattr(protocol, n) for n in needed):
        return None
    return protocol, transport


def writer(websocket: WebSocket, asgi_send: Any) -> Writer:
    """How to send a text on this accepted socket: straight to uvicorn's transport when
    ``asgi_send`` is its protocol's own ``send``, else :meth:`WebSocket.send_text`."""
    write = direct(asgi_send)
    if write is None:
        return websocket.send_text

    async def send(text: str) -> None:
        if not write([text]):
            await websocket.send_text(text)

    send.direct = True  # type: ignore[attr-defined]  # the tests look for it
    return send


def direct(asgi_send: Any) -> Callable[[list[str]], bool] | None:
    """Write texts to the socket now, as one ``write`` of their frames, when the connection is
    open and takes data (``True``), else nothing (``False``: send them through ASGI, which
    waits or says the socket is gone); ``None`` when ``asgi_send`` is not uvicorn's own.
    Several messages of one moment (the last card and the coup, a settlement and the round's
    result) then cost one system call (``live/hub.Client``)."""
    found = _protocol(asgi_send)
    if found is None:
        return None
    protocol, transport = found
    writable = protocol.writable

    def write(texts: list[str]) -> bool:
        if (not writable.is_set() or protocol.close_sent or protocol.disconnected
                or transport.is_closing()):
            return False
        transport.write(frame(texts[0]) if len(texts) == 1 else joined(texts))
        return True

    return write
