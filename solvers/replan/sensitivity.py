"""Sensitivity of a plan: total cost and the decision when one input moves over a stated range, by re-planning.

Pure: a profile, a catalog and a day in, a `Sensitivity` out (no HTTP, database or clock). Each input is moved
alone, to the low and the high end of its range, and the whole plan is made again with `make_plan`; the rest of
the profile and the catalog stay as they were. The ranges are planning assumptions, stated in `RANGES` with why.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from pricing.catalog import Catalog
from solvers.base import defaults
from solvers.base.errors import InfeasibleProfile, ProfileError
from solvers.base.profile import Profile
from solvers.base.result import PlanResult
from solvers.offers.resale import equivalent_yearly_decline
from solvers.plan import make_plan


@dataclass(frozen=True)
class InputRange:
    key: str
    label: str
    low: float
    high: float
    why: str


# Each input's low and high end, as a factor of its value in the profile (resale: the yearly decline of the
# used-market value; discount rate: the annual rate itself; horizon: months). Planning assumptions, chosen to
# span what a lab plausibly sees:
RANGES: tuple[InputRange, ...] = (
    InputRange("demand_scale", "Demand", 0.5, 2.0,
               "half to double the work: the usual error of a year-ahead estimate of GPU-hours"),
    InputRange("electricity", "Electricity price", 0.5, 2.0,
               "half to double the rate: the spread of retail rates between regions and of 2021-2023 prices"),
    InputRange("cloud_prices", "Cloud prices", 0.5, 1.5,
               "every cloud offer from half (marketplace and spot-like discounts) to 1.5 times its price"),
    InputRange("hardware_prices", "Hardware prices", 0.75, 1.5,
               "every GPU and machine price from 25% below (sales, used) to 50% above (shortages)"),
    InputRange("resale", "Resale value decline per year", 0.10, 0.40,
               "the used value falls 10% to 40% a year (the fitted consumer curve: "
               f"{equivalent_yearly_decline():.0%})"),
    InputRange("horizon", "Horizon", 0.5, 2.0, "half to double the months planned for"),
    InputRange("discount_rate", "Discount rate (cost of capital)", 0.0, 0.15,
               "0 (cash, undiscounted) to 15% a year (a start-up's or an expensive loan's cost of capital): money "
               "spent up front weighs more against later cloud bills the dearer capital is"),
)


NOTE = ("Each input moved alone over its range, the rest of the profile and the prices as they were; every end is a "
        "whole new plan. A longer or shorter horizon changes the total by itself, so compare its decisions rather "
        "than its totals.")
# what `decision` says when a plan buys nothing, and when no plan was feasible (the page translates them)
RENT_ONLY, NO_PLAN = "rent only", "no feasible plan"


class DecisionItem(BaseModel):
    """One purchase of an end's plan, for a client that writes the decision in its own language."""

    count: int
    name: str
    gpu: str
    condition: str


class SensitivityRow(BaseModel):
    input: str = Field(description="demand_scale, electricity, cloud_prices, hardware_prices, resale, horizon or "
                       "discount_rate")
    label: str
    why: str = Field(description="why this range")
    base_value: float = Field(description="the input's value in the plan (factor 1 for the price scales)")
    low_value: float
    high_value: float
    unit: str
    low_total_usd: float | None = Field(description="total cost at the low end; null if no plan was feasible")
    high_total_usd: float | None
    low_decision: str
    high_decision: str
    low_purchases: list[DecisionItem] | None = Field(None, description="what the low end's plan buys (empty: rent "
                                                     "only; null: no feasible plan), the structure of low_decision")
    high_purchases: list[DecisionItem] | None = None
    decision_changes: bool = Field(description="the purchases differ from the plan's at either end")
    swing_usd: float = Field(description="|high total - low total|: rows are sorted by it, largest first")


class Sensitivity(BaseModel):
    base_total_usd: float
    base_decision: str
    rows: list[SensitivityRow]
    note: str


def decision(plan: PlanResult | None) -> str:
    """What the plan does, in a few words: its purchases, or renting only."""
    if plan is None:
        return NO_PLAN
    if not plan.buy:
        return RENT_ONLY
    return "buy " + ", ".join(f"{b.count} x {b.name}" for b in plan.buy)


