"""price terms: commitment term and payment, marketplace reliability, quarantined rows.

Revision ID: 0005_price_terms
Revises: 0004_labs
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005_price_terms"
down_revision = "0004_labs"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("price_observations") as batch:
        batch.add_column(sa.Column("term_months", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("payment", sa.String(16), nullable=False, server_default=""))
        batch.add_column(sa.Column("reliability", sa.Float(), nullable=True))
        batch.add_column(sa.Column("quarantined", sa.Boolean(), nullable=False, server_default=sa.false()))
        batch.add_column(sa.Column("quarantine_reason", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("price_observations") as batch:
        for name in ("quarantine_reason", "quarantined", "reliability", "payment", "term_months"):
            batch.drop_column(name)
