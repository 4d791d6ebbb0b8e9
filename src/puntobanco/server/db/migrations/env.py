"""Alembic environment: migrates the URL of the configuration (see ``puntobanco.server.db.engine``)."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine, pool

from puntobanco.server.db.models import Base

target_metadata = Base.metadata


def run_offline() -> None:
    context.configure(url=context.config.get_main_option("sqlalchemy.url"),
                      target_metadata=target_metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


def run_online() -> None:
    url = context.config.get_main_option("sqlalchemy.url")
    assert url is not None
    engine = create_engine(url, poolclass=pool.NullPool)
    with engine.connect() as connection:
        context.configure(connection=connection, target_metadata=target_metadata,
                          render_as_batch=connection.dialect.name == "sqlite")
        with context.begin_transaction():
            context.run_migrations()
    engine.dispose()


OFFLINE: bool | None
try:
    OFFLINE = context.is_offline_mode()
except NameError:  # imported outside Alembic (pytest's doctest collection): nothing to migrate
    OFFLINE = None

if OFFLINE is True:
    run_offline()
elif OFFLINE is False:
    run_online()
