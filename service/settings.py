"""Service configuration from the environment (prefix GPUPLAN_); every setting has an embedded default.

Per-source settings nest with `__`, e.g. `GPUPLAN_SOURCES__AZURE__INTERVAL_HOURS=3`,
`GPUPLAN_SOURCES__LAMBDA__API_KEY=...`, `GPUPLAN_SOURCES__FEED__URL=https://lab.example/quotes.csv`.
"""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from pricing.sources.base import SourceConfig


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="GPUPLAN_", env_nested_delimiter="__", extra="ignore")

    database_url: str = "sqlite:///./gpuplan.db"
    host: str = "127.0.0.1"
    port: int = 8000
    log_level: str = "info"
    sources: dict[str, SourceConfig] = Field(default_factory=dict)
    # run the refresh scheduler inside the service (turn off where another replica or a cron job refreshes)
    scheduler: bool = True
    scheduler_tick_s: float = Field(default=60.0, gt=0)
    scheduler_first_tick_s: float = Field(default=5.0, ge=0)
    # plans warn when they use bundled-snapshot prices older than this
    snapshot_max_age_days: float = Field(default=30.0, gt=0)
