"""labs: labs and API keys, objects owned by labs, profile versions, idempotency keys.

Revision ID: 0004_labs
Revises: 0003_alerts
Create Date: 2026-11-21
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from pricing.storage import UtcDateTime

revision = "0004_labs"
down_revision = "0003_alerts"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "labs",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("name", sa.String(200), nullable=False, unique=True),
        sa.Column("created_at", UtcDateTime(), nullable=False),
    )
    op.create_table(
        "api_keys",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column("lab_id", sa.String(36), sa.ForeignKey("labs.id"), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("key_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("read_only", sa.Boolean, nullable=False),
        sa.Column("created_at", UtcDateTime(), nullable=False),
        sa.Column("revoked_at", UtcDateTime(), nullable=True),
    )
    op.create_index("ix_api_keys_lab_id", "api_keys", ["lab_id"])
    # objects made with auth off have no lab (the single local user); with auth on each belongs to a lab
    for table in ("profiles", "plans", "alert_subscriptions"):
        with op.batch_alter_table(table) as batch:
            batch.add_column(sa.Column("lab_id", sa.String(36), sa.ForeignKey("labs.id", name=f"fk_{table}_lab"),
                                       nullable=True))
            batch.create_index(f"ix_{table}_lab_id", ["lab_id"])
    with op.batch_alter_table("profiles") as batch:
        batch.add_column(sa.Column("tags", sa.JSON, nullable=True))
    with op.batch_alter_table("plans") as batch:
        batch.add_column(sa.Column("profile_id", sa.String(36), nullable=True))
        batch.add_column(sa.Column("profile_version", sa.Integer, nullable=True))
        batch.add_column(sa.Column("prices_in_force", sa.JSON, nullable=True))
    op.create_table(
        "profile_versions",
        sa.Column("profile_id", sa.String(36), sa.ForeignKey("profiles.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("version", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("tags", sa.JSON, nullable=False),
        sa.Column("profile", sa.JSON, nullable=False),
        sa.Column("created_at", UtcDateTime(), nullable=False),
    )
    op.execute("INSERT INTO profile_versions (profile_id, version, name, tags, profile, created_at) "
               "SELECT id, version, name, '[]', profile, updated_at FROM profiles")
    op.create_table(
        "idempotency_keys",
        sa.Column("scope", sa.String(64), primary_key=True),
        sa.Column("key", sa.String(255), primary_key=True),
        sa.Column("fingerprint", sa.String(64), nullable=False),
        sa.Column("state", sa.String(12), nullable=False),
        sa.Column("status_code", sa.Integer, nullable=True),
        sa.Column("headers", sa.JSON, nullable=True),
        sa.Column("body", sa.LargeBinary, nullable=True),
        sa.Column("created_at", UtcDateTime(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("idempotency_keys")
    op.drop_table("profile_versions")
    with op.batch_alter_table("plans") as batch:
        for column in ("prices_in_force", "profile_version", "profile_id"):
            batch.drop_column(column)
    with op.batch_alter_table("profiles") as batch:
        batch.drop_column("tags")
    for table in ("alert_subscriptions", "plans", "profiles"):
        with op.batch_alter_table(table) as batch:
            batch.drop_index(f"ix_{table}_lab_id")
            batch.drop_constraint(f"fk_{table}_lab", type_="foreignkey")
            batch.drop_column("lab_id")
    op.drop_table("api_keys")
    op.drop_table("labs")
