"""Cost of running fixed purchases, without the MIP: what makes the decision thresholds (hundreds of
evaluations) cheap.

With the purchases fixed, the owned job slots K are fixed, and the screening curve (solvers.model.layers) gives the
rent and the owned work of every block at that K; owned work goes to the cheapest-energy owned option first,
up to its available hours, and maintenance beyond idle hours to packed cloud hours, as in the MIP: cheapest per
job-hour first, a quota-limited offer (a marketplace listing) only for the instance-hours its whole rentals leave
in the block (the model's `_listing_hours`). One
difference, for speed: owned slots always take the jobs they can (the MIP leaves a job to a rented instance's
spare slot when that saves its energy), so one curve per demand scale and slot count serves every electricity
rate and cloud price the thresholds try; the difference is at most the owned energy of such hours.

Costs are on the plan's basis (issue 16, `solvers.base.finance.Weights`): with a discount rate, a unit costs what it
costs the model (`base.options.unit_cost_of`: price at present value, resale from the horizon's end, idle power and opex
over discounted hours), rent and owned energy take each block's discount factor, and fixed monthly costs apply
as in the model; without weights every figure is the nominal one, computed as before. Commitments are units too:
no energy, the provider's availability, their price scaled with the cloud's (`Scenario.cloud_price`).
"""

from __future__ import annotations

import math

import numpy as np

from solvers.base import defaults
from solvers.base.finance import Weights
from solvers.base.options import CloudOption, HostOption, OwnedOption, unit_cost_of
from solvers.demand.blocks import Block
from solvers.model.arrays import cells_of
from solvers.model.committed import fluid_cost, whole_jobs_cost
from solvers.model.layers import Cells, Curves, Layers, Renting, screening
from solvers.model.packing import Packing
from solvers.model.purchase_shape import AtRate as _AtRate
from solvers.model.purchase_shape import Operation as _Operation
from solvers.model.purchase_shape import Shape, fixed_cost, shape_of
from solvers.model.purchase_shape import job_slots as _slots
from solvers.model.purchases import Evaluation, Purchase, Scenario
from solvers.model.scaling import scaled_cells

_MISSING = object()
_sum, _max = np.add.reduce, np.maximum.reduce  # what ndarray.sum and .max call, without their Python wrapper


