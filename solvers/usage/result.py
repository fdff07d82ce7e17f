"""The one result every usage format becomes, and the statistics the planner and the web page read.

`UsageSeries` is the contract with the demand model: a UTC hour grid starting on the hour, one
value per hour = average number of GPUs busy in that hour. `summarise` turns it into peak,
percentiles, a load-duration curve per calendar month and a growth trend, all with numpy over
whole arrays (one Python step per month, none per hour).
"""

from __future__ import annotations

import datetime as dt
import itertools
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from solvers.usage.binning import BoolArray, FloatArray

DURATION_POINTS = 24  # points per monthly load-duration curve: one per ~30 hours of a month, enough for a chart


@dataclass(frozen=True)
class UsageSeries:
    """Average GPUs busy per UTC hour, read from one usage log.

    `start` is the first hour (UTC, minute 0); `busy_gpus[i]` is the average number of GPUs busy
    from start + i hours to start + i + 1 hours. `observed[i]` is False for hours the log says
    nothing about (a monitoring gap); those hold 0 and summaries leave them out. The metadata says
    what was seen: distinct GPUs, hosts, GPU model names, jobs and the instantaneous peak (Slurm),
    and `notes` lists every reading the parser made that a user may want to check (running jobs
    clipped, samples missing).
    """

    start: dt.datetime
    busy_gpus: FloatArray
    source_format: str
    observed: BoolArray
    gpu_count: int | None = None       # distinct GPUs seen (sampled formats); None for Slurm
    host_count: int | None = None
    gpu_models: tuple[str, ...] = ()
    jobs: int | None = None            # Slurm allocations that held GPUs
    instant_peak: float | None = None  # most GPUs busy at one moment (Slurm: exact); hourly averages smooth it
    busy_rule: str = ""
    notes: tuple[str, ...] = field(default=())
    # Slurm: GPU-hours of the allocations by the GPUs each held, widest last; sampled formats see GPUs, not jobs
    gpu_hours_by_width: tuple[tuple[int, float], ...] = ()

    def __post_init__(self) -> None:
        if self.start.tzinfo is None or self.start.utcoffset() != dt.timedelta(0):
            raise ValueError("start must be a UTC datetime")
        if (self.start.minute, self.start.second, self.start.microsecond) != (0, 0, 0):
            raise ValueError("start must be on the hour")
        if self.busy_gpus.shape != self.observed.shape or self.busy_gpus.ndim != 1:
            raise ValueError("busy_gpus and observed must be 1-d arrays of one length")

    @property
    def hours(self) -> int:
        return int(self.busy_gpus.size)

    @property
    def end(self) -> dt.datetime:
        """The end of the last hour (exclusive)."""
        return self.start + dt.timedelta(hours=self.hours)

    @property
    def gpu_hours(self) -> float:
        return float(self.busy_gpus.sum())

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, with the hourly series as a list (the CLI's `--json`)."""
        return {
            "start": self.start.isoformat().replace("+00:00", "Z"),
            "hours": self.hours,
            "source_format": self.source_format,
            "gpu_count": self.gpu_count,
            "host_count": self.host_count,
            "gpu_models": list(self.gpu_models),
            "jobs": self.jobs,
            "instant_peak": self.instant_peak,
            "busy_rule": self.busy_rule,
            "notes": list(self.notes),
            "gpu_hours_by_job_width": {str(w): round(h, 3) for w, h in self.gpu_hours_by_width},
            "busy_gpus": [round(float(v), 6) for v in self.busy_gpus],
            "observed": [bool(v) for v in self.observed],
        }


@dataclass(frozen=True)
class MonthlyLoad:
    """One calendar month (UTC) of observed hours.

    `duration_curve[k]` is the load equalled or exceeded during k / (points - 1) of the month's
    observed hours (first point the peak, last the minimum; linear between order statistics), for
    charts. `block_means[k]` is the mean load of the k-th of `points` equal-duration slices of the
    same sorted curve: unlike sampled points they add up to the month's GPU-hours
    (sum(block_means) x hours / points == gpu_hours), which is what a screening-curve model needs.
    """

    month: str
    hours: int
    gpu_hours: float
    peak: float
    mean: float
    duration_curve: tuple[float, ...]
    block_means: tuple[float, ...]


@dataclass(frozen=True)
class Trend:
    """Month-over-month growth of the monthly mean load, fitted by least squares.

    `growth_per_month` comes from a straight line through log(monthly mean) (so +0.05 means the
    load grows 5% a month, compounding); months with no load cannot enter a log and are left out
    of that fit. `slope_gpus_per_month` is a straight line through the monthly means themselves.
    Both weight each month by its observed hours, so a partial first or last month counts less.
    None when fewer than two months qualify.
    """

    months: int
    growth_per_month: float | None
    slope_gpus_per_month: float | None


@dataclass(frozen=True)
class UsageSummary:
    """Statistics over the observed hours of a series (gaps left out)."""

    hours: int
    observed_hours: int
    gpu_hours: float
    peak: float
    p50: float
    p90: float
    p99: float
    mean: float
    months: tuple[MonthlyLoad, ...]
    trend: Trend

    def to_dict(self) -> dict[str, Any]:
        return {
            "hours": self.hours, "observed_hours": self.observed_hours, "gpu_hours": self.gpu_hours,
            "peak": self.peak, "p50": self.p50, "p90": self.p90, "p99": self.p99, "mean": self.mean,
            "months": [vars(m) | {"duration_curve": list(m.duration_curve), "block_means": list(m.block_means)}
                       for m in self.months],
            "trend": vars(self.trend),
        }


def summarise(series: UsageSeries, points: int = DURATION_POINTS) -> UsageSummary:
    """Peak, p50/p90/p99, mean, monthly load-duration curves and trend of a series' observed hours.

    The peak is the highest hourly average, not an instantaneous peak: a one-minute burst to 8
    GPUs in an otherwise idle hour shows as 8/60. Percentiles interpolate linearly (numpy's
    default).
    """
    if points < 2:
        raise ValueError("points must be at least 2")
    values = series.busy_gpus[series.observed]
    if values.size == 0:
        return UsageSummary(series.hours, 0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, (), Trend(0, None, None))
    p50, p90, p99 = (float(v) for v in np.percentile(values, [50, 90, 99]))
    months = _monthly(series, points)
    return UsageSummary(
        hours=series.hours, observed_hours=int(values.size), gpu_hours=float(values.sum()),
        peak=float(values.max()), p50=p50, p90=p90, p99=p99, mean=float(values.mean()),
        months=months, trend=_trend(months),
    )


def _monthly(series: UsageSeries, points: int) -> tuple[MonthlyLoad, ...]:
    first = np.datetime64(series.start.replace(tzinfo=None), "h")
    month_of_hour = (first + np.arange(series.hours)).astype("datetime64[M]")
    keep = series.observed
    values, month_of_hour = series.busy_gpus[keep], month_of_hour[keep]
    # hours are in time order, so each month is one contiguous run
    bounds = np.flatnonzero(np.r_[True, month_of_hour[1:] != month_of_hour[:-1], True])
    months = []
    for a, b in itertools.pairwise(bounds):
        ordered = np.sort(values[a:b])[::-1]
        months.append(MonthlyLoad(
            month=str(month_of_hour[a]), hours=int(b - a), gpu_hours=float(ordered.sum()),
            peak=float(ordered[0]), mean=float(ordered.mean()),
            duration_curve=tuple(float(v) for v in np.quantile(ordered, np.linspace(1.0, 0.0, points))),
            block_means=tuple(float(v) for v in _block_means(ordered, points)),
        ))
    return tuple(months)


def _block_means(descending: FloatArray, points: int) -> FloatArray:
    """Means of `points` equal-duration slices of a step curve (one step per hour), slices may cut hours."""
    n = descending.size
    cumulative = np.r_[0.0, np.cumsum(descending)]
    edges = np.linspace(0.0, float(n), points + 1)
    whole = np.minimum(np.floor(edges).astype(np.int64), n - 1)
    integral = cumulative[whole] + (edges - whole) * descending[whole]
    means: FloatArray = np.diff(integral) / (n / points)
    return means


def _trend(months: tuple[MonthlyLoad, ...]) -> Trend:
    if len(months) < 2:
        return Trend(len(months), None, None)
    x = np.array([int(m.month[:4]) * 12 + int(m.month[5:7]) for m in months], dtype=np.float64)  # gaps stay gaps
    means = np.array([m.mean for m in months])
    weights = np.sqrt(np.array([m.hours for m in months], dtype=np.float64))  # polyfit squares its weights
    slope = float(np.polyfit(x, means, 1, w=weights)[0])
    positive = means > 0
    growth = None
    if positive.sum() >= 2:
        log_slope = float(np.polyfit(x[positive], np.log(means[positive]), 1, w=weights[positive])[0])
        growth = float(np.expm1(log_slope))
    return Trend(len(months), growth, slope)
