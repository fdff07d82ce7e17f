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
from solvers.base.demand_forms import ConcurrencyDemand, SeriesDemand, UtilisationDemand
from solvers.base.demand_units import load_unit
from solvers.base.options import CloudOption, HostOption, OwnedOption
from solvers.base.profile import Profile

Segments = tuple[np.ndarray, np.ndarray]  # (hours, segments): jobs at once, share of the hour
TABLE = 2048  # whole-instance covers are searched exactly up to this many jobs at once (`_Cover`)


@dataclass(frozen=True)
class Fleet:
    """What the replay runs: units of owned options (purchases and commitments), hosts, and the offers it may rent."""

    owned: list[tuple[OwnedOption, int]]
    hosts: list[tuple[HostOption, int]]
    cloud: list[CloudOption]


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

def horizon(profile: Profile, today: dt.date) -> tuple[dt.date, dt.date]:
    """First day of demand and the horizon's end (exclusive)."""
    demand = profile.planned_demand
    if isinstance(demand, UtilisationDemand):
        start = demand.start or (dt.date(today.year + (today.month == 12), today.month % 12 + 1, 1))
    elif isinstance(demand, SeriesDemand):
        start = demand.series[0].first_day
    else:
        start = demand.start.date()
    if profile.horizon_months is not None:
        month = start.month - 1 + profile.horizon_months
        year, month = start.year + month // 12, month % 12 + 1
        last = (dt.date(year + (month == 12), month % 12 + 1, 1) - dt.timedelta(days=1)).day
        return start, dt.date(year, month, min(start.day, last))
    if profile.horizon_days is not None:
        return start, start + dt.timedelta(days=profile.horizon_days)
    return start, start + dt.timedelta(days=math.ceil(len(busy_gpus(profile, start)) / 24))


def efficiency(profile: Profile) -> float:
    """Reference work per busy GPU-hour of a job of `gpus_per_job` GPUs: measured, or the guide's speed-ups."""
    jobs = profile.jobs
    if jobs.scaling_efficiency is not None:
        return jobs.scaling_efficiency
    points = sorted(defaults.SPEEDUP_BY_GPUS.items())
    return float(np.interp(jobs.gpus_per_job, [n for n, _ in points], [s / n for n, s in points]))


def busy_gpus(profile: Profile, start: dt.date) -> np.ndarray:
    """Busy reference GPUs per hour from `start` for a series or an hourly log (not the utilisation form)."""
    demand = profile.planned_demand
    if isinstance(demand, ConcurrencyDemand):
        return np.concatenate([np.zeros(demand.start.hour), np.asarray(demand.busy_gpus, dtype=float)])
    assert isinstance(demand, SeriesDemand)
    eff = efficiency(profile)
    pieces = []
    for p in demand.series:
        first = p.first_day
        if demand.resolution == "month":
            nxt = dt.date(first.year + (first.month == 12), first.month % 12 + 1, 1)
        else:
            nxt = first + dt.timedelta(days=7 if demand.resolution == "week" else 1)
        hours = 24 * (nxt - first).days
        gpu_hours = p.reference_gpu_hours / eff
        if p.gpus_at_once is None:
            pieces.append(np.full(hours, gpu_hours / hours))
            continue
        run = np.clip(gpu_hours / p.gpus_at_once - np.arange(hours), 0.0, 1.0)  # full hours, then a part
        pieces.append(p.gpus_at_once * run)
    return np.concatenate(pieces) if pieces else np.zeros(0)


def hour_segments(profile: Profile, hours: int, start: dt.date) -> tuple[Segments, np.ndarray]:
    """Per hour, the jobs at once as (jobs, share of the hour) segments, and the busy reference GPUs per hour."""
    jobs = profile.jobs
    width = jobs.gpus_per_job
    continuous = jobs.runs == "continuously"
    unit = width * load_unit(profile) if continuous else float(width)
    segs, busy = _segments(profile, hours, start, unit, continuous)
    if continuous and jobs.spare_replicas:  # every hour with load holds the spare replicas too, in load units
        spare = jobs.spare_replicas * math.ceil(1.0 / load_unit(profile) - 1e-9)
        segs = (np.where(segs[0] > 0, segs[0] + spare, segs[0]), segs[1])
    return segs, busy


