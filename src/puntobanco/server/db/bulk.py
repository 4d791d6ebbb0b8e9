"""Many rows in few statements, written without SQLAlchemy's per-row and per-statement work.

The desk writes a batch of bets (:func:`puntobanco.server.db.store.apply_bets`) and a settlement
writes a coup's lines in one transaction each. Built with ``insert(table)`` and bound by
SQLAlchemy, every row went through ``construct_params`` and the column types' bind processors,
and every statement through a cache-key lookup: more Python than the database's own work. Here
the SQL text is fixed per table and columns, the rows are plain tuples, and each column's value
is converted by the very bind processor SQLAlchemy would use (so an SQLite ``DATETIME`` is the
same text, a ``JSON`` the same ``json.dumps`` text), once per distinct value for timestamps.

* SQLite: one ``executemany`` per table; new ids are the rowids (every table's ``id`` is an
  ``INTEGER PRIMARY KEY`` without ``AUTOINCREMENT``, and the write transaction holds SQLite's only
  write lock, so the rows of one ``executemany`` get consecutive rowids ending at
  ``last_insert_rowid()``);
* PostgreSQL: ``INSERT … SELECT * FROM unnest(%b, …)``, one array per column, a short statement
  psycopg parses once (its ``executemany`` cost about 50 µs a row in Python). Arrays go in
  psycopg's binary format (``%b``): its text format escaped every element with a regular
  expression, 16 ms for four columns of 1,000 rows against 1 ms; and each column is packed in
  one ``struct.pack`` by :func:`packed` (psycopg's list dumper packed every element in Python:
  issue 21). New ids are drawn from the
  tables' sequences first, one query for all (:meth:`Writes.reserve`), and a transaction's
  writes go as one statement (:class:`Writes`).

Statements go to the driver's connection, inside the SQLAlchemy transaction that holds it, and
raise SQLAlchemy's error classes (the desk retries an ``OperationalError``): on SQLite
:func:`execute`, where :meth:`~sqlalchemy.engine.Connection.exec_driver_sql` cost five times the
statement itself (about 25 µs against 5); on PostgreSQL :func:`pg_execute`, where it cost about
70 µs more than psycopg's own ``execute`` of the same statement (issue 21: a batch of bets sends
three), and which invalidates a connection found lost as SQLAlchemy does. No SQLAlchemy event
sees these statements.
"""

from __future__ import annotations

import json
import sqlite3
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from weakref import WeakKeyDictionary

import psycopg
from psycopg.adapt import Dumper
from psycopg.pq import Format
from sqlalchemy import Connection, DateTime, String, Table
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session
from sqlalchemy.types import JSON

Row = tuple[Any, ...]


def is_postgresql(connection: Connection) -> bool:
    return connection.dialect.name == "postgresql"


def connection_of(work: Session | Connection) -> Connection:
    """The connection of a transaction given as an ORM session or as a Core connection (the
    desk's batch runs on a bare connection: ``Database.run_batch``)."""
    return work if isinstance(work, Connection) else work.connection()


@dataclass(frozen=True, slots=True)
class Sql:
    """One statement in the SQLite (``?``) and PostgreSQL (``%s``, ``%b`` for a binary array)
    parameter styles."""

    sqlite: str
    postgresql: str

    def run(self, connection: Connection, params: Row = ()) -> list[Any]:
        """Execute it; the rows it gives."""
        if is_postgresql(connection):
            return pg_execute(connection, self.postgresql, params)
        return execute(connection, self.sqlite, params)


def execute(connection: Connection, statement: str, params: Row | list[Row] = ()) -> list[Any]:
    """Run one statement on SQLite with the driver's cursor (``params`` a tuple, or a list of
    tuples for an executemany); the rows it gives. An error is SQLAlchemy's, as from
    :meth:`~sqlalchemy.engine.Connection.exec_driver_sql`."""
    cursor = connection.connection.driver_connection.cursor()  # type: ignore[union-attr]
    try:
        if isinstance(params, list):
            cursor.executemany(statement, params)
        else:
            cursor.execute(statement, params)
        return cursor.fetchall()  # type: ignore[no-any-return]
    except sqlite3.Error as error:
        raise wrapped(connection, statement, error, params) from error
    finally:
        cursor.close()


