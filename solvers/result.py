"""The plan the planner returns: the `POST /v1/plans` response body (a public contract).

Money is USD throughout (`currency`); dates are ISO 8601.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

Status = Literal["optimal", "time_limited"]


class BuyLine(BaseModel):
    name: str
    gpu: str
    condition: Literal["new", "used"]
    count: int = Field(description="units bought")
    gpus_per_unit: int
    includes_host: bool
    unit_price_usd: float
    resale_usd_per_unit: float
    source: str
    price_as_of: str


class HostLine(BaseModel):
    name: str
    slots: int
    count: int
    unit_price_usd: float
    psu_watts: float
    idle_watts: float
    source: str
    price_as_of: str


class CloudLine(BaseModel):
    provider: str
    name: str
    gpu: str
    gpu_count: int
    region: str
    pricing: Literal["on_demand", "spot"]
    usd_per_hour: float
    hours: float = Field(description="instance-hours over the horizon")
    cost_usd: float
    source: str
    price_as_of: str


class CommitmentLine(BaseModel):
    """Reserved / committed instances held from the plan's start, renewed term after term over the horizon."""

    provider: str
    name: str
    gpu: str
    gpu_count: int
    region: str
    count: int = Field(description="instances committed")
    term_months: int
    terms: int = Field(description="terms paid back to back to cover the horizon (the last one in full)")
    usd_per_hour: float = Field(description="price per instance-hour, paid every hour of the term")
    paid_hours: float = Field(description="hours paid per instance (whole terms)")
    cost_usd: float = Field(description="count x usd_per_hour x paid_hours")
    source: str
    price_as_of: str


class Costs(BaseModel):
    capex_usd: float
    electricity_usd: float
    cloud_usd: float
    resale_credit_usd: float
    total_usd: float
    commitments_usd: float = Field(0.0, description="reserved / committed instances, whole terms")
    opex_usd: float = Field(0.0, description="owned hardware's running costs beyond power (options.opex)")
    financing_interest_usd: float = Field(0.0, description="interest paid on financed purchases (options.financing)")
    cloud_data_usd: float = Field(0.0, description="cloud storage and egress (options.cloud_data)")
    present_value_usd: float | None = Field(
        None, description="total at present value, discounted at options.discount_rate (equal to total_usd at 0)")


class CashFlowLine(BaseModel):
    """One period's cash flows (the 'start' row: t = 0), nominal and at present value; costs positive."""

    month: str = Field(description="the period's label; 'start' for payments at the plan's start")
    date: str = Field(description="when the flows are counted: the start, or the period's end")
    capex_usd: float = Field(description="purchases paid: cash at the start, or down payment and loan payments")
    electricity_usd: float
    opex_usd: float
    cloud_usd: float = Field(description="cloud hours, with the cloud's storage and egress (options.cloud_data)")
    commitments_usd: float
    resale_usd: float = Field(description="resale proceeds (negative: money in)")
    net_usd: float
    cumulative_usd: float
    discount_factor: float
    net_present_value_usd: float
    cumulative_present_value_usd: float


class PeriodLine(BaseModel):
    month: str
    start: str
    days: int
    demand_reference_gpu_hours: float
    delivered_reference_gpu_hours: float = Field(description="work done by owned and cloud GPUs, reference GPU-hours")
    owned_gpu_hours: dict[str, float] = Field(description="GPU-hours worked per owned option name")
    cloud_hours: dict[str, float] = Field(description="instance-hours per cloud offer (provider/name/region/pricing)")
    electricity_usd: float
    cloud_usd: float
    peak_owned_gpus: float = Field(0.0, description="most owned GPUs busy at once in the period")
    peak_rented_gpus: float = Field(0.0, description="most rented GPUs busy at once in the period (whole instances "
                                    "may hold more, see unused_rented_gpu_hours)")
    unused_rented_gpu_hours: float = Field(0.0, description="GPU-hours of rented instances that no job used "
                                           "(paid: instances are rented whole)")
    commitments_usd: float = Field(0.0, description="reserved / committed instances paid in the period")
    opex_usd: float = Field(0.0, description="owned hardware's running costs beyond power in the period")
    waited_gpu_hours: float = Field(0.0, description="busy GPU-hours of work moved within its patience window")
    max_wait_hours: float = Field(0.0, description="the longest that work may have waited: the window's length")


