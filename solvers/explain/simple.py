"""The guide's closed-form break-even: one owned option against one cloud offer.

days = upfront / (cloud cost per day - owned running cost per day), at the profile's average
demand. DOMAIN §5: a $2,200 RTX 3090 desktop (450 W) against a $2.14/h V100 at 15% utilisation and
$0.12/kWh: 2200 / (7.704 - 0.1944) = 292.96 days.

Both sides are priced for what the job can use, in the planner's own units (job slots of the demand's jobs at
reference pace, `solvers.model.layers`):
- owned: whole jobs. A job of w GPUs needs w cards in one host that holds w (`card_capacity`), or a machine
  that runs whole jobs; the count is the jobs that carry the average demand, within `max_capex_usd` and
  `max_owned_gpus` (fewer jobs then carry part of it, and only that part is priced on both sides).
- cloud: an instance is rented whole, so its price is shared only by the jobs of this demand it holds at once
  (a 1-GPU job on an 8-GPU instance pays for all 8), as the plan's cover of each level prices it; packed full
  when work may wait, as the plan packs it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from solvers.base.break_even_result import SimpleBreakEven
from solvers.base.options import CloudOption, HostOption, OwnedOption
from solvers.offers.hosting import card_capacity

Limit = Literal["max_capex_usd", "max_owned_gpus"]


@dataclass(frozen=True)
class JobDemand:
    """The demand as the closed form reads it: its average, and how many of its jobs run at once at most."""

    job_hours_per_day: float  # reference job-hours of work a day, on average over the horizon
    jobs_at_once: int  # whole jobs at once at the busiest level (what one rented instance can share its price by)
    packed: bool = False  # work may wait: rented instances are packed full (integer_instances False)


@dataclass(frozen=True)
class Budget:
    max_capex_usd: float | None = None
    max_owned_gpus: int | None = None


@dataclass(frozen=True)
class Sizing:
    """What the closed form buys: `pieces` whole jobs of bare cards (w cards each) or whole machines."""

    pieces: int
    units: int
    hosts: int
    host: HostOption | None
    jobs: int  # whole jobs at once the purchase runs
    upfront_usd: float
    slot_hours_per_day: float  # job-hours a day at reference pace the purchase can carry
    capped_by: Limit | None


def jobs_per_instance(cloud: CloudOption, demand: JobDemand) -> int:
    """Jobs of this demand one instance holds at once: all its slots when packed, else no more than run at once."""
    return cloud.slots if demand.packed else max(1, min(cloud.slots, demand.jobs_at_once))


def cloud_usd_per_job_hour(cloud: CloudOption, demand: JobDemand) -> float:
    """An instance rented whole, its price over the jobs it holds at once (`CloudOption.usd_per_job_hour` is the
    instance's price per hour of one job's work at reference pace)."""
    return cloud.usd_per_job_hour / jobs_per_instance(cloud, demand)


def cheapest_cloud(cloud: list[CloudOption], demand: JobDemand) -> CloudOption | None:
    """The offer cheapest per job-hour for this demand's jobs (not per GPU-hour of a full instance)."""
    return min(cloud, key=lambda c: (cloud_usd_per_job_hour(c, demand), c.key), default=None)


def _per_piece_slots(owned: OwnedOption) -> float:
    """Job slots (the model's units: jobs, or load units of always-on work) one piece adds: a machine's own, or
    one job's w cards (its slots_per_unit per gpus_per_unit cards, times w)."""
    if owned.includes_host:
        return owned.slots_per_unit
    return owned.slots_per_unit * owned.width / owned.gpus_per_unit


