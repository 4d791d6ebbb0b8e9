"""Where a server process's CPU goes, by component: a sampling profiler weighted by CPU time.

Started inside ``puntobanco serve`` by ``bench_load.py --profile`` (its launch script calls
:func:`start`), never by the product. Every :data:`PERIOD` seconds a thread reads each other
thread's CPU clock (``pthread_getcpuclockid``: nanoseconds, not the 10 ms ticks of /proc) and
its Python stack (``sys._current_frames``), and books the CPU that thread used since the last
sample to the component of its stack: the innermost frame whose file belongs to a component
(:data:`COMPONENTS`, in the order tried), else the event loop (a thread whose stack is only the
loop's ``run`` — uvloop's C code, the system calls it makes — is booked there too). A thread
that used no CPU costs nothing, so threads waiting on the database or a queue do not count.

On SIGUSR2 (and at exit) it writes ``{component: seconds}`` as JSON to the file named by
``PB_BENCH_PROFILE`` (its own CPU under ``"(profiler)"``), and starts counting again.
Sampling is wall-clock periodic, so a short burst of a component inside a long sample is
booked to whatever runs at the sample's end: at 5 ms over thousands of samples the shares are
right to a few per cent, which is what the summary is for.
"""

from __future__ import annotations

import atexit
import json
import os
import signal
import sys
import threading
import time
from types import FrameType

PERIOD = 0.005

#: (component, path fragments), tried in this order on each frame from the innermost out
COMPONENTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("JSON and models (json, pydantic)", ("/json/", "/pydantic/", "/pydantic_core/",
                                         "/orjson", "/msgspec")),
    ("database (SQLAlchemy, psycopg, sqlite3, server/db)", (
        "/sqlalchemy/", "/psycopg/", "/psycopg_binary/", "/sqlite3/",
        "/puntobanco/server/db/")),
    ("WebSocket protocol (websockets, uvicorn ws)", ("/websockets/", "/protocols/websockets/",
                                                     "/wsproto/")),
    ("HTTP (uvicorn http, httptools, h11, starlette, fastapi)", (
        "/protocols/http/", "/httptools/", "/h11/", "/starlette/", "/fastapi/", "/anyio/")),
    ("fan-out (live/hub, api/frames, cluster relay; socket writes)", (
        "/puntobanco/server/live/hub.py", "/puntobanco/server/api/frames.py",
        "/puntobanco/server/live/cluster.py")),
    ("desk and dealer (live/desk, live/dealer, casino)", (
        "/puntobanco/server/live/",)),
    ("bet entry (api/fastbets, wsbets, ws, deps, guard)", ("/puntobanco/server/api/",)),
    ("server, other modules (messages, settings, fair)", ("/puntobanco/server/",)),
    ("rules core (bets, table, coup)", tuple(f"/puntobanco/{name}.py" for name in (
        "bets", "table", "coup", "rules", "cards", "money", "payoffs", "i18n", "errors",
        "shoe", "rules_json"))),
    ("event loop, asyncio, threads", ("/asyncio/", "/uvloop/", "/concurrent/",
                                      "/threading.py", "/queue.py", "/selectors.py")),
)
OTHER = "event loop (uvloop's C: epoll, socket reads) and other"
LOOP = COMPONENTS[-1][0]


def component(frame: FrameType | None) -> str:
    """The first component met from the innermost frame out; the event loop's own frames
    (asyncio, threads) only when no other component is on the stack."""
    generic: str | None = None
    while frame is not None:
        name = frame.f_code.co_filename
        for label, parts in COMPONENTS:
            if any(part in name for part in parts):
                if label != LOOP:
                    return label
                generic = generic or label
        frame = frame.f_back
    return generic or OTHER


def _innermost(frame: FrameType | None) -> str:
    if frame is None:
        return "?"
    parts = frame.f_code.co_filename.split("/")
    return f"{'/'.join(parts[-2:])}:{frame.f_code.co_name}"


class Sampler:
    def __init__(self, path: str) -> None:
        self.path = path
        self.booked: dict[str, float] = {}
        #: CPU by the innermost frame's file and function (``PB_BENCH_PROFILE`` + ".files")
        self.files: dict[str, float] = {}
        self.last: dict[int, float] = {}
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self.run, name="bench-profiler", daemon=True)

    def run(self) -> None:
        me, main = threading.get_ident(), threading.main_thread().ident
        while True:
            time.sleep(PERIOD)
            frames = sys._current_frames()
            with self.lock:
                for ident, frame in frames.items():
                    if ident == me:
                        continue
                    try:
                        now = time.clock_gettime(time.pthread_getcpuclockid(ident))
                    except (OSError, ProcessLookupError):
                        continue
                    used = now - self.last.get(ident, now)
                    self.last[ident] = now
                    if used > 0:
                        label = component(frame)
                        self.booked[label] = self.booked.get(label, 0.0) + used
                        where = _innermost(frame)
                        self.files[where] = self.files.get(where, 0.0) + used
                        thread = "(main thread)" if ident == main else "(other threads)"
                        self.booked[thread] = self.booked.get(thread, 0.0) + used

    def dump(self) -> None:
        with self.lock:
            booked, self.booked = self.booked, {}
            files, self.files = self.files, {}
            booked["(profiler)"] = time.clock_gettime(
                time.pthread_getcpuclockid(self.thread.ident or 0))
        with open(self.path, "w") as out:
            json.dump(booked, out)
        with open(self.path + ".files", "w") as out:
            json.dump(dict(sorted(files.items(), key=lambda item: -item[1])[:60]), out,
                      indent=0)


def start() -> None:
    path = os.environ.get("PB_BENCH_PROFILE")
    if not path:
        return
    sampler = Sampler(path)
    sampler.thread.start()
    signal.signal(signal.SIGUSR2, lambda *_: sampler.dump())
    atexit.register(sampler.dump)
