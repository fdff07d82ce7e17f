"""Cost of running fixed purchases, without the MIP: what makes the decision thresholds (hundreds of
evaluations) cheap.

With the purchases fixed, each level of each block is its own problem: owned slots take the jobs they can
(cheapest energy first, when cheaper than renting), and the rest needs rented instances covering R jobs at once
at least cost. Whole instances (work that cannot wait) make that a covering knapsack over integer job counts,
solved once by dynamic programming for every R up to the peak; packed instances (work that may wait) cost R
times the cheapest price per job-hour. Owned maintenance beyond idle hours is rented at the cheapest price per
job-hour. Tests compare this with the MIP with the purchases fixed.
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

    @property
    def feasible(self) -> bool:
        return math.isfinite(self.cost)


class Evaluator:
    """`scale_hours`: a demand multiple lengthens the busy hours (N GPUs at once for u of the hours) instead of
    raising the number of jobs at once."""

    def __init__(self, owned: list[OwnedOption], cloud: list[CloudOption], hosts: list[HostOption],
                 blocks: list[Block], availability: float, width: int = 1, integer_instances: bool = True,
                 scale_hours: bool = False) -> None:
        self.owned = {o.key: o for o in owned}
        self.cloud = cloud
        self.hosts = {h.host.slots: h for h in hosts}
        self.blocks = blocks
        self.availability = availability
        self.width = width
        self.integer_instances = integer_instances
        self.scale_hours = scale_hours
        self.total_hours = sum(b.hours for b in blocks)
        # cheapest price per job-hour of a fully used instance (maintenance cover, packed instances)
        self._packed = min((c.usd_per_job_hour / c.slots for c in cloud), default=math.inf)
        self._cover = np.zeros(1)

    def fixed_cost(self, purchase: Purchase, scenario: Scenario) -> float:
        cost = 0.0
        for key, n in purchase.units.items():
            o = self.owned[key]
            cost += n * (o.net_price_usd + o.idle_kwh_per_unit_hour * scenario.usd_per_kwh * self.total_hours)
        for slots, n in purchase.hosts.items():
            h = self.hosts[slots]
            cost += n * (h.host.base_cost_usd + h.idle_kwh_per_hour * scenario.usd_per_kwh * self.total_hours)
        return cost

    def cover_cost(self, jobs: int) -> float:
        """Least price per level-hour of whole instances giving at least `jobs` slots (inf if quotas forbid)."""
        if jobs <= 0:
            return 0.0
        if jobs >= len(self._cover):
            self._cover = self._cover_table(max(jobs, 2 * len(self._cover)))
        return float(self._cover[jobs])

    def _cover_table(self, size: int) -> np.ndarray:
        best = np.full(size + 1, math.inf)
        best[0] = 0.0
        for c in self.cloud:
            price, slots = c.usd_per_job_hour, c.slots
            copies = math.inf if c.max_instances is None else int(c.max_instances)
            if math.isinf(copies):
                for j in range(1, size + 1):  # unbounded: forward pass
                    best[j] = min(best[j], price + best[max(0, j - slots)])
            else:
                for _ in range(int(copies)):  # bounded: one 0/1 pass per copy
                    shifted = np.concatenate([np.zeros(min(slots, size + 1)), best[: max(size + 1 - slots, 0)]])
                    best = np.minimum(best, price + shifted)
        return best

    def evaluate(self, purchase: Purchase, scenario: Scenario) -> Evaluation:
        """Cheapest operation of `purchase` in `scenario`; infinite cost if demand cannot be met."""
        rate = scenario.usd_per_kwh
        cost = self.fixed_cost(purchase, scenario)
        packed = self._packed * scenario.cloud_price
        owned = sorted(((self.owned[k].usd_per_job_hour(rate, self.width), k, n)
                        for k, n in purchase.units.items() if n > 0), key=lambda t: (t[0], t[1]))
        slots = {k: _slots(self.owned[k], n, self.width) for _, k, n in owned}
        for b in self.blocks:
            jobs, hours = b.jobs.astype(float), b.level_hours.astype(float)
            if self.scale_hours:
                hours = hours * scenario.demand
                if hours.sum() > b.hours * (1 + 1e-9):
                    hours = hours * b.hours / hours.sum()
                    jobs = jobs * scenario.demand * float(b.level_hours.sum()) / b.hours
            else:
                jobs = jobs * scenario.demand
            remaining = jobs.copy()
            for energy, key, _ in owned:
                o = self.owned[key]
                if energy >= packed and self.cloud:
                    continue
                take = np.minimum(remaining, slots[key])
                busy = float(np.dot(take, hours)) / o.throughput
                cap = self.availability * b.hours * slots[key]
                excess = max(busy - cap, 0.0)
                cost += energy * float(np.dot(take, hours)) - energy * o.throughput * excess
                cost += packed * o.throughput * excess if excess > 1e-9 else 0.0
                remaining = remaining - take
            need = np.ceil(remaining - 1e-9).astype(np.int64)
            if not self.cloud:
                if (need > 0).any():
                    return Evaluation(math.inf)
                continue
            if self.integer_instances:
                cover = sum(self.cover_cost(int(r)) * h for r, h in zip(need, hours, strict=True))
                cost += scenario.cloud_price * cover
            else:
                cost += packed * float(np.dot(np.maximum(remaining, 0.0), hours))
            if not math.isfinite(cost):
                return Evaluation(math.inf)
        return Evaluation(cost)

    def cost(self, purchase: Purchase, scenario: Scenario) -> float:
        return self.evaluate(purchase, scenario).cost


def _slots(option: OwnedOption, units: int, width: int) -> float:
    if option.includes_host or width == 1:
        return option.slots_per_unit * units
    return float(option.gpus_per_unit * units // width)
