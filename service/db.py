"""Storage: SQLAlchemy 2 models and engine; the schema is owned by Alembic migrations (service/migrations)."""

from __future__ import annotations

import datetime as dt
from importlib import resources
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import JSON, Engine, Float, Integer, String, create_engine, event
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from pricing.storage import UtcDateTime


class Base(DeclarativeBase):
    pass


class PlanRecord(Base):
    """A plan as returned to the caller, with the profile it answered, so it can be read again later."""

    __tablename__ = "plans"

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    created_at: Mapped[dt.datetime] = mapped_column(UtcDateTime(), index=True)
    status: Mapped[str] = mapped_column(String(32))
    total_cost_usd: Mapped[float] = mapped_column(Float)
    profile: Mapped[dict[str, Any]] = mapped_column(JSON)
    result: Mapped[dict[str, Any]] = mapped_column(JSON)
    lab_id: Mapped[str | None] = mapped_column(String(36))
    # what the plan was made from, so it can be explained and made again: a saved profile's version and
    # the price snapshot in force per source ({} when only bundled prices were used)
    profile_id: Mapped[str | None] = mapped_column(String(36))
    profile_version: Mapped[int | None] = mapped_column(Integer)
    prices_in_force: Mapped[dict[str, int] | None] = mapped_column(JSON)


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
