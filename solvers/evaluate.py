"""Cost of running fixed purchases, without the MIP: what makes the decision thresholds (hundreds of
evaluations) cheap.

With the purchases fixed, the owned job slots K are fixed, and the screening curve (solvers.layers) gives the
rent and the owned work of every block at that K; owned work goes to the cheapest-energy owned option first,
up to its available hours, and maintenance beyond idle hours to packed cloud hours, as in the MIP. One
difference, for speed: owned slots always take the jobs they can (the MIP leaves a job to a rented instance's
spare slot when that saves its energy), so one curve per demand scale and slot count serves every electricity
rate and cloud price the thresholds try; the difference is at most the owned energy of such hours.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from solvers import defaults
from solvers.blocks import Block
from solvers.layers import Cells, Layers, Renting, screening, slot_grid
from solvers.model import cells_of
from solvers.options import CloudOption, HostOption, OwnedOption


@dataclass(frozen=True)
class Purchase:
    units: dict[str, int] = field(default_factory=dict)   # owned option key -> units
    hosts: dict[str, int] = field(default_factory=dict)   # host name -> count (two hosts may share a size)

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


@dataclass(frozen=True)
class _Operation:
    """Fixed units at one demand scale: rent at the listed prices, owned reference hours each unit type takes (in
    energy order), hours each moves to packed cloud hours, and whether demand is left uncovered."""

    rent: float
    taken: list[float]
    moved: list[float]
    short: bool


_MISSING = object()


class Evaluator:
    """`scale_hours`: a demand multiple lengthens the busy hours (N GPUs at once for u of the hours) instead of
    raising the number of jobs at once."""

    def __init__(self, owned: list[OwnedOption], cloud: list[CloudOption], hosts: list[HostOption],
                 blocks: list[Block], availability: float, width: int = 1, integer_instances: bool = True,
                 scale_hours: bool = False) -> None:
        self.owned = {o.key: o for o in owned}
        self.cloud = cloud
        self.hosts = {h.host.name: h for h in hosts}
        self.blocks = blocks
        self.availability = availability
        self.width = width
        self.integer_instances = integer_instances
        self.scale_hours = scale_hours
        self.total_hours = sum(b.hours for b in blocks)
        self._cells = cells_of(blocks)
        self._block_hours = np.array([b.hours for b in blocks])
        self._renting: Renting | None = None
        self._screens: dict[tuple[float, int], Layers] = {}
        self._scaled: dict[float, tuple[Cells, int]] = {}
        self._operations: dict[tuple[tuple[tuple[str, int], ...], float], _Operation | None] = {}
        self._nothing: dict[tuple[float, float], float] = {}  # cloud-only cost per demand and cloud price
        # cheapest price per job-hour of a fully used instance (maintenance cover)
        self._packed = min((c.usd_per_job_hour / c.slots for c in cloud), default=math.inf)

    def fixed_cost(self, purchase: Purchase, scenario: Scenario) -> float:
        cost = 0.0
        for key, n in purchase.units.items():
            o = self.owned[key]
            cost += n * (o.net_price_usd + o.idle_kwh_per_unit_hour * scenario.usd_per_kwh * self.total_hours)
        for name, n in purchase.hosts.items():
            h = self.hosts[name]
            cost += n * (h.host.base_cost_usd + h.idle_kwh_per_hour * scenario.usd_per_kwh * self.total_hours)
        return cost

    def _scaled_cells(self, scale: float) -> Cells:
        c = self._cells
        if not self.scale_hours:
            return Cells(c.block, c.jobs * scale, c.hours)
        hours = c.hours * scale
        busy = np.bincount(c.block, weights=hours, minlength=len(self.blocks))
        over = np.maximum(busy / self._block_hours, 1.0)[c.block]  # more than every hour: more jobs at once
        return Cells(c.block, c.jobs * over, hours / over)

    def _renting_for(self, peak: int) -> Renting:
        if self._renting is None or (self._renting.table is not None
                                     and self._renting.table.size < min(peak, defaults.MAX_COVER_TABLE)):
            self._renting = Renting(self.cloud, max(peak, 1), self.integer_instances)
        return self._renting

    def _cells_at(self, scale: float) -> tuple[Cells, int]:
        found = self._scaled.get(scale)
        if found is None:
            cells = self._scaled_cells(scale)
            found = (cells, math.ceil(float(cells.jobs.max(initial=0.0)) - 1e-9))
            self._scaled[scale] = found
        return found

    def _operation(self, units: tuple[tuple[str, int], ...], demand: float) -> _Operation | None:
        """What running these units (cheapest energy first) leaves to rent and to packed hours at one demand
        scale: the same for every electricity rate and cloud price that keeps the energy order, so the thresholds'
        bisections (hundreds of evaluations a plan) compute it once per purchase and demand. None: the rent is
        infinite (the quotas cannot cover the demand)."""
        found = self._operations.get((units, demand), _MISSING)
        if found is not _MISSING:
            return found  # type: ignore[return-value]
        slots = {k: _slots(self.owned[k], n, self.width) for k, n in units}
        cells, peak = self._cells_at(demand)
        max_slots = min(peak, math.floor(sum(slots.values()) + 1e-9))
        screen_key = (demand, max_slots)
        layers = self._screens.get(screen_key)
        if layers is None:
            layers = screening(cells, len(self.blocks), self._renting_for(peak), 0.0, slot_grid(max_slots))
            self._screens[screen_key] = layers
        rent = float(layers.rent[-1])
        operation: _Operation | None = None
        if math.isfinite(rent):
            work = layers.owned_hours[:, -1]
            taken = []
            for key, _ in units:  # cheapest energy first, up to each option's available hours
                o = self.owned[key]
                take = np.minimum(work, self.availability * self._block_hours * slots[key] * o.throughput)
                taken.append(float(take.sum()))
                work = work - take
            moved = []
            for key, _ in units:  # maintenance hours beyond idle hours: packed cloud hours
                o = self.owned[key]
                take = np.minimum(work, (1 - self.availability) * self._block_hours * slots[key] * o.throughput)
                moved.append(float(take.sum()))
                work = work - take
            operation = _Operation(rent, taken, moved, float(work.max(initial=0.0)) > 1e-6)
        self._operations[(units, demand)] = operation
        return operation

    def evaluate(self, purchase: Purchase, scenario: Scenario) -> Evaluation:
        """Cheapest operation of `purchase` in `scenario`; infinite cost if demand cannot be met."""
        return Evaluation(self.cost(purchase, scenario))

    def cost(self, purchase: Purchase, scenario: Scenario) -> float:
        """`evaluate(...).cost`, the figure the thresholds' bisections ask for some hundred times a plan: written
        out in one function (same operations in the same order as `fixed_cost` and the operation's cost)."""
        if not purchase.units and not purchase.hosts:  # cloud only: the same for every electricity rate
            key = (scenario.demand, scenario.cloud_price)
            found = self._nothing.get(key)
            if found is None:
                found = self._nothing[key] = self._cost(purchase, scenario)
            return found
        return self._cost(purchase, scenario)

    def _cost(self, purchase: Purchase, scenario: Scenario) -> float:
        rate = scenario.usd_per_kwh
        width, options, total_hours = self.width, self.owned, self.total_hours
        cost = 0.0  # `fixed_cost`, written out
        owned = []
        for key, n in purchase.units.items():
            o = options[key]
            cost += n * (o.net_price_usd + o.idle_kwh_per_unit_hour * rate * total_hours)
            if n > 0:
                owned.append((o.usd_per_job_hour(rate, width), key, n))
        for name, n in purchase.hosts.items():
            h = self.hosts[name]
            cost += n * (h.host.base_cost_usd + h.idle_kwh_per_hour * rate * total_hours)
        # (energy, key, units) tuples sort by energy then key: keys are unique, so units never decide
        owned.sort()
        operation = self._operation(tuple([(k, n) for _, k, n in owned]), scenario.demand)
        if operation is None:
            return math.inf
        cost += scenario.cloud_price * operation.rent
        for (energy, _, _), taken in zip(owned, operation.taken, strict=True):
            cost += energy * taken
        for moved in operation.moved:
            if moved > 1e-9:
                cost += self._packed * scenario.cloud_price * moved
        if operation.short or not math.isfinite(cost):
            return math.inf
        return cost


def _slots(option: OwnedOption, units: int, width: int) -> float:
    if option.includes_host or width == 1:
        return option.slots_per_unit * units
    return float(option.gpus_per_unit * units // width)
