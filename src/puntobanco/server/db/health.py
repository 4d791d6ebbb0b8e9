"""The database as this process sees it (issue 22): reachable, unreachable, or out of space.

Every call of :class:`~puntobanco.server.db.engine.Database` reports here how it ended. A call
that fails because the database cannot be reached (PostgreSQL stopped or restarting, a broken
connection, SQLite's file gone) or because its disk is full moves the process to that state —
one log line, and every listener (the casino tells every socket) hears of it once; a later call
that succeeds, or the probe of :meth:`Health.watch`, brings it back — one log line again, with
what the outage cost (the requests refused meanwhile, what the dealers' recoveries voided,
refunded and settled). A database error that is not an outage (a lock, a constraint: a bug) is
left to the caller.

On SQLite the same watch keeps the disk from ever holding a stake:

- the write-ahead log is checkpointed and truncated whenever it grows past
  :data:`WAL_BURST_PAGES` or the disk is full (and SQLite itself truncates it to
  :data:`WAL_KEEP_BYTES` when it restarts, ``PRAGMA journal_size_limit``), so that the log
  never fills the disk by itself, and freeing space is enough for the next write;
- new bets are refused (``storage-full``) as soon as the free space of the database's
  filesystem (``os.statvfs``) falls below the reserve needed to settle or refund every bet
  already taken (:meth:`Health.reserve_bytes`: :data:`RESERVE_BASE_BYTES` plus
  :data:`RESERVE_PER_BET_BYTES` for each bet in play); the settlements, voids and recoveries
  of the dealers are still written from the reserve;
- after a full disk, each probe checkpoints the log again, so the dealers settle as soon as
  space is freed.

>>> import sqlite3
>>> outage_code(sqlite3.OperationalError("database or disk is full"))
'storage-full'
>>> outage_code(sqlite3.OperationalError("database is locked")) is None
True
>>> outage_code(ValueError("no")) is None
True
"""

from __future__ import annotations

import asyncio
import logging
import os
import sqlite3
import time
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import exc as sa_exc
from sqlalchemy import func, select
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session

from puntobanco.errors import PuntoBancoError
from puntobanco.server.db.models import BetRecord

log = logging.getLogger("puntobanco.server.database")

UNAVAILABLE, STORAGE_FULL = "database-unavailable", "storage-full"
#: what a refused request's ``Retry-After`` says, in seconds
RETRY_AFTER_SECONDS = 2
#: how often the watch probes a database that is away, and looks at the disk of one that is not
PROBE_SECONDS, DISK_SECONDS = 0.5, 1.0
#: a database nothing asked for this long is probed anyway (the health endpoint stays true)
QUIET_SECONDS = 3.0
#: the space kept to settle or refund the bets in play: a base (the log growing up to its
#: next checkpoint, WAL_AUTO_PAGES pages and a transaction, then the database file growing
#: when it is copied back) and an amount per bet (its line, its ledger pairs, their indexes,
#: twice: once in the log, once in the database)
RESERVE_BASE_BYTES, RESERVE_PER_BET_BYTES = 1536 * 1024, 4 * 1024
#: SQLite keeps at most WAL_KEEP_BYTES of the log when it restarts, and checkpoints by itself
#: every WAL_AUTO_PAGES pages (the loop's batches beside, ``Database._batch_inline``)
WAL_KEEP_BYTES, WAL_AUTO_PAGES = 256 * 1024, 200
#: the log's bound through a burst of bets (256 MiB), beyond which it is checkpointed and
#: truncated (``Database.watch``) and a batch waits for the disk (``Database._batch_inline``).
#: While the batches keep committing a checkpoint seldom copies the whole log (only one that
#: ends between two commits), and the log restarts only then, or in the pause after the
#: burst: 1,000 players' bets wrote 1.6 pages a bet, 5,000 players' ~3 (25 MB a second at
#: 2,000 bets a second; the log reached 84 MiB in a 5 s burst). (Until issue 21's fourth
#: pass the watch truncated it past 1 MiB, every second of a burst: a TRUNCATE checkpoint
#: holds every writer back while it waits for the readers, copies and syncs, and a batch
#: waited 200-340 ms; a bound of 100 MiB was reached at 5,000 players, and a batch waited
#: 1.4 s for the checkpoints to copy it.)
WAL_BURST_PAGES = 65_536
#: the loop's batches start a checkpoint beside them (``Database._batch_inline``) once the
#: log passed WAL_AUTO_PAGES and grew this many pages since the last one started (issue 21,
#: fifth pass): one started as soon as the last ended copied the same hot pages (wallets,
#: index tails) again every batch or two, and its thread cost a batch of 30 bets more than
#: the batch's own statements (``docs/server.md``)
WAL_STRIDE_PAGES = 2_000
#: how long the "back" line waits for the dealers that failed in the outage to recover
BACK_REPORT_SECONDS = 10.0

