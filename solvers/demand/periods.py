"""Calendar periods of a plan and, in each, the demand as a load-duration curve of jobs at once.

A month's hours are its calendar hours (February 2027 has 672). Periods are calendar months
clipped to the horizon, so a horizon that starts or ends mid-month has partial first/last periods.

The three demand notions (README, "Demand model"):
- concurrency: reference GPUs busy at once, hour by hour (or, for `gpus + utilisation`, by its reading:
  independent jobs, N GPUs together for u of the hours, or N x u on average, in no particular order);
- job width: `jobs.gpus_per_job` GPUs run one job together, so c busy GPUs are c / width jobs; work
  given in reference GPU-hours needs work / efficiency busy GPU-hours (DOMAIN §3 scaling);
- patience: work may move anywhere within its calendar day, ISO week or month; the plan then sees that
  window's average concurrency; how long work really waits is read out from the plan (solvers.demand.waits).

Within a period only the load-duration curve matters (which hours are busy does not: owned capacity is the
same in every hour of a period), so a period keeps levels (n jobs at once, hours at that count). An hour
with an average of 2.3 jobs is 2 jobs for 0.7 h and 3 jobs for 0.3 h: the integer levels are exact.
"""

from __future__ import annotations

import datetime as dt
import functools
import math
from dataclasses import dataclass, field

import numpy as np

from solvers.base import defaults
from solvers.base.demand_forms import SeriesDemand, UtilisationDemand
from solvers.base.demand_units import (
    add_months,
    always_on,
    concurrency_timeline,
    first_of_next_month,
    job_efficiency,
    load_unit,
    series_timeline,
    spare_units,
)
from solvers.base.errors import ProfileError
from solvers.base.profile import Profile
from solvers.demand.slices import Bounds, levels_by_slice, slice_sums, window_levels
from solvers.demand.waits import day_pattern, window_ids


@dataclass(frozen=True, eq=False)
class Period:
    label: str          # YYYY-MM
    start: dt.date
    end: dt.date        # exclusive
    demand: float       # work, reference GPU-hours
    jobs: np.ndarray = field(default_factory=lambda: np.zeros(0))         # jobs at once per level (> 0)
    level_hours: np.ndarray = field(default_factory=lambda: np.zeros(0))  # hours at each level
    # work that may wait (jobs.patience): busy GPUs per hour as they arrive, and as the plan sees them (each
    # window's average), for the read-out's first-come-first-served waits (solvers.demand.waits); None: nothing waits
    arrivals: np.ndarray | None = None
    moved: np.ndarray | None = None

    @property
    def days(self) -> int:
        return (self.end - self.start).days

    @property
    def hours(self) -> float:
        return 24.0 * self.days


def _calendar_slices(start: dt.date, end: dt.date) -> list[tuple[str, dt.date, dt.date]]:
    """Calendar months clipped to [start, end). The next month's first day is made directly, not by `add_months`
    (which clips a day to its month's length: 2 us a month, most of this function's time), from a year and month
    carried along rather than read back from each date (36 months: 36 -> 27 us)."""
    slices = []
    cursor = start
    year, month = start.year, start.month
    while cursor < end:
        nxt = dt.date(year + 1, 1, 1) if month == 12 else dt.date(year, month + 1, 1)
        if nxt > end:
            nxt = end
        slices.append((f"{year:04d}-{month:02d}", cursor, nxt))
        cursor = nxt
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    return slices


Slices = tuple[tuple[str, dt.date, dt.date], ...]


@functools.lru_cache(maxsize=32)
def _calendar(start: dt.date, end: dt.date) -> tuple[Slices, Bounds]:
    """The calendar slices of [start, end) and each one's first and end hour from `start`. Cached (tuples): every
    plan of a horizon has the same months, and they cost 35 us to make for 36 months."""
    slices = tuple(_calendar_slices(start, end))
    return slices, tuple((24 * (a - start).days, 24 * (b - start).days) for _, a, b in slices)


def _horizon_end(profile: Profile, start: dt.date) -> dt.date | None:
    if profile.horizon_months is not None:
        return add_months(start, profile.horizon_months)
    if profile.horizon_days is not None:
        return start + dt.timedelta(days=profile.horizon_days)
    return None


