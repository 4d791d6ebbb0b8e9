"""What a bench's throw-away PostgreSQL cluster did with its write-ahead log, second by second.

``PB_BENCH_PG_WATCH=1`` (any bench that starts ``bench_server.Postgres``) loads
``pg_stat_statements``, logs every statement slower than ``PB_BENCH_PG_SLOW_MS`` (20 ms) and
samples, every half second, the log's position (``pg_current_wal_lsn``), ``pg_stat_wal``
(records, full-page images, bytes, flushes and their time: ``track_wal_io_timing``) and
``pg_stat_bgwriter`` (checkpoints timed and requested, the buffers they wrote). When the cluster
stops it prints the busy half-seconds, the checkpoints of the log, the slow statements by
kind (``COMMIT``: the flush a durable commit waits for), and per call of each write statement
of the run its pages dirtied and its log (records, full-page images, bytes): what one batch of
bets writes (issue 21, sixth pass: ``docs/server.md``).
"""

from __future__ import annotations

import itertools
import os
import re
import threading
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

#: a segment of the write-ahead log (PostgreSQL's default)
SEGMENT = 16 * 2**20
#: the statements slower than this many ms are logged (``log_min_duration_statement``)
SLOW_MS = int(os.environ.get("PB_BENCH_PG_SLOW_MS", "20"))
SAMPLE = """SELECT pg_current_wal_lsn() - '0/0', w.wal_records, w.wal_fpi, w.wal_bytes,
 w.wal_buffers_full, w.wal_write, w.wal_sync, w.wal_write_time, w.wal_sync_time,
 b.checkpoints_timed, b.checkpoints_req, b.buffers_checkpoint, b.buffers_backend,
 b.buffers_clean FROM pg_stat_wal AS w, pg_stat_bgwriter AS b"""
COLUMNS = ("lsn", "records", "fpi", "bytes", "buffers_full", "writes", "syncs", "write_ms",
           "sync_ms", "ckpt_timed", "ckpt_req", "buf_ckpt", "buf_backend", "buf_clean")
STATEMENTS = """SELECT calls, shared_blks_dirtied, shared_blks_written, wal_records, wal_fpi,
 wal_bytes, total_exec_time, left(regexp_replace(query, '\\s+', ' ', 'g'), 70)
 FROM pg_stat_statements WHERE wal_bytes > 0 ORDER BY wal_bytes DESC LIMIT 8"""


def settings() -> list[str]:
    """The ``-c`` settings a watched cluster starts with (none when not watched)."""
    if not os.environ.get("PB_BENCH_PG_WATCH"):
        return []
    return ["shared_preload_libraries=pg_stat_statements", "track_wal_io_timing=on",
            "log_checkpoints=on", f"log_min_duration_statement={SLOW_MS}", "log_timezone=UTC",
            "pg_stat_statements.track=all"]


