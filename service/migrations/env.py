"""Alembic environment: runs migrations against the URL set in the Config by service.core.db.migrate."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from pricing.storage import PriceBase
from service.core.db import Base
from service.core.tables import register_tables

register_tables()  # every domain's tables on Base.metadata, so autogenerate and `alembic check` see them all

config = context.config
target_metadata = [Base.metadata, PriceBase.metadata]


def run_migrations_offline() -> None:
    context.configure(url=config.get_main_option("sqlalchemy.url"), target_metadata=target_metadata,
                      literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    engine = create_engine(config.get_main_option("sqlalchemy.url") or "")
    with engine.connect() as connection:
        context.configure(connection=connection, target_metadata=target_metadata,
                          render_as_batch=connection.dialect.name == "sqlite")
        with context.begin_transaction():
            context.run_migrations()
    engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
