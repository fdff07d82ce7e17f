"""What GET /v1/sources answers: one row per price source with its freshness."""

from __future__ import annotations

import datetime as dt

from pydantic import BaseModel, Field


class SourceOut(BaseModel):
    source: str
    kind: str
    description: str
    enabled: bool
    scheduled: bool
    interval_hours: float | None
    stale_after_hours: float | None
    missing_credentials: list[str]
    last_attempt_at: dt.datetime | None
    last_success_at: dt.datetime | None
    last_error: str | None
    last_error_at: dt.datetime | None
    consecutive_failures: int
    snapshot_id: int | None = Field(description="the snapshot in force (null: bundled prices only)")
    rows_in_force: int
    unknown_skus: int
    unknown_sku_names: list[str] = Field(description="the most frequent provider names that map to no known GPU")
    stale: bool
    stale_reasons: list[str]
    too_old: bool = Field(description="last success older than stale_after (or none yet): plans using it warn")
