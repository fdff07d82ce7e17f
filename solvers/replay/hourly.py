"""The referee of a plan's cost: its purchase run hour by hour against the profile's demand, written apart from the
planning model (issue 29). It shares the model's data types (the profile, the options with their prices, speeds
and energy) and none of its helpers: the demand is read from the profile here, hour by hour, and every rule is
applied as the user guide words it, not as the model's rows encode it.

The rules (docs: "The demand model" and "How owned and rented GPUs serve the work"):
- Demand: busy reference GPUs per hour (a series spread evenly over its period or at `gpus_at_once` from its
  start; an hourly log as given; N GPUs at u by the reading: independent jobs in binomial shares of every hour,
  N GPUs together for u of every hour, or N x u every hour). Busy GPUs over `gpus_per_job` are jobs at once
  (always-on load: whole load units, rounded up); a fractional count c is floor(c) jobs for the hour's share
  1 - (c - floor c) and one more for the rest.
- Work that may not wait (patience none): in each hour, each job holds a job slot. Owned and committed slots are
  taken first where their energy costs less than renting for that job (cheapest energy first); the rest is rented
  as the cheapest whole instances of the offers (each instance's slots, within its quota of instances at once),
  paid for the time their jobs take (1 / speed hours per job-hour). A slot finishes a job in 1 / r of its hours:
  a faster one idles the rest, a slower one overruns, and its overrun is run in idle hours of the month: its own,
  or another owned slot's (jobs are many: while a slower card overruns one, the next goes to a free slot).
- Work that may wait (patience day, week or month): within each window the work is fluid: an owned or committed
  slot does r reference job-hours every hour of the window, rented instances are packed (price per reference
  job-hour, within their quota), and the window's work goes to the cheapest of them first.
- Each month, an owned option busy more than its available hours (availability x hours x slots: maintenance, a
  machine on h hours a day, a slower card's overrun) moves the rest of its work to packed cloud hours, cheapest
  per reference job-hour first, a quota-limited offer within the instance-hours its rentals leave that month; and
  where packed cloud hours cost less than its energy, it moves its whole maintenance share (and a slower card's
  overrun) there (the work its machine would do in the hours it is down for maintenance).
- Money: energy per busy GPU-hour at the electricity rate, idle power every hour, purchases net of resale, hosts,
  commitments for their paid hours, opex; the financing interest is the plan's own figure (a function of the
  price alone).

Where the model approximates, the replay says so (`Replay.approximations`) with a bound on what it may differ by;
and where the replay's own order of decisions may cost more than the model's joint optimum (work moved at a month's
end rather than planned around), it says so too (`month_end_displacement`).
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass, field

import numpy as np

from solvers.base import defaults
from solvers.base.demand_units import load_unit
from solvers.base.options import CloudOption, HostOption, OwnedOption
from solvers.base.profile import Profile
from solvers.replay.demand_hours import calendar_months, efficiency, horizon, hour_segments, month_of
from solvers.replay.serving import (
    Fleet,
    Slots,
    active_hours,
    fluid_rent,
    pack,
    packing_of,
    queue,
    share_overrun,
    slotted,
)


@dataclass
class Replay:
    total_usd: float
    energy_usd: float
    rent_usd: float
    displaced_usd: float
    capex_usd: float
    resale_usd: float
    commitments_usd: float
    opex_usd: float
    feasible: bool
    start: dt.date
    # per hour, in reference GPU-hours: the demand arrived, served by owned GPUs, by rented ones, and queued after it
    demand: np.ndarray = field(default_factory=lambda: np.zeros(0))
    owned: np.ndarray = field(default_factory=lambda: np.zeros(0))
    rented: np.ndarray = field(default_factory=lambda: np.zeros(0))
    queued: np.ndarray = field(default_factory=lambda: np.zeros(0))
    approximations: dict[str, float] = field(default_factory=dict)  # name -> bound (USD) on model - replay


# --------------------------------------------------------------------------------------------- demand, hour by hour


# ------------------------------------------------------------------------------------------------------ the fleet


# ------------------------------------------------------------------------------------------------------ the replay

def replay(profile: Profile, fleet: Fleet, today: dt.date, usd_per_kwh: float,
           interest_per_capex: float = 0.0) -> Replay:
    """The fleet's cost over the profile's horizon, hour by hour (module docstring: the rules)."""
    start, end = horizon(profile, today)
    hours = 24 * (end - start).days
    (jobs, share), busy = hour_segments(profile, hours, start)
    slots = Slots.of(fleet, usd_per_kwh)
    fluid = profile.jobs.patience != "none"
    n_opt = len(slots.options)
    held = np.zeros((n_opt, hours))  # reference job-hours each option holds, per hour
    rented_jobs = np.zeros(hours)
    rent_hours = np.zeros((len(fleet.cloud), hours))  # instance-hours of each offer, per hour
    approximations: dict[str, float] = {}
    if fluid:
        rent = fluid_rent(profile, slots, fleet.cloud, jobs[:, 0], start, held, rented_jobs, rent_hours)
    elif len(jobs) == 1 and hours > 1:  # every hour alike (the utilisation form): one hour, repeated
        rent = hours * slotted(slots, fleet.cloud, jobs, share, held[:, :1], rented_jobs[:1], rent_hours[:, :1])
        held[:] = held[:, :1]
        rented_jobs[:] = rented_jobs[0]
        rent_hours[:] = rent_hours[:, :1]
    else:
        rent = slotted(slots, fleet.cloud, jobs, share, held, rented_jobs, rent_hours)
    months = month_of(start, hours)
    n_months = int(months.max(initial=-1)) + 1
    busy_hours = held / slots.speed[:, None] if n_opt else held  # slot-hours each option is busy
    displaced = np.zeros(n_opt)  # slot-hours moved to packed cloud hours, over the horizon
    displaced_usd = 0.0
    feasible = bool(np.isfinite(rent))
    packing = packing_of(fleet.cloud)
    month_hours = np.bincount(months, minlength=n_months).astype(float)
    shifted = np.zeros(n_opt)  # slot-hours each option took over from another's overrun (+) or gave (-)
    active = active_hours(jobs, share, hours)
    for p in range(n_months):
        in_month = months == p
        busy_p = busy_hours[:, in_month].sum(axis=1) if n_opt else np.zeros(0)
        held_p = held[:, in_month].sum(axis=1) if n_opt else np.zeros(0)
        moved_over = share_overrun(slots, busy_p, held_p, float(active[in_month].sum()),
                                    [o.available(profile.options.availability) * month_hours[p] * slots.slots[g]
                                     for g, o in enumerate(slots.options)])
        shifted += moved_over
        busy_p = busy_p + moved_over
        held_p = held_p + moved_over * slots.speed
        chunks: list[tuple[float, float, int]] = []  # (work, the most a job-hour of it may cost packed, option)
        for g, o in enumerate(slots.options):
            available = o.available(profile.options.availability)
            need = max(float(busy_p[g]) - available * month_hours[p] * slots.slots[g], 0.0)
            overrun = 0.0 if fluid else max(1.0 / o.throughput - 1.0, 0.0) * float(held_p[g])
            allowed = min(float(busy_p[g]), (1 - available) * month_hours[p] * slots.slots[g] + overrun)
            chunks.append((need * o.throughput, math.inf, g))  # beyond its hours: must go
            if allowed > need:  # its maintenance share (and overrun) may go where packed hours cost less
                chunks.append(((allowed - need) * o.throughput, float(slots.energy[g]), g))
        if not any(work > 1e-9 for work, _, _ in chunks):
            continue
        cost, moved = pack(chunks, packing, fleet.cloud, rent_hours[:, in_month], month_hours[p], n_opt)
        displaced += moved / slots.speed
        feasible = feasible and math.isfinite(cost)
        displaced_usd += cost
    energy = usd_per_kwh * sum((float(busy_hours[g].sum()) + shifted[g] - displaced[g]) * o.width / o.load_per_gpu
                               * o.marginal_kwh_per_gpu_hour for g, o in enumerate(slots.options))
    energy += usd_per_kwh * hours * (sum(n * o.idle_kwh_per_unit_hour for o, n in fleet.owned)
                                     + sum(n * h.idle_kwh_per_hour for h, n in fleet.hosts))
    purchases = [(o, n) for o, n in fleet.owned if not o.is_commitment and n > 0]
    capex = sum(n * o.unit_price_usd for o, n in purchases) + sum(n * h.host.base_cost_usd for h, n in fleet.hosts)
    resale = sum(n * o.resale_usd for o, n in purchases)
    commitments = sum(n * (o.hourly_usd * o.paid_hours + o.upfront_usd * o.terms)
                      for o, n in fleet.owned if o.is_commitment and n > 0)
    months_held = calendar_months(start, end)
    opex = sum(n * o.opex_usd_per_unit_hour * hours for o, n in purchases)
    opex += profile.options.opex.fixed_usd_per_month * months_held if purchases else 0.0
    uses_cloud = bool(rent > 1e-9) or commitments > 0
    data = profile.options.cloud_data
    cloud_data = data.usd_per_month * months_held if data is not None and uses_cloud else 0.0
    total = (capex - resale + energy + rent + displaced_usd + commitments + opex + cloud_data
             + capex * interest_per_capex)
    _bounds(slots, held, approximations, usd_per_kwh, profile, jobs, share, months, fleet.cloud)
    if displaced_usd > 1e-9 and math.isfinite(displaced_usd):
        # the replay runs the hours first and moves work beyond an option's available hours at the month's end;
        # the model may instead keep that work off the owned cards where renting it costs less: without the
        # available-hours limit both would run the same hours, so the replay is dearer by at most what it moved
        approximations["month_end_displacement"] = displaced_usd
    scale = profile.jobs.gpus_per_job * (efficiency(profile) if profile.jobs.runs != "continuously"
                                         else load_unit(profile))
    served_owned = held.sum(axis=0) * scale if n_opt else np.zeros(hours)
    demand_ref = busy * (efficiency(profile) if profile.jobs.runs != "continuously" else 1.0)
    queued = queue(demand_ref, served_owned + rented_jobs * scale) if fluid else np.zeros(hours)
    return Replay(total if feasible else math.inf, energy, rent, displaced_usd, capex, resale, commitments,
                  opex + cloud_data, feasible, start, demand_ref, served_owned, rented_jobs * scale, queued,
                  approximations)


def _bounds(slots: Slots, held: np.ndarray, out: dict[str, float], usd_per_kwh: float, profile: Profile,
            jobs: np.ndarray, share: np.ndarray, months: np.ndarray, cloud: list[CloudOption]) -> None:
    """The model's named approximations that apply to this plan, each with a bound on what it may move the cost.

    - pooled_owned_work: which owned option runs which job is decided per block of months, not per hour, so with
      two owned options of different energy the model may run the cheaper one in hours it is not free: at most the
      energy difference on all owned work;
    - merged_levels: a month's load-duration curve is kept to MAX_LEVELS_PER_PERIOD levels, neighbours merged into
      their hour-weighted mean: at most the dearest rented job-hour on the work moved between levels."""
    if len(slots.options) > 1 and held.sum(axis=1).astype(bool).sum() > 1:
        working = held.sum(axis=1) > 1e-9
        spread = float(slots.energy[working].max() - slots.energy[working].min())
        if spread > 1e-12:
            out["pooled_owned_work"] = spread * float(held.sum())
    if profile.jobs.patience == "none" and cloud:
        dearest = max(c.usd_per_hour / c.speed / max(c.slots, 1) for c in cloud)
        moved = 0.0
        alike = len(jobs) == 1 and len(months) > 1  # one hour's segments stand for every hour
        for p in range(int(months.max(initial=-1)) + 1):
            at = months == p
            n_all, t_all = (jobs[0], share[0] * at.sum()) if alike else (jobs[at].ravel(), share[at].ravel())
            busy = (n_all > 0) & (t_all > 0)
            ns, where = np.unique(np.round(n_all[busy], 9), return_inverse=True)
            if len(ns) <= defaults.MAX_LEVELS_PER_PERIOD:
                continue
            hs = np.bincount(where, weights=t_all[busy])
            for group in np.array_split(np.arange(len(ns) - 1), defaults.MAX_LEVELS_PER_PERIOD - 1):
                if len(group):
                    mean = float(np.dot(ns[group], hs[group]) / hs[group].sum())
                    moved += float(np.dot(np.abs(ns[group] - mean), hs[group]))
        if moved > 0:
            out["merged_levels"] = dearest * moved


def replay_purchase(profile: Profile, units: dict[str, int], hosts: dict[str, int],
                    owned: dict[str, OwnedOption], host_options: dict[str, HostOption], cloud: list[CloudOption],
                    today: dt.date, usd_per_kwh: float, interest_per_capex: float = 0.0) -> Replay:
    """`replay` of a purchase given by option keys and host names (a plan's units and hosts)."""
    fleet = Fleet([(owned[k], n) for k, n in units.items() if n > 0],
                  [(host_options[h], n) for h, n in hosts.items() if n > 0], cloud)
    return replay(profile, fleet, today, usd_per_kwh, interest_per_capex)
