"""prices: append-only price observations in per-source snapshots, and each source's refresh status.

Revision ID: 0002_prices
Revises: 0001_plans
Create Date: 2026-11-21
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from pricing.storage import BigId, UtcDateTime

revision = "0002_prices"
down_revision = "0001_plans"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "price_snapshots",
        sa.Column("id", BigId, primary_key=True, autoincrement=True),
        sa.Column("source", sa.String(64), nullable=False),
        sa.Column("fetched_at", UtcDateTime(), nullable=False),
        sa.Column("rows", sa.Integer, nullable=False),
        sa.Column("rows_seen", sa.Integer, nullable=False),
        sa.Column("rows_changed", sa.Integer, nullable=False),
        sa.Column("unknown_skus", sa.JSON, nullable=False),
        sa.Column("duration_s", sa.Float, nullable=False),
        sa.Column("origin", sa.Text, nullable=False),
    )
    op.create_index("ix_price_snapshots_source", "price_snapshots", ["source"])
    op.create_table(
        "price_observations",
        sa.Column("id", BigId, primary_key=True, autoincrement=True),
        sa.Column("snapshot_id", BigId, sa.ForeignKey("price_snapshots.id"), nullable=False),
        sa.Column("source", sa.String(64), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("gpu", sa.String(64), nullable=False),
        sa.Column("gpu_count", sa.Integer, nullable=False),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("provider", sa.Text, nullable=False),
        sa.Column("region", sa.Text, nullable=False),
        sa.Column("pricing", sa.String(16), nullable=False),
        sa.Column("usd", sa.Float, nullable=False),
        sa.Column("p10_usd", sa.Float, nullable=True),
        sa.Column("listings", sa.Integer, nullable=True),
        sa.Column("memory_gb", sa.Float, nullable=True),
        sa.Column("includes_host", sa.Boolean, nullable=False),
        sa.Column("watts", sa.Float, nullable=True),
        sa.Column("idle_watts", sa.Float, nullable=True),
        sa.Column("reference", sa.Text, nullable=False),
        sa.Column("observed_at", UtcDateTime(), nullable=False),
    )
    op.create_index("ix_price_observations_snapshot_id", "price_observations", ["snapshot_id"])
    op.create_index("ix_price_observations_gpu_kind", "price_observations", ["gpu", "kind"])
    op.create_table(
        "source_status",
        sa.Column("source", sa.String(64), primary_key=True),
        sa.Column("snapshot_id", BigId, sa.ForeignKey("price_snapshots.id"), nullable=True),
        sa.Column("last_attempt_at", UtcDateTime(), nullable=True),
        sa.Column("last_success_at", UtcDateTime(), nullable=True),
        sa.Column("last_error", sa.Text, nullable=True),
        sa.Column("last_error_at", UtcDateTime(), nullable=True),
        sa.Column("consecutive_failures", sa.Integer, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("source_status")
    op.drop_index("ix_price_observations_gpu_kind", table_name="price_observations")
    op.drop_index("ix_price_observations_snapshot_id", table_name="price_observations")
    op.drop_table("price_observations")
    op.drop_index("ix_price_snapshots_source", table_name="price_snapshots")
    op.drop_table("price_snapshots")
