"""Exact cost of running fixed purchases: a per-block fractional knapsack, solved greedily.

With the purchases fixed, each block's problem is: meet D reference GPU-hours from resources
with capacities and a cost per reference hour. One covering constraint with bounded variables:
filling from the cheapest resource per reference hour is optimal. This is what makes the
cloud-only alternative and the decision thresholds (hundreds of evaluations) cheap; tests check
it against the MIP with the purchases fixed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from solvers.blocks import Block
from solvers.options import CloudOption, HostOption, OwnedOption


@dataclass(frozen=True)
class Purchase:
    units: dict[str, int] = field(default_factory=dict)   # owned option key -> units
    hosts: dict[int, int] = field(default_factory=dict)   # host slots -> count

    @property
    def empty(self) -> bool:
        return not any(self.units.values())


@dataclass(frozen=True)
class Scenario:
    """The what-if values the decision thresholds vary: demand and cloud prices as multipliers."""

    usd_per_kwh: float
    demand: float = 1.0
    cloud_price: float = 1.0


@dataclass
class Evaluation:
    cost: float
    owned_hours: dict[tuple[str, int], float] = field(default_factory=dict)
    cloud_hours: dict[tuple[str, int], float] = field(default_factory=dict)

    @property
    def feasible(self) -> bool:
        return math.isfinite(self.cost)


class Evaluator:
    def __init__(self, owned: list[OwnedOption], cloud: list[CloudOption], hosts: list[HostOption],
                 blocks: list[Block], availability: float) -> None:
        self.owned = {o.key: o for o in owned}
        self.cloud = cloud
        self.hosts = {h.host.slots: h for h in hosts}
        self.blocks = blocks
        self.availability = availability
        self.total_hours = sum(b.hours for b in blocks)
        self._hours = np.array([b.hours for b in blocks])
        self._demand = np.array([b.demand for b in blocks])

    def fixed_cost(self, purchase: Purchase, scenario: Scenario) -> float:
        cost = 0.0
        for key, n in purchase.units.items():
            o = self.owned[key]
            cost += n * (o.net_price_usd + o.idle_kwh_per_unit_hour * scenario.usd_per_kwh * self.total_hours)
        for slots, n in purchase.hosts.items():
            h = self.hosts[slots]
            cost += n * (h.host.base_cost_usd + h.idle_kwh_per_hour * scenario.usd_per_kwh * self.total_hours)
        return cost

    def evaluate(self, purchase: Purchase, scenario: Scenario, detail: bool = False) -> Evaluation:
        """Cheapest operation of `purchase` in `scenario`; infinite cost if demand cannot be met."""
        # (cost per reference hour, key, reference hours per resource hour, resource hours per block hour, owned?)
        resources: list[tuple[float, str, float, float, bool]] = []
        for key, n in purchase.units.items():
            o = self.owned[key]
            if n > 0:
                resources.append((o.marginal_usd_per_ref_hour(scenario.usd_per_kwh), key, o.throughput,
                                  self.availability * o.gpus_per_unit * n, True))
        for c in self.cloud:
            resources.append((c.usd_per_ref_hour * scenario.cloud_price, c.key, c.ref_hours_per_hour,
                              math.inf if c.max_instances is None else c.max_instances, False))
        resources.sort(key=lambda r: (r[0], r[1]))
        result = Evaluation(cost=self.fixed_cost(purchase, scenario))
        remaining = self._demand * scenario.demand
        for unit_cost, key, ref_per_hour, cap_per_hour, is_owned in resources:
            take = np.minimum(remaining, cap_per_hour * ref_per_hour * self._hours)
            result.cost += unit_cost * float(take.sum())
            remaining = remaining - take
            if detail:
                target = result.owned_hours if is_owned else result.cloud_hours
                for b in np.flatnonzero(take > 0):
                    target[key, int(b)] = float(take[b]) / ref_per_hour
        if bool((remaining > 1e-9 * np.maximum(1.0, self._demand)).any()):
            result.cost = math.inf
        return result

    def cost(self, purchase: Purchase, scenario: Scenario) -> float:
        return self.evaluate(purchase, scenario).cost