def _segments(profile: Profile, hours: int, start: dt.date, unit: float,
              continuous: bool) -> tuple[Segments, np.ndarray]:
    demand = profile.planned_demand
    jobs = profile.jobs
    width = jobs.gpus_per_job
    if isinstance(demand, UtilisationDemand):
        n, u = demand.gpus, demand.utilisation
        reading = demand.reading
        if continuous and reading == "independent":
            reading = "at_once"  # a service's replicas are up together
        if jobs.patience != "none" or reading == "average":
            busy = np.full(hours, n * u)
            values = np.ceil(busy / unit - 1e-9) if continuous else busy / unit
            segs = _split(values) if jobs.patience == "none" else (values[:, None], np.ones((hours, 1)))
            return segs, busy
        if reading == "at_once":  # every hour alike: one hour's segments (`replay` repeats them)
            c = math.ceil(n / unit - 1e-9) if continuous else n / unit
            low = math.floor(c + 1e-9)
            f = min(max(c - low, 0.0), 1.0)
            return (np.array([[float(low), low + 1.0]]), np.array([[(1 - f) * u, f * u]])), np.full(hours, n * u)
        k, p = _binomial(n / width, u)
        return (k[None, :], p[None, :]), np.full(hours, n * u)
    busy = np.zeros(hours)
    given = busy_gpus(profile, start)[:hours]
    busy[: len(given)] = given
    if jobs.patience != "none":
        windows = window_of(jobs.patience, start, hours)
        busy_w = np.bincount(windows, weights=busy) / np.maximum(np.bincount(windows), 1)
        return (busy_w[windows][:, None] / unit, np.ones((hours, 1))), busy
    values = np.ceil(busy / unit - 1e-9) if continuous else busy / unit
    return _split(values), busy


def _split(values: np.ndarray) -> Segments:
    """c jobs at once as floor(c) for 1 - f of the hour and floor(c) + 1 for f."""
    low = np.floor(values + 1e-9)
    frac = np.clip(values - low, 0.0, 1.0)
    return np.stack([low, low + 1], axis=1), np.stack([1 - frac, frac], axis=1)


def _binomial(jobs: float, u: float) -> tuple[np.ndarray, np.ndarray]:
    """Jobs busy at once of `jobs` independent jobs each busy u of the hours, and their shares (a fractional job
    busy (jobs - floor) x u of the hours). Where the law has weight: within 12 standard deviations of the mean."""
    whole = math.floor(jobs + 1e-9)
    if u >= 1.0 or whole == 0:
        k, p = np.array([float(whole)]), np.array([1.0])
    else:
        sd = math.sqrt(whole * u * (1 - u))
        lo, hi = max(0, math.floor(whole * u - 12 * sd - 1)), min(whole, math.ceil(whole * u + 12 * sd + 1))
        k = np.arange(lo, hi + 1, dtype=float)
        logs = np.array([math.lgamma(whole + 1) - math.lgamma(i + 1) - math.lgamma(whole - i + 1)
                         + i * math.log(u) + (whole - i) * math.log1p(-u) for i in range(lo, hi + 1)])
        p = np.exp(logs - logs.max())
        p = p / p.sum()
    extra = jobs - whole
    if extra > 1e-9:
        q = extra * u
        p = np.concatenate([p * (1 - q), [0.0]]) + np.concatenate([[0.0], p * q])
        k = np.concatenate([k, [k[-1] + 1]])
    return k, p


def window_of(patience: str, start: dt.date, hours: int) -> np.ndarray:
    """Each hour's patience window: its calendar day, its ISO week (from Monday) or its calendar month."""
    hour = np.arange(hours)
    if patience == "day":
        return hour // 24
    if patience == "week":
        return (hour + 24 * start.weekday()) // 168
    return month_of(start, hours)


def month_of(start: dt.date, hours: int) -> np.ndarray:
    """Each hour's calendar month, numbered from the first."""
    days = np.arange(math.ceil(hours / 24))
    dates = np.datetime64(start) + days
    months = dates.astype("datetime64[M]").astype(int)
    return np.repeat(months - months[0], 24)[:hours]


# ------------------------------------------------------------------------------------------------------ the fleet