def purchases(plan: PlanResult | None) -> list[DecisionItem] | None:
    """What `decision` says, as items: the plan's purchases (empty: rent only), None when no plan was feasible."""
    if plan is None:
        return None
    return [DecisionItem(count=b.count, name=b.name, gpu=b.gpu, condition=b.condition) for b in plan.buy]


def _scaled_frame(frame: Any, column: str, factor: float) -> Any:
    if frame is None or column not in getattr(frame, "columns", ()):
        return frame
    scaled = frame.copy()
    scaled[column] = scaled[column] * factor
    return scaled


def _with_demand(profile: Profile, factor: float) -> Profile:
    """The same GPUs busy `factor` times as many hours: the work scales, not the width of the lab.

    Scaling the GPU count instead would leave each GPU's share of busy hours, and so the buy-or-rent answer,
    unchanged under the demand model's "N GPUs at once for u of the hours" reading; a year-ahead estimate is
    wrong about how much work there is. Utilisation past 1 spills into more GPUs at once."""
    data = profile.model_dump(mode="json")
    demand = data["demand"]
    if demand is None:  # the workload form: more jobs a month, or more tokens/requests served
        job = data["workload"]
        if job["kind"] == "serve":
            key = "tokens" if job.get("tokens") is not None else "requests_per_second"
            job[key] = job[key] * factor
        else:
            job["jobs_per_month"] = (job.get("jobs_per_month") or 1.0) * factor
    elif "series" in demand:
        for point in demand["series"]:
            point["reference_gpu_hours"] = point["reference_gpu_hours"] * factor
    elif "busy_gpus" in demand:
        demand["busy_gpus"] = [value * factor for value in demand["busy_gpus"]]
    else:
        utilisation = demand["utilisation"] * factor
        if utilisation > 1:
            demand["gpus"] = demand.get("gpus", 1) * utilisation
            utilisation = 1.0
        demand["utilisation"] = utilisation
    return Profile.model_validate(data)


def _with_prices(profile: Profile, kind: str, column: str, factor: float) -> Profile:
    data = profile.model_dump(mode="json")
    for item in data["prices"][kind]:
        item[column] = item[column] * factor
    return Profile.model_validate(data)


def _variant(key: str, profile: Profile, catalog: Catalog, value: float,
             base: PlanResult) -> tuple[Profile, Catalog]:
    """The profile and catalog with one input moved to `value`."""
    if key == "demand_scale":
        return _with_demand(profile, value), catalog
    if key == "electricity":
        rate = _electricity_usd(profile, base)
        return profile.model_copy(update={"electricity_usd_per_kwh": min(10.0, rate * value)}), catalog
    if key == "cloud_prices":
        return (_with_prices(profile, "cloud", "usd_per_hour", value),
                replace(catalog, cloud=_scaled_frame(catalog.cloud, "usd_per_hour", value)))
    if key == "hardware_prices":
        hosts = [replace(h, base_cost_usd=h.base_cost_usd * value) for h in catalog.hosts]
        return (_with_prices(profile, "owned", "unit_price_usd", value),
                replace(catalog, hardware=_scaled_frame(catalog.hardware, "unit_price_usd", value), hosts=hosts))
    if key == "resale":
        options = profile.options.model_copy(update={"resale_decline_per_year": value})
        return profile.model_copy(update={"options": options}), catalog
    if key == "discount_rate":
        options = profile.options.model_copy(update={"discount_rate": value})
        return profile.model_copy(update={"options": options}), catalog
    if key == "horizon":
        months = int(base.horizon.get("periods", len(base.periods)))
        moved = max(1, min(defaults.MAX_HORIZON_MONTHS, round(months * value)))
        return profile.model_copy(update={"horizon_months": moved, "horizon_days": None}), catalog
    raise ValueError(f"unknown input {key!r}")


