"""Saved profiles and their versions: a profile kept under a name, so its best plan can be watched as prices move."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import JSON, ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from pricing.storage import UtcDateTime
from service.core.db import Base


class SavedProfile(Base):
    """A workload profile kept under a name, so its best plan can be watched as prices move."""

    __tablename__ = "profiles"

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    version: Mapped[int] = mapped_column(Integer)
    profile: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[dt.datetime] = mapped_column(UtcDateTime())
    updated_at: Mapped[dt.datetime] = mapped_column(UtcDateTime())
    lab_id: Mapped[str | None] = mapped_column(String(36))
    tags: Mapped[list[str] | None] = mapped_column(JSON)


class ProfileVersion(Base):
    """Every version of a saved profile: a PUT makes a new one, and plans name the version they answered."""

    __tablename__ = "profile_versions"

    profile_id: Mapped[str] = mapped_column(ForeignKey("profiles.id", ondelete="CASCADE"), primary_key=True)
    version: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    tags: Mapped[list[str]] = mapped_column(JSON)
    profile: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[dt.datetime] = mapped_column(UtcDateTime())
