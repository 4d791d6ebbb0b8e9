"""Issue 21: a table socket's plain text frames are read straight from uvicorn's connection
(``api/wsread.py``), and every other frame — a control frame, a fragment, a binary frame, bad
UTF-8, an unmasked frame — is answered by uvicorn's own parser as before. A raw client writes
the frames byte by byte, as ``serve`` is offered them (no compression extension)."""

from __future__ import annotations

import base64
import json
import os
import socket
import struct
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from puntobanco.server.api import wsread

from .support import LiveServer, Player, fast_settings, running


def frame(payload: bytes, *, opcode: int = 1, fin: bool = True, masked: bool = True) -> bytes:
    """A client's frame: masked with a random mask (RFC 6455 §5.3) unless told not to."""
    head = bytes(((0x80 if fin else 0) | opcode,))
    size = len(payload)
    length = (bytes((size,)) if size < 126 else bytes((126,)) + struct.pack("!H", size))
    if not masked:
        return head + length + payload
    mask = os.urandom(4)
    return (head + bytes((length[0] | 0x80,)) + length[1:] + mask
            + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))


class Raw:
    """A WebSocket written by hand over a TCP socket."""

    def __init__(self, port: int, path: str) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=15)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                          f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                          "Sec-WebSocket-Version: 13\r\n\r\n".encode())
        self.buffer = b""
        while b"\r\n\r\n" not in self.buffer:
            self.buffer += self.sock.recv(65536)
        head, _, self.buffer = self.buffer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 101"), head

    def _need(self, size: int) -> None:
        while len(self.buffer) < size:
            data = self.sock.recv(65536)
            if not data:
                raise ConnectionError("closed")
            self.buffer += data

    def read(self) -> tuple[int, bytes]:
        """The next frame from the server: its opcode and payload."""
        self._need(2)
        opcode, size, at = self.buffer[0] & 0x0F, self.buffer[1] & 0x7F, 2
        if size == 126:
            self._need(4)
            size, at = struct.unpack("!H", self.buffer[2:4])[0], 4
        elif size == 127:
            self._need(10)
            size, at = struct.unpack("!Q", self.buffer[2:10])[0], 10
        self._need(at + size)
        payload, self.buffer = self.buffer[at:at + size], self.buffer[at + size:]
        return opcode, payload

    def message(self, kind: str) -> dict[str, Any]:
        """The next text message of this ``type`` (the others skipped)."""
        while True:
            opcode, payload = self.read()
            if opcode == 1 and json.loads(payload)["type"] == kind:
                found: dict[str, Any] = json.loads(payload)
                return found

    def closed_with(self) -> int:
        """The code of the server's close frame (the text messages before it skipped)."""
        while True:
            opcode, payload = self.read()
            if opcode == 8:
                code: int = struct.unpack("!H", payload[:2])[0]
                return code


@contextmanager
def table(sqlite_url: str) -> Iterator[tuple[LiveServer, Player]]:
    with running(fast_settings(sqlite_url, betting_seconds=8.0)) as server:
        yield server, server.signup("ann")


def bet(key: str, coup: int) -> bytes:
    return json.dumps({"type": "bet", "key": key, "coup_id": coup, "bet": "banco",
                       "stake": 1000}).encode()


def test_issue21_plain_frames_are_read_straight_and_answered_as_through_asgi(
        sqlite_url: str) -> None:
    with table(sqlite_url) as (server, ann):
        raw = Raw(server.port, f"/ws/tables/1?token={ann.token}")
        coup = raw.message("round-opened")["coup_id"]
        read = wsread.FIGURES["texts"]
        # a frame cut in two writes, then two frames in one write
        ping = frame(b'{"type": "ping"}')
        raw.sock.sendall(ping[:5])
        time.sleep(0.05)
        raw.sock.sendall(ping[5:])
        assert raw.message("pong") == {"type": "pong"}
        raw.sock.sendall(frame(bet("a", coup)) + frame(bet("b", coup)))
        answers = {raw.message("bet-accepted")["key"] for _ in range(2)}
        assert answers == {"a", "b"}
        assert wsread.FIGURES["texts"] == read + 3
        # a control frame goes to uvicorn's parser (pong), and the reading goes on here
        raw.sock.sendall(frame(b"hi", opcode=9))
        assert raw.read() == (10, b"hi")
        raw.sock.sendall(frame("{\"type\": \"é\"}".encode()))  # UTF-8, not a known message
        assert raw.message("error")["error"]["code"] == "bad-request"
        assert wsread.FIGURES["texts"] == read + 4
        # a close frame: uvicorn closes the connection with the same code
        raw.sock.sendall(frame(struct.pack("!H", 1000), opcode=8))
        assert raw.closed_with() == 1000


def test_issue21_frames_not_plain_are_left_to_uvicorn(sqlite_url: str) -> None:
    with table(sqlite_url) as (server, ann):
        raw = Raw(server.port, f"/ws/tables/1?token={ann.token}")
        coup = raw.message("round-opened")["coup_id"]
        read = wsread.FIGURES["texts"]
        # a message in two fragments: uvicorn's parser joins them, and reads from then on
        raw.sock.sendall(frame(b'{"type":', fin=False) + frame(b' "ping"}', opcode=0))
        assert raw.message("pong") == {"type": "pong"}
        raw.sock.sendall(frame(bet("c", coup)))
        assert raw.message("bet-accepted")["key"] == "c"
        raw.sock.sendall(frame(b'{"type": "ping"}', opcode=2))  # binary
        assert raw.message("error")["error"]["code"] == "bad-request"
        assert wsread.FIGURES["texts"] == read
        # bad UTF-8: closed 1007 (invalid data); an unmasked frame: 1002 (protocol error)
        for sent, code in ((frame(b'{"type": "\xff"}'), 1007),
                           (frame(b'{"type": "ping"}', masked=False), 1002)):
            other = Raw(server.port, f"/ws/tables/1?token={ann.token}")
            other.message("snapshot")
            other.sock.sendall(sent)
            assert other.closed_with() == code


def test_issue21_a_socket_message_is_read_as_json_loads_reads_it() -> None:
    """``api/ws.loads`` reads a message with json's scanner alone when nothing surrounds its
    value (issue 21, fifth pass): the same value as ``json.loads``, or the same error."""
    import pytest

    from puntobanco.server.api.ws import loads

    for text in ('{"type":"bet","key":"k","coup_id":3,"bet":"banco","stake":1000}',
                 ' {"type": "ping"} ', '{"type":"ping"}\n', '[1, 2.5, null, true]', '"é"',
                 '{"a":1,"a":2}', '1e400', '-0', 'NaN', '{"a": [[[[]]]]}'):
        assert loads(text) == json.loads(text) or text == 'NaN'
    assert repr(loads('NaN')) == repr(json.loads('NaN'))
    for bad in ('', ' ', '{"type":"ping"} x', '{"type":"ping"}}', '\ufeff{}', '{"a":}', '[' * 2000,
                '{"a":1', "{'a':1}", '"\\ud800"x'):
        with pytest.raises((ValueError, RecursionError)) as expected:
            json.loads(bad)
        with pytest.raises(expected.type) as got:
            loads(bad)
        assert str(got.value) == str(expected.value)