def _electricity_usd(profile: Profile, base: PlanResult) -> float:
    """The electricity rate the base plan priced owned energy at, in USD: the profile's own USD rate, else the rate
    its place or price in another currency gave (the plan reports it in its currency), else the default."""
    if profile.electricity_usd_per_kwh is not None:
        return profile.electricity_usd_per_kwh
    used, rates = base.electricity, base.exchange_rates
    per_unit = next((r.usd_per_unit for r in rates.rates if r.currency == base.currency), None) if rates else None
    factor = 1.0 if base.currency == "USD" else per_unit
    if used is not None and factor is not None:
        return used.price_per_kwh * factor
    return defaults.ELECTRICITY_USD_PER_KWH


def _base_value(key: str, profile: Profile, base: PlanResult) -> tuple[float, str]:
    if key == "electricity":
        return _electricity_usd(profile, base), "USD/kWh"
    if key == "resale":
        given = profile.options.resale_decline_per_year
        return (equivalent_yearly_decline() if given is None else given), "per year"
    if key == "discount_rate":
        return profile.options.discount_rate, "per year"
    if key == "horizon":
        return float(base.horizon.get("periods", len(base.periods))), "months"
    return 1.0, "x"


def _end_value(key: str, base_value: float, factor: float) -> float:
    if key in ("resale", "discount_rate"):
        return factor
    if key == "horizon":
        return float(max(1, min(defaults.MAX_HORIZON_MONTHS, round(base_value * factor))))
    return base_value * factor


def _total(plan: PlanResult | None) -> float | None:
    return None if plan is None else plan.total_cost_usd


def _plan_or_none(planner: Callable[[Profile, Catalog, dt.date], PlanResult], key: str, profile: Profile,
                  catalog: Catalog, factor: float, base: PlanResult, today: dt.date) -> PlanResult | None:
    """A moved input may leave no feasible plan (a budget too small for double the demand) or leave the bounds a
    profile may have (double the largest demand allowed): that end has no plan, and says so."""
    try:
        moved, moved_catalog = _variant(key, profile, catalog, factor, base)
        return planner(moved, moved_catalog, today)
    except (InfeasibleProfile, ProfileError, ValidationError):
        return None


def sensitivity(profile: Profile, catalog: Catalog, today: dt.date,
                planner: Callable[[Profile, Catalog, dt.date], PlanResult] = make_plan) -> Sensitivity:
    """Re-plan with each input at the low and high end of its range; rows sorted by how far the total moves.

    A profile with `uncertainty` is varied without it: the tornado moves one input of the profile's own figures
    (the futures move them all at once, and fifteen stochastic plans would not fit a plan's time budget)."""
    profile = profile.model_copy(update={"uncertainty": None})
    base = planner(profile, catalog, today)
    base_decision = decision(base)
    rows: list[SensitivityRow] = []
    for one in RANGES:
        if one.key == "resale" and not profile.options.resale:
            continue  # no resale credit in this plan: its decline moves nothing
        value, unit = _base_value(one.key, profile, base)
        low, high = (_plan_or_none(planner, one.key, profile, catalog, factor, base, today)
                     for factor in (one.low, one.high))
        totals = [_total(low), _total(high)]
        swing = abs(totals[1] - totals[0]) if totals[0] is not None and totals[1] is not None else float("inf")
        rows.append(SensitivityRow(
            input=one.key, label=one.label, why=one.why, base_value=value, unit=unit,
            low_value=_end_value(one.key, value, one.low), high_value=_end_value(one.key, value, one.high),
            low_total_usd=totals[0], high_total_usd=totals[1], low_decision=decision(low),
            high_decision=decision(high), low_purchases=purchases(low), high_purchases=purchases(high),
            decision_changes=decision(low) != base_decision or decision(high) != base_decision,
            swing_usd=swing if swing != float("inf") else 0.0))
    rows.sort(key=lambda r: r.swing_usd, reverse=True)
    return Sensitivity(base_total_usd=base.total_cost_usd, base_decision=base_decision, rows=rows,
                       note=NOTE)


def with_cloud_prices_scaled(profile: Profile, catalog: Catalog, factor: float) -> tuple[Profile, Catalog]:
    """Every cloud price, the catalog's and the profile's own, times `factor` (the what-if slider's scale)."""
    return (_with_prices(profile, "cloud", "usd_per_hour", factor),
            replace(catalog, cloud=_scaled_frame(catalog.cloud, "usd_per_hour", factor)))
