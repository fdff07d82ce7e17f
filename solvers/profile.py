"""The workload profile a plan is made for: the `POST /v1/plans` request body (a public contract).

Validation here covers everything that can be checked without the catalog; GPU names, providers
and feasibility are checked by the planner against the catalog it is given.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, field_validator, model_validator

from solvers import defaults
from solvers.bounds import (
    Availability,
    Count,
    Fraction,
    GpuCount,
    GpuHours,
    Gpus,
    HourlyRate,
    Money,
    Month,
    PlanDate,
    Ratio,
)

Workload = Literal["cnn_training", "transformer_training", "rnn_training", "inference_16bit", "inference_8bit"]
WORKLOADS: tuple[str, ...] = Workload.__args__  # type: ignore[attr-defined]



class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, str_strip_whitespace=True)


class UtilisationDemand(_Strict):
    """N reference GPUs busy a fraction of the time: how the guide talks about demand."""

    gpus: Gpus = Field(1, description="number of reference GPUs")
    utilisation: Fraction = Field(description="fraction of hours they are busy, in (0, 1]")
    reference_gpu: str = Field(min_length=1)
    start: PlanDate | None = Field(None, description="first day of demand; default: first day of next month")


class SeriesPoint(_Strict):
    month: Month
    reference_gpu_hours: GpuHours


class SeriesDemand(_Strict):
    """Reference GPU-hours per calendar month, e.g. deadline bursts."""

    series: list[SeriesPoint] = Field(min_length=1, max_length=defaults.MAX_HORIZON_MONTHS)
    reference_gpu: str = Field(min_length=1)

    @field_validator("series")
    @classmethod
    def _unique_months(cls, value: list[SeriesPoint]) -> list[SeriesPoint]:
        months = [p.month for p in value]
        if len(set(months)) != len(months):
            raise ValueError("each month may appear only once in the series")
        if all(p.reference_gpu_hours == 0 for p in value):
            raise ValueError("the series has no demand: every month is 0 reference GPU-hours")
        return sorted(value, key=lambda p: p.month)


class PlanOptions(_Strict):
    allow_used: bool = True
    allow_spot: bool = False
    allow_cloud: bool = Field(True, description="False: owned GPUs only")
    allow_buy: bool = Field(True, description="False: cloud only")
    resale: bool = Field(True, description="credit the GPUs' resale value at the horizon's end")
    max_capex_usd: Money | None = None
    max_owned_gpus: GpuCount | None = None
    providers: list[str] | None = Field(None, description="cloud providers allowed, e.g. ['aws', 'lambda']")
    regions: list[str] | None = Field(None, description="cloud regions allowed")
    pue: float = Field(defaults.PUE, ge=1.0, le=3.0, description="power usage effectiveness (cooling)")
    availability: Availability = Field(defaults.AVAILABILITY, description="fraction of hours an owned GPU can work")
    spot_interruption_overhead: float = Field(defaults.SPOT_INTERRUPTION_OVERHEAD, ge=0, lt=1)
    resale_decline_per_year: float = Field(defaults.RESALE_DECLINE_PER_YEAR, ge=0, lt=1)
    resale_fee: float = Field(defaults.RESALE_FEE, ge=0, lt=1)
    host_watts_per_working_gpu: float = Field(defaults.HOST_WATTS_PER_WORKING_GPU, ge=0, le=5000)

    @field_validator("providers")
    @classmethod
    def _lower(cls, value: list[str] | None) -> list[str] | None:
        return None if value is None else [p.strip().lower() for p in value]


class OwnedPriceItem(_Strict):
    """A purchase option the caller brings: a vendor quote, a used card, a whole desktop or server."""

    name: str = Field(min_length=1)
    gpu: str = Field(min_length=1)
    gpus_per_unit: int = Field(1, ge=1, le=64)
    unit_price_usd: Money
    watts: float | None = Field(None, gt=0, le=100_000, description="working power of one unit")
    idle_watts: float | None = Field(None, ge=0, le=100_000, description="idle power of one unit")
    condition: Literal["new", "used"] = "new"
    includes_host: bool = False
    source: str = "request"
    as_of: PlanDate | None = None

    @model_validator(mode="after")
    def _idle_below_working(self) -> OwnedPriceItem:
        if self.watts is not None and self.idle_watts is not None and self.idle_watts > self.watts:
            raise ValueError("idle_watts must not exceed watts")
        return self


class CloudPriceItem(_Strict):
    """A cloud offer the caller brings, e.g. a negotiated rate."""

    provider: str = Field(min_length=1)
    name: str = Field(min_length=1)
    gpu: str = Field(min_length=1)
    gpu_count: int = Field(1, ge=1, le=64)
    usd_per_hour: HourlyRate
    region: str = "any"
    pricing: Literal["on_demand", "spot"] = "on_demand"
    max_instances: Count | None = Field(None, description="quota: instances at once")
    source: str = "request"
    as_of: PlanDate | None = None

    @field_validator("provider")
    @classmethod
    def _lower(cls, value: str) -> str:
        return value.lower()


class PriceInput(_Strict):
    mode: Literal["extend", "replace"] = "extend"
    owned: list[OwnedPriceItem] = Field(default_factory=list, max_length=1000)
    cloud: list[CloudPriceItem] = Field(default_factory=list, max_length=10_000)


def _demand_kind(value: object) -> str:
    """A demand with a `series` key is a series; anything else is read as {gpus, utilisation}."""
    if isinstance(value, dict):
        return "series" if "series" in value else "utilisation"
    return "series" if isinstance(value, SeriesDemand) else "utilisation"


class Profile(_Strict):
    """What the user needs: work, memory, time, power price and limits."""

    workload: Workload
    min_gpu_memory_gb: float = Field(0, ge=0, le=10_000, allow_inf_nan=False)
    demand: Annotated[
        Annotated[UtilisationDemand, Tag("utilisation")] | Annotated[SeriesDemand, Tag("series")],
        Discriminator(_demand_kind),
    ]
    horizon_months: int | None = Field(None, ge=1, le=defaults.MAX_HORIZON_MONTHS)
    horizon_days: int | None = Field(None, ge=1, le=defaults.MAX_HORIZON_DAYS)
    electricity_usd_per_kwh: float | None = Field(None, ge=0, le=10, allow_inf_nan=False)
    options: PlanOptions = Field(default_factory=PlanOptions)
    prices: PriceInput = Field(default_factory=PriceInput)
    throughput_overrides: dict[str, Ratio] = Field(
        default_factory=dict,
        description="measured throughput relative to demand.reference_gpu for this workload, by GPU name",
    )

    @model_validator(mode="after")
    def _one_horizon(self) -> Profile:
        if self.horizon_months is not None and self.horizon_days is not None:
            raise ValueError("give horizon_months or horizon_days, not both")
        if (
            isinstance(self.demand, UtilisationDemand)
            and self.horizon_months is None
            and self.horizon_days is None
        ):
            raise ValueError("horizon_months or horizon_days is required with a utilisation demand")
        return self
