"""Plans side by side: the inputs that differ, what each buys and rents, its costs and its break-even day.

Pure over stored plans (no database here): the endpoint reads each plan within the caller's lab and hands them in.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, Field

from solvers.result import Costs, PlanResult

MIN_PLANS = 2
MAX_PLANS = 6  # one chart stays readable with this many lines; the page says so when more are asked


class ComparedPurchase(BaseModel):
    name: str
    gpu: str
    condition: str
    count: int
    cost_usd: float


class ComparedPlan(BaseModel):
    id: str
    created_at: str | None
    recommendation: str
    total_cost_usd: float
    costs: Costs
    cloud_only_total_usd: float | None
    buy_only_total_usd: float | None
    break_even_days: float | None
    break_even_date: str | None = Field(description="horizon start plus break_even_days, ISO date")
    horizon_start: str
    horizon_months: int
    purchases: list[ComparedPurchase]
    cloud_instance_hours: float


class InputDifference(BaseModel):
    field: str = Field(description="dotted path in the profile, e.g. demand.utilisation")
    values: list[Any] = Field(description="the value in each plan's profile, in the order of `plans`; null if unset")


class PlanComparison(BaseModel):
    plans: list[ComparedPlan]
    differing_inputs: list[InputDifference]
    cheapest_id: str = Field(description="the plan with the lowest total cost (the first of equals)")


def _flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    """Profile leaves by dotted path; lists are leaves (a series or a price list differs as a whole)."""
    if isinstance(value, Mapping):
        flat: dict[str, Any] = {}
        for key, inner in value.items():
            flat.update(_flatten(inner, f"{prefix}.{key}" if prefix else str(key)))
        return flat
    return {prefix: value}


def differing_inputs(profiles: Sequence[Mapping[str, Any]]) -> list[InputDifference]:
    """Every profile field whose value is not the same in all profiles, in path order."""
    flats = [_flatten(p) for p in profiles]
    paths = sorted(set().union(*flats))
    rows = [(path, [f.get(path) for f in flats]) for path in paths]
    return [InputDifference(field=path, values=values) for path, values in rows if len(set(map(repr, values))) > 1]


def _compared(plan: PlanResult) -> ComparedPlan:
    start = str(plan.horizon.get("start", ""))
    days = plan.break_even.days
    when = (dt.date.fromisoformat(start) + dt.timedelta(days=int(days))).isoformat() if days is not None and start \
        else None
    alts = plan.alternatives
    return ComparedPlan(
        id=plan.id or "", created_at=plan.created_at, recommendation=plan.recommendation,
        total_cost_usd=plan.total_cost_usd, costs=plan.costs,
        cloud_only_total_usd=alts.cloud_only.total_cost_usd if alts.cloud_only else None,
        buy_only_total_usd=alts.buy_only.total_cost_usd if alts.buy_only else None,
        break_even_days=days, break_even_date=when, horizon_start=start,
        horizon_months=int(plan.horizon.get("periods", len(plan.periods))),
        purchases=[ComparedPurchase(name=b.name, gpu=b.gpu, condition=b.condition, count=b.count,
                                    cost_usd=b.count * b.unit_price_usd) for b in plan.buy],
        cloud_instance_hours=sum(c.hours for c in plan.cloud))


def compare(plans: Sequence[PlanResult], profiles: Sequence[Mapping[str, Any]]) -> PlanComparison:
    """The comparison of plans given in the caller's order with the profiles they were made from."""
    compared = [_compared(p) for p in plans]
    cheapest = min(compared, key=lambda c: c.total_cost_usd)
    return PlanComparison(plans=compared, differing_inputs=differing_inputs(profiles), cheapest_id=cheapest.id)