def _largest(upto: int, cost: Callable[[int], float], budget: float | None) -> int:
    """The most pieces p <= upto whose (non-decreasing) cost stays within the budget; 0 when not even one does."""
    if budget is None or cost(upto) <= budget + 1e-6:
        return upto
    lo, hi = 0, upto
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if cost(mid) <= budget + 1e-6:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _host_kinds(owned: OwnedOption, hosts: list[HostOption]) -> list[tuple[HostOption | None, int]]:
    """Where the pieces go, with the whole jobs each holds: a machine is its own host; bare cards go in a host
    kind that takes them and holds at least one whole job (its slots and PSU, `card_capacity`, over w)."""
    if owned.includes_host:
        return [(None, 1)]
    kinds = [(h, card_capacity(h, owned) // owned.width) for k, h in enumerate(hosts) if k in owned.accepting_hosts]
    return [(h, n) for h, n in kinds if n >= 1]


def _jobs(owned: OwnedOption, pieces: int) -> int:
    """Whole jobs at once: one per piece of bare cards; a machine's whole jobs (linked machines: a share each)."""
    if not owned.includes_host:
        return pieces
    if owned.gpus_per_unit < owned.width:
        return math.floor(pieces * owned.gpus_per_unit / owned.width + 1e-9)
    return pieces * (owned.gpus_per_unit // owned.width)


def size_purchase(owned: OwnedOption, hosts: list[HostOption], demand: JobDemand, availability: float,
                  budget: Budget, pieces: int | None = None,
                  kinds: list[tuple[HostOption | None, int]] | None = None) -> Sizing | None:
    """Whole jobs of `owned` that carry the average demand (busy every available hour, the guide's reading), in
    the host kind that costs least, within the budget (then as many jobs as it allows); None when no host holds a
    whole job or not even one fits the budget. `pieces`: the plan's own count of them (machines, or whole jobs of
    bare cards), when the closed form weighs the plan's purchase: the MIP rents what they leave (a lab whose 8-GPU
    job needs 1.0006 servers' worth at 95% availability buys one server, not two). `kinds`: `_host_kinds(owned,
    hosts)` when the caller has it (the closed form sizes twice on the same hosts)."""
    per_piece = _per_piece_slots(owned)
    slot_day = 24.0 * availability * owned.throughput
    if per_piece <= 0 or slot_day <= 0:
        return None
    need = pieces if pieces is not None and pieces > 0 else max(
        1, math.ceil(demand.job_hours_per_day / (slot_day * per_piece) - 1e-9))

    def units_of(p: int) -> int:
        return p if owned.includes_host else math.ceil(p * owned.width / owned.gpus_per_unit - 1e-9)

    most = need
    if budget.max_owned_gpus is not None:
        most = _largest(need, lambda p: float(units_of(p) * owned.gpus_per_unit), budget.max_owned_gpus)
    best: tuple[int, float, int, int, str] | None = None
    chosen: Sizing | None = None
    for host, per_host in _host_kinds(owned, hosts) if kinds is None else kinds:
        base = 0.0 if host is None else host.host.base_cost_usd

        def cost(p: int, base: float = base, per_host: int = per_host) -> float:
            return units_of(p) * owned.unit_price_usd + math.ceil(p / per_host) * base

        p = _largest(most, cost, budget.max_capex_usd)
        if p == 0:
            continue
        n_hosts = 0 if host is None else math.ceil(p / per_host)
        spend = cost(p)
        rank = (-p, spend, n_hosts, 0 if host is None else host.host.slots, "" if host is None else host.host.name)
        if best is not None and rank >= best:
            continue
        best = rank
        capped: Limit | None = "max_capex_usd" if p < most else "max_owned_gpus" if most < need else None
        chosen = Sizing(p, units_of(p), n_hosts, host, _jobs(owned, p), spend, p * per_piece * slot_day, capped)
    return chosen


def simple_break_even(owned: OwnedOption, hosts: list[HostOption], cloud: CloudOption, demand: JobDemand,
                      availability: float, usd_per_kwh: float, budget: Budget | None = None,
                      pieces: int | None = None) -> SimpleBreakEven | None:
    """The closed form for `owned` against `cloud`; None when `owned` cannot run one whole job within the budget."""
    kinds = _host_kinds(owned, hosts)
    size = size_purchase(owned, hosts, demand, availability, budget or Budget(), kinds=kinds)
    # a limit that binds is said, as before; uncapped, the first sizing bought `need` pieces, so the plan's count
    # sizes again only when it differs (the same count is the same computation)
    if pieces is not None and size is not None and size.capped_by is None and pieces != size.pieces:
        size = size_purchase(owned, hosts, demand, availability, budget or Budget(), pieces, kinds) or size
    if size is None:
        return None
    carried = min(demand.job_hours_per_day, size.slot_hours_per_day)  # all of it unless a limit capped the count
    host = size.host
    owned_per_day = (owned.usd_per_job_hour(usd_per_kwh) * carried
                     + usd_per_kwh * 24.0 * (size.units * owned.idle_kwh_per_unit_hour
                                             + (size.hosts * host.idle_kwh_per_hour if host else 0.0)))
    cloud_per_day = carried * cloud_usd_per_job_hour(cloud, demand)
    saving = cloud_per_day - owned_per_day
    return SimpleBreakEven(
        owned=f"{size.units} x {owned.name}" + (f" in {size.hosts} x {host.host.name}" if host else ""),
        cloud=f"{cloud.provider}/{cloud.name} ({cloud.region}, {cloud.pricing}) at {cloud.usd_per_hour} USD/h",
        units=size.units,
        owned_name=owned.name,
        hosts=size.hosts,
        host_name=host.host.name if host else None,
        jobs=size.jobs,
        gpus_per_job=owned.width,
        cloud_jobs_per_instance=jobs_per_instance(cloud, demand),
        capped_by=size.capped_by,
        upfront_usd=round(size.upfront_usd, 2),
        owned_usd_per_day=round(owned_per_day, 4),
        cloud_usd_per_day=round(cloud_per_day, 4),
        days=round(size.upfront_usd / saving, 2) if saving > 0 else None,
        formula="days = upfront_usd / (cloud_usd_per_day - owned_usd_per_day)",
    )
