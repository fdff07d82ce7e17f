"""Plans side by side: the inputs that differ, what each buys (hosts and reserved instances too) and rents, its costs
and its break-even day.

Pure over stored plans (no database here): the endpoint reads each plan within the caller's lab and hands them in.

Money: each plan's figures stay in its own `currency`. Plans in different currencies are also put in one currency
(`currency` of the comparison) with the exchange rates each plan carries (the ECB publication it was made with),
so totals can be ranked and drawn on one chart: the first plan's currency when every plan carries its rate, else
US dollars (every plan made in another currency carries its own rate to USD). `conversions` says which rate
converted which plan, and of which day; the cheapest plan is the cheapest in that currency.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field

from solvers.base.plan_lines import Costs
from solvers.base.result import PlanResult

MIN_PLANS = 2
MAX_PLANS = 6  # one chart stays readable with this many lines; the page says so when more are asked


class ComparedPurchase(BaseModel):
    """One thing a plan commits money to before any work is done: cards or machines bought, the host machines the
    cards go in, and reserved / committed cloud instances (a term paid whether used or not)."""

    kind: Literal["buy", "host", "commitment"] = Field("buy", description="buy: GPUs or complete machines bought; "
                                                        "host: a machine bought for cards; commitment: reserved "
                                                        "instances over a term")
    name: str
    gpu: str | None = Field(None, description="the GPU type (null for a host machine)")
    condition: str | None = Field(None, description="new or used (buy); null for hosts and commitments")
    count: int = Field(description="units, hosts or instances")
    cost_usd: float = Field(description="count x unit price (commitment: its cost over the horizon), in the plan's "
                            "currency")
    provider: str | None = Field(None, description="commitment: the cloud provider")
    term_months: int | None = Field(None, description="commitment: the term")


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
    currency: str = Field("USD", description="the currency of this plan's money figures")
    to_common: float = Field(1.0, description="multiply this plan's money by this to have it in the comparison's "
                             "currency (1 when they are the same)")
    total_in_common: float = Field(description="total_cost_usd x to_common: the total in the comparison's currency")


class Conversion(BaseModel):
    """How one plan's money was put in the comparison's currency."""

    plan_id: str
    from_currency: str
    to_currency: str
    rate: float = Field(description="units of to_currency per unit of from_currency, from the plan's own rates")
    rates_as_of: str | None = Field(description="the date of the ECB reference rates the plan was made with")


class InputDifference(BaseModel):
    field: str = Field(description="dotted path in the profile, e.g. demand.utilisation")
    values: list[Any] = Field(description="the value in each plan's profile, in the order of `plans`; null if unset")


class PlanComparison(BaseModel):
    plans: list[ComparedPlan]
    differing_inputs: list[InputDifference]
    cheapest_id: str = Field(description="the plan with the lowest total cost in the comparison's currency (the "
                             "first of equals)")
    currency: str = Field("USD", description="the one currency totals are ranked and charted in")
    conversions: list[Conversion] = Field(default_factory=list, description="one per plan whose currency differs "
                                          "from the comparison's (empty when all plans share a currency)")


def _usd_per_unit(plan: PlanResult, currency: str) -> float | None:
    if currency == "USD":
        return 1.0
    rates = plan.exchange_rates.rates if plan.exchange_rates else []
    return next((r.usd_per_unit for r in rates if r.currency == currency), None)


def common_currency(plans: Sequence[PlanResult]) -> tuple[str, list[float]]:
    """The comparison's currency and, per plan, the factor that puts its money in it (module docstring)."""
    for candidate in dict.fromkeys([plans[0].currency, "USD"]):
        factors = []
        for plan in plans:
            own, target = _usd_per_unit(plan, plan.currency), _usd_per_unit(plan, candidate)
            if plan.currency == candidate:
                factors.append(1.0)
            elif own is not None and target is not None:
                factors.append(own / target)
            else:
                break
        else:
            return candidate, factors
    raise ValueError("a plan in another currency than USD carries no exchange rates")  # finish() always sets them


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


def purchases(plan: PlanResult) -> list[ComparedPurchase]:
    """What the plan buys, the hosts its cards go in, and what it reserves: the money it commits up front."""
    return ([ComparedPurchase(kind="buy", name=b.name, gpu=b.gpu, condition=b.condition, count=b.count,
                              cost_usd=b.count * b.unit_price_usd) for b in plan.buy]
            + [ComparedPurchase(kind="host", name=h.name, count=h.count, cost_usd=h.count * h.unit_price_usd)
               for h in plan.hosts]
            + [ComparedPurchase(kind="commitment", name=c.name, gpu=c.gpu, count=c.count, cost_usd=c.cost_usd,
                                provider=c.provider, term_months=c.term_months) for c in plan.commitments])


def _compared(plan: PlanResult, to_common: float) -> ComparedPlan:
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
        purchases=purchases(plan),
        cloud_instance_hours=sum(c.hours for c in plan.cloud), currency=plan.currency, to_common=to_common,
        total_in_common=round(plan.total_cost_usd * to_common, 2))


def compare(plans: Sequence[PlanResult], profiles: Sequence[Mapping[str, Any]]) -> PlanComparison:
    """The comparison of plans given in the caller's order with the profiles they were made from."""
    currency, factors = common_currency(plans)
    compared = [_compared(p, f) for p, f in zip(plans, factors, strict=True)]
    cheapest = min(compared, key=lambda c: c.total_in_common)
    conversions = [Conversion(plan_id=p.id or "", from_currency=p.currency, to_currency=currency, rate=f,
                              rates_as_of=p.exchange_rates.as_of if p.exchange_rates else None)
                   for p, f in zip(plans, factors, strict=True) if p.currency != currency]
    return PlanComparison(plans=compared, differing_inputs=differing_inputs(profiles), cheapest_id=cheapest.id,
                          currency=currency, conversions=conversions)
