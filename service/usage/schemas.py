"""The usage-import API's bodies: the log as text with the CLI's options in, the profile and the summary out."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from service.profiles.schemas import ProfileOut
from solvers.base.bounds import Timestamp
from solvers.base.demand_forms import ConcurrencyDemand
from solvers.usage import BUSY_THRESHOLD_PERCENT, UsageSeries, UsageSummary

# about 1.5 years of nvidia-smi samples every 15 minutes for 8 GPUs; bigger logs are better cut by month first
MAX_LOG_CHARS = 64_000_000


class UsageImportIn(BaseModel):
    """A usage log and how to read it: the same choices as `gpuplan import-usage`."""

    model_config = ConfigDict(extra="forbid")

    text: str = Field(min_length=1, max_length=MAX_LOG_CHARS,
                      description="the file's text: sacct --parsable2 output, an nvidia-smi CSV or a Prometheus "
                                  "query_range JSON of DCGM_FI_DEV_GPU_UTIL")
    format: Literal["auto", "slurm", "nvidia-smi", "prometheus"] = Field(
        "auto", description="`auto` tells them apart by the first line")
    tz: str = Field("UTC", min_length=1, max_length=64,
                    description="IANA time zone of sacct and nvidia-smi timestamps (Prometheus times are UTC)")
    busy_threshold: float = Field(BUSY_THRESHOLD_PERCENT, ge=0, le=100, allow_inf_nan=False,
                                  description="utilisation % at or above which a GPU sample counts as busy")
    fractional: bool = Field(False, description="count a GPU sample by its utilisation fraction instead")
    until: Timestamp | None = Field(
        None, description="end of still-running Slurm jobs, UTC (default: the latest time in the file); 2000-01-01 "
        "to 2100-12-31")
    reference_gpu: str | None = Field(
        None, min_length=1, max_length=100,
        description="the GPU the logged hours ran on (default: the profile's current reference GPU)")


class MonthlyLoadOut(BaseModel):
    month: str = Field(description="YYYY-MM (UTC)")
    hours: int = Field(description="observed hours in the month")
    gpu_hours: float
    peak: float
    mean: float
    duration_curve: list[float] = Field(
        description="load-duration curve: GPUs busy at once equalled or exceeded over k/(n-1) of the hours, "
                    "busiest first")


class TrendOut(BaseModel):
    months: int
    growth_per_month: float | None = Field(description="fitted growth of the monthly mean, e.g. 0.05 = 5% a month")
    slope_gpus_per_month: float | None


class UsageSummaryOut(BaseModel):
    """GPUs busy at once, as hourly averages over the observed hours (monitoring gaps left out)."""

    start: str = Field(description="first hour of the series, UTC")
    hours: int
    observed_hours: int
    source_format: str
    gpu_count: int | None
    host_count: int | None
    gpu_models: list[str]
    jobs: int | None
    instant_peak: float | None
    busy_rule: str
    notes: list[str] = Field(description="readings the parser made that are worth checking")
    gpu_hours_by_job_width: dict[str, float] = Field(
        default_factory=dict, description="Slurm logs: GPU-hours of the allocations by the GPUs each held (its job "
        "width), e.g. {\"1\": 120.0, \"4\": 880.0}; empty for nvidia-smi and DCGM logs, which see GPUs, not jobs")
    gpu_hours: float
    peak: float
    p50: float
    p90: float
    p99: float
    mean: float
    months: list[MonthlyLoadOut]
    trend: TrendOut

    @classmethod
    def of(cls, series: UsageSeries, summary: UsageSummary) -> UsageSummaryOut:
        meta = series.to_dict()
        for hourly in ("busy_gpus", "observed", "hours"):
            meta.pop(hourly)
        stats = summary.to_dict()
        for month in stats["months"]:
            month.pop("block_means")
        return cls.model_validate(meta | stats)


class UsageImportOut(BaseModel):
    profile: ProfileOut = Field(description="the new version, with its demand now the imported hourly series")
    usage: UsageSummaryOut


class UsageReadIn(UsageImportIn):
    """A usage log to read without storing anything (the page's file input on an unsaved form): the import's
    choices, with the reference GPU required since there is no saved profile to take it from."""

    reference_gpu: str = Field(min_length=1, max_length=100, description="the GPU the logged hours ran on")


class UsageReadOut(BaseModel):
    demand: ConcurrencyDemand = Field(description="the log as a profile's `demand`: GPUs busy per UTC hour")
    usage: UsageSummaryOut
