"""What a plan-change alert compares: a saved profile's best plan reduced to its purchases and total cost.

Only the mix is re-solved (`solve_core`, a few ms), not the break-even analysis: evaluation re-plans
hundreds of profiles after a refresh. Two plans differ when the purchases differ (the same items in the
same numbers, whatever they cost) or when the total cost moved more than the subscription's percentage.
`plan_summary` and `required_summary` are what the plan pool's workers run (service/core/plan_pool.py): only
the small summary crosses back.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import pandas as pd

from pricing.catalog import Catalog
from pricing.gpus import GpuTable
from solvers.base.errors import InfeasibleProfile, ProfileError, SolverFailure
from solvers.base.profile import Profile
from solvers.explain.recommendation import names_condition
from solvers.money.accounting import Accounts
from solvers.plan import solve_core

# a watched profile's summary as the scheduler gets it; None when it could not be solved this time
Replan = Callable[[Profile, Catalog, dt.date], dict[str, Any] | None]


def plan_summary(profile: Profile, catalog: Catalog, today: dt.date) -> dict[str, Any]:
    """The baseline stored with a plan-change subscription; `error` instead when no plan meets the profile."""
    try:
        return required_summary(profile, catalog, today)
    except (ProfileError, InfeasibleProfile, SolverFailure) as exc:
        return {"error": getattr(exc, "message", str(exc))}


def required_summary(profile: Profile, catalog: Catalog, today: dt.date) -> dict[str, Any]:
    """The summary of a profile that must have a plan (a profile saved or changed): the planner's error otherwise,
    answered as the 422 naming the constraint."""
    return summarise(solve_core(profile, catalog, today).plan)


def summarise(plan: Accounts) -> dict[str, Any]:
    purchases = [f"{b.count} x {b.name} ("
                 + ("" if names_condition(b.name, b.condition) else f"{b.condition}, ")
                 + f"{b.unit_price_usd:,.2f} USD each, {b.source})" for b in plan.buy]
    purchases += [f"{h.count} x {h.name} ({h.unit_price_usd:,.2f} USD each)" for h in plan.hosts]
    return {
        "total_cost_usd": round(plan.costs.total_usd, 2),
        "purchases": purchases,
        "cloud": [f"{c.gpu} {c.provider} {c.name} {c.region} {c.pricing}: {c.hours:,.0f} h at "
                  f"{c.usd_per_hour:,.4g} USD/h" for c in plan.cloud],
        # what "the same purchases" means: items and counts, not their prices
        "items": sorted([["gpu", b.name, b.condition, b.count] for b in plan.buy]
                        + [["host", h.name, "", h.count] for h in plan.hosts]),
        "gpus": sorted({b.gpu for b in plan.buy} | {c.gpu for c in plan.cloud}),
    }


def affected(profile: Profile, changes: pd.DataFrame, gpus: GpuTable) -> bool:
    """Whether any changed (or removed) price is one this profile's planner would consider.

    Conservative: it repeats only the planner's first filters (GPU memory, cloud or buy allowed, spot,
    providers, regions), so "no" means re-planning would find the same plan at the same cost. Hardware
    prices count for every GPU the profile may buy, used ones too: they set resale values.
    """
    if profile.prices.mode == "replace" or changes.empty:
        return False
    opts = profile.options
    memory = changes["gpu"].map({g.name: g.memory_gb for g in gpus}).fillna(0.0)
    fits = memory >= profile.min_gpu_memory_gb
    cloud = changes["kind"] == "cloud"
    cloud_ok = cloud & fits & opts.allow_cloud
    if not opts.allow_spot:
        cloud_ok &= changes["pricing"] != "spot"
    if opts.providers is not None:
        cloud_ok &= changes["provider"].isin(opts.providers)
    if opts.regions is not None:
        cloud_ok &= changes["region"].isin(opts.regions)
    hardware_ok = ~cloud & fits & opts.allow_buy
    return bool((cloud_ok | hardware_ok).any())


def plan_changes(old: dict[str, Any], new: dict[str, Any], cost_move_pct: float | None) -> list[str]:
    """Why `new` is news compared with `old` (empty: no alert)."""
    if "error" in old or "error" in new:
        if "error" in old and "error" in new:
            return []
        return ["the profile has no feasible plan any more" if "error" in new else "the profile has a plan again"]
    reasons = []
    if old["items"] != new["items"]:
        reasons.append("purchases changed")
    moved = cost_change_pct(old, new)
    if cost_move_pct is not None and moved is not None and abs(moved) > cost_move_pct:
        reasons.append(f"total cost moved {moved:+.1f}% (more than {cost_move_pct:g}%)")
    return reasons


def cost_change_pct(old: dict[str, Any], new: dict[str, Any]) -> float | None:
    before, after = old.get("total_cost_usd"), new.get("total_cost_usd")
    if before is None or after is None or before <= 0:
        return None
    return round(100.0 * (float(after) - float(before)) / float(before), 2)


def public_summary(summary: dict[str, Any]) -> dict[str, Any]:
    """The summary as shown to people (without the comparison keys)."""
    return {k: v for k, v in summary.items() if k not in ("items", "gpus")}
