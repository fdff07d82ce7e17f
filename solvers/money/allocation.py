"""A solution in model terms, and the waits it gives work that may wait.

In: a `MipSolution` (solvers.model.arrays), read as an `Allocation` (owned jobs, instances and packed hours per
cell); for the waits also the periods' arrivals, the options and the patience. Out: the `Allocation` the ledger
prices and the `Waits` (solvers.demand.waits) it reports."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from solvers.base.options import CloudOption, OwnedOption
from solvers.demand.blocks import Block
from solvers.demand.periods import Period
from solvers.demand.waits import Waits, fcfs_waits, on_hours, rented_in_batches, window_ids
from solvers.model.arrays import MipSolution
from solvers.model.purchases import Purchase


@dataclass
class Allocation:
    """A solution in model terms: per owned option jobs at once per cell, per cloud offer instances per cell,
    and the maintenance hours displaced to packed cloud hours per block (solvers.model.build)."""

    purchase: Purchase
    owned_jobs: dict[str, np.ndarray] = field(default_factory=dict)
    instances: dict[str, np.ndarray] = field(default_factory=dict)
    displaced: dict[str, np.ndarray] = field(default_factory=dict)
    packed_hours: dict[str, np.ndarray] = field(default_factory=dict)


def allocation_of(sol: MipSolution) -> Allocation:
    return Allocation(Purchase(sol.units, sol.hosts), sol.owned_jobs, sol.instances, sol.displaced, sol.packed_hours)


def capacities(alloc: Allocation, owned: dict[str, OwnedOption], width: int) -> dict[str, float]:
    """Each owned option's work an hour, in the arrivals' busy reference GPUs (slots x speed x job width)."""
    return {k: n * owned[k].slots_per_unit * owned[k].throughput * width
            for k, n in alloc.purchase.units.items()}


def rented_batch(alloc: Allocation, cloud: dict[str, CloudOption], width: int,
                 cell_hours: np.ndarray) -> tuple[float, float]:
    """The reference work one instance-hour of the plan's main rented offer does (its job slots x speed x the
    demand's job width, in the arrivals' busy reference GPUs): the batches its queued work is run in
    (`waits.rented_in_batches`); and the most the plan's rented offers do in one hour, each within its quota of
    instances at once (a marketplace listing is one machine), unlimited when one has none. Why every offer: a
    plan renting two listings of 4 GPUs can run 8 at once, and capped at the main one's 4 its replay queued
    work for months that the plan runs within the week (waits of 732 h reported for none over a day)."""
    hours: dict[str, float] = {}
    for key, inst in alloc.instances.items():  # instances per cell, over the cells' hours
        hours[key] = hours.get(key, 0.0) + float(np.dot(inst, cell_hours))
    for key, packed in alloc.packed_hours.items():
        hours[key] = hours.get(key, 0.0) + float(np.sum(packed))
    if not hours:
        return 0.0, math.inf
    c = cloud[max(hours, key=lambda k: (hours[k], k))]
    batch = float(c.slots) * c.speed * width
    rented = [cloud[k] for k, h in hours.items() if h > 1e-9]
    if any(r.max_instances is None for r in rented):
        return batch, math.inf
    return batch, sum(float(r.slots) * r.speed * width * float(r.max_instances or 0) for r in rented)


def allocation_waits(alloc: Allocation, periods: list[Period], blocks: list[Block],
                     owned_options: dict[str, OwnedOption],
                     cloud: dict[str, CloudOption], width: int, hours_on: float | None, patience: str,
                     cell_hours: np.ndarray) -> Waits:
    """Waits of work that may wait, first come first served in time order (solvers.demand.waits): arrivals as given;
    capacity the plan's owned GPUs (while on, when they are on h hours a day) and what it rents: the rented
    GPU-hours of each patience window (its average load above the owned GPUs, hour by hour) taken in whole
    instance-hours of the plan's main rented offer, within its quota, when the work queued beyond the owned GPUs
    fills one (`rented_in_batches`, `rented_batch`), and the packed cloud hours that do the work of machines while
    they are off, spread over the hours they are off."""
    if all(p.arrivals is None for p in periods):  # nothing waits (the plan serves every hour as it arrives)
        return Waits([0.0] * len(periods), [0.0] * len(periods))
    hours = [24 * p.days for p in periods]
    ends = np.cumsum(hours).tolist()
    bounds = list(zip([0, *ends[:-1]], ends, strict=True))
    arrivals = np.concatenate([np.zeros(h) if p.arrivals is None else p.arrivals
                               for p, h in zip(periods, hours, strict=True)])
    moved = np.concatenate([np.zeros(h) if p.moved is None else p.moved
                            for p, h in zip(periods, hours, strict=True)])
    capacity = capacities(alloc, owned_options, width)
    owned = sum(capacity.values())
    own = np.full(len(arrivals), float(owned))
    packed = np.zeros(len(arrivals))
    if hours_on is not None and hours_on < 24:
        on = on_hours(arrivals, hours_on)
        bought = sum(v for k, v in capacity.items() if not owned_options[k].is_commitment)
        own = bought * on + (owned - bought)  # commitments (cloud instances) serve every hour
        off = 1.0 - on
        for b, block in enumerate(blocks):
            work = sum(float(hours_b[b]) * cloud[key].packed_capacity * width
                       for key, hours_b in alloc.packed_hours.items())
            spans = [bounds[p] for p in block.periods]
            off_hours = sum(float(off[a:z].sum()) for a, z in spans)
            if work > 0 and off_hours > 0:
                for a, z in spans:
                    packed[a:z] += work * off[a:z] / off_hours
    windows = window_ids(patience, periods[0].start, bounds, len(arrivals))
    batch, most = rented_batch(alloc, cloud, width, cell_hours)
    rented = rented_in_batches(arrivals, own, np.maximum(moved - owned, 0.0), windows, batch, most)
    return fcfs_waits(arrivals, own + rented + packed, bounds, own)