def levels(jobs_per_hour: np.ndarray, hours: np.ndarray | float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """Load-duration curve of fractional jobs-at-once values: integer levels (n > 0) and their hours.

    A value c for h hours is floor(c) jobs for (1 - frac) h and ceil(c) jobs for frac h: same work, and
    each moment has a whole number of jobs running.
    """
    # float round-off (patience windows, scaling) can leave -1e-15 where no job runs: that is no job
    c = np.maximum(np.asarray(jobs_per_hour, dtype=float), 0.0)
    h = np.broadcast_to(np.asarray(hours, dtype=float), c.shape)
    lo = np.floor(c + 1e-9)
    frac = np.clip(c - lo, 0.0, 1.0)
    lo_i = lo.astype(np.int64)
    size = int(lo_i.max(initial=0)) + 2
    at = np.bincount(lo_i, weights=h * (1.0 - frac), minlength=size) + np.bincount(
        lo_i + 1, weights=h * frac, minlength=size)
    n = np.flatnonzero(at > 1e-9)
    n = n[n > 0]
    return n.astype(float), at[n]


def compress(jobs: np.ndarray, hours: np.ndarray, max_levels: int,
             conservative: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """At most `max_levels` levels: neighbouring levels merged into their hour-weighted mean (same work).

    The peak level is kept as it is (it sizes the rented instances); only levels below it are merged.
    `conservative` (always-on load) merges into the group's highest level instead: every hour stays covered,
    at the price of planning a little more than the load.
    """
    if len(jobs) <= max_levels:
        return jobs, hours
    order = np.argsort(jobs)
    jobs, hours = jobs[order], hours[order]
    # the groups of `np.array_split(range(len - 1), max_levels - 1)`: `extra` groups of `size + 1` levels, then groups
    # of `size`; each group's hours summed as a row of a 2-D array, the same pairwise sum as the group's own `.sum()`
    size, extra = divmod(len(jobs) - 1, max_levels - 1)
    cut = extra * (size + 1)
    merged_h = np.concatenate([hours[:cut].reshape(extra, size + 1).sum(axis=1),
                               hours[cut:-1].reshape(max_levels - 1 - extra, size).sum(axis=1), hours[-1:]])
    ends = np.concatenate([np.arange(size + 1, cut + 1, size + 1), np.arange(cut + size, len(jobs), size)])
    if conservative:  # the levels are sorted: a group's highest is its last
        return np.concatenate([jobs[ends - 1].astype(float), jobs[-1:]]), merged_h
    starts = [0, *ends[:-1].tolist()]
    dots = np.array([np.dot(jobs[a:b], hours[a:b]) for a, b in zip(starts, ends.tolist(), strict=True)])
    # each group's work over its hours (the sums above): the same divisions, in one call
    return np.concatenate([dots / merged_h[:-1], jobs[-1:]]), merged_h


def build_periods(profile: Profile, today: dt.date) -> list[Period]:
    """Periods over the horizon with their demand; `today` fixes the default start."""
    demand = profile.planned_demand
    if isinstance(demand, UtilisationDemand):
        return _utilisation_periods(profile, demand, today)
    if isinstance(demand, SeriesDemand):
        start, busy = series_timeline(profile, demand)
    else:
        start, busy = concurrency_timeline(demand)
    last_end = start + dt.timedelta(days=math.ceil(len(busy) / 24))
    end = _horizon_end(profile, start) or last_end
    if end < last_end:
        if isinstance(demand, SeriesDemand):
            last = demand.series[-1].month or demand.series[-1].first_day.isoformat()
        else:
            last = f"hour {len(demand.busy_gpus)}"
        raise ProfileError(
            "demand.series" if isinstance(demand, SeriesDemand) else "demand.busy_gpus",
            "within_horizon",
            f"demand at {last} lies beyond the horizon, which ends on {end.isoformat()}; lengthen the horizon "
            "or shorten the series",
        )
    total_hours = 24 * (end - start).days
    # a series stays at one level for a month, week or day at a time: its levels are counted interleaved
    series = isinstance(demand, SeriesDemand)
    if len(busy) == total_hours:  # the demand fills the horizon: no padded copy (210 kB a 36-month timeline)
        return _timeline_periods(profile, start, end, busy, series)
    timeline = np.zeros(total_hours)
    timeline[: len(busy)] = busy
    return _timeline_periods(profile, start, end, timeline, series)


def _utilisation_periods(profile: Profile, demand: UtilisationDemand, today: dt.date) -> list[Period]:
    start = demand.start or first_of_next_month(today)
    end = _horizon_end(profile, start)
    assert end is not None  # the profile validator requires a horizon with this demand
    width = profile.jobs.gpus_per_job
    eff = job_efficiency(profile)
    reading = demand.reading
    jobs_at_once = demand.gpus / width
    if reading != "average" and width > 1 and not always_on(profile) and abs(jobs_at_once - round(jobs_at_once)) > 1e-9:
        # GPUs busy at once run whole jobs of `width` GPUs: 1 GPU at once of 2-GPU jobs was planned as half a job
        whole = max(1, round(jobs_at_once))
        raise ProfileError("demand.gpus", "whole_jobs",
                           f"{demand.gpus:g} GPUs busy at once cannot run jobs of {width} GPUs each "
                           f"(jobs.gpus_per_job): give a multiple of {width} ({whole * width} for {whole} job(s) at "
                           "once), or reading \"average\" for an average over those GPUs")
    busy = demand.gpus * demand.utilisation  # GPUs busy on average
    fluid = profile.jobs.patience != "none"
    # the same curve every hour of every period: levels per hour, scaled by each period's hours
    if always_on(profile):  # whole load units present in every hour with load, for that whole hour
        unit = width * load_unit(profile)
        at_once = reading != "average"  # a service's replicas are up together, not independently
        jobs, share = levels(_with_spares(profile, np.ceil(np.array([(demand.gpus if at_once else busy) / unit
                                                                     - 1e-9]))),
                             demand.utilisation if at_once else 1.0)
    elif fluid:  # work may move within its window: the plan holds the window's average (fractional) load
        jobs, share = np.array([busy / width]), np.array([1.0])
    elif reading == "independent":
        jobs, share = independent_levels(jobs_at_once, demand.utilisation)
    elif reading == "at_once":
        jobs, share = levels(np.array([jobs_at_once]), demand.utilisation)
    else:
        jobs, share = levels(np.array([busy / width]), 1.0)
    periods = []
    for label, a, b in _calendar(start, end)[0]:
        hours = 24.0 * (b - a).days
        arrivals = moved = None
        if fluid:  # work moved within its window: replayed in time order by the read-out
            arrivals = arrival_pattern(demand.gpus, demand.utilisation, reading, width, 24 * (b - a).days)
            moved = np.full(len(arrivals), busy)
        periods.append(Period(label, a, b, busy * hours * eff, jobs, share * hours, arrivals, moved))
    return periods


def independent_levels(jobs: float, utilisation: float) -> tuple[np.ndarray, np.ndarray]:
    """Levels of `jobs` independent jobs each busy `utilisation` of the hours: k jobs at once for the binomial
    share C(J, k) u^k (1 - u)^(J - k) of the hours (k >= 1). A fractional J (one-GPU jobs, a fractional GPU count)
    adds one more job busy (J - floor J) x u of the hours, independent too, so the average is J x u as in every
    reading. Above MAX_LEVELS_PER_PERIOD levels the curve is compressed like any other (`compress`)."""
    whole = math.floor(jobs + 1e-9)
    extra = max(jobs - whole, 0.0)
    k, pmf = binomial_pmf(whole, utilisation)
    if extra > 1e-9:  # the fractional job: busy with probability extra x u
        p = extra * utilisation
        pmf = np.concatenate([pmf * (1 - p), [0.0]]) + np.concatenate([[0.0], pmf * p])
        k = np.concatenate([k, [k[-1] + 1]])
    keep = (k > 0) & (pmf > 1e-12)
    return compress(k[keep].astype(float), pmf[keep], defaults.MAX_LEVELS_PER_PERIOD)


def binomial_pmf(n: int, p: float) -> tuple[np.ndarray, np.ndarray]:
    """The binomial law B(n, p) where it carries weight: k within 12 standard deviations of n p, P(k) from
    log-gamma (a lab of 10^6 GPUs is 10^6 terms of exact integers otherwise); the shares sum to 1."""
    if p >= 1.0 or n == 0:
        return np.array([n]), np.array([1.0])
    sd = math.sqrt(n * p * (1 - p))
    lo, hi = max(0, math.floor(n * p - 12 * sd - 1)), min(n, math.ceil(n * p + 12 * sd + 1))
    k = np.arange(lo, hi + 1)
    log_pmf = np.array([math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) for i in k.tolist()])
    log_pmf += k * math.log(p) + (n - k) * math.log1p(-p)
    pmf = np.exp(log_pmf - log_pmf.max())
    return k, pmf / pmf.sum()


def arrival_pattern(gpus: float, utilisation: float, reading: str, width: int, hours: int) -> np.ndarray:
    """Busy reference GPUs per hour as they arrive, for the waits' first-come-first-served read-out: at_once, N GPUs
    for the first u x 24 h of each day; independent, each day's hours at the binomial levels from the busiest down
    (the same shares of the day as the plan's curve); average, N x u every hour."""
    if reading == "at_once":
        return day_pattern(gpus, utilisation, hours)
    if reading == "average":
        return np.full(hours, gpus * utilisation)
    jobs, share = independent_levels(gpus / width, utilisation)
    order = np.argsort(-jobs)
    edges = np.concatenate([[0.0], np.cumsum(share[order]) * 24.0])  # each level's span of the day, busiest first
    day = np.zeros(24)
    for level, a, b in zip(jobs[order] * width, edges[:-1], edges[1:], strict=True):
        starts = np.arange(24.0)
        day += level * np.clip(np.minimum(b, starts + 1) - np.maximum(a, starts), 0.0, 1.0)
    pattern: np.ndarray = np.resize(day, hours)
    return pattern


def _with_spares(profile: Profile, units: np.ndarray) -> np.ndarray:
    """Every hour with load holds the spare replicas too (`jobs.spare_replicas`)."""
    spare = spare_units(profile)
    return np.where(units > 0, units + spare, units) if spare else units


def _window_ids(profile: Profile, start: dt.date, bounds: Bounds, total_hours: int) -> np.ndarray | None:
    """Each hour's patience window (calendar day, ISO week or month: `waits.window_ids`); None when work may not
    wait."""
    patience = profile.jobs.patience
    if patience == "none":
        return None
    return window_ids(patience, start, list(bounds), total_hours)


def _timeline_periods(profile: Profile, start: dt.date, end: dt.date, busy: np.ndarray,
                      interleave: bool) -> list[Period]:
    width = profile.jobs.gpus_per_job
    eff = job_efficiency(profile)
    slices, bounds = _calendar(start, end)
    windows = _window_ids(profile, start, bounds, len(busy))
    arrived = busy
    if windows is not None:
        flat = np.bincount(windows, weights=busy) / np.maximum(np.bincount(windows), 1)
        busy = flat[windows]
    on = always_on(profile)
    # each hour needs whole load units (replicas; `load_unit`) for the whole hour when always on: its load rounded up;
    # x / 1 is x: a one-GPU job's timeline is its own jobs per hour (no 210 kB copy of a 36-month one)
    per_job = busy if width == 1 else busy / width
    if windows is not None:  # fluid windows: each window's average as a level of its own (not split into jobs)
        curves = window_levels(per_job, bounds)
    else:
        curves = levels_by_slice(_with_spares(profile, np.ceil(per_job / load_unit(profile) - 1e-9)) if on
                                  else per_job, bounds, interleave)
    periods = []
    sums = slice_sums(busy, bounds)
    if windows is None:
        most = defaults.MAX_LEVELS_PER_PERIOD
        for (label, a, b), (jobs, h), work in zip(slices, curves, sums, strict=True):
            if len(jobs) > most:  # `compress` returns a curve within `most` levels as it is: no call for it
                jobs, h = compress(jobs, h, most, conservative=on)
            periods.append(Period(label, a, b, work * eff, jobs, h))
        return periods
    for (label, a, b), (lo, hi), (jobs, h), work in zip(slices, bounds, curves, sums, strict=True):
        periods.append(Period(label, a, b, work * eff, jobs, h, arrived[lo:hi], busy[lo:hi]))
    return periods