#: SQLite's primary result codes (``sqlite3.Error.sqlite_errorcode & 0xff``)
_SQLITE_BUSY, _SQLITE_LOCKED, _SQLITE_IOERR, _SQLITE_FULL = 5, 6, 10, 13
_SQLITE_CANTOPEN, _SQLITE_NOTADB = 14, 26


class DatabaseUnavailable(PuntoBancoError):
    """A request refused because the database is away (``database-unavailable``) or its disk
    is full (``storage-full``): answered 503 with ``Retry-After``."""

    def __init__(self, code: str = UNAVAILABLE) -> None:
        super().__init__("The server's storage is full: betting is paused until space is freed."
                         if code == STORAGE_FULL else
                         "The database is unavailable for a moment: try again in a few seconds.",
                         code=code)
        self.retry_after = RETRY_AFTER_SECONDS


def _causes(error: BaseException) -> list[BaseException]:
    found: list[BaseException] = []
    todo: list[BaseException | None] = [error]
    while todo and len(found) < 8:
        current = todo.pop()
        if current is None or any(current is seen for seen in found):
            continue
        found.append(current)
        todo.extend((getattr(current, "orig", None), current.__cause__, current.__context__))
    return found


def outage_code(error: BaseException) -> str | None:
    """``storage-full`` or ``database-unavailable`` when ``error`` says the database is full or
    cannot be reached; ``None`` for anything else (a busy lock, a constraint, a bug)."""
    unavailable = False
    for cause in _causes(error):
        if isinstance(cause, DatabaseUnavailable):
            return cause.code
        if isinstance(cause, OSError) and cause.errno == 28:  # ENOSPC
            return STORAGE_FULL
        if isinstance(cause, sqlite3.Error):
            primary = (getattr(cause, "sqlite_errorcode", None) or 0) & 0xFF
            text = str(cause).lower()
            if primary == _SQLITE_FULL or "database or disk is full" in text:
                return STORAGE_FULL
            if primary in (_SQLITE_BUSY, _SQLITE_LOCKED) or "locked" in text or "busy" in text:
                return None
            if primary in (_SQLITE_IOERR, _SQLITE_CANTOPEN, _SQLITE_NOTADB) or (
                    isinstance(cause, sqlite3.OperationalError)
                    and ("disk i/o" in text or "unable to open" in text)):
                unavailable = True
            continue
        state = _pg_state(cause)
        if state is not None:
            sqlstate, is_operational = state
            if sqlstate == "53100":  # disk_full
                return STORAGE_FULL
            if (sqlstate is None and is_operational) or (sqlstate or "")[:2] in (
                    "08", "57", "53", "58"):  # connection, shutdown, resources, system
                unavailable = True
            continue
        if isinstance(cause, (sa_exc.DisconnectionError, sa_exc.TimeoutError)) or (
                isinstance(cause, sa_exc.DBAPIError) and cause.connection_invalidated):
            unavailable = True
    return UNAVAILABLE if unavailable else None


def _pg_state(error: BaseException) -> tuple[str | None, bool] | None:
    """(SQLSTATE, is an OperationalError or InterfaceError) of a psycopg error, else None."""
    try:
        import psycopg
    except ImportError:  # pragma: no cover - psycopg is a dependency
        return None
    if not isinstance(error, psycopg.Error):
        return None
    operational = isinstance(error, (psycopg.OperationalError, psycopg.InterfaceError))
    return error.sqlstate, operational


