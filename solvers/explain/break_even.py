"""The plan's break-even: cumulative cost curves of the plan, cloud only and buy only and the days they cross, the
decision thresholds the weighing found, and the guide's closed form on the plan's purchase against a reference
cloud offer.

In: the plan's core (profile, periods, blocks, options, limits), the accounts of the plan and its alternatives, and
a `Weighed`. Out: a `BreakEven` (solvers.base.result)."""

from __future__ import annotations

import math

from solvers.base.break_even_result import BreakEven, Crossings, SimpleBreakEven
from solvers.base.demand_forms import UtilisationDemand
from solvers.base.options import CloudOption, HostOption, Options, OwnedOption
from solvers.base.profile import Profile
from solvers.demand.blocks import Block
from solvers.demand.periods import Period
from solvers.explain.simple import Budget, JobDemand, cheapest_cloud, simple_break_even
from solvers.explain.weighing import (
    Weighed,
    as_bought,
)
from solvers.model.arrays import Limits, MipSolution
from solvers.model.purchases import Purchase
from solvers.money.accounting import Accounts
from solvers.money.curves import crossing, cumulative_points, curve, day_grid

THRESHOLDS_NOTE = (
    "Each threshold varies one input and holds the rest of the profile fixed; buying 'pays' when the plan's "
    "purchase, the buy-only purchase or one unit of a leading owned option costs less over the horizon "
    "than cloud only."
)


COMMITMENTS_NOTE = (" Cloud only includes the reserved or committed instances the profile allows (their prices move "
                    "with the cloud price).")


PRESENT_VALUE_NOTE = " Costs are present values at the profile's discount rate."


def find_break_even(profile: Profile, periods: list[Period], blocks: list[Block], options: Options,
                owned: list[OwnedOption], limits: Limits, plan: Accounts, cloud_only: Accounts | None,
                buy_only: Accounts | None, plan_purchase: Purchase, buy_only_sol: MipSolution | None,
                horizon_days: int, weighed: Weighed, singles: list[Purchase]) -> BreakEven:
    days, dates = day_grid(periods)
    plan_curve = curve(plan.start_usd, plan.period_running_usd, plan.resale_basis_usd)
    cloud_curve = (curve(cloud_only.start_usd, cloud_only.period_running_usd, cloud_only.resale_basis_usd)
                   if cloud_only else None)
    buy_curve = (curve(buy_only.start_usd, buy_only.period_running_usd, buy_only.resale_basis_usd)
                 if buy_only else None)
    crossings = Crossings(
        plan_vs_cloud_only=crossing(days, plan_curve, cloud_curve) if cloud_curve else None,
        buy_only_vs_cloud_only=crossing(days, buy_curve, cloud_curve) if buy_curve and cloud_curve else None,
        plan_vs_buy_only=crossing(days, plan_curve, buy_curve) if buy_curve else None,
    )
    plan_buys = not plan_purchase.empty
    payback = crossings.plan_vs_cloud_only if plan_buys else None

    demand = profile.demand
    found, cloud_side = weighed.found, weighed.cloud_side
    job_demand = _job_demand(blocks, horizon_days, limits)
    reference = _reference_offer([cloud_only, plan], options, job_demand)

    simple, simple_note = None, None
    if reference is not None:
        buy_only_purchase = (as_bought(Purchase(buy_only_sol.units, buy_only_sol.hosts), owned)
                             if buy_only_sol is not None and buy_only_sol.status.has_solution else Purchase())
        simple, simple_note = _simple(_simple_owned(plan_purchase, owned, singles, buy_only_purchase), options.hosts,
                                      reference, job_demand, limits, plan_purchase)

    return BreakEven(
        days=None if payback is None else round(payback, 2),
        crossings=crossings,
        cumulative=cumulative_points(days, dates, plan_curve, cloud_curve, buy_curve),
        utilisation_threshold=(round(found.demand_scale * demand.utilisation, 6)
                               if found.demand_scale is not None and isinstance(demand, UtilisationDemand) else None),
        demand_scale_threshold=None if found.demand_scale is None else round(found.demand_scale, 6),
        # the threshold's rate prices owned energy with the carbon price's adder; the tariff is stated without it
        electricity_threshold_usd_per_kwh=(None if found.electricity_usd_per_kwh is None
                                           else round(found.electricity_usd_per_kwh - weighed.least_usd_per_kwh, 6)),
        cloud_price_threshold_usd_per_hour=(None if found.cloud_price_factor is None or reference is None
                                            else round(found.cloud_price_factor * reference.usd_per_hour, 6)),
        cloud_price_threshold_offer=None if reference is None else f"{reference.provider}/{reference.name} "
        f"({reference.region}, {reference.pricing}) at {reference.usd_per_hour} USD/h",
        thresholds_note=THRESHOLDS_NOTE + (COMMITMENTS_NOTE if cloud_side.scaled else "")
        + (PRESENT_VALUE_NOTE if profile.options.discount_rate > 0 else ""),
        basis="present_value" if profile.options.discount_rate > 0 else "nominal",
        cloud_only_commitments=bool(cloud_side.scaled),
        simple=simple,
        simple_note=simple_note,
    )


