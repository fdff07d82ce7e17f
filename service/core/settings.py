"""Service configuration from the environment (prefix GPUPLAN_); every setting has an embedded default.

Per-source settings nest with `__`, e.g. `GPUPLAN_SOURCES__AZURE__INTERVAL_HOURS=3`,
`GPUPLAN_SOURCES__LAMBDA__API_KEY=...`, `GPUPLAN_SOURCES__FEED__URL=https://lab.example/quotes.csv`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from pricing.sources.base import SourceConfig
from service.alerts.targets import parse_networks


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
    # plans warn when they use bundled-snapshot prices older than this: six months, the age issue 15 sets for a
    # fresh bundled snapshot (a deployment whose scheduler refreshes can set a tighter bound, as deploy/k8s does)
    snapshot_max_age_days: float = Field(default=183.0, gt=0)
    # deployment: several schedulers may run, one leads (a PostgreSQL advisory lock, a file lock on SQLite);
    # the leader re-checks its lock and a standby tries to take over this often
    leader_check_s: float = Field(default=5.0, gt=0)
    # where a `gpuplan scheduler` process serves Prometheus /metrics (API processes serve it on their own port)
    scheduler_metrics_port: int | None = Field(default=None, gt=0, lt=65536)
    # false where a separate step runs `gpuplan migrate` (Kubernetes Job): /readyz then waits for it
    migrate_on_start: bool = True
    log_format: Literal["json", "text"] = "json"
    # a request's headers, then its whole body, must arrive within this many seconds (slow clients)
    read_timeout_s: float = Field(default=30.0, gt=0, le=3600)

    # where plans are solved (issue 18): "inline" in the request's thread (the embedded default: no start-up
    # cost, one core), or "process", a pool of `plan_workers` worker processes (every core; what `gpuplan serve`
    # and deployments should use). At most `plan_workers + plan_queue` plans are in flight per process, the next
    # is answered 503 with Retry-After; one API key (or client address when auth is off) may have at most
    # `plan_concurrency_per_caller` plans in flight (429); a plan not back within `plan_time_budget_s` is a 422.
    plan_executor: Literal["inline", "process"] = "inline"
    plan_workers: int | None = Field(default=None, ge=1, le=256)  # unset: the machine's cores
    plan_queue: int = Field(default=16, ge=0, le=1000)
    plan_concurrency_per_caller: int = Field(default=8, ge=1)
    plan_time_budget_s: float = Field(default=30.0, gt=0, le=3600)
    plan_worker_nice: int = Field(default=10, ge=0, le=19)
    # the largest request body accepted, in bytes (413 beyond): a profile at every list's bound stays below it
    max_body_bytes: int = Field(default=4 * 1024 * 1024, ge=1024)
    # rate limits shared by every replica: a Redis URL (redis://127.0.0.1:6379/0); unset, each process keeps
    # its own buckets (the embedded default)
    rate_limit_redis_url: str | None = None

    # API keys: off for a single user on localhost; on, every endpoint but health, docs and public GPU and
    # price reads needs `Authorization: Bearer <key>` (gpuplan labs create / gpuplan keys create)
    auth: bool = False
    # with auth on, /metrics and the detail of /v1/sources (errors, missing credentials) need an API key; true
    # shows them to everyone (a Prometheus scraper without credentials on a private network)
    operations_public: bool = False
    rate_limit_per_minute: float = Field(default=600.0, gt=0)
    rate_limit_burst: int = Field(default=60, ge=1)
    # alerts: how often the delivery worker sends from the outbox, how long an event is retried, and when
    # a subscription whose endpoint keeps failing is switched off
    alerts_tick_s: float = Field(default=10.0, gt=0)
    alerts_retry_hours: float = Field(default=24.0, gt=0)
    alerts_disable_after_failed_events: int = Field(default=5, ge=1)
    alerts_webhook_timeout_s: float = Field(default=10.0, gt=0)
    # webhooks to loopback, private and link-local addresses are refused unless inside one of these
    # networks (comma-separated CIDRs, e.g. `10.0.0.0/8,127.0.0.1/32`)
    alerts_allowed_networks: Annotated[list[str], NoDecode] = Field(default_factory=list)
    # e-mail alerts need an SMTP server; without `smtp_host` e-mail subscriptions are refused
    smtp_host: str | None = None
    smtp_port: int = Field(default=25, gt=0, lt=65536)
    smtp_sender: str = "gpuplan@localhost"
    smtp_username: str | None = None
    smtp_password: SecretStr | None = None
    smtp_starttls: bool = False
    smtp_use_ssl: bool = False

    @field_validator("auth", mode="before")
    @classmethod
    def _on_off(cls, value: Any) -> Any:
        """GPUPLAN_AUTH=on|off reads like the docs; true/false/1/0 work too."""
        if isinstance(value, str) and value.strip().lower() in ("on", "off"):
            return value.strip().lower() == "on"
        return value

    @field_validator("alerts_allowed_networks", mode="before")
    @classmethod
    def _split_networks(cls, value: Any) -> Any:
        """The environment gives one string; a list given in code passes through."""
        if isinstance(value, str):
            return [part.strip() for part in value.split(",") if part.strip()]
        return value

    @field_validator("alerts_allowed_networks")
    @classmethod
    def _valid_networks(cls, value: list[str]) -> list[str]:
        parse_networks(value)  # a typo in a CIDR fails at start, naming the entry
        return value
