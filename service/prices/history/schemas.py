"""What GET /v1/prices/history answers as JSON: one row per price per refresh, oldest first."""

from __future__ import annotations

from pydantic import BaseModel, Field


class HistoryRow(BaseModel):
    observed_at: str = Field(description="ISO 8601 UTC")
    source: str | None
    kind: str | None
    provider: str | None
    name: str | None
    region: str | None
    pricing: str | None
    gpu: str | None
    gpu_count: int | None
    usd: float | None = Field(description="per instance-hour (cloud) or per unit (hardware)")
    usd_per_gpu: float | None
    p10_usd: float | None = Field(description="10th percentile of the listings (market sources)")
    listings: int | None
    snapshot_id: int | None = Field(description="the refresh it came from; null for the bundled snapshot's rows")
