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
  psycopg parses once (its ``executemany`` cost about 50 µs a row in Python); new ids are drawn
  from the table's sequence first, in one query. Arrays go in psycopg's binary format (``%b``):
  its text format escaped every element with a regular expression, 16 ms for four columns of
  1,000 rows against 1 ms.

Statements go through :meth:`sqlalchemy.engine.Connection.exec_driver_sql`, so SQLAlchemy's
error classes (the desk retries an ``OperationalError``) and events stay as they were.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, DateTime, String, Table
from sqlalchemy.engine import CursorResult
from sqlalchemy.types import JSON

Row = tuple[Any, ...]


def is_postgresql(connection: Connection) -> bool:
    return connection.dialect.name == "postgresql"


@dataclass(frozen=True, slots=True)
class Sql:
    """One statement in the SQLite (``?``) and PostgreSQL (``%s``) parameter styles."""

    sqlite: str
    postgresql: str

    @classmethod
    def both(cls, text: str) -> Sql:
        """The same text for both, ``?`` placeholders becoming ``%s`` (no ``%`` or ``?``
        elsewhere in it)."""
        return cls(text, text.replace("?", "%s"))

    def run(self, connection: Connection, params: Row | list[Row] = (),
            ) -> CursorResult[*tuple[Any, ...]]:
        """Execute it (``params`` a tuple, or a list of tuples for an executemany)."""
        text = self.postgresql if is_postgresql(connection) else self.sqlite
        return connection.exec_driver_sql(text, params)


def json_list(values: Any) -> str:
    """A list of values as one SQLite parameter, for ``IN (SELECT value FROM json_each(?))``."""
    return json.dumps(list(values))


@dataclass(frozen=True, slots=True)
class _Insert:
    statement: str
    #: per column: the conversion of its values before they are sent (None: as they are)
    convert: tuple[Callable[[list[Any]], list[Any]] | None, ...]


_INSERTS: dict[tuple[str, str, tuple[str, ...]], _Insert] = {}


def _converter(table: Table, name: str, connection: Connection,
               ) -> Callable[[list[Any]], list[Any]] | None:
    column_type = table.c[name].type
    dialect = connection.dialect
    if is_postgresql(connection):
        if isinstance(column_type, JSON):  # sent as text, cast to json by the statement
            serializer = getattr(dialect, "_json_serializer", None) or json.dumps
            return lambda values: [None if value is None else serializer(value)
                                   for value in values]
        return None
    process = column_type.dialect_impl(dialect).bind_processor(dialect)
    if process is None:
        return None
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
    if is_postgresql(connection):
        casts = ", ".join(f"CAST(%b AS {array_type(table, name, connection)}[])"
                          for name in names)
        statement = f"INSERT INTO {table.name} ({columns}) SELECT * FROM unnest({casts})"
    else:
        statement = (f"INSERT INTO {table.name} ({columns}) "
                     f"VALUES ({', '.join('?' for _ in names)})")
    found = _INSERTS[key] = _Insert(statement, tuple(
        _converter(table, name, connection) for name in names))
    return found


def array_type(table: Table, name: str, connection: Connection) -> str:
    """The type a column's values are sent as in a PostgreSQL array: the column's own, except
    a ``VARCHAR(n)`` sent as ``TEXT`` (an explicit cast to ``VARCHAR(n)`` would cut a longer
    value short; the insert's own conversion refuses it, as an ordinary insert does)."""
    column_type = table.c[name].type
    if isinstance(column_type, String) and not isinstance(column_type, JSON):
        return "TEXT"
    return column_type.compile(connection.dialect)


def insert(connection: Connection, table: Table, names: tuple[str, ...],
           rows: Sequence[Row]) -> None:
    """Insert ``rows`` (tuples of the columns ``names``, every column with a default given)."""
    if not rows:
        return
    plan = _insert(connection, table, names)
    columns: list[list[Any]] | None = None
    if any(plan.convert) or is_postgresql(connection):
        columns = [list(values) for values in zip(*rows, strict=True)]
        for index, convert in enumerate(plan.convert):
            if convert is not None:
                columns[index] = convert(columns[index])
    if is_postgresql(connection):
        assert columns is not None
        connection.exec_driver_sql(plan.statement, tuple(columns))
    else:
        params = list(rows) if columns is None else list(zip(*columns, strict=True))
        connection.exec_driver_sql(plan.statement, params)


def insert_with_ids(connection: Connection, table: Table, names: tuple[str, ...],
                    rows: Sequence[Row]) -> list[int]:
    """:func:`insert`, giving the new rows' ids in the rows' order."""
    if not rows:
        return []
    if is_postgresql(connection):
        ids = [int(value) for value, in connection.exec_driver_sql(
            "SELECT nextval(pg_get_serial_sequence(%s, 'id')) FROM generate_series(1, %s)",
            (table.name, len(rows)))]
        insert(connection, table, ("id", *names),
               [(new, *row) for new, row in zip(ids, rows, strict=True)])
        return ids
    insert(connection, table, names, rows)
    last = int(connection.exec_driver_sql("SELECT last_insert_rowid()").scalar_one())
    return list(range(last - len(rows) + 1, last + 1))
