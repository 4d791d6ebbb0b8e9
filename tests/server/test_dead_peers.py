"""Issue 21, sixth pass: a vanished peer is found by the kernel's TCP keep-alive and user
timeout (``server/connections.probe_dead_peers``), not by a WebSocket ping per socket every 20 s.

Checked on a real ``puntobanco serve`` process: every connection it accepts — a plain HTTP one
that has sent nothing yet, and a player's WebSocket — has the kernel's keep-alive timer armed
(``/proc/net/tcp``: timer 2, due within :data:`KEEPALIVE_IDLE` seconds), which no TCP
connection has unless its owner asks; and uvicorn's own keep-alive ping is off.
"""

from __future__ import annotations

import socket
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from websockets.sync.client import connect

from puntobanco.cli.serve import UVICORN_OPTIONS
from puntobanco.server import connections
from puntobanco.server.connections import KEEPALIVE_IDLE, probe_dead_peers

from .support import serve_process, wait_until

pytestmark = pytest.mark.skipif(not Path("/proc/net/tcp").exists() or sys.platform != "linux",
                                reason="reads Linux's /proc/net/tcp")


def _timer(server_port: int, client_port: int) -> tuple[int, float] | None:
    """The server side's (timer kind, seconds until it fires) of the connection from
    ``client_port``, from ``/proc/net/tcp``; ``None`` when not listed."""
    hz = 100  # USER_HZ: the unit of /proc/net/tcp's timers
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        local, remote = fields[1], fields[2]
        if (int(local.split(":")[1], 16) == server_port
                and int(remote.split(":")[1], 16) == client_port):
            kind, when = fields[5].split(":")
            return int(kind, 16), int(when, 16) / hz
    return None


def _armed(server_port: int, client_port: int) -> bool:
    found = _timer(server_port, client_port)
    return found is not None and found[0] == 2 and 0 < found[1] <= KEEPALIVE_IDLE


def test_issue21_every_accepted_connection_has_the_kernels_dead_peer_probes(
        sqlite_url: str) -> None:
    with serve_process(sqlite_url) as (_, url):
        port = urlsplit(url).port
        assert port is not None
        with socket.create_connection(("127.0.0.1", port)) as quiet:  # nothing sent yet
            quiet_port = quiet.getsockname()[1]
            wait_until(lambda: _armed(port, quiet_port), timeout=10)
        with connect(f"ws://127.0.0.1:{port}/ws/tables/1", open_timeout=10) as websocket:
            websocket.recv(timeout=10)  # the snapshot: the socket is set up
            player_port = websocket.socket.getsockname()[1]
            wait_until(lambda: _armed(port, player_port), timeout=10)


def test_issue21_a_connection_of_its_own_has_no_probes_until_asked() -> None:
    """The check above can fail: a TCP connection has no keep-alive timer unless asked, and
    :func:`probe_dead_peers` sets what it says (read back from the socket)."""
    with socket.create_server(("127.0.0.1", 0)) as listening:
        port = listening.getsockname()[1]
        with socket.create_connection(("127.0.0.1", port)) as client:
            accepted, _ = listening.accept()
            with accepted:
                client_port = client.getsockname()[1]
                found = _timer(port, client_port)
                assert found is not None and found[0] != 2

                class Transport:
                    def get_extra_info(self, name: str) -> object:
                        return accepted if name == "socket" else None

                probe_dead_peers(Transport())
                assert accepted.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE) == 1
                assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPIDLE) == (
                    KEEPALIVE_IDLE)
                assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_USER_TIMEOUT) == (
                    connections.USER_TIMEOUT_MS)
                wait_until(lambda: _armed(port, client_port), timeout=10)


def test_issue21_uvicorns_websocket_ping_is_off() -> None:
    assert UVICORN_OPTIONS["ws_ping_interval"] is None