def changed(connection: Connection, statement: str, params: list[Row]) -> int:
    """Run one SQLite statement for many parameter sets (:func:`execute`); the rows it
    changed."""
    cursor = connection.connection.driver_connection.cursor()  # type: ignore[union-attr]
    try:
        cursor.executemany(statement, params)
        return int(cursor.rowcount)
    except sqlite3.Error as error:
        raise wrapped(connection, statement, error, params) from error
    finally:
        cursor.close()


def wrapped(connection: Connection, statement: str, error: sqlite3.Error,
            params: Row | list[Row] = ()) -> Exception:
    """A driver's SQLite error as SQLAlchemy's (``OperationalError``, ``IntegrityError``…)."""
    return DBAPIError.instance(statement, params, error, sqlite3.Error,
                               dialect=connection.dialect)


def pg_execute(connection: Connection, statement: str, params: Row = ()) -> list[Any]:
    """Run one statement on PostgreSQL with psycopg's connection, in the transaction
    ``connection`` holds; the rows it gives (none for a statement without rows). An error is
    SQLAlchemy's, as from :meth:`~sqlalchemy.engine.Connection.exec_driver_sql`, and a
    connection found closed or broken is invalidated (the pool opens a new one), as that call
    does: ``db/health.py`` reports the outage the same way. Each psycopg connection keeps one
    cursor for these statements (:data:`_CURSORS`): ``connection.execute`` made a new one
    each time, ~20 µs of CPU a statement (issue 21, seventh pass)."""
    driver = connection.connection.driver_connection
    try:
        cursor = _CURSORS.get(driver)
        if cursor is None or cursor.closed:
            cursor = _CURSORS[driver] = driver.cursor()  # type: ignore[union-attr]
        cursor.execute(statement, params)
        result = cursor.pgresult  # not ``description``: it builds a Column object per column
        return cursor.fetchall() if result is not None and result.status == _ROWS else []
    except psycopg.Error as error:
        raise pg_error(connection, statement, params, error) from error


#: each psycopg connection's cursor for :func:`pg_execute` (gone with the connection)
_CURSORS: WeakKeyDictionary[Any, Any] = WeakKeyDictionary()


def pg_command(driver: Any, command: bytes) -> None:
    """Send a transaction's ``BEGIN`` or ``COMMIT`` on psycopg's connection ``driver`` with
    libpq's own ``PQexec`` (which lets go of the GIL while it waits), not through psycopg's
    ``commit()`` and implicit ``BEGIN``: ~30 µs of this process's CPU less for each (its
    generators and waiting loop; issue 21, seventh pass). psycopg reads the transaction's state
    from libpq, so it sends no ``BEGIN`` of its own in one begun this way. A ``COMMIT`` that
    PostgreSQL answered ``ROLLBACK`` (the transaction had failed) is an error too. Raises
    psycopg's error (:func:`pg_error` makes it SQLAlchemy's)."""
    result = driver.pgconn.exec_(command)
    if result.status != _DONE:
        raise psycopg.errors.error_from_result(result, encoding=driver.info.encoding)
    if command == b"COMMIT" and result.command_status != b"COMMIT":
        raise psycopg.errors.InFailedSqlTransaction(
            "COMMIT was answered ROLLBACK: the transaction had failed, nothing was written")


def pg_error(connection: Connection, statement: str, params: Any, error: psycopg.Error
             ) -> Exception:
    """psycopg's ``error`` as SQLAlchemy's, as from
    :meth:`~sqlalchemy.engine.Connection.exec_driver_sql`; a connection found closed or broken
    is invalidated (the pool opens a new one), as that call does."""
    driver = connection.connection.driver_connection
    lost = bool(connection.dialect.is_disconnect(error, driver, None))  # type: ignore[arg-type]
    if lost:
        connection.invalidate(error)
    return DBAPIError.instance(statement, params, error, psycopg.Error,
                               connection_invalidated=lost, dialect=connection.dialect)


class Packed:
    """A column of values as one binary PostgreSQL array (a ``%b`` parameter), packed at once
    by :func:`packed`: psycopg's own dumper of a list packed each value in Python (its
    ``_dump_list``, about a third of a batch of 13 bets' CPU on the write thread; issue 21)."""

    __slots__ = ("data",)
    #: the array type's oid (a subclass per type: psycopg picks a dumper by the value's class)
    oid = 0

    def __init__(self, data: bytes) -> None:
        self.data = data


