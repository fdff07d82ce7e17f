"""What a profile's jobs and demand come to in the units every stage counts: reference replicas per unit of load,
the peak, spares, job and scaling efficiency, whether a service is always on, the busy timeline of a series or a
concurrency demand, and calendar months.

Why in the base: the demand stage (periods), the offers (option speeds and spares) and the independent replay all
read a profile in these units, and the replay may import base types only."""

from __future__ import annotations

import datetime as dt
import math

import numpy as np

from solvers.base import defaults
from solvers.base.demand_forms import ConcurrencyDemand, SeriesDemand, UtilisationDemand
from solvers.base.errors import ProfileError
from solvers.base.profile import Profile


def add_months(day: dt.date, months: int) -> dt.date:
    """Same day-of-month `months` later, clipped to the month's last day."""
    index = day.year * 12 + day.month - 1 + months
    year, month = divmod(index, 12)
    month += 1
    if day.day <= 28:  # every month has the day: no clipping, so no month length to make (a third of the time)
        return dt.date(year, month, day.day)
    last = (dt.date(year + (month == 12), month % 12 + 1, 1) - dt.timedelta(days=1)).day
    return dt.date(year, month, min(day.day, last))


def first_of_next_month(today: dt.date) -> dt.date:
    return add_months(today.replace(day=1), 1)


def scaling_efficiency(profile: Profile) -> float:
    """Reference work one job-GPU-hour of the curve's levels stands for, per GPU of the demand's width.

    The speed-up on `gpus_per_job` GPUs divided by their number (measured, or the guide's figures); for always-on
    divisible load, whose levels count load units of `load_unit` reference replicas, times that unit, so the
    accounts' delivered work (level-hours x width x this) is in reference GPU-hours like the demand."""
    return job_efficiency(profile) * load_unit(profile)


def job_efficiency(profile: Profile) -> float:
    """Speed-up on `gpus_per_job` GPUs divided by their number: measured, or the guide's figures."""
    jobs = profile.jobs
    if jobs.scaling_efficiency is not None:
        return jobs.scaling_efficiency
    return default_efficiency(jobs.gpus_per_job)


def load_unit(profile: Profile) -> float:
    """Reference replicas (jobs of `gpus_per_job` reference GPUs) in one unit of load the plan counts.

    1 except for always-on divisible load. A service's load splits across replicas, but each replica is a whole
    set of GPUs of its type, so the hour's load must be rounded to whole replicas of the type that serves it, not
    to whole reference replicas: 0.05 of a reference GPU of load needs one replica of any type that holds the model
    (rounded up in reference replicas it became one whole fast GPU of load, 5 replicas of a card at a fifth of its
    speed). So the load is counted in units of peak / N, N the least common multiple of the replicas each GPU type
    of known speed (the reference, `throughput_overrides`; the workload form gives every taking-part type) needs
    alone at the peak (at most `ALWAYS_ON_MAX_UNITS`): a replica of relative speed r then carries floor(r / unit)
    whole units, and each such type needs exactly ceil(peak / r) replicas at the peak, as by hand."""
    jobs = profile.jobs
    if jobs.runs != "continuously" or jobs.load != "divisible":
        return 1.0
    peak = peak_load(profile)
    if peak <= 0.0:
        return 1.0
    speeds = {1.0, *profile.throughput_overrides.values()}
    alone = {max(1, math.ceil(peak / r - 1e-9)) for r in speeds}
    units = math.lcm(*alone)
    if units > defaults.ALWAYS_ON_MAX_UNITS:
        units = max(defaults.ALWAYS_ON_MAX_UNITS, math.ceil(peak - 1e-9))
    return peak / units


def peak_load(profile: Profile) -> float:
    """The busiest hour's load in reference replicas (busy reference GPUs / gpus_per_job)."""
    demand = profile.planned_demand
    width = profile.jobs.gpus_per_job
    if isinstance(demand, UtilisationDemand):
        at_once = demand.reading != "average"  # independent: every job may be busy in the same hour
        return (demand.gpus if at_once else demand.gpus * demand.utilisation) / width
    if isinstance(demand, SeriesDemand):
        _, busy = series_timeline(profile, demand)
    else:
        _, busy = concurrency_timeline(demand)
    return float(busy.max(initial=0.0)) / width