@dataclass(frozen=True)
class _Slots:
    """The owned and committed job slots, cheapest energy first: option, slots, speed, energy per job-hour."""

    options: list[OwnedOption]
    slots: np.ndarray
    speed: np.ndarray
    energy: np.ndarray

    @staticmethod
    def of(fleet: Fleet, usd_per_kwh: float) -> _Slots:
        rows = [(o, _job_slots(o, n)) for o, n in fleet.owned if n > 0]
        rows.sort(key=lambda r: r[0].usd_per_job_hour(usd_per_kwh))
        return _Slots([o for o, _ in rows], np.array([s for _, s in rows]),
                      np.array([o.throughput for o, _ in rows]),
                      np.array([o.usd_per_job_hour(usd_per_kwh) for o, _ in rows]))

    def take(self, jobs: float) -> np.ndarray:
        """Jobs at once per option when `jobs` run on the slots, cheapest energy first."""
        before = np.concatenate([[0.0], np.cumsum(self.slots)[:-1]])
        return np.clip(jobs - before, 0.0, self.slots)


def _job_slots(o: OwnedOption, units: int) -> float:
    """Jobs at once `units` of an option hold: its slots per unit, or for bare cards pooled into jobs wider than one
    card, the whole jobs their cards make."""
    if o.includes_host or o.width == 1:
        return o.slots_per_unit * units
    return float(o.gpus_per_unit * units // o.width) * o.load_per_gpu


class _Cover:
    """The cheapest whole instances giving m jobs a slot each, per level-hour (each instance paid for the time its
    jobs take: price / speed), within each quota group's instances at once: a bounded knapsack over exact slot
    counts up to the most jobs asked plus the widest instance, then the cheapest count at or above m."""

    def __init__(self, cloud: list[CloudOption], most: int) -> None:
        self.cloud = cloud
        # beyond TABLE jobs the cheapest unlimited offer per job slot takes the excess in whole instances first
        # (a lab of thousands of jobs at once; the model's cover does the same beyond MAX_COVER_TABLE)
        unlimited = [i for i, c in enumerate(cloud) if c.max_instances is None and c.slots > 0]
        self._bulk = min(unlimited, key=lambda i: (cloud[i].usd_per_hour / cloud[i].speed / cloud[i].slots, i),
                         default=None)
        most = min(most, TABLE)
        size = max(most, 0) + max((c.slots for c in cloud), default=0)
        best = np.full(size + 1, math.inf)
        best[0] = 0.0
        counts = np.zeros((size + 1, len(cloud)), dtype=np.int64)  # instances of each offer in the best cover
        groups: dict[str, list[int]] = {}
        for i, c in enumerate(cloud):
            if c.slots > 0:
                groups.setdefault(c.quota_group if c.max_instances is not None else f"free:{i}", []).append(i)
        for members in groups.values():
            quota = cloud[members[0]].max_instances
            copies = size if quota is None else min(int(quota), size)
            for _ in range(copies):  # one more instance of the group, of any member, or none
                new_best, new_counts = best.copy(), counts.copy()
                for i in members:
                    c = cloud[i]
                    if c.slots > size:
                        continue
                    candidate = np.full(size + 1, math.inf)
                    candidate[c.slots:] = best[: size + 1 - c.slots] + c.usd_per_hour / c.speed
                    better = np.flatnonzero(candidate < new_best - 1e-12)
                    new_best[better] = candidate[better]
                    new_counts[better] = counts[better - c.slots]
                    new_counts[better, i] += 1
                if np.array_equal(new_best, best):
                    break
                best, counts = new_best, new_counts
        self._best = best
        self._counts = counts
        self._at_least = np.minimum.accumulate(best[::-1])[::-1]  # the cheapest cover of m or more slots

    def __call__(self, m: int) -> tuple[float, dict[int, int]]:
        if m <= 0:
            return 0.0, {}
        if m > TABLE and self._bulk is not None:
            c = self.cloud[self._bulk]
            bulk = math.ceil((m - TABLE) / c.slots)
            price, counts = self(m - bulk * c.slots)
            return price + bulk * c.usd_per_hour / c.speed, {**counts, self._bulk: counts.get(self._bulk, 0) + bulk}
        if m >= len(self._best):
            return math.inf, {}
        value = float(self._at_least[m])
        if not math.isfinite(value):
            return math.inf, {}
        j = m + int(np.argmax(self._best[m:] <= value + 1e-12))
        return value, {i: int(n) for i, n in enumerate(self._counts[j].tolist()) if n}


def _packing(cloud: list[CloudOption]) -> list[tuple[float, int]]:
    """Offers that take displaced work, by price per reference job-hour of a packed instance-hour."""
    return sorted(((c.usd_per_hour / c.packed_capacity, i) for i, c in enumerate(cloud) if c.packed_capacity > 0))


# ------------------------------------------------------------------------------------------------------ the replay

def replay(profile: Profile, fleet: Fleet, today: dt.date, usd_per_kwh: float,
           interest_per_capex: float = 0.0) -> Replay:
    """The fleet's cost over the profile's horizon, hour by hour (module docstring: the rules)."""
    start, end = horizon(profile, today)
    hours = 24 * (end - start).days
    (jobs, share), busy = hour_segments(profile, hours, start)
    slots = _Slots.of(fleet, usd_per_kwh)
    fluid = profile.jobs.patience != "none"
    n_opt = len(slots.options)
    held = np.zeros((n_opt, hours))  # reference job-hours each option holds, per hour
    rented_jobs = np.zeros(hours)
    rent_hours = np.zeros((len(fleet.cloud), hours))  # instance-hours of each offer, per hour
    approximations: dict[str, float] = {}
    if fluid:
        rent = _fluid(profile, slots, fleet.cloud, jobs[:, 0], start, held, rented_jobs, rent_hours)
    elif len(jobs) == 1 and hours > 1:  # every hour alike (the utilisation form): one hour, repeated
        rent = hours * _slotted(slots, fleet.cloud, jobs, share, held[:, :1], rented_jobs[:1], rent_hours[:, :1])
        held[:] = held[:, :1]
        rented_jobs[:] = rented_jobs[0]
        rent_hours[:] = rent_hours[:, :1]
    else:
        rent = _slotted(slots, fleet.cloud, jobs, share, held, rented_jobs, rent_hours)
    months = month_of(start, hours)
    n_months = int(months.max(initial=-1)) + 1
    busy_hours = held / slots.speed[:, None] if n_opt else held  # slot-hours each option is busy
    displaced = np.zeros(n_opt)  # slot-hours moved to packed cloud hours, over the horizon
    displaced_usd = 0.0
    feasible = bool(np.isfinite(rent))
    packing = _packing(fleet.cloud)
    month_hours = np.bincount(months, minlength=n_months).astype(float)
    shifted = np.zeros(n_opt)  # slot-hours each option took over from another's overrun (+) or gave (-)
    active = _active_hours(jobs, share, hours)
    for p in range(n_months):
        in_month = months == p
        busy_p = busy_hours[:, in_month].sum(axis=1) if n_opt else np.zeros(0)
        held_p = held[:, in_month].sum(axis=1) if n_opt else np.zeros(0)
        moved_over = _share_overrun(slots, busy_p, held_p, float(active[in_month].sum()),
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
        cost, moved = _pack(chunks, packing, fleet.cloud, rent_hours[:, in_month], month_hours[p], n_opt)
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
    months_held = _calendar_months(start, end)
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
    queued = _queue(demand_ref, served_owned + rented_jobs * scale) if fluid else np.zeros(hours)
    return Replay(total if feasible else math.inf, energy, rent, displaced_usd, capex, resale, commitments,
                  opex + cloud_data, feasible, start, demand_ref, served_owned, rented_jobs * scale, queued,
                  approximations)


def _slotted(slots: _Slots, cloud: list[CloudOption], jobs: np.ndarray, share: np.ndarray, held: np.ndarray,
             rented_jobs: np.ndarray, rent_hours: np.ndarray) -> float:
    """Work that may not wait: each segment's jobs on owned slots (as many as pay for themselves against renting,
    cheapest energy first) and the rest on the cheapest whole instances; fills the hourly arrays, returns the rent."""
    total_slots = float(slots.slots.sum()) if len(slots.slots) else 0.0
    values, where = np.unique(np.round(jobs, 9), return_inverse=True)
    cover = _Cover(cloud, round(float(values.max(initial=0.0))))
    where = where.reshape(jobs.shape)
    plan_owned = np.zeros((len(values), len(slots.slots)))
    plan_rent = np.zeros(len(values))
    plan_inst = np.zeros((len(values), len(cloud)))
    for v, n in enumerate(values.tolist()):
        n_whole = round(n)
        best: tuple[float, int] | None = None
        most = min(n_whole, math.floor(total_slots + 1e-9))
        for k in _owned_counts(most, slots):  # k jobs owned: energy of the cheapest k, plus the cover of the rest
            taken = slots.take(float(k))
            usd = float(np.dot(taken, slots.energy)) + cover(n_whole - k)[0]
            if best is None or usd < best[0] - 1e-12:
                best = (usd, k)
        if best is None or not math.isfinite(best[0]):
            plan_rent[v] = math.inf
            continue
        k = best[1]
        plan_owned[v] = slots.take(float(k))
        price, counts = cover(n_whole - k)
        plan_rent[v] = price
        for i, c in counts.items():
            plan_inst[v, i] = c / cloud[i].speed  # instance-hours per hour of the segment
    for s in range(jobs.shape[1]):
        t = share[:, s]
        idx = where[:, s]
        if len(slots.slots):
            held += plan_owned[idx].T * t[None, :]
        rented_jobs += (values[idx] - plan_owned[idx].sum(axis=1)) * t
        rent_hours += plan_inst[idx].T * t[None, :]
    with np.errstate(invalid="ignore"):  # a segment of no time costs nothing, even where nothing could cover it
        return float(sum(np.where(share[:, s] > 0, plan_rent[where[:, s]] * share[:, s], 0.0).sum()
                         for s in range(jobs.shape[1])))


def _active_hours(jobs: np.ndarray, share: np.ndarray, hours: int) -> np.ndarray:
    """Per hour, the share of it in which some job runs (one hour's segments stand for every hour when given once)."""
    per = np.where(jobs > 1e-9, share, 0.0).sum(axis=1)
    return np.full(hours, float(per[0])) if len(per) == 1 and hours > 1 else per


def _share_overrun(slots: _Slots, busy: np.ndarray, held: np.ndarray, active: float, room: list[float]) -> np.ndarray:
    """A month's work beyond one owned option's available hours taken over by other owned options' idle hours,
    cheapest energy first, each within its own hours and the hours with jobs (jobs are many: while a slower card
    overruns one, the next goes to a free slot). Slot-hours each option takes (+) or gives (-)."""
    moved = np.zeros(len(busy))
    work = [max(float(busy[g]) - room[g], 0.0) * float(slots.speed[g]) for g in range(len(busy))]
    for g in range(len(busy)):
        for h in range(len(busy)):  # receivers, cheapest energy first (`_Slots` keeps that order)
            if work[g] <= 1e-12:
                break
            if h == g:
                continue
            spare = min((room[h] - float(busy[h]) - moved[h]) * float(slots.speed[h]),
                        active * float(slots.slots[h]) - float(held[h]) - moved[h] * float(slots.speed[h]))
            take = min(work[g], max(spare, 0.0))
            moved[h] += take / float(slots.speed[h])
            moved[g] -= take / float(slots.speed[g])
            work[g] -= take
    return moved


def _owned_counts(most: int, slots: _Slots) -> list[int]:
    """Owned job counts to try: every one up to TABLE; beyond (thousands of jobs at once), none, all, each option's
    boundary and a slot-step either side of them."""
    if most <= TABLE:
        return list(range(most + 1))
    bounds = np.concatenate([[0.0], np.cumsum(slots.slots)])
    found = {0, most}
    for b in bounds.tolist():
        for k in (math.floor(b) - 1, math.floor(b), math.floor(b) + 1):
            if 0 <= k <= most:
                found.add(k)
    return sorted(found)


def _fluid(profile: Profile, slots: _Slots, cloud: list[CloudOption], jobs: np.ndarray, start: dt.date,
           held: np.ndarray, rented_jobs: np.ndarray, rent_hours: np.ndarray) -> float:
    """Work that may wait: each window's work on the cheapest of the owned slots (r job-hours an hour each) and the
    packed offers (price per reference job-hour, within quota x slots x speed an hour), cheapest first."""
    hours = len(jobs)
    windows = window_of(profile.jobs.patience, start, hours)
    offers = _packed_offers(cloud)
    rent = 0.0
    for w in np.unique(windows).tolist():
        at = np.flatnonzero(windows == w)
        h = float(len(at))
        work = float(jobs[at].sum())
        if work <= 1e-12:
            continue
        resources = [(float(slots.energy[g]), float(slots.slots[g] * slots.speed[g] * h), ("own", g))
                     for g in range(len(slots.slots))]
        resources += [(price, cap * h, ("rent", i)) for price, cap, i in offers]
        resources.sort(key=lambda r: (r[0], r[2][0] != "own"))
        left = work
        for price, cap, (kind, i) in resources:
            take = min(left, cap)
            if take <= 0:
                continue
            if kind == "own":
                held[i, at] += take / h
            else:
                rent += price * take
                rented_jobs[at] += take / h
                c = cloud[i]
                rent_hours[i, at] += take / h / (c.slots * c.speed)
            left -= take
            if left <= 1e-12:
                break
        if left > 1e-9:
            return math.inf
    return rent


def _packed_offers(cloud: list[CloudOption]) -> list[tuple[float, float, int]]:
    """Offers as packed capacity: (price per reference job-hour, jobs at once within the quota, offer). A quota
    shared by several copies of one offer (the workload form's job widths) goes to its cheapest copy."""
    best: dict[str, tuple[float, float, int]] = {}
    for i, c in enumerate(cloud):
        if c.slots <= 0:
            continue
        price = c.usd_per_hour / (c.slots * c.speed)
        cap = math.inf if c.max_instances is None else c.max_instances * c.slots * c.speed
        key = c.quota_group if c.max_instances is not None else f"free:{i}"
        if key not in best or price < best[key][0]:
            best[key] = (price, cap, i)
    return sorted(best.values())


def _pack(chunks: list[tuple[float, float, int]], packing: list[tuple[float, int]], cloud: list[CloudOption],
          rented: np.ndarray, hours: float, n_options: int) -> tuple[float, np.ndarray]:
    """Displaced work on packed instance-hours, cheapest first, a quota-limited offer within the instance-hours its
    rentals leave in the month: each chunk (work, the most a job-hour may cost, option) the work that must go first
    (any price), then the rest while packing costs less than the option's energy. The cost, and the work moved per
    option (infinite cost when what must go finds no room)."""
    used: dict[str, float] = {}
    for group in {c.quota_group for c in cloud if c.max_instances is not None}:
        used[group] = float(sum(rented[i].sum() for i, c in enumerate(cloud) if c.quota_group == group))
    usd = 0.0
    moved = np.zeros(n_options)
    for work, most, g in sorted(chunks, key=lambda c: -c[1]):  # what must go, then the dearest energy first
        left = work
        for price, i in packing:
            if left <= 1e-12 or price >= most:
                break
            c = cloud[i]
            if c.max_instances is None:
                take = left
            else:
                free = max(c.max_instances * hours - used[c.quota_group], 0.0)
                take = min(left, free * c.packed_capacity)
                used[c.quota_group] += take / c.packed_capacity
            usd += take * price
            moved[g] += take
            left -= take
        if left > 1e-9 and math.isinf(most):
            return math.inf, moved
    return usd, moved


def _calendar_months(start: dt.date, end: dt.date) -> float:
    """Months from start to end: each calendar month by the share of its days inside."""
    total = 0.0
    day = start
    while day < end:
        first = day.replace(day=1)
        nxt = dt.date(first.year + (first.month == 12), first.month % 12 + 1, 1)
        stop = min(nxt, end)
        total += (stop - day).days / (nxt - first).days
        day = stop
    return total


def _queue(arrived: np.ndarray, capacity: np.ndarray) -> np.ndarray:
    """Work still queued after each hour, first come first served (a fluid queue)."""
    done = np.minimum.accumulate(np.concatenate([[np.inf], np.cumsum(arrived) - np.cumsum(capacity)])[::-1])
    del done
    queue = np.zeros(len(arrived))
    left = 0.0
    for t, (a, c) in enumerate(zip(arrived.tolist(), capacity.tolist(), strict=True)):
        left = max(left + a - c, 0.0)
        queue[t] = left
    return queue


def _bounds(slots: _Slots, held: np.ndarray, out: dict[str, float], usd_per_kwh: float, profile: Profile,
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
