"""plans: every plan returned, with its profile, so GET /v1/plans/{id} works after a restart.

Revision ID: 0001_plans
Revises:
Create Date: 2026-11-21
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001_plans"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "plans",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("status", sa.String(32), nullable=False),
        sa.Column("total_cost_usd", sa.Float, nullable=False),
        sa.Column("profile", sa.JSON, nullable=False),
        sa.Column("result", sa.JSON, nullable=False),
    )
    op.create_index("ix_plans_created_at", "plans", ["created_at"])


def downgrade() -> None:
    op.drop_index("ix_plans_created_at", table_name="plans")
    op.drop_table("plans")
