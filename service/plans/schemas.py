"""The plans API's bodies besides the plan itself (`solvers.result.PlanResult`, the planner's own contract)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from solvers.result import Costs


class PlanListItem(BaseModel):
    id: str
    created_at: str
    status: str
    total_cost_usd: float
    currency: str = "USD"
    recommendation: str
    profile_id: str | None
    profile_version: int | None


class LineItem(BaseModel):
    """One line of a plan as a purchasing system reads it; `line_total` of all lines adds up to the plan's cost."""

    line: int
    item: str
    type: Literal["gpu", "host", "cloud", "commitment", "cloud_data", "electricity", "opex", "financing", "resale",
                  "rounding"]
    gpu: str
    condition: str = Field(description="new, used, cloud, or empty for estimates")
    quantity: float
    unit: str
    unit_price: float
    currency: Literal["USD"] = "USD"
    vendor_source: str
    price_as_of: str
    line_total: float


class RequestProfile(BaseModel):
    id: str | None
    version: int | None
    name: str | None


class DecisionThresholds(BaseModel):
    utilisation: float | None
    electricity_usd_per_kwh: float | None
    cloud_price_usd_per_hour: float | None
    cloud_price_reference_offer: str | None


class ConsideredOption(BaseModel):
    option: Literal["this plan", "cloud only", "buy only"]
    total_cost_usd: float
    currency: Literal["USD"] = "USD"
    costs: Costs


class DepreciationRow(BaseModel):
    year: int
    opening_book_value_usd: float
    depreciation_usd: float
    closing_book_value_usd: float


class DepreciationSchedule(BaseModel):
    """The purchases' (GPUs and hosts) depreciation, year by year, from the plan's capex."""

    method: Literal["straight_line", "declining_balance"]
    years: int
    rate: float | None = Field(description="declining balance: share of the book value written off a year")
    cost_usd: float
    salvage_usd: float
    schedule: list[DepreciationRow]


class PurchaseRequest(BaseModel):
    """A plan as a purchase request: the lines, why (in sentences), and the alternatives with their costs."""

    title: str
    plan_id: str | None
    created_at: str | None
    currency: Literal["USD"] = "USD"
    profile: RequestProfile
    recommendation: str
    justification: str
    break_even_days: float | None
    thresholds: DecisionThresholds
    line_items: list[LineItem]
    total_cost_usd: float
    alternatives: list[ConsideredOption]
    prices_as_of: dict[str, str]
    prices_in_force: dict[str, int] | None
    warnings: list[str]
    depreciation: DepreciationSchedule | None = Field(
        None, description="of the purchases; null when the plan buys nothing")
