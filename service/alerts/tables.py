"""Alert storage: subscriptions, per-price baselines, the outbox and its delivery attempts.

The outbox (`alert_events`) is the hand-over between evaluation and delivery: an event is written in the
same transaction that marks the price snapshots it came from as evaluated, so a process that dies before
delivery loses nothing (the worker sends it after restart) and a snapshot is never evaluated twice.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import JSON, Boolean, Float, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from pricing.storage import BigId, UtcDateTime
from service.core.db import Base


class Subscription(Base):
    """What to watch (`condition`) and where to send it (`channel`, `target`).

    `gpu`, `price_kind` and `profile_id` repeat parts of the condition as columns so that evaluation can
    select the subscriptions a set of price changes touches in one query.
    """

    __tablename__ = "alert_subscriptions"

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    kind: Mapped[str] = mapped_column(String(16))
    condition: Mapped[dict[str, Any]] = mapped_column(JSON)
    gpu: Mapped[str | None] = mapped_column(String(64))
    price_kind: Mapped[str | None] = mapped_column(String(8))
    profile_id: Mapped[str | None] = mapped_column(ForeignKey("profiles.id"))
    channel: Mapped[str] = mapped_column(String(8))
    target: Mapped[str] = mapped_column(Text)
    secret: Mapped[str | None] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16))
    status_reason: Mapped[str | None] = mapped_column(Text)
    failed_events: Mapped[int] = mapped_column(Integer)
    baseline: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    created_at: Mapped[dt.datetime] = mapped_column(UtcDateTime())
    updated_at: Mapped[dt.datetime] = mapped_column(UtcDateTime())
    lab_id: Mapped[str | None] = mapped_column(String(36))

    __table_args__ = (Index("ix_alert_subscriptions_kind_gpu", "kind", "gpu"),)


class PriceBaseline(Base):
    """The per-GPU price a relative-move subscription last alerted on (or first saw) for one price key."""

    __tablename__ = "alert_baselines"

    subscription_id: Mapped[str] = mapped_column(ForeignKey("alert_subscriptions.id", ondelete="CASCADE"),
                                                 primary_key=True)
    price_key: Mapped[str] = mapped_column(Text, primary_key=True)
    usd_per_gpu: Mapped[float] = mapped_column(Float)


class AlertEvent(Base):
    """One outbox entry; `id` is the stable event id receivers de-duplicate on (`X-Gpuplan-Event-Id`)."""

    __tablename__ = "alert_events"

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    subscription_id: Mapped[str] = mapped_column(ForeignKey("alert_subscriptions.id", ondelete="CASCADE"))
    dedupe_key: Mapped[str] = mapped_column(String(200))
    type: Mapped[str] = mapped_column(String(32))
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[dt.datetime] = mapped_column(UtcDateTime())
    status: Mapped[str] = mapped_column(String(12))
    attempts: Mapped[int] = mapped_column(Integer)
    next_attempt_at: Mapped[dt.datetime | None] = mapped_column(UtcDateTime())
    claimed_until: Mapped[dt.datetime | None] = mapped_column(UtcDateTime())
    last_status_code: Mapped[int | None] = mapped_column(Integer)
    last_error: Mapped[str | None] = mapped_column(Text)
    delivered_at: Mapped[dt.datetime | None] = mapped_column(UtcDateTime())

    __table_args__ = (
        UniqueConstraint("subscription_id", "dedupe_key", name="uq_alert_events_subscription_change"),
        Index("ix_alert_events_due", "status", "next_attempt_at"),
    )


class DeliveryAttempt(Base):
    """One try at sending an event: when, the receiver's status code or the error, how long it took."""

    __tablename__ = "alert_attempts"

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    event_id: Mapped[str] = mapped_column(ForeignKey("alert_events.id", ondelete="CASCADE"), index=True)
    attempted_at: Mapped[dt.datetime] = mapped_column(UtcDateTime())
    ok: Mapped[bool] = mapped_column(Boolean)
    status_code: Mapped[int | None] = mapped_column(Integer)
    error: Mapped[str | None] = mapped_column(Text)
    duration_ms: Mapped[float] = mapped_column(Float)


class Evaluation(Base):
    """A price snapshot whose changes were evaluated against the subscriptions (at most once: primary key)."""

    __tablename__ = "alert_evaluations"

    snapshot_id: Mapped[int] = mapped_column(BigId, primary_key=True)
    evaluated_at: Mapped[dt.datetime] = mapped_column(UtcDateTime())
    events: Mapped[int] = mapped_column(Integer)