class Alternative(BaseModel):
    total_cost_usd: float
    costs: Costs
    buy: list[BuyLine]
    hosts: list[HostLine]
    cloud: list[CloudLine]
    commitments: list[CommitmentLine] = Field(default_factory=list)


class CumulativePoint(BaseModel):
    date: str
    day: float
    plan_usd: float
    cloud_only_usd: float | None
    buy_only_usd: float | None
    event: Literal["start", "month_end", "resale"]


class SimpleBreakEven(BaseModel):
    """The guide's closed form: one owned option against one cloud offer at the average demand."""

    owned: str
    cloud: str
    units: int
    upfront_usd: float
    owned_usd_per_day: float
    cloud_usd_per_day: float
    days: float | None
    formula: str


class Crossings(BaseModel):
    plan_vs_cloud_only: float | None
    buy_only_vs_cloud_only: float | None
    plan_vs_buy_only: float | None


class BreakEven(BaseModel):
    days: float | None = Field(description="day the plan's cumulative cost drops below cloud-only; null if never")
    crossings: Crossings
    cumulative: list[CumulativePoint]
    utilisation_threshold: float | None = Field(
        description="utilisation at which buying starts to pay (utilisation demand only)"
    )
    demand_scale_threshold: float | None = Field(
        description="multiple of the profile's demand at which buying starts to pay"
    )
    electricity_threshold_usd_per_kwh: float | None = Field(
        description="electricity rate at which the buy/rent decision flips"
    )
    cloud_price_threshold_usd_per_hour: float | None = Field(
        description="price of the reference cloud offer at which the buy/rent decision flips"
    )
    cloud_price_threshold_offer: str | None
    thresholds_note: str
    simple: SimpleBreakEven | None


class Alternatives(BaseModel):
    cloud_only: Alternative | None
    buy_only: Alternative | None
    notes: list[str] = Field(default_factory=list)


class SolverInfo(BaseModel):
    backend: str
    status: str
    solve_ms: float
    build_ms: float = Field(0.0, description="time spent building the model's arrays, part of solve_ms")
    gap: float | None
    owned_options: int = Field(description="owned options in the model after pruning")
    cloud_options: int = Field(description="cloud offers in the model after pruning")
    candidates_before_pruning: int
    levels: int = Field(0, description="load-duration levels in the model, summed over merged blocks")
    integer_instances: bool = Field(True, description="rented instances whole at every level (work cannot wait)")


class PlanResult(BaseModel):
    id: str | None = None
    created_at: str | None = None
    profile_id: str | None = Field(None, description="the saved profile this plan answers, when made from one")
    profile_version: int | None = Field(None, description="the version of that profile")
    prices_in_force: dict[str, int] | None = Field(
        None, description="price snapshot id per live source the plan was made with ({}: bundled prices only); "
        "with the profile, what POST /v1/plans/{id}/recompute makes the plan again from")
    status: Status
    currency: Literal["USD"] = "USD"
    recommendation: str
    total_cost_usd: float
    buy: list[BuyLine]
    hosts: list[HostLine]
    cloud: list[CloudLine]
    costs: Costs
    periods: list[PeriodLine]
    break_even: BreakEven
    alternatives: Alternatives
    prices_as_of: dict[str, str]
    warnings: list[str]
    solver: SolverInfo
    horizon: dict[str, str | int]
    commitments: list[CommitmentLine] = Field(default_factory=list,
                                              description="reserved / committed instances the plan holds")
    discount_rate: float = Field(0.0, description="the profile's options.discount_rate: the basis of the "
                                 "objective and of the break-even (present value; nominal at 0)")
    cash_flows: list[CashFlowLine] = Field(default_factory=list, description="monthly cash-flow table")
