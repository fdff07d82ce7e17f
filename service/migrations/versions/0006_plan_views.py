"""plan views: the sensitivity and the recompute of a stored plan, kept with it once made.

Revision ID: 0006_plan_views
Revises: 0005_price_terms
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from pricing.storage import UtcDateTime

revision = "0006_plan_views"
down_revision = "0005_price_terms"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "plan_views",
        sa.Column("plan_id", sa.String(36), sa.ForeignKey("plans.id", name="fk_plan_views_plan", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("view", sa.String(32), primary_key=True),
        sa.Column("planner", sa.String(64), nullable=False),
        sa.Column("answer", sa.JSON(), nullable=False),
        sa.Column("created_at", UtcDateTime(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("plan_views")