def _clock(epoch_ms: int) -> str:
    return datetime.fromtimestamp(epoch_ms / 1000, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def _mib(size: int) -> str:
    return f"{size / 1048576:.1f} MiB"


Listener = Callable[["Health"], None]


class Health:
    """The database's state in this process (see the module's docstring)."""

    def __init__(self, url: str) -> None:
        parsed = make_url(url)
        self.backend = parsed.get_backend_name()
        #: the SQLite file (its filesystem's free space is watched), or None
        self.path: Path | None = (Path(parsed.database).resolve()
                                  if self.backend == "sqlite" and parsed.database
                                  and parsed.database != ":memory:" else None)
        #: None (available), ``database-unavailable`` or ``storage-full``
        self.code: str | None = None
        self.since: int | None = None  # epoch ms
        self._down_at = 0.0  # monotonic
        self._up_at = 0.0  # monotonic: failures of calls begun before this are stale
        self.reason = ""
        #: requests refused in the present (or last) outage, by kind
        self.refused: Counter[str] = Counter()
        self.listeners: list[Listener] = []
        #: the number of bets in play (accepted, not yet settled or refunded) in this process
        self.bets_in_play: Callable[[], int] = lambda: 0
        #: the filesystem's free bytes at the last look (SQLite), or None
        self.free_bytes: int | None = None
        self.wal_bytes: int | None = None
        self.checkpoints = 0
        self.last_ok: float | None = None  # monotonic, the last call that succeeded
        self._failed_tables: set[int] = set()
        self._recoveries: list[str] = []
        self._report: asyncio.TimerHandle | None = None
        self._back_line: str | None = None
        self.back = asyncio.Event()
        self.back.set()

    # --- state -------------------------------------------------------------------------------

    @property
    def available(self) -> bool:
        return self.code is None

    def state(self) -> dict[str, Any]:
        """The ``database`` object of the socket message and the snapshot."""
        return {"available": self.code is None, "code": self.code, "since": self.since}

    def started(self) -> float:
        """The moment a call starts, for :meth:`failed` and :meth:`succeeded`."""
        return time.monotonic()

    def failed(self, error: BaseException, started: float) -> str | None:
        """A call begun at ``started`` failed with ``error``: its outage code (the process
        enters that state), or None when it is not an outage."""
        code = outage_code(error)
        if code is None or started < self._up_at:  # not an outage, or from before the return
            return code
        if code == UNAVAILABLE and self.code == STORAGE_FULL:
            return STORAGE_FULL  # an I/O error of a full disk
        if code == UNAVAILABLE and self._disk_short():
            code = STORAGE_FULL
        reason = str(getattr(error, "orig", None) or error).strip().splitlines()
        self._enter(code, reason[0][:200] if reason else type(error).__name__)
        return code

    def succeeded(self, started: float, *, write: bool = False) -> None:
        """A call begun at ``started`` succeeded: the database is reachable. A full disk is
        cleared on SQLite by the watch only, when there is room again; on PostgreSQL by a
        write that went through."""
        self.last_ok = time.monotonic()
        if started < self._down_at:
            return
        if self.code == UNAVAILABLE or (self.code == STORAGE_FULL and write
                                        and self.path is None):
            self._leave()

    def refuse(self, kind: str, count: int = 1) -> None:
        """Count requests refused because of the database (``bets``, ``requests``,
        ``sockets``)."""
        self.refused[kind] += count

    def check_writes(self) -> None:
        """Refuse a write that is not a dealer's while the disk is short (storage-full)."""
        if self.code == STORAGE_FULL:
            raise DatabaseUnavailable(STORAGE_FULL)

    def check_bets(self) -> None:
        """Refuse a new bet at once while the database is away or its disk short."""
        if self.code is not None:
            raise DatabaseUnavailable(self.code)

    def _enter(self, code: str, reason: str) -> None:
        if self.code == code:
            return
        if self.code is None:
            if self._report is not None:  # the last outage's line not written yet: now
                self._write_back_line()
            self.since = int(time.time() * 1000)
            self._down_at = time.monotonic()
            self.refused = Counter()
            self._recoveries = []
        self.code, self.reason = code, reason
        self.back.clear()
        since = _clock(self.since or 0)
        if code == STORAGE_FULL:
            self.look_at_disk()
            log.error("database storage full since %s: %s (%s); new bets refused", since,
                      self.disk_line(), reason)
        else:
            log.error("database unreachable since %s (%s); requests that need it are refused "
                      "with 503", since, reason)
        self._notify()

    def _leave(self) -> None:
        if self.code is None:
            return
        what = "storage full" if self.code == STORAGE_FULL else "unreachable"
        seconds = time.monotonic() - self._down_at
        self.code, self.since, self.reason = None, None, ""
        self._up_at = time.monotonic()
        self.back.set()
        self._back_line = f"database back after {seconds:.1f} s ({what} until now)"
        self._notify()
        if not self._failed_tables:
            self._write_back_line()
        else:  # one line once the dealers have repaired what the outage left
            try:
                self._report = asyncio.get_running_loop().call_later(
                    BACK_REPORT_SECONDS, self._write_back_line)
            except RuntimeError:
                self._write_back_line()

    def _write_back_line(self) -> None:
        if self._report is not None:
            self._report.cancel()
            self._report = None
        if self._back_line is None:
            return
        parts = [self._back_line]
        parts.extend(self._recoveries)
        if self._failed_tables:
            parts.append("not repaired here (yet): table " + ", ".join(map(str, sorted(
                self._failed_tables))))
            self._failed_tables.clear()
        refused = self.refused
        parts.append(f"refused meanwhile: {refused['bets']} bets, {refused['requests']} other "
                     f"requests, {refused['sockets']} sockets")
        log.warning("; ".join(parts))
        self._back_line = None

    def flush(self) -> None:
        """Write the "back" line now if it waits for recoveries (the server is stopping)."""
        if self._report is not None:
            self._write_back_line()

    def dealer_failed(self, table_id: int) -> None:
        """A table's dealer stopped on an outage and will recover from the database."""
        self._failed_tables.add(table_id)

    def recovering(self, table_id: int) -> bool:
        """The table's dealer failed in an outage and has not reported its recovery yet."""
        return table_id in self._failed_tables

    def dealer_recovered(self, table_id: int, voided: list[int], settled: list[int],
                         refunded: int, paid: int) -> None:
        """What a dealer's recovery after an outage did (for the "back" line)."""
        if table_id not in self._failed_tables:
            return
        self._failed_tables.discard(table_id)
        done = []
        if voided:
            done.append(f"voided round {', '.join(map(str, voided))}, refunded {refunded} bets")
        if settled:
            done.append(f"settled coup {', '.join(map(str, settled))} ({paid} bets)")
        self._recoveries.append(f"table {table_id}: " + (" and ".join(done) or "nothing to repair"))
        if self._back_line is not None and not self._failed_tables:
            self._write_back_line()

    def _notify(self) -> None:
        for listener in list(self.listeners):
            try:
                listener(self)
            except Exception:  # a listener must not stop the others
                log.exception("a database state listener failed")

    # --- the disk (SQLite) ---------------------------------------------------------------------

    def reserve_bytes(self) -> int:
        """The free space kept to settle or refund every bet in play."""
        return RESERVE_BASE_BYTES + RESERVE_PER_BET_BYTES * max(0, self.bets_in_play())

    def look_at_disk(self) -> None:
        """Read the free space of the database's filesystem and the log's size."""
        if self.path is None:
            return
        try:
            found = os.statvfs(self.path.parent)
        except OSError:
            return
        self.free_bytes = found.f_bavail * found.f_frsize
        try:
            self.wal_bytes = os.stat(f"{self.path}-wal").st_size
        except OSError:
            self.wal_bytes = 0

    def _disk_short(self) -> bool:
        if self.path is None:
            return False
        self.look_at_disk()
        return self.free_bytes is not None and self.free_bytes < self.reserve_bytes()

    def disk_line(self) -> str:
        if self.free_bytes is None:
            return "free space unknown"
        return (f"{_mib(self.free_bytes)} free on {self.path.parent if self.path else '?'}, "
                f"{_mib(self.reserve_bytes())} kept for {self.bets_in_play()} bets in play")

    def disk(self) -> dict[str, Any] | None:
        """The disk as the health endpoint and the operator's console show it (SQLite only)."""
        if self.path is None:
            return None
        return {"path": str(self.path.parent), "free_bytes": self.free_bytes,
                "reserve_bytes": self.reserve_bytes(), "wal_bytes": self.wal_bytes,
                "bets_in_play": self.bets_in_play()}

    def disk_state(self) -> None:
        """Enter storage-full when the free space falls below the reserve; leave it when there
        is room again (with a margin of a quarter of the reserve, so it does not flap)."""
        if self.free_bytes is None:
            return
        reserve = self.reserve_bytes()
        if self.code is None and self.free_bytes < reserve:
            self._enter(STORAGE_FULL, "the reserve for the bets in play is reached")
        elif self.code == STORAGE_FULL and self.free_bytes >= reserve + reserve // 4:
            self._leave()


def recovery_counts(session: Session, voided: list[int], settled: list[int]) -> tuple[int, int]:
    """How many bets a recovery refunded (in the ``voided`` coups) and paid (``settled``)."""
    def count(coups: list[int], status: str) -> int:
        if not coups:
            return 0
        return int(session.execute(select(func.count()).select_from(BetRecord).where(
            BetRecord.coup_id.in_(coups), BetRecord.status == status,
            BetRecord.stake > 0)).scalar_one())

    return count(voided, "refunded"), count(settled, "settled")
