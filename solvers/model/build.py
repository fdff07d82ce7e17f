"""The mixed-integer planning model (docs/ARCHITECTURE.md, "The planning model"), built straight into HiGHS
from arrays: build (here, with the rows of solvers.model.slots and solvers.model.rows), solve and read out
(solvers.model.solve) as separate steps.

Demand comes as load-duration curves (solvers.demand.periods): in each block b, level l has n jobs at once for H hours.
The screening curve (solvers.model.layers) has already priced, for every number K of owned job slots, the rent of
whole instances for the jobs above the owned ones at every level, R(K), and the owned job-hours per block,
W_b(K). Variables (one numpy range each):
- u_g   units bought of owned option g (integer); m_k host machines of kind k (integer);
- q_g   job slots of bare option g (integer, only for jobs wider than one GPU: whole jobs per card set);
- a_gk  bare option g's cards (one-GPU jobs, continuous) or jobs (integer) placed in hosts of kind k, each host
        within its slots and its own PSU (`host_rows`);
- mu_j  at least ks[j] owned job slots (binary, unary: mu_j <= mu_(j-1)); the objective adds R's steps;
- w_gb  owned job-hours of option g in block b (continuous): together at least sum_j W_b steps x mu_j;
- d_gb  owned slot-hours displaced by maintenance (availability < 1, at most the hours g is busy) and y_ob packed
        cloud hours that absorb them (work displaced by maintenance waits for it).
Each constraint family is one function below; they append rows in bulk (coordinate arrays). Commitments
(issue 16) fit the same shape: integer counts of committed slots that add to the owned slots of `owned_slot_rows`
at a cost per hour of the term.

Every option runs jobs at its own width (`OwnedOption.width`, `CloudOption.width`: jobs.gpus_per_job in the class
form, its GPU type's own widths in the workload form); a job never spans two options, so never two GPU types.
Copies of one offer at several widths share its quota (`shared_quota_rows`).

Costs: purchases net of resale, hosts, idle energy while the machine is on, energy per owned job-hour
(the option's `width` GPUs busy 1 / throughput hours per hour of reference work), rent from the screening curve.
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np

from solvers.base.options import CloudOption, HostOption, OwnedOption, unit_cost_of
from solvers.demand.blocks import Block
from solvers.model.arrays import (
    INF,
    Limits,
    Model,
    cells_of,
    credit,
    first_highs_quietly,
    unit_bounds,
)
from solvers.model.builder import Builder
from solvers.model.fluid import fluid_columns, fluid_uses_cloud
from solvers.model.layers import Renting, screening, slot_grid
from solvers.model.rows import host_capacity, host_rows, host_spend_rows, limit_rows, shared_quota_rows
from solvers.model.slots import (
    active_hours_rows,
    availability_rows,
    displaced_work_rows,
    maintenance_in_idle_hours,
    overrun_share,
    owned_slot_rows,
    owned_work_rows,
    packing_offers,
    slot_columns,
)
from solvers.model.start import single_option_start

first_highs_quietly()


def cheapest_owned_energy(owned: list[OwnedOption], limits: Limits) -> float:
    """Energy per owned job-hour of the cheapest owned option: how the screening curve splits owned and rented."""
    return min((o.usd_per_job_hour(limits.usd_per_kwh) for o in owned), default=0.0)


def build(owned: list[OwnedOption], cloud: list[CloudOption], hosts: list[HostOption], blocks: list[Block],
          limits: Limits, objective: Literal["cost", "capex", "gpus"] = "cost", *,
          bounds: dict[str, int] | None = None, reduce: bool = True) -> Model:
    """Columns, then one function per constraint family. Work that may wait (`Limits.integer_instances` False) is
    fluid within its windows and planned per cell (`solvers.model.fluid`) instead of on the screening curve's steps.

    `bounds` (units per option) and `reduce` False: the model of one future of a stochastic plan
    (`solvers.uncertainty`), whose purchase columns every future shares, so no future may bound them by its own
    demand or leave out an option its own prices dominate."""
    fluid = not limits.integer_instances
    if bounds is None:
        bounds = unit_bounds(owned, blocks, limits)
    owned = [o for o in owned if bounds[o.key] > 0]
    cells = cells_of(blocks)
    total_hours = sum(b.hours for b in blocks)
    block_hours = np.array([b.hours for b in blocks])
    rate = limits.usd_per_kwh
    bld = Builder()
    cost_on = objective == "cost"

    peak = math.ceil(float(cells.jobs.max(initial=0.0)) - 1e-9)
    renting = Renting(cloud, peak, limits.integer_instances)
    owned_capacity = sum(bounds[o.key] * o.slots_per_unit * credit(o, fluid) for o in owned)
    weights = limits.weights
    block_weight = None if weights is None or (weights.nominal and (weights.block == 1.0).all()) else weights.block
    # fluid: the curve only at K = 0 (cloud only reads it, `rent_only`); the cells' columns do the rest
    layers = screening(cells, len(blocks), renting, cheapest_owned_energy(owned, limits),
                       np.zeros(1, dtype=np.int64) if fluid else slot_grid(peak), block_weight)
    every = owned  # the host bounds below count every option, so a pruned model keeps the same bounds
    # maintenance (availability < 1) or a machine off some hours (machine_on hours a day: its option's own
    # availability) moves work to packed cloud hours
    # and work on a card slower than the reference that may not wait overruns its job's hours (`overrun_share`)
    displaces = bool(owned and cloud and (any(o.available(limits.availability) < 1.0 for o in owned)
                                          or overrun_share(owned, fluid).any()))
    never_pays = not displaces or displacement_never_pays(owned, cloud, limits)
    capacity = every_capacity = host_capacity(owned, hosts)
    if cost_on and never_pays and reduce:
        kept = undominated(owned, hosts, blocks, limits, block_weight, capacity=capacity)
        if len(kept) < len(owned):
            place = {id(o): g for g, o in enumerate(owned)}
            capacity = capacity[[place[id(o)] for o in kept]]
        owned = kept
    credits = np.array([credit(o, fluid) for o in owned])
    ks = layers.ks
    # most grid steps the owned slots reach
    max_step = 0 if fluid else int(np.searchsorted(ks, math.floor(owned_capacity + 1e-9), side="right")) - 1

    unit_cost = np.array([unit_cost_of(o, rate, total_hours, weights) for o in owned])
    if objective == "capex":  # commitments are not capex
        unit_cost = np.array([0.0 if o.is_commitment else o.unit_price_usd for o in owned])
    elif objective == "gpus":
        unit_cost = np.array([0.0 if o.is_commitment else float(o.gpus_per_unit) for o in owned])
    u = bld.add_cols(unit_cost, np.array([bounds[o.key] for o in owned], dtype=float), True)
    bare = [i for i, o in enumerate(owned) if not o.includes_host]
    m = np.zeros(0, dtype=np.int64)
    if bare:
        max_gpus = sum(o.gpus_per_unit * bounds[o.key] for o in every if not o.includes_host)
        host_hours = total_hours if weights is None else weights.hours
        host_capex = 1.0 if weights is None else weights.capex
        host_cost = np.array([
            (h.host.base_cost_usd * host_capex + rate * h.idle_kwh_per_hour * host_hours) if cost_on
            else (h.host.base_cost_usd if objective == "capex" else 0.0) for h in hosts])
        fewest = _fewest_cards(every, every_capacity)
        m = bld.add_cols(host_cost, np.array([math.ceil(max_gpus / max(n, 1)) for n in fewest], dtype=float), True)
    slots = slot_columns(bld, owned, bare, u, bounds)

    # mu_j for grid steps j = 1..: at least ks[j] owned capacity; forced up to the fewest with a finite rent
    last = len(ks) - 1
    feasible = layers.required <= last
    n_mu = 0 if fluid else (max(layers.required, max_step) if feasible else last)
    rent = layers.rent
    steps = np.zeros(n_mu)
    base = float(rent[layers.required]) if feasible and not fluid else 0.0
    if layers.required < n_mu:  # steps[j - 1] = rent[j] - rent[j - 1] for j = required + 1..n_mu
        steps[layers.required:] = rent[layers.required + 1: n_mu + 1] - rent[layers.required: n_mu]
    mu = bld.add_cols(steps if cost_on else np.zeros(n_mu), 1.0, True)
    lower = np.zeros(n_mu)
    lower[: min(layers.required, n_mu)] = 1.0
    bld.lower[-1] = lower
    if not feasible and not fluid:  # the quotas cannot cover the peak even with every job owned: no plan
        bld.add_rows(np.zeros(0), np.zeros(0), np.zeros(0), np.array([1.0]), np.array([INF]))

    energy = np.array([o.usd_per_job_hour(rate) for o in owned])
    n_blocks = len(blocks)
    per_block = np.ones(n_blocks) if block_weight is None else block_weight
    # a[:, None] * b[None, :] is np.outer(a, b) without its Python layer
    w = bld.add_cols((energy[:, None] * per_block[None, :]).reshape(-1) if cost_on
                     else np.zeros(len(owned) * n_blocks), INF, False).reshape(len(owned), n_blocks)
    d = y = np.zeros((0, n_blocks), dtype=np.int64)
    idle_enough = np.zeros((len(owned), n_blocks), dtype=bool)
    if displaces and owned:
        d_cost = (-np.array([o.marginal_kwh_per_gpu_hour * rate * o.width / o.load_per_gpu for o in owned])
                  if cost_on else None)
        if cost_on and never_pays:
            idle_enough = maintenance_in_idle_hours(owned, blocks, limits)
        d_costs = d_cost if d_cost is not None else np.zeros(len(owned))
        d = bld.add_cols((d_costs[:, None] * per_block[None, :]).reshape(-1),
                         np.where(idle_enough, 0.0, INF).reshape(-1), False).reshape(len(owned), n_blocks)
        y_cost = np.array([c.usd_per_hour for c in cloud]) if cost_on else np.zeros(len(cloud))
        quota = np.array([math.nan if c.max_instances is None else c.max_instances for c in cloud], dtype=float)
        y_upper = np.where(np.isnan(quota)[:, None], INF, quota[:, None] * block_hours[None, :])
        if cost_on:
            y_upper[~packing_offers(cloud)] = 0.0
        y_upper = y_upper.reshape(-1)
        y = bld.add_cols((y_cost[:, None] * per_block[None, :]).reshape(-1), y_upper,
                         False).reshape(len(cloud), n_blocks)

    model = Model(bld, owned, cloud, hosts, layers, renting, u, m, mu, w, d, y, slots, base if cost_on else 0.0,
                  credits=credits, capacity=capacity, block_hours=block_hours,
                  active_hours=np.array([b.active_hours for b in blocks]),
                  speed=np.array([o.throughput for o in owned]),
                  availability=np.array([o.available(limits.availability) for o in owned]))
    if fluid:
        model.fluid = fluid_columns(bld, cells, renting, per_block if cost_on else None)
    owned_slot_rows(model)
    owned_work_rows(model)
    availability_rows(model, blocks, limits, busy_rows=not (cost_on and never_pays), implied=idle_enough)
    active_hours_rows(model, blocks)
    displaced_work_rows(model)
    host_rows(model, bare)
    if cost_on and not fluid:
        host_spend_rows(model)
    limit_rows(model, limits)
    shared_quota_rows(model, blocks)
    if cost_on and weights is not None and weights.fixed_owned_usd > 0:
        _owns_anything(model, bounds, weights.fixed_owned_usd)
    if cost_on and weights is not None and weights.fixed_cloud_usd > 0:
        _uses_cloud(model, bounds, weights.fixed_cloud_usd)
    if cost_on and not fluid and reduce:
        model.start = single_option_start(model, blocks, limits)
    return model


def _fewest_cards(options: list[OwnedOption], capacity: np.ndarray) -> list[int]:
    """Per host kind, the fewest cards of any bare option it takes (`host_capacity`; 0 when it takes none)."""
    table = capacity[[g for g, o in enumerate(options) if not o.includes_host]]
    takes = table >= 0
    most = np.iinfo(np.int64).max
    fewest = np.where(takes, table, most).min(axis=0, initial=most)
    return [int(n) for n in np.where(takes.any(axis=0), fewest, 0)]


def displacement_never_pays(owned: list[OwnedOption], cloud: list[CloudOption], limits: Limits) -> bool:
    """Whether every cloud offer is dearer per reference job-hour than the energy any owned option spends on one
    (`OwnedOption.usd_per_job_hour`): then moving owned work to packed cloud hours (`displaced_work_rows`) always costs
    more than leaving it on the owned card, so displaced hours are taken only where maintenance forces them
    (strictly: at a tie an optimum could displace idle hours at no cost, and the plan would report them).

    It is the guard of two exact reformulations of the main model (docs/ARCHITECTURE.md, "Where a plan's time
    goes"): `undominated` on a model with cloud offers, and leaving out the rows d_gb <= w_gb / r_g
    (`availability_rows`): a displaced hour beyond the busy ones earns the energy credit of a card that was idle, and
    the cloud hours that must absorb its work cost at least that credit, so no optimum is cheaper without them.
    Both sides are per reference job-hour of the same block, so block weights (present value) scale them alike."""
    if not owned or not cloud:
        return True
    cheapest_cloud = min(c.usd_per_hour / c.packed_capacity for c in cloud)
    dearest_energy = max(o.usd_per_job_hour(limits.usd_per_kwh) for o in owned)
    return cheapest_cloud > dearest_energy


def undominated(owned: list[OwnedOption], hosts: list[HostOption], blocks: list[Block], limits: Limits,
                block_weight: np.ndarray | None = None, *, capacity: np.ndarray | None = None) -> list[OwnedOption]:
    """The purchase options a cheapest plan can be made of (the buy-only alternative, and the main model under
    `displacement_never_pays`): an option B is left out when another, A, does everything B does for less.

    A and B are purchases of the same shape (GPUs and job slots per unit, job width, load per GPU, host or bare,
    availability), A has no quota, A is no slower, every host that takes B's cards takes as many of A's, A costs
    no more under the capex budget, and A's unit cost (price net of resale, idle energy and opex over the horizon,
    `unit_cost_of`) plus the most energy A can spend beyond B on B's work (a unit busy every hour) is strictly
    less than B's. Then any plan that buys B is beaten by the same plan with A in B's place: the same work, the
    same slots, the same hosts, within every limit (capped at A's `unit_bound`, which alone covers the peak and
    every block's work: more units are never needed), so B is in no optimum. Unlike `pruning.prune_dominated` (rule
    2) this weighs energy against price, so it depends on the electricity rate and the demand's hours: it is
    decided per model, not per plan.

    On a model with cloud offers it is applied only when displaced maintenance never pays
    (`displacement_never_pays`, always true without maintenance): the plan with A in B's place displaces r_B / r_A
    of B's hours (the same work to the cloud, within A's busy and maintenance hours) and its owned energy rises by
    at most the allowance above; screening curve, slots, rent and cloud hours are unchanged.
    """
    if len(owned) < 2:
        return owned
    availability = [o.available(limits.availability) for o in owned]
    # only options of one shape can dominate each other (and commitments never): compare within shape groups
    groups: dict[tuple[int, float, int, float, bool, float], list[int]] = {}
    for i, o in enumerate(owned):
        if not o.is_commitment:
            groups.setdefault((o.gpus_per_unit, o.slots_per_unit, o.width, o.load_per_gpu, o.includes_host,
                               availability[i]), []).append(i)
    compared = [i for members in groups.values() if len(members) > 1 for i in members]
    if not compared:
        return owned
    rate = limits.usd_per_kwh
    hours = np.array([b.hours for b in blocks])
    total_hours = float(hours.sum())
    weighted_hours = float(total_hours if block_weight is None else np.dot(hours, block_weight))
    # every pair of one group at once, (A, B) matrices over the compared options; the same operations in the same
    # order as pair by pair (0.11 ms -> 0.03 ms on the bursty series' main model, measured 2026-11-28)
    opts = [owned[i] for i in compared]
    energy = np.array([o.usd_per_job_hour(rate) for o in opts])
    cost = np.array([unit_cost_of(o, rate, total_hours, limits.weights) for o in opts])
    speed = np.array([o.throughput for o in opts])
    price = np.array([o.unit_price_usd for o in opts])
    shape = {key: n for n, key in enumerate(groups)}
    group = np.array([shape[key] for key, members in groups.items() if len(members) > 1 for _ in members])
    table = (host_capacity(owned, hosts) if capacity is None else capacity)[compared]
    rehost = _own_hosts(opts, hosts, table, limits, total_hours)
    may = (np.array([o.max_units is None for o in opts]) & ~(cost < 0))[:, None] & ~(speed[:, None] < speed[None, :])
    may &= group[:, None] == group[None, :]
    np.fill_diagonal(may, False)
    extra_energy = (np.maximum(0.0, energy[:, None] - energy[None, :]) * speed[None, :]
                    * np.array([o.slots_per_unit for o in opts])[None, :] * weighted_hours)
    # every host that takes B's cards takes as many of A's (a kind that does not take B's is -1, below any of A's)
    holds = (table[:, None, :] >= table[None, :, :]).all(axis=2)
    budget = limits.max_capex_usd is None
    same_hosts = cost[:, None] + extra_energy < cost[None, :]
    if not budget:
        same_hosts &= price[:, None] <= price[None, :]
    # B's cards sit in hosts that take fewer of A's: each unit of A then gets a one-card host of its own (none of
    # the options may: then only B's hosts holding A's cards count)
    rehosts = [own is not None and o.width == 1 for o, own in zip(opts, rehost, strict=True)]
    if any(rehosts):
        own_cost = np.array([0.0 if own is None else own[0] for own in rehost])
        own_hosts = np.array(rehosts)[:, None] & ((cost + own_cost)[:, None] + extra_energy < cost[None, :])
        if not budget:
            own_price = np.array([0.0 if own is None else own[1] for own in rehost])
            own_hosts &= (price + own_price)[:, None] <= price[None, :]
        may &= np.where(holds, same_hosts, own_hosts)
    else:
        may &= holds & same_hosts
    beaten = may.any(axis=0)
    dominated = {compared[n] for n in np.flatnonzero(beaten).tolist()}
    return [b for j, b in enumerate(owned) if j not in dominated]


def _own_hosts(options: list[OwnedOption], hosts: list[HostOption], capacity: np.ndarray, limits: Limits,
               total_hours: float) -> list[tuple[float, float] | None]:
    """Per option, the cheapest one-card host that takes a unit of it (a bare one-GPU card): its cost on the model's
    basis (price, idle energy over the horizon) and its price; `capacity` the options' rows of `host_capacity`.
    None for a machine with its host, or when no one-card host takes it. One-card hosts only: the model bounds
    each host kind by the GPUs it could hold at its fewest per host, which is then one, so as many such hosts as
    cards stay within every host bound."""
    weights = limits.weights
    hours = total_hours if weights is None else weights.hours
    capex = 1.0 if weights is None else weights.capex
    single = [(k, (h.host.base_cost_usd * capex + limits.usd_per_kwh * h.idle_kwh_per_hour * hours,
                   h.host.base_cost_usd)) for k, h in enumerate(hosts) if h.host.slots == 1]
    holds = capacity.tolist()
    return [None if o.includes_host or o.gpus_per_unit != 1
            else min((cost for k, cost in single if holds[n][k] >= 1), default=None)
            for n, o in enumerate(options)]


def _uses_cloud(model: Model, bounds: dict[str, int], fixed_usd: float) -> None:
    """A binary r, on whenever anything is rented (fewer owned slots than the first K whose rent is 0:
    r + mu_K0 >= 1) or committed (u_c <= bound_c r), paying the cloud's data costs. Maintenance hours moved to
    packed cloud hours (y) do not count: they are a fallback, not where the data lives."""
    layers, mu, bld = model.layers, model.mu, model.builder
    if model.fluid is not None:
        fluid_uses_cloud(model.fluid, bld, model.u[[g for g, o in enumerate(model.owned) if o.is_commitment]],
                         [float(bounds[o.key]) for o in model.owned if o.is_commitment], fixed_usd)
        return
    free = np.flatnonzero(layers.rent <= 1e-9)
    k0 = int(free[0]) if len(free) else None
    commits = [g for g, o in enumerate(model.owned) if o.is_commitment]
    if k0 == 0 and not commits:
        return  # no demand to rent
    if k0 is None or k0 > len(mu):  # always rents: a constant
        model.offset += fixed_usd
        return
    r = bld.add_cols(np.array([fixed_usd]), 1.0, True)
    if k0 > 0:
        bld.add_rows(np.zeros(2), np.array([r[0], mu[k0 - 1]]), np.ones(2), np.array([1.0]), np.array([INF]))
    if commits:
        rows = np.arange(len(commits))
        bld.add_rows(np.concatenate([rows, rows]), np.concatenate([model.u[commits], np.repeat(r, len(commits))]),
                     np.concatenate([np.ones(len(commits)),
                                     -np.array([float(bounds[model.owned[g].key]) for g in commits])]),
                     np.full(len(commits), -INF), np.zeros(len(commits)))


def _owns_anything(model: Model, bounds: dict[str, int], fixed_usd: float) -> None:
    """A binary z that any purchase switches on, paying the fixed monthly opex: u_g <= bound_g z."""
    buys = [g for g, o in enumerate(model.owned) if not o.is_commitment]
    if not buys:
        return
    z = model.builder.add_cols(np.array([fixed_usd]), 1.0, True)
    r = np.arange(len(buys))
    model.builder.add_rows(np.concatenate([r, r]), np.concatenate([model.u[buys], np.repeat(z, len(buys))]),
                           np.concatenate([np.ones(len(buys)),
                                           -np.array([float(bounds[model.owned[g].key]) for g in buys])]),
                           np.full(len(buys), -INF), np.zeros(len(buys)))
    model.owns = z


