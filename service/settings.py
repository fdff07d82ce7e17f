"""Service configuration from the environment (prefix GPUPLAN_); every setting has an embedded default."""

from __future__ import annotations

from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="GPUPLAN_", extra="ignore")

    database_url: str = "sqlite:///./gpuplan.db"
    host: str = "127.0.0.1"
    port: int = 8000
    log_level: str = "info"
