"""Where prices are kept: append-only observations grouped in per-source snapshots, and each source's status.

A snapshot is one successful refresh of one source. `source_status.snapshot_id` points at the snapshot in
force; it moves only in the same transaction that wrote the new snapshot's rows, so a refresh that dies
half-way (or is rejected) leaves the previous snapshot in force and every older row in place.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    TypeDecorator,
    false,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

# SQLite only auto-increments INTEGER PRIMARY KEY; PostgreSQL gets a 64-bit id for a long history.
BigId = BigInteger().with_variant(Integer(), "sqlite")


class UtcDateTime(TypeDecorator[dt.datetime]):
    """Timezone-aware UTC datetimes on every backend (SQLite stores naive values and forgets the zone)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: dt.datetime | None, dialect: Dialect) -> dt.datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given; prices are stamped in UTC")
        return value.astimezone(dt.UTC)

    def process_result_value(self, value: dt.datetime | None, dialect: Dialect) -> dt.datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=dt.UTC) if value.tzinfo is None else value.astimezone(dt.UTC)


class PriceBase(DeclarativeBase):
    pass


class PriceSnapshot(PriceBase):
    """One successful refresh of one source: when, how many rows, how many changed, which SKUs were unknown."""

    __tablename__ = "price_snapshots"

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    source: Mapped[str] = mapped_column(String(64), index=True)
    fetched_at: Mapped[dt.datetime] = mapped_column(UtcDateTime())
    rows: Mapped[int] = mapped_column(Integer)
    rows_seen: Mapped[int] = mapped_column(Integer)
    rows_changed: Mapped[int] = mapped_column(Integer)
    unknown_skus: Mapped[dict[str, Any]] = mapped_column(JSON)
    duration_s: Mapped[float] = mapped_column(Float)
    origin: Mapped[str] = mapped_column(Text)  # where the rows came from (API base URL, file name)


class PriceObservationRow(PriceBase):
    """One price of one snapshot. Never updated or deleted: together they are the price history."""

    __tablename__ = "price_observations"
    __table_args__ = (Index("ix_price_observations_gpu_kind", "gpu", "kind"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    snapshot_id: Mapped[int] = mapped_column(ForeignKey("price_snapshots.id"), index=True)
    source: Mapped[str] = mapped_column(String(64))
    kind: Mapped[str] = mapped_column(String(8))
    gpu: Mapped[str] = mapped_column(String(64))
    gpu_count: Mapped[int] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(Text)
    provider: Mapped[str] = mapped_column(Text)
    region: Mapped[str] = mapped_column(Text)
    pricing: Mapped[str] = mapped_column(String(16))
    usd: Mapped[float] = mapped_column(Float)
    p10_usd: Mapped[float | None] = mapped_column(Float, nullable=True)
    listings: Mapped[int | None] = mapped_column(Integer, nullable=True)
    memory_gb: Mapped[float | None] = mapped_column(Float, nullable=True)
    includes_host: Mapped[bool] = mapped_column(Boolean)
    watts: Mapped[float | None] = mapped_column(Float, nullable=True)
    idle_watts: Mapped[float | None] = mapped_column(Float, nullable=True)
    reference: Mapped[str] = mapped_column(Text)
    observed_at: Mapped[dt.datetime] = mapped_column(UtcDateTime())
    # commitments (pricing reserved/committed): the term and how it is paid; NULL/"" for on-demand and spot
    term_months: Mapped[int | None] = mapped_column(Integer, nullable=True)
    payment: Mapped[str] = mapped_column(String(16), default="", server_default="")
    reliability: Mapped[float | None] = mapped_column(Float, nullable=True)  # marketplace host reliability 0..1
    # held back by the refresh (far below every other offer for the GPU): stored and reported, never planned on
    quarantined: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    quarantine_reason: Mapped[str | None] = mapped_column(Text, nullable=True)


class SourceStatus(PriceBase):
    """What `GET /v1/sources` shows: the last attempt, the last success, the snapshot in force, the last error."""

    __tablename__ = "source_status"

    source: Mapped[str] = mapped_column(String(64), primary_key=True)
    snapshot_id: Mapped[int | None] = mapped_column(ForeignKey("price_snapshots.id"), nullable=True)
    last_attempt_at: Mapped[dt.datetime | None] = mapped_column(UtcDateTime(), nullable=True)
    last_success_at: Mapped[dt.datetime | None] = mapped_column(UtcDateTime(), nullable=True)
    last_error: Mapped[str | None] = mapped_column(Text, nullable=True)
    last_error_at: Mapped[dt.datetime | None] = mapped_column(UtcDateTime(), nullable=True)
    consecutive_failures: Mapped[int] = mapped_column(Integer, default=0)
