"""The profile's demand hour by hour, read apart from the model's periods: the horizon, the GPUs busy each hour,
the jobs at once and their share of the hour, patience windows and calendar months.

In: a profile and today. Out: arrays over the horizon's hours the replay serves."""

from __future__ import annotations

import datetime as dt
import math

import numpy as np

from solvers.base import defaults
from solvers.base.demand_forms import ConcurrencyDemand, SeriesDemand, UtilisationDemand
from solvers.base.demand_units import load_unit
from solvers.base.profile import Profile

Segments = tuple[np.ndarray, np.ndarray]  # (hours, segments): jobs at once, share of the hour


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


def calendar_months(start: dt.date, end: dt.date) -> float:
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
