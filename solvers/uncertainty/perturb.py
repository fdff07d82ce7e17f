"""One future's inputs: the plan's periods, options and limits with the future's multipliers applied.

What moves: the demand of each period (the scale times the growth of its year: every level's jobs at once times
the multiplier, in whole jobs as the thresholds' what-if does, `layers.whole_levels`, except for work that may
wait, which is fluid), the price of every on-demand and spot offer (by one factor per future: the price path's
average over the horizon weighted by the future's work in each period, since the model prices an offer once per
plan), the electricity rate, and every purchase's resale value. Commitments keep today's price: it is agreed
when they are made, at month 0.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from solvers.base.finance import Weights
from solvers.base.options import CloudOption, OwnedOption
from solvers.demand.blocks import Block, merge_periods
from solvers.demand.periods import Period
from solvers.model.arrays import Limits
from solvers.model.layers import Cells, whole_levels
from solvers.uncertainty.sample import Future

WeightsFor = Callable[[list[Period], list[Block]], Weights | None]


@dataclass(frozen=True)
class Inputs:
    """What `solvers.model.build.build` takes for one future, with the demand multiplier of every period."""

    future: Future
    periods: list[Period]
    blocks: list[Block]
    owned: list[OwnedOption]
    cloud: list[CloudOption]
    limits: Limits
    demand: np.ndarray  # per period: the future's demand multiplier
    cloud_factor: float


def years_from_start(periods: list[Period]) -> np.ndarray:
    """Each period's start in years after the first period's (365.25 days a year)."""
    if not periods:
        return np.zeros(0)
    first = periods[0].start
    return np.array([(p.start - first).days / 365.25 for p in periods])


def scaled_period(period: Period, factor: float, fluid: bool) -> Period:
    """A period at `factor` times its demand: its levels' jobs times the factor, in whole jobs unless fluid."""
    if factor == 1.0:
        return period
    cells = Cells(np.zeros(len(period.jobs), dtype=np.int64), period.jobs * factor, period.level_hours)
    if not fluid:
        cells = whole_levels(cells)
    keep = cells.hours > 0
    return Period(period.label, period.start, period.end, period.demand * factor, cells.jobs[keep],
                  cells.hours[keep])


def _scaled(period: Period, factor: float, fluid: bool,
            made: dict[tuple[float, bytes, bytes], tuple[np.ndarray, np.ndarray]]) -> Period:
    """`scaled_period`, its levels computed once per curve and factor."""
    if factor == 1.0:
        return period
    key = (factor, period.jobs.tobytes(), period.level_hours.tobytes())
    found = made.get(key)
    if found is None:
        done = scaled_period(period, factor, fluid)
        made[key] = (done.jobs, done.level_hours)
        return done
    return Period(period.label, period.start, period.end, period.demand * factor, found[0], found[1])


def future_inputs(future: Future, periods: list[Period], owned: list[OwnedOption], cloud: list[CloudOption],
                  limits: Limits, weights_for: WeightsFor) -> Inputs:
    """The future's periods, blocks (merged again: growth gives each year its own), options and limits."""
    fluid = not limits.integer_instances
    years = years_from_start(periods)
    demand = np.array([future.demand_at(y) for y in years])
    made: dict[tuple[float, bytes, bytes], tuple[np.ndarray, np.ndarray]] = {}  # months share few curves
    scaled = [_scaled(p, float(m), fluid, made) for p, m in zip(periods, demand, strict=True)]
    work = np.array([p.demand for p in scaled])
    path = np.array([future.cloud_at(y + p.days / 730.5) for p, y in zip(periods, years, strict=True)])  # mid-period
    cloud_factor = float(np.dot(work, path) / work.sum()) if work.sum() > 0 else 1.0
    if future.cloud_per_year == 0.0:
        cloud_factor = 1.0
    blocks = merge_periods(scaled)
    moved_cloud = cloud if cloud_factor == 1.0 else [replace(c, usd_per_hour=c.usd_per_hour * cloud_factor)
                                                     for c in cloud]
    moved_owned = owned if future.resale == 1.0 else [
        o if o.is_commitment or not o.resale_usd else replace(o, resale_usd=o.resale_usd * future.resale)
        for o in owned]
    moved_limits = replace(limits, usd_per_kwh=limits.usd_per_kwh * future.electricity,
                           weights=limits.weights if not blocks else weights_for(scaled, blocks))
    if future.electricity == 1.0 and demand.min(initial=1.0) == demand.max(initial=1.0) == 1.0:
        moved_limits = limits  # today's periods and blocks: today's weights, to the bit
        blocks = merge_periods(periods)
    return Inputs(future, scaled, blocks, moved_owned, moved_cloud, moved_limits, demand, cloud_factor)


def period_days(periods: list[Period]) -> np.ndarray:
    """Each period's end in days after the plan's start (the fan's x axis)."""
    if not periods:
        return np.zeros(0)
    first: dt.date = periods[0].start
    return np.array([(p.end - first).days for p in periods], dtype=float)