class _PackedDumper(Dumper):
    format = Format.BINARY

    def dump(self, obj: Any) -> bytes:
        return obj.data  # type: ignore[no-any-return]


def _packed_kind(oid: int) -> type[Packed]:
    """The class of a packed array of one type, its dumper registered with psycopg."""
    kind = type(f"Packed{oid}", (Packed,), {"__slots__": (), "oid": oid})
    psycopg.adapters.register_dumper(kind, type(f"PackedDumper{oid}", (_PackedDumper,),
                                                {"oid": oid}))
    return kind


_INT4, _INT8, _TEXT, _TIMESTAMPTZ = (_packed_kind(oid) for oid in (1007, 1016, 1009, 1185))
#: array type (as :func:`array_type` names a column's) → (its class, the element's oid, the
#: struct code of a value: None for text, UTF-8 of any length)
_ARRAYS: dict[str, tuple[type[Packed], int, str | None]] = {
    "INTEGER": (_INT4, 23, "i"), "BIGINT": (_INT8, 20, "q"), "TEXT": (_TEXT, 25, None),
    "JSON": (_TEXT, 25, None),  # JSON text, sent as text[] and cast by the statement
    "TIMESTAMP WITH TIME ZONE": (_TIMESTAMPTZ, 1184, "q")}
_ROWS, _DONE = psycopg.pq.ExecStatus.TUPLES_OK, psycopg.pq.ExecStatus.COMMAND_OK
_MICROSECOND = timedelta(microseconds=1)
_PG_EPOCH = datetime(2000, 1, 1, tzinfo=UTC)
_LENGTH = struct.Struct(">i")


def packed(values: Sequence[Any], kind: str) -> Packed | list[Any]:
    """``values`` as one binary array of ``kind`` (``INTEGER``, ``BIGINT``, ``TEXT``, ``JSON``
    text, ``TIMESTAMP WITH TIME ZONE`` of aware datetimes), ``None`` a NULL; a kind or value it
    does not pack is given back as a list, for psycopg's own dumper. The same bytes psycopg
    sends (``tests/server/test_store_rows.py`` reads the rows back equal)."""
    found = _ARRAYS.get(kind)
    if found is None:
        return list(values)
    packed_kind, element, code = found
    count = len(values)
    if kind == "TIMESTAMP WITH TIME ZONE":
        moments: dict[Any, int | None] = {}  # a batch's rows share one timestamp: once each
        for value in values:
            if value not in moments:
                if value is not None and (not isinstance(value, datetime)
                                          or value.tzinfo is None):
                    return list(values)
                moments[value] = None if value is None else (value - _PG_EPOCH) // _MICROSECOND
        values = [moments[value] for value in values]
    head = struct.pack(">iiIii", 1, None in values, element, count, 1) if count else \
        struct.pack(">iiI", 0, 0, element)
    if code is not None and None not in values:
        try:
            parts = [struct.calcsize(code), 0] * count
            parts[1::2] = values
            body = struct.pack(f">{('i' + code) * count}", *parts)
        except struct.error:  # out of the type's range: psycopg's dumper says so
            return list(values)
    else:
        chunks: list[bytes] = []
        for value in values:
            if value is None:
                chunks.append(b"\xff\xff\xff\xff")
                continue
            data = value.encode() if code is None else struct.pack(f">{code}", value)
            chunks.append(_LENGTH.pack(len(data)))
            chunks.append(data)
        body = b"".join(chunks)
    return packed_kind(head + body)


class JsonText(str):
    """A ``JSON`` column's value already serialised (the caller wrote the text it would be
    given: ``store.answer_json``): sent as it is, where another value is ``json.dumps``'d."""

    __slots__ = ()


def json_list(values: Any) -> str:
    """A list of values as one SQLite parameter, for ``IN (SELECT value FROM json_each(?))``."""
    return json.dumps(list(values))


