"""The HTTP protocol every ``serve`` runs (issue 18): uvicorn's own, with one timer more.

uvicorn closes a keep-alive connection that stays idle ``timeout_keep_alive`` seconds after an
answer, but starts that timer only once a first answer is sent: a client that connects and
never sends a request kept its socket (and a file descriptor) open for as long as it liked (over
100 s seen). :class:`FirstRequestTimeout` starts the same timer when the connection is made, so
such a connection is closed exactly as an idle keep-alive one is; the first byte received stops
it, as it stops the keep-alive timer (uvicorn's ``data_received``).
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

try:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
except ImportError:  # pragma: no cover - uvicorn without httptools: h11 serves
    HttpToolsProtocol = None  # type: ignore[assignment,misc]


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


if HttpToolsProtocol is not None:
    class HttpToolsFirstRequestTimeout(_FirstRequestTimer, HttpToolsProtocol):
        """uvicorn's httptools protocol (its ``auto`` choice) with the first-request timer."""

    FirstRequestTimeout: type[asyncio.Protocol] = HttpToolsFirstRequestTimeout
else:  # pragma: no cover
    FirstRequestTimeout = H11FirstRequestTimeout
