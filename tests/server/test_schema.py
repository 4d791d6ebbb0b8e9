"""The schema: ``alembic upgrade head`` on an empty database gives exactly the models' schema
(SQLite and PostgreSQL), downgrades cleanly, and the migrations ship inside the package."""

from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import create_engine, inspect

from puntobanco.server.db import MIGRATIONS_DIR, alembic_config, migrate
from puntobanco.server.models import Base

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
    assert "server/migrations/env.py" in files and "server/migrations/script.py.mako" in files
    assert any(name.startswith("server/migrations/versions/v0001") for name in files)
    for name in files:
        assert any(fnmatch.fnmatch(name, pattern) for pattern in globs), name
