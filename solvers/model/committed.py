"""What the work costs with n instances of one commitment and the rest rented, the count following the scenario:
the cloud side the thresholds weigh buying against when the profile allows commitments (`Evaluator.committed_cloud`,
`solvers.explain.thresholds.CloudSide`).

In: the commitment option, the screening curve (or the cells, when work may wait), its price per instance over the
horizon and the fixed monthly cloud cost. Out: the cheapest cost over n = 0, 1, ... instances."""

from __future__ import annotations

import math

import numpy as np

from solvers.base.options import OwnedOption
from solvers.model.layers import Cells, Layers, Renting, screening


def whole_jobs_cost(o: OwnedOption, layers: Layers, peak: int, price: float, cloud_price: float,
                    fixed_cloud_usd: float) -> float:
    """Jobs that may not wait: n instances give K = n x slots job slots, and the rent at K is the curve's (exactly
    when the peak is at most MAX_SLOT_STEPS slots; above, at the grid's K just below, a rent never lower than the
    exact one). `price`: one instance over the horizon at the scenario's cloud price."""
    most = math.ceil(peak / o.slots_per_unit - 1e-9)
    if o.max_units is not None:
        most = min(most, o.max_units)
    n = np.arange(most + 1)
    k = np.searchsorted(layers.ks, np.minimum(np.floor(n * o.slots_per_unit + 1e-9), peak), side="right") - 1
    return _cheapest(n, price, layers.rent[k], cloud_price, fixed_cloud_usd)


def fluid_cost(o: OwnedOption, cells: Cells, n_blocks: int, renting: Renting, block_weight: np.ndarray | None,
               price: float, cloud_price: float, fixed_cloud_usd: float) -> float:
    """Work that may wait: n instances give n x slots x speed of capacity against each window's average."""
    peak = float(cells.jobs.max(initial=0.0))
    per = o.slots_per_unit * o.throughput
    most = math.ceil(peak / per - 1e-9)
    if o.max_units is not None:
        most = min(most, o.max_units)
    n = np.arange(most + 1)
    layers = screening(cells, n_blocks, renting, 0.0, n * per, block_weight)
    return _cheapest(n, price, layers.rent, cloud_price, fixed_cloud_usd)


def _cheapest(n: np.ndarray, price: float, rent: np.ndarray, cloud_price: float, fixed_cloud_usd: float) -> float:
    """The least over the counts n of n instances at `price` and the rent they leave (at the listed prices, `rent`
    per count), with the fixed monthly cloud cost wherever anything is rented or committed."""
    costs = n * price + _at_price(rent, cloud_price)
    if fixed_cloud_usd:
        costs = costs + np.where((n > 0) | (rent > 0), fixed_cloud_usd, 0.0)
    return float(costs.min(initial=math.inf))


def _at_price(rent: np.ndarray, cloud_price: float) -> np.ndarray:
    """Rent at the listed prices times the cloud price, infinite where the quotas cannot cover the work: at a cloud
    price of 0 (the lower end of the cloud-price threshold's range) inf x 0 was NaN, which the thresholds' cloud side
    (`min` over ways of renting) dropped, so renting read as impossible where it was free."""
    priced: np.ndarray = np.multiply(rent, cloud_price, out=np.full(rent.shape, math.inf), where=np.isfinite(rent))
    return priced