def default_efficiency(width: int) -> float:
    points = sorted(defaults.SPEEDUP_BY_GPUS.items())
    xs = np.array([n for n, _ in points], dtype=float)
    eff = np.array([s / n for n, s in points])
    return float(np.interp(width, xs, eff))


def spare_units(profile: Profile) -> float:
    """Load units of `jobs.spare_replicas` reference replicas (a divisible load's unit is a share of a replica)."""
    spares = profile.jobs.spare_replicas
    return float(spares * math.ceil(1.0 / load_unit(profile) - 1e-9)) if spares else 0.0


def always_on(profile: Profile) -> bool:
    """An always-on service (`jobs.runs = continuously`): load served every hour, never sooner on a faster GPU."""
    return profile.jobs.runs == "continuously"


def series_timeline(profile: Profile, demand: SeriesDemand) -> tuple[dt.date, np.ndarray]:
    """Busy reference GPUs per hour from work per month/week/day (flat, or at `gpus_at_once` from the start).

    Why two ways: a series of flat, back-to-back points (the usual monthly series) is each point's rate repeated over
    its hours in one `np.repeat` (the same floats the slice assignments wrote, a third of the time); gaps or
    `gpus_at_once` take the point-by-point loop."""
    eff = job_efficiency(profile)
    spans = _flat_month_hours(demand) if demand.resolution == "month" else None
    if spans is not None:
        rates = [p.reference_gpu_hours / eff / h for p, h in zip(demand.series, spans, strict=True)]
        return demand.series[0].first_day, np.repeat(np.array(rates, dtype=float), spans)
    firsts = [p.first_day for p in demand.series]
    start = firsts[0]
    if demand.resolution == "month":  # points are months (first days): the next month's first day, made directly
        nexts = [dt.date(d.year + (d.month == 12), d.month % 12 + 1, 1) for d in firsts]
    else:
        step = dt.timedelta(days=7 if demand.resolution == "week" else 1)
        nexts = [d + step for d in firsts]
    if all(p.gpus_at_once is None for p in demand.series) and firsts[1:] == nexts[:-1]:
        spans = [24 * (nxt - first).days for first, nxt in zip(firsts, nexts, strict=True)]
        rates = [p.reference_gpu_hours / eff / h for p, h in zip(demand.series, spans, strict=True)]
        return start, np.repeat(np.array(rates, dtype=float), spans)
    busy = np.zeros(24 * (nexts[-1] - start).days)
    for i, (first, nxt, p) in enumerate(zip(firsts, nexts, demand.series, strict=True)):
        a = 24 * (first - start).days
        hours = 24 * (nxt - first).days
        gpu_hours = p.reference_gpu_hours / eff
        if p.gpus_at_once is None:
            busy[a: a + hours] = gpu_hours / hours
            continue
        run = gpu_hours / p.gpus_at_once
        if run > hours + 1e-9:
            raise ProfileError(f"demand.series[{i}].gpus_at_once", "fits_period",
                               f"{p.reference_gpu_hours:g} reference GPU-hours at {p.gpus_at_once:g} GPUs at once "
                               f"need {run:,.1f} h, more than the {hours} h of the {demand.resolution}")
        whole = int(run)
        busy[a: a + whole] = p.gpus_at_once
        if whole < hours:
            busy[a + whole] = p.gpus_at_once * (run - whole)
    return start, busy


_MONTH_DAYS = (0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _flat_month_hours(demand: SeriesDemand) -> list[int] | None:
    """Hours of each month of a series of flat, back-to-back months (None otherwise), read from the "YYYY-MM" strings
    with whole numbers: no date per month (a date from each point's `first_day` and the next month's was 32 of a
    36-month series' 58 us)."""
    spans = []
    index = -1
    for p in demand.series:
        month = p.month
        if month is None or p.gpus_at_once is not None:
            return None
        year, number = int(month[:4]), int(month[5:7])
        if index >= 0 and year * 12 + number != index + 1:
            return None  # a gap between months
        index = year * 12 + number
        leap = number == 2 and year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
        spans.append(24 * (_MONTH_DAYS[number] + leap))
    return spans


def concurrency_timeline(demand: ConcurrencyDemand) -> tuple[dt.date, np.ndarray]:
    start = demand.start.date()
    offset = demand.start.hour
    busy = np.zeros(offset + len(demand.busy_gpus))
    busy[offset:] = demand.busy_gpus
    return start, busy