@dataclass(frozen=True, slots=True)
class _Insert:
    statement: str
    #: per column: the conversion of its values before they are sent (None: as they are)
    convert: tuple[Callable[[list[Any]], list[Any]] | None, ...]
    #: per column on PostgreSQL: its array's type (:func:`packed`)
    kinds: tuple[str, ...] = ()


_INSERTS: dict[tuple[str, str, tuple[str, ...]], _Insert] = {}


def _converter(table: Table, name: str, connection: Connection,
               ) -> Callable[[list[Any]], list[Any]] | None:
    column_type = table.c[name].type
    dialect = connection.dialect
    if is_postgresql(connection):
        if isinstance(column_type, JSON):  # sent as text, cast to json by the statement
            serializer = getattr(dialect, "_json_serializer", None) or json.dumps
            return lambda values: [
                value if value is None or value.__class__ is JsonText else serializer(value)
                for value in values]
        return None
    process = column_type.dialect_impl(dialect).bind_processor(dialect)
    if process is None:
        return None
    if isinstance(column_type, JSON):
        serialise = process
        return lambda values: [value if value.__class__ is JsonText else serialise(value)
                               for value in values]
    if isinstance(column_type, DateTime):  # one timestamp for a whole batch: convert it once
        def once(values: list[Any]) -> list[Any]:
            done: dict[Any, Any] = {}
            return [done[value] if value in done else done.setdefault(value, process(value))
                    for value in values]
        return once
    return lambda values: [process(value) for value in values]


def _insert(connection: Connection, table: Table, names: tuple[str, ...]) -> _Insert:
    key = (connection.dialect.name, table.name, names)
    found = _INSERTS.get(key)
    if found is not None:
        return found
    missing = [column.name for column in table.c if column.default is not None
               and not column.primary_key and column.name not in names]
    if missing:  # the Core insert filled them in; here the caller must
        raise ValueError(f"{table.name}: no value for {', '.join(missing)}")
    columns = ", ".join(names)
    kinds: tuple[str, ...] = ()
    if is_postgresql(connection):
        kinds = tuple(array_type(table, name, connection) for name in names)
        casts = ", ".join(f"CAST(%b AS {kind}[])" for kind in kinds)
        statement = f"INSERT INTO {table.name} ({columns}) SELECT * FROM unnest({casts})"
    else:
        statement = (f"INSERT INTO {table.name} ({columns}) "
                     f"VALUES ({', '.join('?' for _ in names)})")
    found = _INSERTS[key] = _Insert(statement, tuple(
        _converter(table, name, connection) for name in names), kinds)
    return found


def array_type(table: Table, name: str, connection: Connection) -> str:
    """The type a column's values are sent as in a PostgreSQL array: the column's own, except
    a ``VARCHAR(n)`` sent as ``TEXT`` (an explicit cast to ``VARCHAR(n)`` would cut a longer
    value short; the insert's own conversion refuses it, as an ordinary insert does)."""
    column_type = table.c[name].type
    if isinstance(column_type, String) and not isinstance(column_type, JSON):
        return "TEXT"
    return column_type.compile(connection.dialect)


