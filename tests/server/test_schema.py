"""The schema: ``alembic upgrade head`` on an empty database gives exactly the models' schema
(SQLite and PostgreSQL), downgrades cleanly, and the migrations ship inside the package."""

from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import create_engine, inspect, text
from sqlalchemy.exc import IntegrityError

from puntobanco.server.db.engine import MIGRATIONS_DIR, alembic_config, migrate
from puntobanco.server.db.models import Base

ROOT = Path(__file__).resolve().parents[2]


def test_upgrade_head_on_an_empty_database_gives_the_models_schema(db_url: str) -> None:
    migrate(db_url)
    engine = create_engine(db_url)
    with engine.connect() as connection:
        differences = compare_metadata(MigrationContext.configure(connection), Base.metadata)
    engine.dispose()
    assert differences == []


def test_downgrade_to_base_and_upgrade_again(sqlite_url: str) -> None:
    migrate(sqlite_url)
    command.downgrade(alembic_config(sqlite_url), "base")
    engine = create_engine(sqlite_url)
    assert set(inspect(engine).get_table_names()) == {"alembic_version"}
    migrate(sqlite_url)
    assert set(Base.metadata.tables) <= set(inspect(engine).get_table_names())
    engine.dispose()


def test_migrations_are_package_data() -> None:
    """Every migration file is matched by the package-data globs, so ``pip install`` ships it."""
    globs = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"]["puntobanco"]
    package = ROOT / "src" / "puntobanco"
    files = [path.relative_to(package).as_posix() for path in MIGRATIONS_DIR.rglob("*")
             if path.is_file() and "__pycache__" not in path.parts]
    assert "server/db/migrations/env.py" in files and "server/db/migrations/script.py.mako" in files
    assert any(name.startswith("server/db/migrations/versions/v0001") for name in files)
    for name in files:
        assert any(fnmatch.fnmatch(name, pattern) for pattern in globs), name


def test_upgrading_an_old_database_keeps_table_names_unique_ignoring_case(
        sqlite_url: str) -> None:
    """Revision 0002 keys table names case-folded; names an older database let differ only in
    case are kept for the first table and made distinct for the later ones."""
    Path(sqlite_url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
    command.upgrade(alembic_config(sqlite_url), "0001")
    engine = create_engine(sqlite_url)
    names = ["Sanremo", "QA1", "qa1", "Qa1 (3)", "qA1"]
    with engine.begin() as connection:
        for name in names:
            connection.execute(text("INSERT INTO tables (name, rules, betting_seconds, created_at)"
                                    " VALUES (:name, '{}', 15, CURRENT_TIMESTAMP)"), {"name": name})
    migrate(sqlite_url)
    with engine.begin() as connection:
        rows = connection.execute(text("SELECT name, name_key FROM tables ORDER BY id")).all()
        assert [name for name, _ in rows] == ["Sanremo", "QA1", "qa1 (3.2)", "Qa1 (3)",
                                              "qA1 (5)"]
        assert [key for _, key in rows] == [name.casefold() for name, _ in rows]
        with pytest.raises(IntegrityError):
            connection.execute(text("INSERT INTO tables (name, name_key, rules, betting_seconds, "
                                    "created_at) VALUES ('sanREMO', 'sanremo', '{}', 15, "
                                    "CURRENT_TIMESTAMP)"))
    engine.dispose()