class Evaluator:
    """`scale_hours`: a demand multiple lengthens the busy hours (N GPUs at once for u of the hours) instead of
    raising the number of jobs at once. `width` is the demand's job width; each option runs jobs at its own."""

    def __init__(self, owned: list[OwnedOption], cloud: list[CloudOption], hosts: list[HostOption],
                 blocks: list[Block], availability: float, width: int = 1, integer_instances: bool = True,
                 scale_hours: bool = False, weights: Weights | None = None,
                 independent: tuple[float, float] | None = None) -> None:
        self.owned = {o.key: o for o in owned}
        self.cloud = cloud
        self.hosts = {h.host.name: h for h in hosts}
        self.blocks = blocks
        self.availability = availability
        self.width = width
        self.integer_instances = integer_instances
        self.scale_hours = scale_hours
        self.independent = independent  # (jobs, utilisation) of independent jobs: a multiple is their utilisation's
        self.total_hours = sum(b.hours for b in blocks)
        self._cells = cells_of(blocks)
        self._block_hours = np.array([b.hours for b in blocks])
        self._renting: Renting | None = None
        self._fluid_screens: dict[tuple[float, float], Layers] = {}  # work that may wait: per demand and capacity
        self._scaled: dict[float, tuple[Cells, int]] = {}
        self._operations: dict[tuple[tuple[tuple[str, int], ...], float], _Operation | None] = {}
        self._nothing: dict[tuple[float, float], float] = {}  # cloud-only cost per demand and cloud price
        self._prepared: dict[int, tuple[Purchase, Shape, dict[float, _AtRate]]] = {}  # by id(purchase)
        self._active: dict[float, np.ndarray] = {}  # `_active_at`, per demand scale
        self._capacities: dict[tuple[str, int], tuple[np.ndarray, np.ndarray]] = {}  # `_capacity`
        self._reaches: dict[tuple[int, str, int], tuple[np.ndarray, np.ndarray, np.ndarray]] = {}  # `_reach`
        # per units: their slots per option, whole slots in all, capacities (`_operation`)
        self._unit_figures: dict[tuple[tuple[str, int], ...],
                                 tuple[dict[str, float], int, list[tuple[np.ndarray, np.ndarray]]]] = {}
        self.weights = weights
        self._block_weight = (None if weights is None or (weights.nominal and (weights.block == 1.0).all())
                              else weights.block)  # as the model's screening takes it
        self._packer = Packing(cloud, self._block_hours, self._block_weight)
        self._curves = Curves(len(blocks), self._block_weight)

    def _availability(self, option: OwnedOption) -> float:
        return option.available(self.availability)

    def fixed_cost(self, purchase: Purchase, scenario: Scenario) -> float:
        """What the purchase costs whatever it runs: units (net of resale, idle energy, opex; commitments at the
        scenario's cloud price) and hosts, and the fixed monthly cost of owning anything."""
        return self._fixed(self._prepared_for(purchase)[0], scenario.usd_per_kwh, scenario.cloud_price)

    def _fixed(self, shape: Shape, rate: float, cloud_price: float) -> float:
        return fixed_cost(shape, rate, cloud_price, self.total_hours, self.weights)

    def _renting_for(self, peak: int) -> Renting:
        if self._renting is None or (self._renting.table is not None
                                     and self._renting.table.size < min(peak, defaults.MAX_COVER_TABLE)):
            self._renting = Renting(self.cloud, max(peak, 1), self.integer_instances)
        return self._renting

    def _cells_at(self, scale: float) -> tuple[Cells, int]:
        found = self._scaled.get(scale)
        if found is None:
            cells = scaled_cells(self._cells, self._block_hours, scale, self.integer_instances, self.independent,
                                 self.scale_hours)
            found = (cells, math.ceil(float(_max(cells.jobs, initial=0.0)) - 1e-9))
            self._scaled[scale] = found
        return found

    def _operation(self, units: tuple[tuple[str, int], ...], demand: float) -> _Operation | None:
        """What running these units (cheapest energy first) leaves to rent and to packed hours at one demand
        scale: the same for every electricity rate and cloud price that keeps the energy order, so the thresholds'
        searches (hundreds of evaluations a plan) compute it once per purchase and demand. None: the rent is
        infinite (the quotas cannot cover the demand)."""
        found = self._operations.get((units, demand), _MISSING)
        if found is not _MISSING:
            return found  # type: ignore[return-value]
        cells, peak = self._cells_at(demand)
        if not units:  # cloud only: the curve at no owned slot is its rent alone
            rented = self._rent_only(cells, peak)
            self._operations[(units, demand)] = rented
            return rented
        figures = self._unit_figures.get(units)
        if figures is None:  # the same at every demand scale
            slots = {k: _slots(self.owned[k], n, self.owned[k].width) for k, n in units}
            figures = self._unit_figures[units] = (slots, math.floor(sum(slots.values()) + 1e-9),
                                                   [self._capacity(key, n, slots[key]) for key, n in units])
        slots, slot_count, caps = figures
        if not self.integer_instances:  # work that may wait: fluid, each slot carries its speed (`model.arrays.credit`)
            return self._fluid_operation(units, slots, demand, cells)
        max_slots = min(peak, slot_count)
        screen_key = (demand, max_slots)
        layers = self._screen(demand, cells, peak, max_slots)
        operation: _Operation | None = None
        if math.isfinite(float(layers.rent[-1])):
            active = self._active_at(demand, cells)
            # every owned slot at work, unless that leaves work nowhere to go: a listing rented whole for the jobs
            # the slots leave may have no hours to absorb their maintenance, where fewer slots at work (the
            # model's slot binaries left off) free it; the most slots that can run is then the operation
            for column in range(len(layers.ks) - 1, -1, -1):
                if not math.isfinite(float(layers.rent[column])):
                    break
                candidate = self._run(units, slots, caps, active, cells, layers, column, screen_key)
                if operation is None:
                    operation = candidate
                if not candidate.short:
                    operation = candidate
                    break
        self._operations[(units, demand)] = operation
        return operation

    def _rent_only(self, cells: Cells, peak: int) -> _Operation | None:
        """Cloud only's operation: every cell rented, the screening curve's column at no owned slot (the same
        products and sum), without the curve. Why: the demand threshold's search asks cloud only at every multiple
        it tries, and a one-column curve costs several times this."""
        rent = self._renting_for(peak if self.integer_instances else 1).price(cells.jobs) * cells.hours
        if self._block_weight is not None:
            rent = rent * self._block_weight[cells.block]
        total = float(rent.sum())
        return _Operation(total, [], [], 0.0, False) if math.isfinite(total) else None

    def _fluid_operation(self, units: tuple[tuple[str, int], ...], slots: dict[str, float], demand: float,
                         cells: Cells) -> _Operation | None:
        """Fixed units on work that may wait (`solvers.model.fluid`): each cell's owned work min(level, C) at the owned
        capacity C (slots x speed), the rest packed at its price, cheapest first; kept per purchase and demand by
        `_operation`."""
        capacity = sum(slots[k] * self.owned[k].throughput for k, _ in units)
        layers = self._fluid_screens.get((demand, capacity))
        if layers is None:
            layers = self._fluid_screens[(demand, capacity)] = screening(
                cells, len(self.blocks), self._renting_for(1), 0.0, np.array([0.0, capacity]), self._block_weight)
        for column in (1, 0):
            if math.isfinite(float(layers.rent[column])):
                caps = [self._capacity(k, n, slots[k]) for k, n in units]
                found = self._run(units, slots, caps, self._active_at(demand, cells), cells, layers, column, None)
                if not found.short or column == 0:
                    self._operations[(units, demand)] = found
                    return found
        self._operations[(units, demand)] = None
        return None

    def _screen(self, demand: float, cells: Cells, peak: int, max_slots: int) -> Layers:
        """The screening curve at a demand scale up to `max_slots` owned slots (`layers.Curves`)."""
        return self._curves.at(demand, cells, peak, max_slots, self._renting_for)

    def _run(self, units: tuple[tuple[str, int], ...], slots: dict[str, float],
             caps: list[tuple[np.ndarray, np.ndarray]], active: np.ndarray, cells: Cells, layers: Layers,
             column: int, screen: tuple[float, int] | None) -> _Operation:
        """The operation with layers.ks[column] owned slots at work: the curve's rent there, owned work to the
        cheapest energy first up to each option's available hours, maintenance beyond idle hours packed."""
        bw = self._block_weight
        work = layers.owned_hours[:, column]
        taken = []
        held = []  # what each option's slots can still hold in the block's active hours (slots.active_hours_rows)
        for (key, n), (available, _) in zip(units, caps, strict=True):  # cheapest energy first, up to each
            reach, limit = self._reach(key, n, slots[key], active, available)  # option's available hours
            take = np.minimum(work, limit)
            taken.append(float(_sum(take) if bw is None else _sum(take * bw)))
            held.append(reach - take)
            work = work - take
        moved = []
        packing = None  # no hours moved yet (each take is at least +0.0: the sum from zeros is the first take)
        for (_, maintained), room in zip(caps, held, strict=True):  # maintenance hours beyond idle hours (and a
            take = np.minimum(work, np.minimum(maintained, room))  # slower card's overrun): packed cloud hours
            moved.append(float(_sum(take) if bw is None else _sum(take * bw)))
            packing = take if packing is None else packing + take
            work = work - take
        packed = (self.packing_usd(packing, cells, layers, screen, column)
                  if packing is not None and _max(packing, initial=0.0) > 1e-9 else 0.0)
        return _Operation(float(layers.rent[column]), taken, moved, packed,
                          float(_max(work, initial=0.0)) > 1e-6 or not math.isfinite(packed))

    def _reach(self, key: str, units: int, slots: float, active: np.ndarray,
               available: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """What `units` of an option's slots can run in the blocks' active hours, and that within their available
        hours: the same for every purchase and column at a demand scale (`active` is kept per scale, so its
        identity keys it)."""
        found = self._reaches.get((id(active), key, units))
        if found is None or found[0] is not active:
            reach = active * slots
            credit = self._credit(self.owned[key])
            if credit != 1.0:  # x 1.0 is the same float
                reach = reach * credit
            found = self._reaches[(id(active), key, units)] = (active, reach, np.minimum(available, reach))
        return found[1], found[2]

    def packing_usd(self, work: np.ndarray, cells: Cells, layers: Layers,
                    screen: tuple[float, int] | None = None, column: int = -1) -> float:
        """Packed cloud hours for `work` at the listed prices within the quotas (`Packing.usd`)."""
        return self._packer.usd(work, cells, layers, self._renting_for, screen, column)

    def _active_at(self, demand: float, cells: Cells) -> np.ndarray:
        """Hours of each block that have jobs at this demand scale: a slot runs one job at a time, only then (the
        model's `active_hours_rows`). Kept per demand scale (every purchase tried at it asks)."""
        found = self._active.get(demand)
        if found is None:
            found = self._active[demand] = np.bincount(cells.block, weights=np.where(cells.jobs > 1e-9, cells.hours,
                                                                                     0.0), minlength=len(self.blocks))
        return found

    def _capacity(self, key: str, units: int, slots: float) -> tuple[np.ndarray, np.ndarray]:
        """Per block, the reference hours `units` of an option can work (its availability) and the maintenance hours
        it moves to packed cloud hours: the same at every demand scale, so kept per option and count."""
        found = self._capacities.get((key, units))
        if found is None:
            o = self.owned[key]
            available = self._availability(o)
            maintained = (1 - available) * self._block_hours * slots * o.throughput
            if self.integer_instances and o.throughput < 1.0:  # a slower card's overrun beyond its idle hours
                maintained = maintained + (1 - o.throughput) * self._block_hours * slots  # (slots.overrun_share)
            found = self._capacities[(key, units)] = (available * self._block_hours * slots * o.throughput,
                                                      maintained)
        return found

    def _credit(self, option: OwnedOption) -> float:
        """Reference jobs at once one of the option's job slots carries (`model.arrays.credit`)."""
        return option.throughput if not self.integer_instances else 1.0

    def evaluate(self, purchase: Purchase, scenario: Scenario) -> Evaluation:
        """Cheapest operation of `purchase` in `scenario`; infinite cost if demand cannot be met."""
        return Evaluation(self.cost(purchase, scenario))

    def cost(self, purchase: Purchase, scenario: Scenario) -> float:
        """`evaluate(...).cost`, the figure the thresholds' searches ask for some hundred times a plan; cloud
        only is kept per demand and cloud price (it does not depend on the electricity rate)."""
        if not purchase.units and not purchase.hosts:  # cloud only: the same for every electricity rate
            key = (scenario.demand, scenario.cloud_price)
            found = self._nothing.get(key)
            if found is None:
                found = self._nothing[key] = self._cost(purchase, scenario)
            return found
        return self._cost(purchase, scenario)

    def cost_or_bound(self, purchase: Purchase, scenario: Scenario, bar: float) -> float:
        """`cost(purchase, scenario)`, or what the purchase costs to hold when that alone reaches `bar` (a lower bound
        at or above it: rent, energy and packed hours only add to it), without running the purchase. Why: the
        demand threshold's search asks of every candidate at each new multiple, and at small ones a plan's purchase
        costs more than cloud only before it runs an hour; each run is a screening curve of its own."""
        if not purchase.units and not purchase.hosts:
            return self.cost(purchase, scenario)
        shape, at_rate = self._at_rate(purchase, scenario.usd_per_kwh)
        fixed = self._fixed_at(shape, at_rate, scenario)
        return fixed if fixed >= bar else self._run_cost(shape, at_rate, scenario, fixed)

    def costs(self, purchases: list[Purchase], scenario: Scenario) -> list[float]:
        """`cost(p, scenario)` of each purchase, in order: the same answers, without a call each for the purchases
        held at the scenario's rate (the thresholds' cost lines ask every candidate at a few scenarios)."""
        found = []
        rate, prepared = scenario.usd_per_kwh, self._prepared
        for p in purchases:
            entry = prepared.get(id(p))
            at_rate = entry[2].get(rate) if entry is not None and entry[0] is p and (p.units or p.hosts) else None
            if entry is None or at_rate is None:
                found.append(self.cost(p, scenario))
            else:
                fixed = at_rate.fixed
                if fixed is None:
                    fixed = self._fixed(entry[1], rate, scenario.cloud_price)
                found.append(self._run_cost(entry[1], at_rate, scenario, fixed))
        return found

    def least_cost(self, purchases: list[Purchase], scenario: Scenario, bar: float) -> float:
        """The least of `cost_or_bound(p, scenario, min(bar, least so far))` over the purchases, in order (the
        thresholds' margin, `thresholds._margin`): the same calls' answers, in one loop without a call per purchase
        for the ones held at their rate."""
        least = math.inf
        rate, prepared = scenario.usd_per_kwh, self._prepared
        for p in purchases:
            cap = bar if not least < bar else least  # min(bar, least)
            entry = prepared.get(id(p))
            at_rate = entry[2].get(rate) if entry is not None and entry[0] is p and (p.units or p.hosts) else None
            if entry is None or at_rate is None:
                cost = self.cost_or_bound(p, scenario, cap)
            else:  # `cost_or_bound` of a purchase held at this rate
                fixed = at_rate.fixed
                if fixed is None:
                    fixed = self._fixed(entry[1], rate, scenario.cloud_price)
                cost = fixed if fixed >= cap else self._run_cost(entry[1], at_rate, scenario, fixed)
            if cost < least:
                least = cost
        return least

    def _fixed_at(self, shape: Shape, at_rate: _AtRate, scenario: Scenario) -> float:
        """The fixed cost kept at the purchase's rate, or computed when it moves with the cloud price."""
        return (at_rate.fixed if at_rate.fixed is not None
                else self._fixed(shape, scenario.usd_per_kwh, scenario.cloud_price))

    def _cost(self, purchase: Purchase, scenario: Scenario) -> float:
        shape, at_rate = self._at_rate(purchase, scenario.usd_per_kwh)
        return self._run_cost(shape, at_rate, scenario, self._fixed_at(shape, at_rate, scenario))

    def _run_cost(self, shape: Shape, at_rate: _AtRate, scenario: Scenario, fixed: float) -> float:
        """`fixed` plus the operation's rent, owned energy and packed hours at the scenario's demand: apart from `_cost`
        so that `cost_or_bound`, which has read the purchase at its rate for the bound, does not read it again."""
        cost = fixed
        operation = at_rate.operations.get(scenario.demand, _MISSING)
        if operation is _MISSING:
            operation = at_rate.operations[scenario.demand] = self._operation(at_rate.units, scenario.demand)
        if operation is None:
            return math.inf
        assert isinstance(operation, _Operation)
        cost += scenario.cloud_price * operation.rent
        for (energy, _, _), taken in zip(at_rate.owned, operation.taken, strict=True):
            cost += energy * taken
        if operation.packed:
            cost += scenario.cloud_price * operation.packed
        if operation.short or not math.isfinite(cost):
            return math.inf
        w = self.weights
        if w is not None and w.fixed_cloud_usd and (
                operation.rent > 0 or any(m > 1e-9 for m in operation.moved) or shape.commits):
            cost += w.fixed_cloud_usd
        return cost

    def _prepared_for(self, purchase: Purchase) -> tuple[Shape, dict[float, _AtRate]]:
        """A purchase's shape and its figures per electricity rate, kept by identity (the thresholds' candidates
        live as long as the evaluator's searches; the entry keeps the purchase, so its id is not reused)."""
        entry = self._prepared.get(id(purchase))
        if entry is None or entry[0] is not purchase:
            shape = shape_of(purchase, self.owned, self.hosts, self.weights)
            entry = self._prepared[id(purchase)] = (purchase, shape, {})
        return entry[1], entry[2]

    def _at_rate(self, purchase: Purchase, rate: float) -> tuple[Shape, _AtRate]:
        """What `_cost` needs of a purchase at one electricity rate. Why: the demand and cloud-price searches ask
        for the same purchases at the same rate some hundred times a plan, and each asked again for the fixed
        cost, the energy order and its operation's key; the figures are the same floats, computed once (the
        energy per job-hour as `OwnedOption.usd_per_job_hour` computes it)."""
        shape, rates = self._prepared_for(purchase)
        found = rates.get(rate)
        if found is None:
            # (energy, key) order: keys are unique within a purchase, so the tuples' own order never reaches n
            owned = sorted([(rate * m * width / throughput / load, k, n)
                            for k, n, m, width, throughput, load in shape.energy])
            # with a commitment (even none of it) the fixed cost moves with the cloud price: computed every time
            fixed = None if shape.varies else self._fixed(shape, rate, 1.0)
            units = shape.alone if len(owned) <= 1 else tuple([(k, n) for _, k, n in owned])
            # only the first rate a purchase is asked at is kept (the profile's: the single units' ranking, the
            # demand and cloud-price searches); the electricity search asks each of its rates once, and shares
            # the kept rate's operations while the energy order is the same (an operation depends on it and the
            # demand scale only)
            kept = next(iter(rates.values()), None)
            if kept is None:
                found = rates[rate] = _AtRate(fixed, owned, units, {})
            else:
                found = _AtRate(fixed, owned, units, kept.operations if units == kept.units else {})
        return shape, found

    def committed_cloud(self, key: str, scenario: Scenario) -> float:
        """Cheapest cost of doing the work with n instances of one commitment (n = 0, 1, ...) and renting the
        rest, without buying: what the work costs on the cloud side when that commitment's count may follow the
        scenario (more demand, more instances). Reads one screening curve at the peak (`solvers.model.committed`)."""
        o = self.owned[key]
        if o.slots_per_unit <= 0 or (self.integer_instances and o.throughput < 1.0 - 1e-9):
            return math.inf  # slower than the reference: not a slot a job that may not wait fills
        cells, peak = self._cells_at(scenario.demand)
        price = unit_cost_of(o, scenario.usd_per_kwh, self.total_hours, self.weights) * scenario.cloud_price
        fixed = self.weights.fixed_cloud_usd if self.weights is not None else 0.0
        if not self.integer_instances:  # fluid: n instances carry n x slots x speed jobs of each window's average
            return fluid_cost(o, cells, len(self.blocks), self._renting_for(1), self._block_weight, price,
                              scenario.cloud_price, fixed)
        return whole_jobs_cost(o, self._screen(scenario.demand, cells, peak, peak), peak, price,
                               scenario.cloud_price, fixed)

