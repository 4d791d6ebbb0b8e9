"""A server process on a hand-moved clock, for the tests that need a process of its own (to
SIGKILL it) and rounds that wait for the test, not for the wall clock (issue 17).

``python tests/server/clocked_serve.py DATABASE_URL PORT [SETTINGS_JSON]`` serves the real
application (``create_app``) with :func:`support.clocked_settings` (changed by the JSON's fields)
on a :class:`ManualClock`; each line ``advance SECONDS`` on its standard input moves that clock.
It lives under ``tests/`` and is started only by ``support.serve_clocked``: ``puntobanco serve``
has no such input and always runs on the wall clock.
"""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # ``server.support``, as pytest

import uvicorn

from puntobanco.server.app import create_app
from puntobanco.server.live.clock import ManualClock
from server.support import clocked_settings


def _obey(clock: ManualClock) -> None:
    """Move the clock as the test says, one ``advance SECONDS`` line at a time."""
    for line in sys.stdin:
        command, _, value = line.strip().partition(" ")
        if command == "advance":
            clock.advance(float(value))


def main() -> None:
    url, port = sys.argv[1], int(sys.argv[2])
    changes = json.loads(sys.argv[3]) if len(sys.argv) > 3 else {}
    clock = ManualClock()
    app = create_app(clocked_settings(url, **changes), clock=clock)
    threading.Thread(target=_obey, args=(clock,), daemon=True).start()
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning",
                timeout_graceful_shutdown=5)


if __name__ == "__main__":
    main()
