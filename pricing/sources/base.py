"""The contract every price source module implements, and the configuration each one accepts.

A source turns one provider's real response format into `PriceObservation`s. It raises `SourceError`
for answers it cannot trust and lets `requests` errors (timeouts, HTTP errors after retries) propagate;
`pricing.refresh` turns both into a stale status and keeps the last good snapshot in force.
"""

from __future__ import annotations

import datetime as dt
from abc import ABC, abstractmethod
from typing import ClassVar, Literal

import requests
from pydantic import BaseModel, ConfigDict, Field, SecretStr

from pricing.gpus import GpuTable
from pricing.http import make_session
from pricing.observation import FetchResult


class SourceConfig(BaseModel):
    """Per-source settings (GPUPLAN_SOURCES__<KEY>__<FIELD> in the service). Unset fields use the source's defaults."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool | None = None  # None: on when the source needs no credentials or has them
    interval_hours: float | None = Field(default=None, gt=0)
    stale_after_hours: float | None = Field(default=None, gt=0)
    base_url: str | None = None  # where the provider API lives (tests point it at a loopback server)
    api_key: SecretStr | None = None
    api_secret: SecretStr | None = None
    regions: list[str] | None = None
    url: str | None = None  # generic feed: a URL or a file path
    timeout_s: float = Field(default=60.0, gt=0)
    retries: int = Field(default=4, ge=0, le=20)
    backoff_s: float = Field(default=2.0, ge=0)
    max_wait_s: float = Field(default=60.0, ge=0)


class Source(ABC):
    """One provider. Subclasses set the class attributes and implement `fetch`."""

    key: ClassVar[str]  # short name used in the database, the API and prices_as_of, e.g. "azure"
    kind: ClassVar[Literal["cloud", "hardware", "fx"]]  # fx: exchange rates (pricing.fx), not GPU prices
    default_base_url: ClassVar[str]
    default_interval_hours: ClassVar[float] = 6.0
    credentials: ClassVar[tuple[str, ...]] = ()  # SourceConfig fields that must be set for the source to run
    description: ClassVar[str] = ""
    # Share of the last good snapshot's rows a good answer still holds: fewer means a cut-short answer
    # (a page sequence or file that ends early but well-formed). Price lists keep their SKUs from one day
    # to the next (0.85); marketplaces lose thin GPU models (lower); Lambda lists only regions with
    # capacity now (0: no check).
    min_kept_ratio: ClassVar[float] = 0.85

    def __init__(self, config: SourceConfig | None = None) -> None:
        self.config = config or SourceConfig()

    @property
    def base_url(self) -> str:
        return (self.config.base_url or self.default_base_url).rstrip("/")

    @property
    def interval(self) -> dt.timedelta:
        return dt.timedelta(hours=self.config.interval_hours or self.default_interval_hours)

    @property
    def stale_after(self) -> dt.timedelta:
        """A source whose last success is older than this is stale (default: four refresh intervals)."""
        if self.config.stale_after_hours is not None:
            return dt.timedelta(hours=self.config.stale_after_hours)
        return 4 * self.interval

    def missing_credentials(self) -> list[str]:
        return [name for name in self.credentials if getattr(self.config, name) is None]

    @property
    def enabled(self) -> bool:
        if self.config.enabled is not None:
            return self.config.enabled and not self.missing_credentials()
        return not self.missing_credentials()

    def session(self) -> requests.Session:
        c = self.config
        return make_session(timeout_s=c.timeout_s, retries=c.retries, backoff_s=c.backoff_s, max_wait_s=c.max_wait_s)

    @abstractmethod
    def fetch(self, http: requests.Session, gpus: GpuTable, now: dt.datetime) -> FetchResult:
        """Read the provider's current prices. `now` stamps the observations (the refresh's clock)."""
