"""The plans table: every plan returned, with the profile it answered and what it was made from."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import JSON, Float, Integer, String
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
    lab_id: Mapped[str | None] = mapped_column(String(36))
    # what the plan was made from, so it can be explained and made again: a saved profile's version and
    # the price snapshot in force per source ({} when only bundled prices were used)
    profile_id: Mapped[str | None] = mapped_column(String(36))
    profile_version: Mapped[int | None] = mapped_column(Integer)
    prices_in_force: Mapped[dict[str, int] | None] = mapped_column(JSON)
