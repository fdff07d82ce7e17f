"""Futures drawn from the `uncertainty` option: scrambled Sobol points mapped to the inputs' multipliers.

Why a low-discrepancy sequence: 50-200 futures of five inputs cover the unit cube far more evenly than as many
random draws (the error of a sample average falls nearly as 1/N instead of 1/sqrt(N)), so the sample average
problem is stable at sizes one HiGHS process solves in a second or two. Futures with the same multipliers (every
spread 0) are merged into one with their summed weight: the same program, smaller.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
from scipy.stats import norm, qmc

from solvers.base.uncertainty import Uncertainty

DIMENSIONS = 5  # demand scale, demand growth, cloud price trend, electricity, resale


@dataclass(frozen=True)
class Future:
    """One future: the profile's inputs times these multipliers; `weight` its probability."""

    demand_scale: float
    growth_per_year: float
    cloud_per_year: float
    electricity: float
    resale: float
    weight: float

    @property
    def key(self) -> tuple[float, float, float, float, float]:
        return (self.demand_scale, self.growth_per_year, self.cloud_per_year, self.electricity, self.resale)

    def demand_at(self, years: float) -> float:
        """The demand multiplier `years` after the plan's start: the scale times the growth in yearly steps (the
        year's own growth counted from its start)."""
        return self.demand_scale * (1.0 + self.growth_per_year) ** math.floor(years + 1e-9)

    def cloud_at(self, years: float) -> float:
        """The cloud price multiplier `years` after the plan's start (continuous compounding of the yearly change)."""
        return float((1.0 + self.cloud_per_year) ** years)


def unit_points(count: int, seed: int) -> np.ndarray:
    """`count` scrambled Sobol points in [0, 1)^5 (scipy warns when count is not a power of two: the balance of
    the sequence is then slightly worse, which the sample size still allows)."""
    sampler = qmc.Sobol(DIMENSIONS, scramble=True, seed=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return np.asarray(sampler.random(count))


def futures(option: Uncertainty) -> list[Future]:
    """The option's futures, equally weighted, merged where identical (in order of first appearance)."""
    u = unit_points(option.scenarios, option.seed)
    centred = 2.0 * u - 1.0  # in [-1, 1)
    demand = option.demand
    if demand.scale is not None:
        low, high = demand.scale
        scale = np.exp(np.log(low) + u[:, 0] * (np.log(high) - np.log(low)))
    else:
        sigma = demand.lognormal_sigma
        # the Sobol point's middle is the median; ppf of 0 is -inf, kept off the edge
        scale = np.exp(sigma * norm.ppf(np.clip(u[:, 0], 1e-6, 1 - 1e-6))) if sigma > 0 else np.ones(len(u))
    growth = demand.growth_per_year + demand.growth_spread * centred[:, 1]
    trend = option.cloud_price_trend
    cloud = trend.per_year + trend.spread * centred[:, 2]
    electricity = 1.0 + option.electricity.spread * centred[:, 3]
    resale = 1.0 + option.resale.spread * centred[:, 4]
    weight = 1.0 / len(u)
    merged: dict[tuple[float, ...], Future] = {}
    for i in range(len(u)):
        future = Future(float(scale[i]), float(growth[i]), float(max(cloud[i], -0.99)), float(electricity[i]),
                        float(resale[i]), weight)
        found = merged.get(future.key)
        merged[future.key] = future if found is None else Future(*future.key, weight=found.weight + weight)
    return list(merged.values())