def _job_demand(blocks: list[Block], horizon_days: int, limits: Limits) -> JobDemand:
    """The closed form's demand in the model's units: job-hours at reference pace a day (the levels' jobs x hours),
    the most jobs at once, and whether rented instances are packed (work may wait)."""
    job_hours = sum(b.job_hours for b in blocks)  # each block's float(np.dot(jobs, level_hours)), cached
    peak = max((b.peak_jobs for b in blocks), default=0.0)
    return JobDemand(job_hours / horizon_days, max(1, math.ceil(peak - 1e-9)), not limits.integer_instances)


def _reference_offer(rented: list[Accounts | None], options: Options, demand: JobDemand) -> CloudOption | None:
    """The cloud offer the closed form and the cloud-price threshold are stated on: the one rented most (largest
    rent) by cloud only, what renting instead of buying takes (the plan itself when it buys nothing; a plan that
    buys may rent only peaks or, packed, its cards' maintenance hours), else by the plan; when neither rents, the
    cheapest per job-hour of this demand's jobs, an instance rented whole (a 1-GPU job is not priced at an eighth
    of an 8-GPU instance)."""
    for accounts in rented:
        for line in [] if accounts is None else accounts.cloud:  # largest cost first
            same = [c for c in options.cloud if (c.provider, c.name, c.region, c.pricing, c.usd_per_hour)
                    == (line.provider, line.name, line.region, line.pricing, line.usd_per_hour)
                    and (line.gpus_per_job is None or c.width == line.gpus_per_job)]
            if same:
                return cheapest_cloud(same, demand)
    return cheapest_cloud(options.cloud, demand)


def _simple(candidates: list[OwnedOption], hosts: list[HostOption], reference: CloudOption, demand: JobDemand,
            limits: Limits, plan_purchase: Purchase | None = None) -> tuple[SimpleBreakEven | None, str | None]:
    """The closed form on the first candidate that runs a whole job within the budget, or why there is none; the
    plan's own option at the plan's count (machines, or whole jobs of bare cards)."""
    budget = Budget(limits.max_capex_usd, limits.max_owned_gpus)
    bought = {} if plan_purchase is None else plan_purchase.units
    for option in candidates:
        units = bought.get(option.key, 0)
        pieces = (units if option.includes_host else units * option.gpus_per_unit // option.width) or None
        simple = simple_break_even(option, hosts, reference, demand, option.available(limits.availability),
                                   limits.usd_per_kwh, budget, pieces)
        if simple is not None:
            return simple, None
    if not candidates:
        return None, None
    budgeted = " within options.max_capex_usd and options.max_owned_gpus" if (
        limits.max_capex_usd is not None or limits.max_owned_gpus is not None) else ""
    return None, (f"the guide's closed form has no owned option that runs one whole job{budgeted} (a job's GPUs "
                  "in one host that holds them all)")


def _simple_owned(plan_purchase: Purchase, owned: list[OwnedOption], singles: list[Purchase],
                  buy_only: Purchase | None = None) -> list[OwnedOption]:
    """The closed form's owned option, in order of preference: the plan's most-bought, then buy only's (what buying
    everything would buy: a plan that buys nothing is weighed against it, not against the cheapest single unit,
    which for a 70B service was 136 small cards), then the leading single units (the first that runs a whole job
    within the budget is used)."""
    by_key = {o.key: o for o in owned}
    keys: list[str] = []
    for purchase in (plan_purchase, buy_only or Purchase()):
        if not purchase.empty:
            keys.append(max(((k, n) for k, n in purchase.units.items() if n > 0), key=lambda kv: (kv[1], kv[0]))[0])
    keys += [next(iter(s.units)) for s in singles]
    return [by_key[k] for k in dict.fromkeys(keys) if k in by_key]
