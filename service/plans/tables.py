"""The plans table: every plan returned, with the profile it answered and what it was made from."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import JSON, Float, ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from pricing.storage import UtcDateTime
from service.core.db import Base


class PlanRecord(Base):
    """A plan as returned to the caller, with the profile it answered, so it can be read again later."""

    __tablename__ = "plans"

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    created_at: Mapped[dt.datetime] = mapped_column(UtcDateTime(), index=True)
    status: Mapped[str] = mapped_column(String(32))
    total_cost_usd: Mapped[float] = mapped_column(Float)
    profile: Mapped[dict[str, Any]] = mapped_column(JSON)
    result: Mapped[dict[str, Any]] = mapped_column(JSON)
    # the owning lab (none when auth is off); indexed, as every list filters by it
    lab_id: Mapped[str | None] = mapped_column(String(36), ForeignKey("labs.id", name="fk_plans_lab"), index=True)
    # what the plan was made from, so it can be explained and made again: a saved profile's version and
    # the price snapshot in force per source ({} when only bundled prices were used)
    profile_id: Mapped[str | None] = mapped_column(String(36))
    profile_version: Mapped[int | None] = mapped_column(Integer)
    prices_in_force: Mapped[dict[str, int] | None] = mapped_column(JSON)


class PlanViewRecord(Base):
    """What was derived from a stored plan (its sensitivity, its recompute), kept with it: a stored plan never
    changes, so neither does what the same planner derives from it (`planner` says which one made it)."""

    __tablename__ = "plan_views"

    plan_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("plans.id", name="fk_plan_views_plan", ondelete="CASCADE"), primary_key=True)
    view: Mapped[str] = mapped_column(String(32), primary_key=True)
    planner: Mapped[str] = mapped_column(String(64))
    answer: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[dt.datetime] = mapped_column(UtcDateTime())
