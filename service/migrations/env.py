"""Alembic environment: runs migrations against the URL set in the Config by service.db.migrate."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from pricing.storage import PriceBase
from service import idempotency  # noqa: F401  (registers its table on Base.metadata)
from service.alerts import tables  # noqa: F401  (registers the alert tables on Base.metadata)
from service.auth import tables as auth_tables  # noqa: F401  (labs and keys)
from service.db import Base

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