class Writes:
    """The writes of one transaction. On SQLite each runs at once. On PostgreSQL they are kept
    and sent by :meth:`flush` as ONE statement (each one a data-modifying ``WITH`` clause: each
    runs exactly once, all see the snapshot the statement started with, and the foreign keys
    are checked at its end), the new rows' ids drawn first by :meth:`reserve`, one query for
    every table: a round trip cost about 100 µs of this process's CPU (psycopg and the
    socket), more than the Python that builds these statements."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self.postgresql = is_postgresql(connection)
        self._statements: list[str] = []
        self._params: list[Any] = []
        self._ids: dict[str, list[int]] = {}

    def reserve(self, counts: Sequence[tuple[Table, int]]) -> None:
        """Draw the ids of the rows about to be inserted, those not drawn already (PostgreSQL;
        nothing on SQLite)."""
        wanted = [(table.name, count - len(self._ids.get(table.name, ()))) for table, count
                  in counts if count > len(self._ids.get(table.name, ()))]
        if not self.postgresql or not wanted:
            return
        query = " UNION ALL ".join(
            f"(SELECT %s, nextval(s.seq) FROM {_SEQUENCE.format('%s')} "
            "CROSS JOIN generate_series(1, %s))" for _ in wanted)
        params = tuple(value for name, count in wanted for value in (name, name, count))
        for name, new in pg_execute(self.connection, query, params):
            self._ids.setdefault(name, []).append(int(new))
        for ids in self._ids.values():
            ids.sort()  # a sequence grows: in ascending order they are in the rows' order

    def drawn(self, table: Table, ids: Sequence[int] | None) -> None:
        """Ids of ``table`` already drawn by the caller (in another query, as
        :func:`draw_ids` writes it), used before :meth:`reserve` draws more; the unused are
        left as a gap, as a rolled-back transaction leaves one."""
        if ids:
            found = self._ids.setdefault(table.name, [])
            found.extend(ids)
            found.sort()

    def insert(self, table: Table, names: tuple[str, ...], rows: Sequence[Row]) -> None:
        """Insert ``rows`` (tuples of the columns ``names``; every column with a default
        given)."""
        if not rows:
            return
        plan = _insert(self.connection, table, names)
        columns: list[list[Any]] | None = None
        if any(plan.convert) or self.postgresql:
            columns = [list(values) for values in zip(*rows, strict=True)]
            for index, convert in enumerate(plan.convert):
                if convert is not None:
                    columns[index] = convert(columns[index])
        if self.postgresql:
            assert columns is not None
            self.add(plan.statement, tuple(packed(column, kind) for column, kind
                                           in zip(columns, plan.kinds, strict=True)))
        else:
            params = list(rows) if columns is None else list(zip(*columns, strict=True))
            execute(self.connection, plan.statement, params)

    def insert_with_ids(self, table: Table, names: tuple[str, ...],
                        rows: Sequence[Row]) -> list[int]:
        """:meth:`insert`, giving the new rows' ids in the rows' order."""
        if not rows:
            return []
        if self.postgresql:
            if len(self._ids.get(table.name, ())) < len(rows):
                self.reserve([(table, len(rows))])
            ids = self._ids[table.name][:len(rows)]
            del self._ids[table.name][:len(rows)]
            self.insert(table, ("id", *names),
                        [(new, *row) for new, row in zip(ids, rows, strict=True)])
            return ids
        self.insert(table, names, rows)
        last = int(execute(self.connection, "SELECT last_insert_rowid()")[0][0])
        return list(range(last - len(rows) + 1, last + 1))

    def add(self, statement: str, params: Row) -> None:
        """One more PostgreSQL statement (``INSERT`` or ``UPDATE``, no ``RETURNING``)."""
        assert self.postgresql
        self._statements.append(statement)
        self._params.extend(params)

    def flush(self) -> None:
        """Send what :meth:`add` kept (PostgreSQL), as one statement."""
        if not self._statements:
            return
        *first, last = self._statements
        statement = ("WITH " + ", ".join(f"w{index} AS ({part})" for index, part
                                         in enumerate(first)) + " " + last) if first else last
        params = tuple(self._params)
        self._statements, self._params = [], []
        pg_execute(self.connection, statement, params)


#: a table's id sequence (``{}``: the table's name), found once for all the ids a query draws:
#: ``nextval(pg_get_serial_sequence(…))`` looked the sequence up again for every id, 5.3 µs of
#: PostgreSQL's CPU an id against 1.1 (15,000 ids: 78-87 against 17-18 ms; ``OFFSET 0`` keeps
#: the planner from pulling the lookup into the per-row expression)
_SEQUENCE = ("(SELECT CAST(pg_get_serial_sequence({}, 'id') AS regclass) AS seq OFFSET 0) "
             "AS s")


def draw_ids(table: Table) -> str:
    """A PostgreSQL expression drawing ``%s`` new ids of ``table`` (an array, NULL for none),
    for a query the transaction sends anyway; see :meth:`Writes.drawn`."""
    return (f"(SELECT array_agg(nextval(s.seq)) FROM {_SEQUENCE.format(repr(table.name))} "
            "CROSS JOIN generate_series(1, %s))")


def insert(connection: Connection, table: Table, names: tuple[str, ...],
           rows: Sequence[Row]) -> None:
    """Insert ``rows`` now (see :meth:`Writes.insert`)."""
    writes = Writes(connection)
    writes.insert(table, names, rows)
    writes.flush()
