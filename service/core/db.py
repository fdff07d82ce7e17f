"""Storage plumbing: the declarative base every domain's tables derive from, the engine and migrations.

The schema is owned by Alembic migrations (service/migrations); each domain keeps its ORM tables in its own
`tables.py`.
"""

from __future__ import annotations

from importlib import resources
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.orm import DeclarativeBase


class Base(DeclarativeBase):
    pass


def make_engine(url: str) -> Engine:
    # hide_parameters: a failed statement's values (webhook secrets, profile bodies) never reach a log
    engine = create_engine(url, future=True, pool_pre_ping=True, hide_parameters=True)
    if engine.dialect.name == "sqlite":
        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(conn: Any, _record: Any) -> None:  # WAL lets readers and a writer overlap
            cur = conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.close()
    return engine


def alembic_config(url: str) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(resources.files("service").joinpath("migrations")))
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


def migrate(url: str) -> None:
    """Bring the database to the newest schema (idempotent; the service runs it on start)."""
    command.upgrade(alembic_config(url), "head")
