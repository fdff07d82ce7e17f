"""alerts: saved profiles, alert subscriptions, price baselines, the outbox, delivery attempts, evaluations.

Revision ID: 0003_alerts
Revises: 0002_prices
Create Date: 2026-11-21
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from pricing.storage import BigId, UtcDateTime

revision = "0003_alerts"
down_revision = "0002_prices"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "profiles",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("profile", sa.JSON, nullable=False),
        sa.Column("created_at", UtcDateTime(), nullable=False),
        sa.Column("updated_at", UtcDateTime(), nullable=False),
    )
    op.create_table(
        "alert_subscriptions",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("condition", sa.JSON, nullable=False),
        sa.Column("gpu", sa.String(64), nullable=True),
        sa.Column("price_kind", sa.String(8), nullable=True),
        sa.Column("profile_id", sa.String(36), sa.ForeignKey("profiles.id"), nullable=True),
        sa.Column("channel", sa.String(8), nullable=False),
        sa.Column("target", sa.Text, nullable=False),
        sa.Column("secret", sa.Text, nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("status_reason", sa.Text, nullable=True),
        sa.Column("failed_events", sa.Integer, nullable=False),
        sa.Column("baseline", sa.JSON, nullable=True),
        sa.Column("created_at", UtcDateTime(), nullable=False),
        sa.Column("updated_at", UtcDateTime(), nullable=False),
    )
    op.create_index("ix_alert_subscriptions_kind_gpu", "alert_subscriptions", ["kind", "gpu"])
    op.create_table(
        "alert_baselines",
        sa.Column("subscription_id", sa.String(36),
                  sa.ForeignKey("alert_subscriptions.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("price_key", sa.Text, primary_key=True),
        sa.Column("usd_per_gpu", sa.Float, nullable=False),
    )
    op.create_table(
        "alert_events",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("subscription_id", sa.String(36),
                  sa.ForeignKey("alert_subscriptions.id", ondelete="CASCADE"), nullable=False),
        sa.Column("dedupe_key", sa.String(200), nullable=False),
        sa.Column("type", sa.String(32), nullable=False),
        sa.Column("payload", sa.JSON, nullable=False),
        sa.Column("created_at", UtcDateTime(), nullable=False),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("next_attempt_at", UtcDateTime(), nullable=True),
        sa.Column("claimed_until", UtcDateTime(), nullable=True),
        sa.Column("last_status_code", sa.Integer, nullable=True),
        sa.Column("last_error", sa.Text, nullable=True),
        sa.Column("delivered_at", UtcDateTime(), nullable=True),
        sa.UniqueConstraint("subscription_id", "dedupe_key", name="uq_alert_events_subscription_change"),
    )
    op.create_index("ix_alert_events_due", "alert_events", ["status", "next_attempt_at"])
    op.create_table(
        "alert_attempts",
        sa.Column("id", BigId, primary_key=True, autoincrement=True),
        sa.Column("event_id", sa.String(36), sa.ForeignKey("alert_events.id", ondelete="CASCADE"), nullable=False),
        sa.Column("attempted_at", UtcDateTime(), nullable=False),
        sa.Column("ok", sa.Boolean, nullable=False),
        sa.Column("status_code", sa.Integer, nullable=True),
        sa.Column("error", sa.Text, nullable=True),
        sa.Column("duration_ms", sa.Float, nullable=False),
    )
    op.create_index("ix_alert_attempts_event_id", "alert_attempts", ["event_id"])
    op.create_table(
        "alert_evaluations",
        sa.Column("snapshot_id", BigId, sa.ForeignKey("price_snapshots.id"), primary_key=True),
        sa.Column("evaluated_at", UtcDateTime(), nullable=False),
        sa.Column("events", sa.Integer, nullable=False),
    )
    # snapshots stored before alerts existed are not news: mark them evaluated so no old change is alerted
    op.execute("INSERT INTO alert_evaluations (snapshot_id, evaluated_at, events) "
               "SELECT id, fetched_at, 0 FROM price_snapshots")


def downgrade() -> None:
    for table in ("alert_evaluations", "alert_attempts", "alert_events", "alert_baselines", "alert_subscriptions",
                  "profiles"):
        op.drop_table(table)