class Watch:
    """Samples the cluster on ``port`` on a thread of its own until :meth:`stop`."""

    def __init__(self, port: int, log: Path) -> None:
        import psycopg

        self.log = log
        self.connection = psycopg.connect(f"host=127.0.0.1 port={port} user=bench "
                                          "dbname=postgres", autocommit=True)
        self.connection.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
        self.samples: list[tuple[float, tuple[Any, ...]]] = []
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, name="pg-watch", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._done.wait(0.5):
            try:
                row = self.connection.execute(SAMPLE).fetchone()
            except Exception:  # the cluster is stopping
                return
            if row is not None:
                self.samples.append((time.time(), tuple(row)))

    def stop(self) -> None:
        """Stop sampling and print the report (before the cluster stops)."""
        self._done.set()
        self._thread.join(5)
        statements = self.connection.execute(STATEMENTS).fetchall()
        self.connection.close()
        print(self.report(statements), flush=True)

    def report(self, statements: list[Any]) -> str:
        lines = ["PostgreSQL's log, every half second it grew by 256 kB or more (pg_watch.py):",
                 "     t s   log kB  records  full pages  flushes  flush ms mean  buffers "
                 "full  checkpoints (timed, asked)  buffers written (checkpoint, backends)"]
        start = self.samples[0][0] if self.samples else 0.0
        for (_, before), (at, after) in zip(self.samples, self.samples[1:], strict=False):
            change = dict(zip(COLUMNS, (float(b) - float(a) for a, b in
                                        zip(before, after, strict=True)), strict=True))
            if change["lsn"] < 256 * 1024 and not change["ckpt_timed"] + change["ckpt_req"]:
                continue
            syncs = change["syncs"]
            lines.append(
                f"  {at - start:6.1f} {change['lsn'] / 1024:8.0f} {change['records']:8.0f} "
                f"{change['fpi']:11.0f} {syncs:8.0f} "
                f"{change['sync_ms'] / syncs if syncs else 0:14.1f} "
                f"{change['buffers_full']:12.0f}  {change['ckpt_timed']:.0f}, "
                f"{change['ckpt_req']:.0f}  {change['buf_ckpt']:.0f}, "
                f"{change['buf_backend']:.0f}")
        if len(self.samples) > 1:
            first, last = self.samples[0][1], self.samples[-1][1]
            whole = dict(zip(COLUMNS, (float(b) - float(a) for a, b in
                                       zip(first, last, strict=True)), strict=True))
            lines.append(
                f"  whole run: log {whole['lsn'] / 2**20:.1f} MiB, {whole['records']:.0f} records,"
                f" {whole['fpi']:.0f} full-page images, {whole['syncs']:.0f} flushes "
                f"({whole['sync_ms'] / max(1.0, whole['syncs']):.2f} ms mean), checkpoints "
                f"timed {whole['ckpt_timed']:.0f}, asked {whole['ckpt_req']:.0f}")
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        lines.append(self.commits_and_segments(text))
        lines += [f"  {line.split('LOG:', 1)[-1].strip()}" for line in text.splitlines()
                  if "checkpoint starting" in line or "checkpoint complete" in line]
        slow: dict[str, list[float]] = {}
        for ms, statement in re.findall(r"duration: ([\d.]+) ms\s+(?:statement|execute[^:]*):"
                                        r" (.{0,40})", text):
            slow.setdefault(statement.split()[0].upper() if statement else "?",
                            []).append(float(ms))
        for kind, values in sorted(slow.items(), key=lambda item: -len(item[1])):
            values.sort()
            bands = Counter(next((edge for edge in (50, 100, 200, 400, 800) if value < edge),
                                 0) for value in values)
            lines.append(f"  statements over {SLOW_MS} ms: {kind} {len(values)}, median "
                         f"{values[len(values) // 2]:.0f} ms, max {values[-1]:.0f} ms ("
                         + ", ".join(f"{f'<{edge}' if edge else '>=800'} ms {n}"
                                     for edge, n in sorted(bands.items(),
                                                           key=lambda item: item[0] or 10**9))
                         + ")")
        lines.append("  per call of the statements that wrote most log (pg_stat_statements): "
                     "calls, pages dirtied, pages written, log records, full pages, log bytes,"
                     " ms")
        for calls, dirtied, written, records, fpi, wal, ms, query in statements:
            lines.append(f"    {calls:6d} {dirtied / calls:7.1f} {written / calls:6.1f} "
                         f"{records / calls:8.1f} {fpi / calls:6.1f} {float(wal) / calls:9.0f}"
                         f" {ms / calls:7.2f}  {query}")
        return "\n".join(lines)

    def commits_and_segments(self, text: str) -> str:
        """How many slow ``COMMIT``s ran while the log entered a new 16 MiB segment (which a
        new cluster creates and fills with zeros, flushed, in the commit's path; a server
        that has run a while reuses old ones), against the share of the run's time such
        moments take."""
        crossings = [(at, int(row[0]) // SEGMENT) for at, row in self.samples]
        spans = [(before[0], after[0]) for before, after in itertools.pairwise(crossings)
                 if after[1] != before[1]]
        slow = []
        for stamp, ms in re.findall(r"^(\S+ \S+) \S+ \[\d+\] LOG:  duration: ([\d.]+) ms"
                                    r"\s+statement: COMMIT", text, re.MULTILINE):
            end = datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S.%f").replace(
                tzinfo=UTC).timestamp()
            slow.append((end - float(ms) / 1000, end))
        if slow:  # when, to set beside other processes' flushes (wall clock, UTC)
            print("  slow COMMITs (end, UTC, ms): " + ", ".join(
                f"{datetime.fromtimestamp(end, UTC):%H:%M:%S.%f}"[:-3]
                + f" {1000 * (end - start):.0f}" for start, end in slow), flush=True)
        near = sum(1 for start, end in slow
                   if any(start <= b + 0.05 and end >= a - 0.05 for a, b in spans))
        busy = sum(b - a for a, b in spans)
        whole = crossings[-1][0] - crossings[0][0] if len(crossings) > 1 else 0.0
        return (f"  slow COMMITs while the log entered a new segment: {near} of {len(slow)} "
                f"({len(spans)} segments entered, in {busy:.1f} s of the {whole:.0f} s "
                "sampled)")
