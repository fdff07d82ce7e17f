"""A plan replayed hour by hour, as the API answers it (`GET /v1/plans/{id}/replay`): the replay's cost beside the
model's, the approximations the model made on this plan with their bounds, and per hour what the demand was and
who served it (issue 29). The planner re-plans the stored profile at its recorded prices and replays the purchase it
finds (`solvers.replay.hourly`)."""

from __future__ import annotations

import datetime as dt
import math

from pydantic import BaseModel, Field

from pricing.catalog import Catalog
from solvers.base.profile import Profile
from solvers.plan import replay_core, solve_core


class ReplayHour(BaseModel):
    hour: str = Field(description="the hour's start, ISO 8601 (UTC)")
    demand: float = Field(description="reference GPU-hours of work that arrived in the hour")
    owned: float = Field(description="reference GPU-hours owned and committed GPUs served in the hour")
    rented: float = Field(description="reference GPU-hours rented instances served in the hour")
    queued: float = Field(description="reference GPU-hours still waiting at the hour's end (work that may wait)")


class PlanReplay(BaseModel):
    total_usd: float | None = Field(description="what the plan costs run hour by hour (null: the replay cannot "
                                                "serve the demand with the plan's purchase)")
    model_total_usd: float = Field(description="what the planning model says the plan costs (its costs.total_usd, "
                                               "in USD)")
    difference_usd: float | None = Field(description="total_usd - model_total_usd")
    bound_usd: float = Field(description="what the named approximations may move the model's cost by, plus a cent")
    agrees: bool = Field(description="the two totals differ by at most bound_usd")
    approximations: dict[str, float] = Field(
        description="the model's approximations that apply to this plan and the most each may move its cost (USD): "
        "pooled_owned_work (which owned option runs which job is decided per block, not per hour), merged_levels "
        "(a month's load-duration curve kept to 12 levels); and month_end_displacement, the replay's own: it runs the "
        "hours first and moves work beyond an owned option's available hours at the month's end, where the model may "
        "plan around it (the replay is then dearer by at most what it moved)")
    energy_usd: float = Field(description="owned energy, working and idle")
    rent_usd: float = Field(description="rented instance-hours for the demand")
    displaced_usd: float = Field(description="packed cloud hours taking owned work beyond the machines' available "
                                             "hours (maintenance, hours off, a slower card's overrun)")
    capex_usd: float = Field(description="purchases and hosts")
    resale_usd: float = Field(description="resale credit at the horizon's end")
    commitments_usd: float = Field(description="reserved and committed instances for their paid hours")
    opex_usd: float = Field(description="running costs beyond power and fixed monthly costs")
    hours: list[ReplayHour] | None = Field(description="per hour, the demand and who served it (null when asked "
                                                       "without hours)")


def replay_plan(profile: Profile, catalog: Catalog, today: dt.date, with_hours: bool = True) -> PlanReplay:
    """Plan `profile` on `catalog` as of `today` and replay the plan's purchase hour by hour."""
    core = solve_core(profile, catalog, today)
    played = replay_core(core, today)
    model = core.plan.costs.total_usd
    bound = 0.01 + 1e-6 * abs(model) + sum(played.approximations.values()) + (core.main.gap or 0.0) * abs(model)
    finite = math.isfinite(played.total_usd)
    hours = None
    if with_hours:
        start = dt.datetime.combine(played.start, dt.time(), dt.UTC)
        hours = [ReplayHour(hour=(start + dt.timedelta(hours=h)).isoformat().replace("+00:00", "Z"),
                            demand=round(float(d), 4), owned=round(float(o), 4), rented=round(float(r), 4),
                            queued=round(float(q), 4))
                 for h, (d, o, r, q) in enumerate(zip(played.demand.tolist(), played.owned.tolist(),
                                                       played.rented.tolist(), played.queued.tolist(), strict=True))]
    return PlanReplay(
        total_usd=round(played.total_usd, 2) if finite else None, model_total_usd=model,
        difference_usd=round(played.total_usd - model, 2) if finite else None, bound_usd=round(bound, 2),
        agrees=finite and abs(played.total_usd - model) <= bound,
        approximations={k: round(v, 2) for k, v in played.approximations.items()},
        energy_usd=round(played.energy_usd, 2), rent_usd=round(played.rent_usd, 2) if finite else 0.0,
        displaced_usd=round(played.displaced_usd, 2) if math.isfinite(played.displaced_usd) else 0.0,
        capex_usd=round(played.capex_usd, 2), resale_usd=round(played.resale_usd, 2),
        commitments_usd=round(played.commitments_usd, 2), opex_usd=round(played.opex_usd, 2), hours=hours)


def replay_totals(profile: Profile, catalog: Catalog, today: dt.date) -> PlanReplay:
    """`replay_plan` without the hours (the page's card, a lab's check of the totals)."""
    return replay_plan(profile, catalog, today, with_hours=False)
