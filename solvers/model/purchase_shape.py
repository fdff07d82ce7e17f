"""A fixed purchase as the thresholds' evaluator prices it (`solvers.model.evaluate`): its figures read off its
options once, and what it costs whatever it runs. Why apart: the evaluator asks for a purchase's fixed cost at
every electricity rate and cloud price a threshold tries, and reading the options' figures each time cost more than
the sum itself.

In: the purchase's units and hosts, the owned options and hosts by key, the plan's weights. Out: a `Shape`, and its
fixed cost at a rate and cloud price; the evaluator's records of a purchase at a rate (`AtRate`) and of units at a
demand scale (`Operation`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from solvers.base.finance import Weights
from solvers.base.options import HostOption, OwnedOption, unit_cost_of
from solvers.model.purchases import Purchase

PLAIN, PRICED, COMMITTED = 0, 1, 2  # how a unit's fixed cost is computed (`fixed_cost`)


@dataclass(frozen=True)
class Shape:
    """A purchase as the evaluator prices it, read off its options once: per unit line (kind, count, net price, idle
    kWh per unit-hour, option), per host line (count, base cost, idle kWh per hour), the energy inputs of the units
    it has (key, count, kWh per GPU-hour, width, throughput, load per GPU), and whether it owns anything, holds a
    commitment, or names one at all (its fixed cost then moves with the cloud price)."""

    units: tuple[tuple[int, int, float, float, OwnedOption], ...]
    hosts: tuple[tuple[int, float, float], ...]
    energy: tuple[tuple[str, int, float, int, float, float], ...]
    owns: bool
    commits: bool
    varies: bool
    alone: tuple[tuple[str, int], ...]  # the units' (key, count) when there is at most one: their order at any rate


class Operation(NamedTuple):
    """The evaluator's figures of fixed units at one demand scale: rent at the listed prices, owned reference hours
    each unit type takes (in energy order), hours each moves to packed cloud hours and what packing them costs at
    the listed prices, and whether demand is left uncovered. (A named tuple: made some fifty times a plan, a frozen
    dataclass's construction cost more than the figures.)"""

    rent: float
    taken: list[float]
    moved: list[float]
    packed: float
    short: bool


@dataclass
class AtRate:
    """One purchase at one electricity rate: its fixed cost (None when it depends on the cloud price), its units in
    energy order (energy per job-hour, key, count) and their operation per demand scale."""

    fixed: float | None
    owned: list[tuple[float, str, int]]
    units: tuple[tuple[str, int], ...]
    operations: dict[float, object]


def shape_of(purchase: Purchase, owned: dict[str, OwnedOption], hosts: dict[str, HostOption],
             weights: Weights | None) -> Shape:
    units = []
    energy = []
    owns = commits = varies = False  # one pass over the units (what `any` over them said)
    for key, n in purchase.units.items():
        o = owned[key]
        if o.is_commitment:
            kind, varies, commits = COMMITTED, True, commits or n > 0
        else:
            kind, owns = PLAIN if weights is None and not o.opex_usd_per_unit_hour else PRICED, owns or n > 0
        units.append((kind, n, o.net_price_usd, o.idle_kwh_per_unit_hour, o))
        if n > 0:
            energy.append((key, n, o.marginal_kwh_per_gpu_hour, o.width, o.throughput, o.load_per_gpu))
    host_lines = [(n, hosts[name].host.base_cost_usd, hosts[name].idle_kwh_per_hour)
                  for name, n in purchase.hosts.items()]
    return Shape(tuple(units), tuple(host_lines), tuple(energy), owns, commits, varies,
                 tuple((key, n) for key, n, *_ in energy) if len(energy) <= 1 else ())


def fixed_cost(shape: Shape, rate: float, cloud_price: float, total_hours: float, weights: Weights | None) -> float:
    """What the purchase costs whatever it runs: units (net of resale, idle energy, opex; commitments at the cloud
    price) and hosts, and the fixed monthly cost of owning anything."""
    cost = 0.0
    w = weights
    for kind, n, net, idle, o in shape.units:
        if kind == PLAIN:
            cost += n * (net + idle * rate * total_hours)
        elif kind == COMMITTED:
            cost += n * unit_cost_of(o, rate, total_hours, w) * cloud_price
        else:
            cost += n * unit_cost_of(o, rate, total_hours, w)
    for n, base, idle in shape.hosts:
        if w is None:
            cost += n * (base + idle * rate * total_hours)
        else:
            cost += n * (base * w.capex + rate * idle * w.hours)
    if w is not None and w.fixed_owned_usd and shape.owns:
        cost += w.fixed_owned_usd
    return cost


def job_slots(option: OwnedOption, units: int, width: int) -> float:
    """Job slots `units` of the option give: bare cards for jobs wider than one GPU form whole jobs of `width`
    cards, each carrying `load_per_gpu` load units (1; always-on divisible load: its replica's share of the load,
    as the model's integer q_g job slots count it)."""
    if option.includes_host or width == 1:
        return option.slots_per_unit * units
    return float(option.gpus_per_unit * units // width) * option.load_per_gpu
