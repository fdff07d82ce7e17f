"""The mixed-integer planning model (docs/ARCHITECTURE.md, "The planning model"), built straight into HiGHS
from arrays: build, solve and read out as separate steps.

Demand comes as load-duration curves (solvers.demand.periods): in each block b, level l has n jobs at once for H hours.
The screening curve (solvers.model.layers) has already priced, for every number K of owned job slots, the rent of
whole instances for the jobs above the owned ones at every level, R(K), and the owned job-hours per block,
W_b(K). Variables (one numpy range each):
- u_g   units bought of owned option g (integer); m_k host machines of kind k (integer);
- q_g   job slots of bare option g (integer, only for jobs wider than one GPU: whole jobs per card set);
- a_gk  bare option g's cards (one-GPU jobs, continuous) or jobs (integer) placed in hosts of kind k, each host
        within its slots and its own PSU (`_hosts`);
- mu_j  at least ks[j] owned job slots (binary, unary: mu_j <= mu_(j-1)); the objective adds R's steps;
- w_gb  owned job-hours of option g in block b (continuous): together at least sum_j W_b steps x mu_j;
- d_gb  owned slot-hours displaced by maintenance (availability < 1, at most the hours g is busy) and y_ob packed
        cloud hours that absorb them (work displaced by maintenance waits for it).
Each constraint family is one function below; they append rows in bulk (coordinate arrays). Commitments
(issue 16) fit the same shape: integer counts of committed slots that add to the owned slots of `_owned_slots`
at a cost per hour of the term.

Every option runs jobs at its own width (`OwnedOption.width`, `CloudOption.width`: jobs.gpus_per_job in the class
form, its GPU type's own widths in the workload form); a job never spans two options, so never two GPU types.
Copies of one offer at several widths share its quota (`_shared_quotas`).

Costs: purchases net of resale, hosts, idle energy while the machine is on, energy per owned job-hour
(the option's `width` GPUs busy 1 / throughput hours per hour of reference work), rent from the screening curve.
"""

from __future__ import annotations

import math
import os
import sys
import time
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Literal

import highspy
import numpy as np

from solvers.base import defaults
from solvers.demand.blocks import Block
from solvers.base.finance import Weights, term_starts_factor
from solvers.model.fluid import Fluid, capacity_rows, fluid_columns, fluid_listing_hours, fluid_uses_cloud
from solvers.offers.hosting import card_capacity, cheapest_hosts, least_rise
from solvers.model.layers import Cells, Layers, Renting, screening, slot_grid
from solvers.offers.options import CloudOption, HostOption, OwnedOption
from solvers.model.start import single_option_start


@dataclass(frozen=True)
class Limits:
    usd_per_kwh: float
    availability: float
    max_capex_usd: float | None = None
    max_owned_gpus: int | None = None
    width: int = 1                 # GPUs per job
    integer_instances: bool = True  # False when work may wait (patience): instances can be packed
    weights: Weights | None = field(default=None, compare=False)  # basis of the costs (None: nominal, issue 16)


class SolveStatus(StrEnum):
    OPTIMAL = "optimal"
    TIME_LIMITED = "time_limited"
    INFEASIBLE = "infeasible"
    ERROR = "error"

    @property
    def has_solution(self) -> bool:
        return self in (SolveStatus.OPTIMAL, SolveStatus.TIME_LIMITED)


@dataclass
class MipSolution:
    status: SolveStatus
    objective: float
    units: dict[str, int] = field(default_factory=dict)
    hosts: dict[str, int] = field(default_factory=dict)  # host name -> count (two hosts may share a size)
    owned_jobs: dict[str, np.ndarray] = field(default_factory=dict)   # key -> jobs at once per cell
    instances: dict[str, np.ndarray] = field(default_factory=dict)    # key -> instances per cell
    displaced: dict[str, np.ndarray] = field(default_factory=dict)    # key -> slot-hours per block
    packed_hours: dict[str, np.ndarray] = field(default_factory=dict)  # key -> instance-hours per block
    backend: str = "HiGHS"
    solve_ms: float = 0.0
    build_ms: float = 0.0
    gap: float | None = None


def cells_of(blocks: list[Block]) -> Cells:
    if not blocks:
        return Cells(np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros(0))
    return Cells(
        np.concatenate([np.full(len(b.jobs), i, dtype=np.int64) for i, b in enumerate(blocks)]),
        np.concatenate([b.jobs for b in blocks]).astype(float),
        np.concatenate([b.level_hours for b in blocks]).astype(float),
    )


def credit(option: OwnedOption, fluid: bool) -> float:
    """Reference jobs at once that one job slot of `option` carries: the model's unit of owned capacity.

    Work that may wait (`fluid`: patience day, week or month) is fluid within its window, so a slot of relative
    throughput r does r reference job-hours in every hour of it, as a rented GPU does: a 3x card does the work of
    three reference GPUs, a 0.9x card nine tenths of one. Work that may not wait holds a slot per job: a faster
    slot finishes its job sooner and idles (a job cannot start before it arrives), a slower one holds its job
    longer (`_availability`: the overrun in its idle hours, the rest to packed cloud hours), so each carries one
    job."""
    return option.throughput if fluid else 1.0


def unit_bound(option: OwnedOption, blocks: list[Block], limits: Limits,
               load: tuple[float, list[tuple[float, float]]] | None = None) -> int:
    """Most units worth buying: enough slots for the busiest level and the busiest block's hours, in whole jobs
    for bare cards pooled for jobs wider than one GPU (a spare replica of a 2-GPU job at 95% availability is two
    more cards, not one). `load`: the blocks' `block_load`, when many options are bounded at once."""
    if option.slots_per_unit <= 0:
        return 0
    need, work = block_load(blocks) if load is None else load
    need /= credit(option, not limits.integer_instances)  # slots that carry the busiest level
    availability = option.available(limits.availability)
    for done, hours in work:
        busy = done / option.throughput
        need = max(need, busy / (availability * hours))
    if option.includes_host or option.width == 1 or option.is_commitment:
        bound = math.ceil(need / option.slots_per_unit - 1e-9)
    else:  # bare cards pooled for wider jobs serve whole jobs (`_slot_columns`' q): enough cards for whole jobs
        jobs = math.ceil(need / option.load_per_gpu - 1e-9)
        bound = math.ceil(jobs * option.width / option.gpus_per_unit - 1e-9)
    if option.max_units is not None:
        bound = min(bound, option.max_units)
    if option.is_commitment:
        return max(bound, 0)
    if limits.max_capex_usd is not None and option.unit_price_usd > 0:
        bound = min(bound, math.floor(limits.max_capex_usd / option.unit_price_usd + 1e-9))
    if limits.max_owned_gpus is not None:
        bound = min(bound, limits.max_owned_gpus // option.gpus_per_unit)
    return max(bound, 0)


def block_load(blocks: list[Block]) -> tuple[float, list[tuple[float, float]]]:
    """The busiest level's jobs at once, and each block's work (job-hours at reference pace) and hours."""
    return (max((b.peak_jobs for b in blocks), default=0.0),
            [(float(np.dot(b.jobs, b.level_hours)), b.hours) for b in blocks])


class _Builder:
    """Columns and rows in arrays; `add_cols` returns the new columns' indices."""

    def __init__(self) -> None:
        self.cost: list[np.ndarray] = []
        self.lower: list[np.ndarray] = []
        self.upper: list[np.ndarray] = []
        self.integer: list[np.ndarray] = []
        self.n_cols = 0
        self.rows_i: list[np.ndarray] = []
        self.rows_j: list[np.ndarray] = []
        self.rows_v: list[np.ndarray] = []
        self.row_lower: list[np.ndarray] = []
        self.row_upper: list[np.ndarray] = []
        self.n_rows = 0

    def add_cols(self, cost: np.ndarray, upper: np.ndarray | float, integer: bool | np.ndarray) -> np.ndarray:
        cost = np.asarray(cost, dtype=float).ravel()
        n = len(cost)
        self.cost.append(cost)
        self.lower.append(np.zeros(n))
        self.upper.append(np.broadcast_to(np.asarray(upper, dtype=float).ravel(), (n,)).copy())
        self.integer.append(np.broadcast_to(np.asarray(integer, dtype=bool), (n,)).copy())
        idx = np.arange(self.n_cols, self.n_cols + n)
        self.n_cols += n
        return idx

    def add_rows(self, row: np.ndarray, col: np.ndarray, val: np.ndarray, lower: np.ndarray,
                 upper: np.ndarray | float) -> None:
        """Rows numbered 0..len(lower)-1 locally; (row, col, val) triplets."""
        lower = np.asarray(lower, dtype=float).ravel()
        self.rows_i.append(np.asarray(row, dtype=np.int64).ravel() + self.n_rows)
        self.rows_j.append(np.asarray(col, dtype=np.int64).ravel())
        self.rows_v.append(np.asarray(val, dtype=float).ravel())
        self.row_lower.append(lower)
        self.row_upper.append(np.broadcast_to(np.asarray(upper, dtype=float).ravel(), lower.shape).copy())
        self.n_rows += len(lower)

    def arrays(self) -> Arrays:
        """The model as HiGHS takes it: columns, rows by row (zeros dropped), integrality."""
        rows, cols, vals = _cat(self.rows_i, np.int64), _cat(self.rows_j, np.int64), _cat(self.rows_v)
        keep = vals != 0
        rows, cols, vals = rows[keep], cols[keep], vals[keep]
        order = np.lexsort((cols, rows))
        return Arrays(
            self.n_cols, self.n_rows, _cat(self.cost), _cat(self.lower), _cat(self.upper), _cat(self.row_lower),
            _cat(self.row_upper),
            np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=self.n_rows))]).astype(np.int32),
            cols[order].astype(np.int32), vals[order], _cat(self.integer, bool))

    def lp(self) -> highspy.HighsLp:
        return self.arrays().lp()


@dataclass(frozen=True)
class Arrays:
    """A built model's arrays, passed to HiGHS in one call (`pass_to`): numpy buffers go in as they are, where
    filling a `HighsLp` field by field converts every element to a Python object and back."""

    n_cols: int
    n_rows: int
    cost: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    row_lower: np.ndarray
    row_upper: np.ndarray
    start: np.ndarray  # row starts (row-wise matrix)
    index: np.ndarray
    value: np.ndarray
    integer: np.ndarray

    def pass_to(self, highs: highspy.Highs, offset: float) -> None:
        integrality = np.where(self.integer, int(highspy.HighsVarType.kInteger),
                               int(highspy.HighsVarType.kContinuous)).astype(np.int32)
        highs.passModel(self.n_cols, self.n_rows, len(self.value), int(highspy.MatrixFormat.kRowwise),
                        int(highspy.ObjSense.kMinimize), offset, self.cost, self.lower, self.upper, self.row_lower,
                        self.row_upper, self.start, self.index, self.value, integrality)

    def lp(self) -> highspy.HighsLp:
        lp = highspy.HighsLp()
        lp.num_col_ = self.n_cols
        lp.num_row_ = self.n_rows
        lp.col_cost_ = self.cost
        lp.col_lower_ = self.lower
        lp.col_upper_ = self.upper
        lp.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
        lp.a_matrix_.start_ = self.start
        lp.a_matrix_.index_ = self.index
        lp.a_matrix_.value_ = self.value
        lp.a_matrix_.num_col_ = self.n_cols
        lp.a_matrix_.num_row_ = self.n_rows
        lp.row_lower_ = self.row_lower
        lp.row_upper_ = self.row_upper
        if self.integer.any():
            lp.integrality_ = [highspy.HighsVarType.kInteger if i else highspy.HighsVarType.kContinuous
                               for i in self.integer]
        return lp


def _cat(parts: list[np.ndarray], dtype: type = float) -> np.ndarray:
    return np.concatenate(parts).astype(dtype) if parts else np.zeros(0, dtype=dtype)


INF = highspy.kHighsInf
# `_host_spend` prices hosts for every card count a plan can reach up to this many cards (a covering knapsack in
# Python: 1.0 ms for 1,000 cards over the bundled five host kinds, 2.1 ms for 2,048, measured 2026-11-27); beyond it
# the row charges nothing for cards above its slots
MAX_CARDS_PRICED = 2048


def _first_highs_quietly() -> None:
    """Make the process's first `Highs` with its standard output (file descriptor 1) on the null device.

    Why: HiGHS's C++ writes its banner ("Running HiGHS ...") to the process's stdout when the first `Highs` is
    made, before any option can silence it, and only once per process. `gpuplan plan --json` writes the plan to
    stdout, so without this the JSON a lab pipes into its tools began with two lines of banner. A process without
    a standard output (a daemon with fd 1 closed) has nowhere to print it: the solver is made as it is."""
    if sys.stdout is not None:
        sys.stdout.flush()
    try:
        saved = os.dup(1)
    except OSError:
        highspy.Highs()  # type: ignore[no-untyped-call]
        return
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 1)
            highspy.Highs()  # type: ignore[no-untyped-call]
    finally:
        os.dup2(saved, 1)
        os.close(saved)


_first_highs_quietly()


@dataclass
class Model:
    """The built model and the column ranges the read-out needs."""

    builder: _Builder
    owned: list[OwnedOption]
    cloud: list[CloudOption]
    hosts: list[HostOption]
    layers: Layers
    renting: Renting
    u: np.ndarray
    m: np.ndarray
    mu: np.ndarray  # mu_K = [at least K owned job slots], K = 1..max
    w: np.ndarray   # (owned, blocks) owned job-hours at reference pace
    d: np.ndarray   # (owned, blocks) or empty
    y: np.ndarray   # (cloud, blocks) or empty
    slots: dict[int, tuple[np.ndarray, np.ndarray]]  # owned index -> (columns, coefficients) of its job slots
    offset: float = 0.0
    owns: np.ndarray | None = None  # the binary "anything bought" when fixed monthly opex applies
    start: tuple[np.ndarray, np.ndarray] | None = None  # integer columns and values of a MIP start (`solvers.model.start`)
    credits: np.ndarray = field(default_factory=lambda: np.zeros(0))  # per owned option: `credit`
    fluid: Fluid | None = None  # work that may wait: the per-cell columns of `solvers.model.fluid` (then mu is empty)

    @property
    def n_blocks(self) -> int:
        return self.layers.n_blocks


def cheapest_owned_energy(owned: list[OwnedOption], limits: Limits) -> float:
    """Energy per owned job-hour of the cheapest owned option: how the screening curve splits owned and rented."""
    return min((o.usd_per_job_hour(limits.usd_per_kwh) for o in owned), default=0.0)


def build(owned: list[OwnedOption], cloud: list[CloudOption], hosts: list[HostOption], blocks: list[Block],
          limits: Limits, objective: Literal["cost", "capex", "gpus"] = "cost") -> Model:
    """Columns, then one function per constraint family. Work that may wait (`Limits.integer_instances` False) is
    fluid within its windows and planned per cell (`solvers.model.fluid`) instead of on the screening curve's steps."""
    fluid = not limits.integer_instances
    load = block_load(blocks)
    bounds = {o.key: unit_bound(o, blocks, limits, load) for o in owned}
    owned = [o for o in owned if bounds[o.key] > 0]
    cells = cells_of(blocks)
    total_hours = sum(b.hours for b in blocks)
    rate = limits.usd_per_kwh
    bld = _Builder()
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
    if cost_on and never_pays:
        owned = undominated(owned, hosts, blocks, limits, block_weight)
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
        fewest = [min((card_capacity(h, o) for o in every if not o.includes_host and k in o.accepting_hosts),
                      default=0) for k, h in enumerate(hosts)]
        m = bld.add_cols(host_cost, np.array([math.ceil(max_gpus / max(n, 1)) for n in fewest], dtype=float), True)
    slots = _slot_columns(bld, owned, bare, u, bounds)

    # mu_j for grid steps j = 1..: at least ks[j] owned capacity; forced up to the fewest with a finite rent
    last = len(ks) - 1
    feasible = layers.required <= last
    n_mu = 0 if fluid else (max(layers.required, max_step) if feasible else last)
    rent = layers.rent
    steps = np.zeros(n_mu)
    base = float(rent[layers.required]) if feasible and not fluid else 0.0
    for j in range(layers.required + 1, n_mu + 1):
        steps[j - 1] = rent[j] - rent[j - 1]
    mu = bld.add_cols(steps if cost_on else np.zeros(n_mu), 1.0, True)
    lower = np.zeros(n_mu)
    lower[: min(layers.required, n_mu)] = 1.0
    bld.lower[-1] = lower
    if not feasible and not fluid:  # the quotas cannot cover the peak even with every job owned: no plan
        bld.add_rows(np.zeros(0), np.zeros(0), np.zeros(0), np.array([1.0]), np.array([INF]))

    energy = np.array([o.usd_per_job_hour(rate) for o in owned])
    n_blocks = len(blocks)
    per_block = np.ones(n_blocks) if block_weight is None else block_weight
    w = bld.add_cols(np.outer(energy, per_block).reshape(-1) if cost_on else np.zeros(len(owned) * n_blocks), INF,
                     False).reshape(len(owned), n_blocks)
    d = y = np.zeros((0, n_blocks), dtype=np.int64)
    idle_enough = np.zeros((len(owned), n_blocks), dtype=bool)
    if displaces and owned:
        d_cost = (-np.array([o.marginal_kwh_per_gpu_hour * rate * o.width / o.load_per_gpu for o in owned])
                  if cost_on else None)
        if cost_on and never_pays:
            idle_enough = maintenance_in_idle_hours(owned, blocks, limits)
        d = bld.add_cols(np.outer(d_cost if d_cost is not None else np.zeros(len(owned)), per_block).reshape(-1),
                         np.where(idle_enough, 0.0, INF).reshape(-1), False).reshape(len(owned), n_blocks)
        y_cost = np.array([c.usd_per_hour for c in cloud]) if cost_on else np.zeros(len(cloud))
        y_upper = np.array([[INF if c.max_instances is None else c.max_instances * b.hours for b in blocks]
                            for c in cloud])
        if cost_on:
            y_upper[~packing_offers(cloud)] = 0.0
        y_upper = y_upper.reshape(-1)
        y = bld.add_cols(np.outer(y_cost, per_block).reshape(-1), y_upper, False).reshape(len(cloud), n_blocks)

    model = Model(bld, owned, cloud, hosts, layers, renting, u, m, mu, w, d, y, slots, base if cost_on else 0.0,
                  credits=credits)
    if fluid:
        model.fluid = fluid_columns(bld, cells, renting, per_block if cost_on else None)
    _owned_slots(model)
    _owned_work(model)
    _availability(model, blocks, limits, busy_rows=not (cost_on and never_pays), implied=idle_enough)
    _active_hours(model, blocks)
    _displaced_work(model)
    _hosts(model, bare)
    if cost_on and not fluid:
        _host_spend(model)
    _limits(model, limits)
    _shared_quotas(model, blocks)
    if cost_on and weights is not None and weights.fixed_owned_usd > 0:
        _owns_anything(model, bounds, weights.fixed_owned_usd)
    if cost_on and weights is not None and weights.fixed_cloud_usd > 0:
        _uses_cloud(model, bounds, weights.fixed_cloud_usd)
    if cost_on and not fluid:
        model.start = single_option_start(model, blocks, limits)
    return model


def displacement_never_pays(owned: list[OwnedOption], cloud: list[CloudOption], limits: Limits) -> bool:
    """Whether every cloud offer is dearer per reference job-hour than the energy any owned option spends on one
    (`OwnedOption.usd_per_job_hour`): then moving owned work to packed cloud hours (`_displaced_work`) always costs
    more than leaving it on the owned card, so displaced hours are taken only where maintenance forces them
    (strictly: at a tie an optimum could displace idle hours at no cost, and the plan would report them).

    It is the guard of two exact reformulations of the main model (docs/ARCHITECTURE.md, "Where a plan's time
    goes"): `undominated` on a model with cloud offers, and leaving out the rows d_gb <= w_gb / r_g
    (`_availability`): a displaced hour beyond the busy ones earns the energy credit of a card that was idle, and
    the cloud hours that must absorb its work cost at least that credit, so no optimum is cheaper without them.
    Both sides are per reference job-hour of the same block, so block weights (present value) scale them alike."""
    if not owned or not cloud:
        return True
    cheapest_cloud = min(c.usd_per_hour / c.packed_capacity for c in cloud)
    dearest_energy = max(o.usd_per_job_hour(limits.usd_per_kwh) for o in owned)
    return cheapest_cloud > dearest_energy


def undominated(owned: list[OwnedOption], hosts: list[HostOption], blocks: list[Block], limits: Limits,
                block_weight: np.ndarray | None = None) -> list[OwnedOption]:
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
    rate = limits.usd_per_kwh
    hours = np.array([b.hours for b in blocks])
    weighted_hours = float(hours.sum() if block_weight is None else np.dot(hours, block_weight))
    energy = [o.usd_per_job_hour(rate) for o in owned]
    cost = [unit_cost_of(o, rate, float(hours.sum()), limits.weights) for o in owned]
    availability = [o.available(limits.availability) for o in owned]
    capacity = [{k: card_capacity(hosts[k], o) for k in o.accepting_hosts if k < len(hosts)} for o in owned]
    rehost = [_own_host(o, hosts, capacity[i], limits, float(hours.sum())) for i, o in enumerate(owned)]

    def dominates(a: OwnedOption, i: int, b: OwnedOption, j: int) -> bool:
        if (a.is_commitment or b.is_commitment or a.max_units is not None or cost[i] < 0
                or (a.gpus_per_unit, a.slots_per_unit, a.width, a.load_per_gpu, a.includes_host, availability[i])
                != (b.gpus_per_unit, b.slots_per_unit, b.width, b.load_per_gpu, b.includes_host, availability[j])
                or a.throughput < b.throughput):
            return False
        extra_energy = max(0.0, energy[i] - energy[j]) * b.throughput * b.slots_per_unit * weighted_hours
        if not any(capacity[i].get(k, -1) < n for k, n in capacity[j].items()):
            return ((limits.max_capex_usd is None or a.unit_price_usd <= b.unit_price_usd)
                    and cost[i] + extra_energy < cost[j])
        # B's cards sit in hosts that take fewer of A's: each unit of A then gets a one-card host of its own
        own = rehost[i]
        return (own is not None and a.width == 1
                and (limits.max_capex_usd is None or a.unit_price_usd + own[1] <= b.unit_price_usd)
                and cost[i] + own[0] + extra_energy < cost[j])

    return [b for j, b in enumerate(owned)
            if not any(dominates(a, i, b, j) for i, a in enumerate(owned) if i != j)]


def _own_host(option: OwnedOption, hosts: list[HostOption], capacity: dict[int, int], limits: Limits,
              total_hours: float) -> tuple[float, float] | None:
    """The cheapest one-card host that takes a unit of `option` (a bare one-GPU card): its cost on the model's
    basis (price, idle energy over the horizon) and its price. None for a machine with its host, or when no
    one-card host takes it. One-card hosts only: the model bounds each host kind by the GPUs it could hold at its
    fewest per host, which is then one, so as many such hosts as cards stay within every host bound."""
    if option.includes_host or option.gpus_per_unit != 1:
        return None
    weights = limits.weights
    hours = total_hours if weights is None else weights.hours
    capex = 1.0 if weights is None else weights.capex
    costs = [(hosts[k].host.base_cost_usd * capex + limits.usd_per_kwh * hosts[k].idle_kwh_per_hour * hours,
              hosts[k].host.base_cost_usd) for k, n in capacity.items() if n >= 1 and hosts[k].host.slots == 1]
    return min(costs, default=None)


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


def unit_cost_of(o: OwnedOption, usd_per_kwh: float, total_hours: float, weights: Weights | None) -> float:
    """One unit over the horizon on the profile's basis: price (financed, at present value) net of the resale
    (discounted from the horizon's end), idle energy and per-unit opex every hour; a commitment its paid hours."""
    if weights is None:
        return o.net_price_usd + (usd_per_kwh * o.idle_kwh_per_unit_hour + o.opex_usd_per_unit_hour) * total_hours
    if o.is_commitment:
        tail = max(o.paid_hours - total_hours, 0.0)
        hourly = o.hourly_usd * (weights.hours + tail * weights.end)
        if o.upfront_usd:  # fees at each term's start (issue 16)
            return hourly + o.upfront_usd * term_starts_factor(weights.discount_rate, o.term_months, o.terms)
        return hourly
    return (o.unit_price_usd * weights.capex - o.resale_usd * weights.end
            + (usd_per_kwh * o.idle_kwh_per_unit_hour + o.opex_usd_per_unit_hour) * weights.hours)


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


def _slot_columns(bld: _Builder, owned: list[OwnedOption], bare: list[int], u: np.ndarray,
                  bounds: dict[str, int]) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """Job slots of each owned option as a linear expression: units x slots per unit, or an integer q_g
    (bare cards pooled in a host for jobs wider than one GPU, at the option's own width: whole jobs only)."""
    slots: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    wide_bare = [i for i in bare if owned[i].width > 1]
    q = bld.add_cols(np.zeros(len(wide_bare)), np.array(
        [bounds[owned[i].key] * owned[i].gpus_per_unit // owned[i].width for i in wide_bare], dtype=float), True)
    for i, o in enumerate(owned):
        slots[i] = (np.array([u[i]]), np.array([o.slots_per_unit]))
    for k, i in enumerate(wide_bare):
        slots[i] = (np.array([q[k]]), np.array([owned[i].load_per_gpu]))  # load a job slot carries
        o = owned[i]
        bld.add_rows(np.zeros(2), np.array([q[k], u[i]]), np.array([float(o.width), -float(o.gpus_per_unit)]),
                     np.array([-INF]), np.array([0.0]))
    return slots


def _owned_slots(model: Model) -> None:
    """The screening curve's slots: mu_j <= mu_(j-1) and sum_j (ks[j] - ks[j-1]) mu_j <= the owned job slots;
    work that may wait, each cell's owned work within the owned capacity (`solvers.model.fluid`)."""
    mu, bld = model.mu, model.builder
    if model.fluid is not None:  # each cell's owned work within the owned capacity (`solvers.model.fluid`)
        if model.owned:
            slot_col, slot_coef = _slot_terms(model)
            capacity_rows(model.fluid, bld, slot_col, slot_coef * model.credits)
        else:
            capacity_rows(model.fluid, bld, np.zeros(0, dtype=np.int64), np.zeros(0))
        return
    if len(mu) > 1:
        r = np.arange(len(mu) - 1)
        bld.add_rows(np.concatenate([r, r]), np.concatenate([mu[1:], mu[:-1]]),
                     np.concatenate([np.ones(len(r)), -np.ones(len(r))]), np.full(len(r), -INF), np.zeros(len(r)))
    if len(mu):
        widths = np.diff(model.layers.ks)[: len(mu)].astype(float)
        cols = [mu] + [model.slots[g][0] for g in range(len(model.owned))]
        vals = [widths] + [-model.slots[g][1] for g in range(len(model.owned))]
        bld.add_rows(np.zeros(sum(len(c) for c in cols)), np.concatenate(cols), np.concatenate(vals),
                     np.array([-INF]), np.array([0.0]))


def _owned_work(model: Model) -> None:
    """Owned GPUs do the base of every block: sum_g w_gb >= sum_K (W_b(K) - W_b(K-1)) mu_K; work that may wait,
    the owned work of its cells (`solvers.model.fluid`)."""
    n_blocks, mu = model.n_blocks, model.mu
    if model.fluid is not None:
        model.fluid.owned_work(model.builder, model.w)
        return
    if not len(mu):
        return
    hours = model.layers.owned_hours
    n_mu = len(mu)
    full = np.zeros((n_blocks, n_mu + 1))
    upto = min(n_mu, hours.shape[1] - 1)
    full[:, : upto + 1] = hours[:, : upto + 1]
    steps = np.diff(full, axis=1)  # (blocks, n_mu)
    required = min(model.layers.required, n_mu)
    if required > 0:  # forced slots carry the owned work of the first feasible K
        steps[:, : required] = 0.0
        steps[:, required - 1] = full[:, required]
    row = np.arange(n_blocks)
    rows = [np.tile(row, len(model.owned)), np.repeat(row, n_mu)]
    cols = [model.w.reshape(-1), np.tile(mu, n_blocks)]
    vals = [np.ones(model.w.size), -steps.reshape(-1)]
    model.builder.add_rows(np.concatenate(rows), np.concatenate(cols), np.concatenate(vals), np.zeros(n_blocks), INF)


def packing_offers(cloud: list[CloudOption]) -> np.ndarray:
    """The offers displaced work can be worth packing on: by price per reference job-hour of packed capacity, the
    cheapest ones up to and including the first without a quota. Packed hours of any other offer cost more than
    the same work on that unlimited one, so they are 0 in every optimum of the cost model (an exact reduction)."""
    keep = np.zeros(len(cloud), dtype=bool)
    for k in sorted(range(len(cloud)), key=lambda k: cloud[k].usd_per_hour / cloud[k].packed_capacity):
        keep[k] = True
        if cloud[k].max_instances is None:
            break
    return keep


def maintenance_in_idle_hours(owned: list[OwnedOption], blocks: list[Block], limits: Limits) -> np.ndarray:
    """(owned, blocks): where an option's maintenance always fits in its idle hours, whatever it buys.

    A slot works at most its `credit` c_g in each of the block's active hours (`_active_hours`), so it is busy at
    most c_g x active_b / r_g hours; when that is within availability x hours, the availability row is implied by the
    active-hours row and nothing need be displaced. Under `displacement_never_pays` a displaced hour then only
    costs more than it saves, so d_gb is 0 in every optimum: the model leaves out the row and fixes the column
    (an exact reduction; for the bursty series it drops 72 of 126 rows and columns, the fast cards')."""
    availability = np.array([o.available(limits.availability) for o in owned])
    speed = np.array([o.throughput for o in owned])
    credits = np.array([credit(o, not limits.integer_instances) for o in owned])
    hours = np.array([b.hours for b in blocks])
    return np.asarray(_active(blocks)[None, :] * credits[:, None]
                      <= (availability * speed)[:, None] * hours[None, :] * (1 - 1e-12))


def _availability(model: Model, blocks: list[Block], limits: Limits, busy_rows: bool = True,
                  implied: np.ndarray | None = None) -> None:
    """Busy hours of owned option g in block b <= availability x hours x slots (+ displaced hours d_gb).

    A job on a GPU of throughput r is busy 1 / r hours per hour of reference work; maintenance is taken in
    idle hours, and when there are none the displaced hours go to the cloud (`_displaced_work`). Work that may not
    wait on a card slower than the reference: its job holds the slot for the job's hours and runs at its pace, so
    it overruns them by (1 / r - 1) of each; the overrun is taken in the card's idle hours of the block, and the
    part that does not fit there is displaced too (`overrun_share`): the card does what its hours allow and packed
    cloud hours the rest, where a whole job slot or nothing made a 0.9x card count for nothing (issue 29). `busy_rows`
    False (displaced maintenance never pays, `displacement_never_pays`) leaves out the rows d_gb <= w_gb / r_g,
    slack in every optimum then, which HiGHS's presolve does not remove and its search pays for.
    """
    n_blocks, n_owned = len(blocks), len(model.owned)
    if not n_owned:
        return
    block_hours = np.array([b.hours for b in blocks])
    # every option's rows at once, numbered as option by option: its availability rows, then its displaced rows
    per_option = (3 if busy_rows else 2) * n_blocks if model.d.size else n_blocks
    first = np.arange(n_owned)[:, None] * per_option + np.arange(n_blocks)[None, :]  # (owned, blocks)
    slot_col, slot_coef = _slot_terms(model)
    availability = np.array([o.available(limits.availability) for o in model.owned])
    speed = np.array([o.throughput for o in model.owned])
    slot_hours = block_hours[None, :] * slot_coef[:, None]  # np.outer(block_hours, coef) of each option
    busy = availability[:, None] * slot_hours
    if not model.d.size:  # the active-hours row of the same columns in the same row (`_active_hours`)
        busy = np.minimum(busy, _active(blocks)[None, :] * (slot_coef * model.credits / speed)[:, None])
    rows = [first, first]
    cols = [model.w, np.repeat(slot_col[:, None], n_blocks, axis=1)]
    vals = [np.repeat((1.0 / speed)[:, None], n_blocks, axis=1), -busy]
    if model.d.size:  # only maintenance hours are displaced: d_gb <= (1 - availability) x hours x slots,
        # and only hours the option is busy: d_gb <= w_gb / r_g (an idle card has no work to displace, so its
        # maintenance earns no energy credit; without these rows the model bought free idle cards for the credit)
        rows += [first, first + n_blocks, first + n_blocks]
        cols += [model.d, model.d, cols[1]]
        vals += [-np.ones((n_owned, n_blocks)), np.ones((n_owned, n_blocks)),
                 -(1 - availability)[:, None] * slot_hours]
        overrun = overrun_share(model.owned, not limits.integer_instances)
        if overrun.any():  # a slower card's overrun it has no idle hours for: d_gb <= ... + (1 / r - 1) w_gb
            rows.append(first + n_blocks)
            cols.append(model.w)
            vals.append(-np.repeat(overrun[:, None], n_blocks, axis=1))
        if busy_rows:
            rows += [first + 2 * n_blocks, first + 2 * n_blocks]
            cols += [model.d, model.w]
            vals += [np.ones((n_owned, n_blocks)), -vals[0]]
    row, col, val = (np.concatenate([r.ravel() for r in rows]), np.concatenate([c.ravel() for c in cols]),
                     np.concatenate([v.ravel() for v in vals]))
    keep = np.ones(n_owned * per_option, dtype=bool)
    if implied is not None and implied.any() and not busy_rows:  # `maintenance_in_idle_hours`: rows implied
        keep[first[implied]] = False
        keep[(first + n_blocks)[implied]] = False
        kept = keep[row]
        row, col, val = (np.cumsum(keep) - 1)[row[kept]], col[kept], val[kept]
    model.builder.add_rows(row, col, val, np.full(int(keep.sum()), -INF), np.zeros(int(keep.sum())))


def overrun_share(owned: list[OwnedOption], fluid: bool) -> np.ndarray:
    """Per option, the slot-hours by which its jobs overrun their hours, per reference job-hour it holds: 1 / r - 1
    for a card slower than the reference on work that may not wait, else 0 (work that may wait is fluid: a slot
    does r of a job an hour, `credit`)."""
    if fluid:
        return np.zeros(len(owned))
    speed = np.array([o.throughput for o in owned], dtype=float)
    overrun: np.ndarray = np.maximum(1.0 / np.maximum(speed, 1e-12) - 1.0, 0.0)
    return overrun


def _slot_terms(model: Model) -> tuple[np.ndarray, np.ndarray]:
    """Each owned option's job slots as one column times a coefficient (`_owned_slots`: units x slots per unit, or
    the integer q_g of bare cards pooled for wider jobs), for rows that scale with an option's slots."""
    n_owned = len(model.owned)
    return (np.array([model.slots[g][0][0] for g in range(n_owned)]),
            np.array([model.slots[g][1][0] for g in range(n_owned)]))


def _active_hours(model: Model, blocks: list[Block]) -> None:
    """A job slot carries its `credit` of jobs in the hours that have some: w_gb <= c_g x active_b x slots_g.

    Why: the owned work of a block is pooled over its owned options (`_owned_work`), and the availability rows
    bound an option only by all the block's hours times its speed, so without these rows a fast card could do the
    share of the slow cards bought beside it in hours when no job runs (a plan bought two RTX 2060s that never
    worked while its RTX 4090 worked 95% of the hours of a profile busy 60% of them). A faster card finishes its
    job sooner and idles (fewer busy hours, less energy); it does not take over jobs running on other GPUs. A card
    slower than the reference carries its fraction of a job in those hours and no more: its job does not run on
    into hours without jobs. With patience the curve is the window's average, the credit the card's speed, and the
    active hours the window's: work moved within it is fluid.
    """
    if not model.owned or not model.d.size:  # without displaced hours `_availability` writes both in one row
        return
    active = _active(blocks)
    slot_col, slot_coef = _slot_terms(model)
    g, b = np.nonzero(active_rows_needed(model.owned, blocks, model.credits,
                                         overrun_share(model.owned, model.fluid is not None)))
    rows = np.arange(len(g))
    model.builder.add_rows(
        np.concatenate([rows, rows]), np.concatenate([model.w[g, b], slot_col[g]]),
        np.concatenate([np.ones(len(g)), -slot_coef[g] * model.credits[g] * active[b]]), np.full(len(g), -INF),
        np.zeros(len(g)))


def active_rows_needed(owned: list[OwnedOption], blocks: list[Block], credits: np.ndarray,
                       overrun: np.ndarray | None = None) -> np.ndarray:
    """(owned, blocks): where the active-hours row binds. A slot whose active hours of work, c_g x active_b at its
    `credit` c_g, take it all its hours or more (c_g x active_b >= r_g x hours_b) is bound as tight by its
    availability and displaced rows together (busy hours w / r <= availability x hours x slots + d,
    d <= (1 - availability) x hours x slots), so its active-hours row is implied and left out (an exact
    reduction). A card that may displace its overrun (`overrun_share`) is bound by those rows only to all its
    hours at reference pace (w <= hours x slots)."""
    speed = np.array([o.throughput for o in owned])
    reach = speed if overrun is None else np.where(overrun > 0, 1.0, speed)
    return np.asarray(_active(blocks)[None, :] * credits[:, None]
                      < reach[:, None] * np.array([b.hours for b in blocks])[None, :])


def _active(blocks: list[Block]) -> np.ndarray:
    """Each block's hours in which some job runs."""
    return np.array([b.active_hours for b in blocks])


def _displaced_work(model: Model) -> None:
    """Work displaced by owned maintenance runs on packed cloud hours: sum_o capacity_o y_ob >= sum_g r_g d_gb
    (capacity: slots x speed, one replica for always-on load, `CloudOption.packed_capacity`)."""
    if not model.d.size:
        return
    n_blocks = model.n_blocks
    row = np.arange(n_blocks)
    model.builder.add_rows(
        np.concatenate([np.tile(row, len(model.cloud)), np.tile(row, len(model.owned))]),
        np.concatenate([model.y.reshape(-1), model.d.reshape(-1)]),
        np.concatenate([np.repeat([c.packed_capacity for c in model.cloud], n_blocks),
                        np.repeat([-o.throughput for o in model.owned], n_blocks)]),
        np.zeros(n_blocks), INF)


def _hosts(model: Model, bare: list[int]) -> None:
    """Every bare card in a host that takes it, each host within its slots and its PSU (`card_capacity`).

    Placement columns a_gk: jobs of option g placed in hosts of kind k (for one-GPU jobs: cards, continuous; for
    wider jobs whole jobs, integer: a job's GPUs sit in one host). A host of kind k holds c_gk = floor(capacity /
    width) jobs of g, its capacity the cards its slots take and its PSU powers (`card_capacity`), and only kinds
    that accept the card (hardware fit) get a column. Rows: the option's cards (or jobs) are all placed, and each
    kind's hosts hold what is placed in them, sum_g a_gk / c_gk <= m_k. Exact for hosts that each hold one card
    type and width; a host mixing two is counted by the share each takes of it, which is safe (both its slots
    and its watts hold) but can miss a mix that would just fit. Why not pooled slots and watts: a 2-GPU desktop
    bought for its PSU watts would then power a 4-GPU job in another machine.
    """
    if not bare:
        return
    owned, hosts, bld = model.owned, model.hosts, model.builder
    share_rows: list[list[tuple[int, float]]] = [[] for _ in hosts]
    for g in bare:
        o = owned[g]
        jobs = {k: card_capacity(hosts[k], o) // o.width
                for k in o.accepting_hosts if k < len(hosts)}
        kinds = [k for k, n in jobs.items() if n >= 1]
        a = bld.add_cols(np.zeros(len(kinds)), INF, o.width > 1)
        placed, coef = ((model.slots[g][0][0], 1.0) if o.width > 1 else (model.u[g], float(o.gpus_per_unit)))
        bld.add_rows(np.zeros(len(kinds) + 1), np.concatenate([a, [placed]]),
                     np.concatenate([np.ones(len(kinds)), [-coef]]), np.array([0.0]), np.array([0.0]))
        for col, k in zip(a, kinds, strict=True):
            share_rows[k].append((int(col), 1.0 / jobs[k]))
    for k, shares in enumerate(share_rows):
        if not shares:
            continue
        cols = np.array([c for c, _ in shares] + [model.m[k]])
        vals = np.array([v for _, v in shares] + [-1.0])
        bld.add_rows(np.zeros(len(cols)), cols, vals, np.array([-INF]), np.array([0.0]))


def _host_spend(model: Model) -> None:
    """A valid inequality when every owned option is a bare purchase of one-GPU job slots (one card per slot):
    host spend >= H(ks[J]) when the first J slot binaries are on, laid on them as
    sum_k cost_k m_k >= sum_j (H(ks[j]) - H(ks[j-1])) mu_j (mu is unary, so the right side telescopes).

    ks[J] slots are then ks[J] cards, every card sits in a host, and a host of kind k holds at most best_k cards
    (its most of any option's, `card_capacity`), so the hosts' spend is at least H(n), the cheapest hosts holding n
    cards (`cheapest_hosts`). The LP relaxation splits cards between types and buys fractions of hosts
    (1.5 two-GPU workstations holding 3 cards); this row makes such a split pay for whole hosts at the root, which
    closes most of the bursty series' root gap. Host costs are the model's own (price, idle energy, basis).

    Cards bought beyond the slots the binaries count pay too, at the least rise of H per added card from any slot
    count (`least_rise`): with C cards and the first J binaries on, the row reads spend >= H(ks[J]) + rise x
    (C - ks[J]), at most H(C) for every whole C >= ks[J]. Without it the LP bought 3.05 cards (2.08 RTX 4090 and
    0.97 used RTX 3090, its 5% maintenance made up by the fraction) at the hosts' price of 3 (bursty series: root
    bound 16,742.45 -> 16,776.69 of the optimum 16,804.29; its main run 121 -> 103 M instructions)."""
    owned, mu = model.owned, model.mu
    if (not owned or not len(mu) or not len(model.m)
            or any(o.includes_host or o.is_commitment or o.width != 1 or o.gpus_per_unit != o.slots_per_unit
                   or o.load_per_gpu != 1.0 for o in owned)):
        return
    best = [max((card_capacity(h, o) for o in owned if k in o.accepting_hosts), default=0)
            for k, h in enumerate(model.hosts[: len(model.m)])]
    host_cost = _cat(model.builder.cost)[model.m]
    ks = model.layers.ks[: len(mu) + 1]
    cards = np.array([float(o.gpus_per_unit) for o in owned])
    most = int(_cat(model.builder.upper)[model.u] @ cards + 1e-9)  # the most cards any plan can hold
    priced = most <= MAX_CARDS_PRICED
    every = cheapest_hosts(host_cost, np.array(best), max(int(ks[-1]), most if priced else 0))
    spend = every[ks]
    steps = np.diff(spend)
    if not np.isfinite(spend).all() or not (steps > 0).any():
        return
    rise = least_rise(every, ks) if priced else 0.0
    widths = np.diff(ks).astype(float)
    model.builder.add_rows(np.zeros(len(model.m) + len(mu) + len(owned)), np.concatenate([model.m, mu, model.u]),
                           np.concatenate([host_cost, -(steps - rise * widths), -rise * cards]), np.array([0.0]),
                           np.array([INF]))


def _limits(model: Model, limits: Limits) -> None:
    """The profile's capex budget (units and hosts) and its maximum number of owned GPUs."""
    if not model.owned:
        return
    buys = [g for g, o in enumerate(model.owned) if not o.is_commitment]  # commitments are neither capex nor owned
    if not buys:
        return
    u = model.u[buys]
    if limits.max_capex_usd is not None:
        cols = np.concatenate([u, model.m])
        vals = np.concatenate([[model.owned[g].unit_price_usd for g in buys],
                               [h.host.base_cost_usd for h in model.hosts][: len(model.m)]])
        model.builder.add_rows(np.zeros(len(cols)), cols, vals, np.array([-INF]), np.array([limits.max_capex_usd]))
    if limits.max_owned_gpus is not None:
        model.builder.add_rows(np.zeros(len(u)), u, np.array([model.owned[g].gpus_per_unit for g in buys]),
                               np.array([-INF]), np.array([float(limits.max_owned_gpus)]))


def _shared_quotas(model: Model, blocks: list[Block]) -> None:
    """Copies of one offer at several job widths (the workload form) share its quota: committed units of one
    commitment, and packed cloud hours of one quota-limited offer (a marketplace listing is one machine)."""
    bld = model.builder
    groups: dict[str, list[int]] = {}
    for g, o in enumerate(model.owned):
        if o.max_units is not None:
            groups.setdefault(o.quota_group, []).append(g)
    for members in groups.values():
        if len(members) > 1:
            cap = float(model.owned[members[0]].max_units or 0)
            bld.add_rows(np.zeros(len(members)), model.u[members], np.ones(len(members)), np.array([-INF]),
                         np.array([cap]))
    _listing_hours(model, blocks)


def _listing_hours(model: Model, blocks: list[Block]) -> None:
    """A quota-limited offer's packed hours share its instance-hours with the whole instances the screening curve
    rents of it (a marketplace listing is one machine: the hours it is rented for jobs it cannot also absorb
    maintenance). Per block and quota group (copies of one offer at several widths) with a packable copy,
    sum_copies y_ob + rented_ob(K) <= quota x hours, with rented_ob(K) the instance-hours of o the curve rents in
    block b at K owned slots, laid on the slot binaries as steps (mu is unary). A sum over the block's hours: the
    quota holds in instance-hours, not hour by hour."""
    if not model.y.size:
        return
    if model.fluid is not None:
        fluid_listing_hours(model.fluid, model.builder, model.cloud, model.y, np.array([b.hours for b in blocks]))
        return
    packable = np.concatenate(model.builder.upper)[model.y].max(axis=1) > 0
    groups: dict[str, list[int]] = {}
    for k, c in enumerate(model.cloud):
        if c.max_instances is not None:
            groups.setdefault(c.quota_group, []).append(k)
    # a group with one packable copy needs its row, and that row must count the whole rentals of every copy (a
    # listing's unpackable 2-GPU copy rents the same machine its packable 1-GPU copy packs on); y of an unpackable
    # copy has upper bound 0, so it sits in the row harmlessly
    offers = {group: members for group, members in groups.items() if packable[members].any()}
    if not offers:
        return
    layers, mu = model.layers, model.mu
    first = min(layers.required, len(mu))  # slot steps up to here are forced on: their rent is the base
    listed = sorted(k for members in offers.values() for k in members)
    rented = dict(zip(listed, _rented_hours(model, first, listed), strict=True))  # (blocks, steps) per offer
    hours = np.array([b.hours for b in blocks])
    n_blocks = len(blocks)
    for members in offers.values():
        quota = float(model.cloud[members[0]].max_instances or 0)
        by_step = sum((rented[k] for k in members), np.zeros_like(rented[members[0]]))  # (blocks, steps)
        steps = np.diff(by_step, axis=1)  # (blocks, len(mu) - first)
        row = np.arange(n_blocks)
        rows = [np.tile(row, len(members)), np.repeat(row, steps.shape[1])]
        cols = [model.y[members].reshape(-1), np.tile(mu[first:], n_blocks)]
        vals = [np.ones(len(members) * n_blocks), steps.reshape(-1)]
        model.builder.add_rows(np.concatenate(rows), np.concatenate(cols), np.concatenate(vals),
                               np.full(n_blocks, -INF), quota * hours - by_step[:, 0])


def _rented_hours(model: Model, first: int, offers: list[int]) -> np.ndarray:
    """(offers, blocks, steps): instance-hours of each of `offers` (cloud indices) the screening curve rents per
    block, at the owned slot counts ks[first..len(mu)] (`Renting.instances` of the jobs the owned slots leave, per
    cell)."""
    layers, cells = model.layers, model.layers.cells
    left = cells.jobs[:, None] - layers.owned_jobs[:, first: len(model.mu) + 1]  # (cells, steps)
    values, where = np.unique(left, return_inverse=True)  # cells rent the same few job counts
    column = {k: i for i, k in enumerate(offers)}
    counts = np.zeros((len(values), len(offers)))
    for i, jobs in enumerate(values.tolist()):
        for k, count in model.renting.instances(jobs).items():
            if k in column:
                counts[i, column[k]] = count
    per_cell = counts[where.reshape(left.shape)] * cells.hours[:, None, None]  # (cells, steps, offers)
    out = np.zeros((layers.n_blocks, left.shape[1], len(offers)))
    np.add.at(out, cells.block, per_cell)
    return out.transpose(2, 0, 1)


# Primal heuristics only steer the search (optimality is still proven); on these small models with a
# tight relaxation they cost more than they find.
_HIGHS_OPTIONS: dict[str, bool | int | float | str] = {
    "output_flag": False,
    "threads": 1,
    "mip_rel_gap": defaults.SOLVER_REL_GAP,
    "mip_heuristic_run_feasibility_jump": False,
    "mip_heuristic_run_root_reduced_cost": False,
    "mip_heuristic_run_zi_round": False,
    "mip_heuristic_run_shifting": False,
}


@dataclass(frozen=True)
class Loaded:
    """A HiGHS instance holding a built model, its options and its MIP start, ready to `run`."""

    highs: highspy.Highs
    arrays: Arrays


def load(model: Model, time_limit_s: float = defaults.SOLVER_TIME_LIMIT_S) -> Loaded:
    """Hand the model to a fresh HiGHS: options, the arrays in one call, the MIP start. A step of its own so that a
    plan can load the main model before it starts the alternatives' thread, whose Python would otherwise hold the
    GIL while this thread prepares the solve (measured: the main run started 0.4-4.5 ms late)."""
    highs = highspy.Highs()  # type: ignore[no-untyped-call]
    # highspy registers a Python callback on every Highs; HiGHS calls it (taking the GIL) for a MIP start's
    # solutions, so while another thread runs Python each call waited up to the interpreter's 5 ms switch interval
    # (the bursty main run 13.5 ms alone, 39 ms beside a busy Python thread; 18.5 ms without the callback)
    highs.disableCallbacks()  # type: ignore[no-untyped-call]
    for name, value in _HIGHS_OPTIONS.items():
        highs.setOptionValue(name, value)
    highs.setOptionValue("time_limit", float(time_limit_s))
    arrays = model.builder.arrays()
    arrays.pass_to(highs, model.offset)
    if model.start is not None:
        highs.setSolution(len(model.start[0]), model.start[0], model.start[1])
    return Loaded(highs, arrays)


def run(model: Model, time_limit_s: float = defaults.SOLVER_TIME_LIMIT_S,
        loaded: Loaded | None = None) -> tuple[highspy.Highs, SolveStatus]:
    """Solve (the model as `load` hands it to HiGHS, unless given loaded; `time_limit_s` the limit `loaded` was
    given); the status mapped from HiGHS's."""
    loaded = load(model, time_limit_s) if loaded is None else loaded
    highs, arrays = loaded.highs, loaded.arrays
    highs.run()
    if model.start is not None and not _reports_its_solution(highs, arrays, model.offset):
        # the second run gets what the first left of the limit (at least a tenth of it, so that it can find a
        # solution): a guarded solve takes at most 1.1 x the limit, not twice it
        left = max(time_limit_s - float(highs.getRunTime()), time_limit_s / 10)
        return run(replace(model, start=None), left)
    status = highs.getModelStatus()
    if status == highspy.HighsModelStatus.kModelEmpty:  # no columns: feasible iff every row admits 0
        lower, upper = arrays.row_lower, arrays.row_upper
        feasible = bool(((lower <= 1e-9) & (upper >= -1e-9)).all())
        return highs, SolveStatus.OPTIMAL if feasible else SolveStatus.INFEASIBLE
    return highs, map_status(status, highs.getInfo().primal_solution_status == 2)


def _reports_its_solution(highs: highspy.Highs, arrays: Arrays, offset: float) -> bool:
    """Whether the objective HiGHS reports is that of the solution it returns (or it returns none). A guard on MIP
    starts: HiGHS has had bugs comparing an incumbent's objective across its presolved and original spaces (HiGHS
    issue #2439), which would show here as a reported optimum that is not its own solution's cost."""
    if highs.getInfo().primal_solution_status != 2 or not arrays.n_cols:
        return True
    x = np.asarray(highs.getSolution().col_value)
    reported = float(highs.getInfo().objective_function_value)
    return abs(float(np.dot(arrays.cost, x)) + offset - reported) <= 1e-6 * max(1.0, abs(reported))


def map_status(status: highspy.HighsModelStatus, has_solution: bool) -> SolveStatus:
    if status == highspy.HighsModelStatus.kOptimal:
        return SolveStatus.OPTIMAL
    if status in (highspy.HighsModelStatus.kInfeasible, highspy.HighsModelStatus.kUnboundedOrInfeasible):
        return SolveStatus.INFEASIBLE
    if status in (highspy.HighsModelStatus.kTimeLimit, highspy.HighsModelStatus.kInterrupt,
                  highspy.HighsModelStatus.kIterationLimit, highspy.HighsModelStatus.kSolutionLimit):
        return SolveStatus.TIME_LIMITED if has_solution else SolveStatus.ERROR
    return SolveStatus.ERROR


def read_out(model: Model, highs: highspy.Highs, status: SolveStatus) -> MipSolution:
    solution = MipSolution(status=status, objective=math.inf)
    if not status.has_solution:
        return solution
    has_cols = model.builder.n_cols > 0
    x = np.asarray(highs.getSolution().col_value) if has_cols else np.zeros(0)
    info = highs.getInfo()
    solution.objective = (float(info.objective_function_value) if has_cols else 0.0) + (0.0 if has_cols
                                                                                        else model.offset)
    gap = float(info.mip_gap) if has_cols and _cat(model.builder.integer, bool).any() else 0.0
    solution.gap = gap if math.isfinite(gap) else 0.0
    solution.units = {o.key: round(x[model.u[g]]) for g, o in enumerate(model.owned) if round(x[model.u[g]]) > 0}
    solution.hosts = {h.host.name: round(x[model.m[k]]) for k, h in enumerate(model.hosts[: len(model.m)])
                      if round(x[model.m[k]]) > 0}
    layers = model.layers
    cells = layers.cells
    if model.fluid is not None:
        owned_at_once, rented = model.fluid.read(x, len(model.cloud))
    else:
        steps = min(round(float(x[model.mu].sum())) if len(model.mu) else 0, len(layers.ks) - 1)
        owned_at_once = layers.owned_jobs[:, steps]
        rented = _rented_at(model, owned_at_once)
    for k, c in enumerate(model.cloud):
        if (rented[k] > 1e-12).any():
            solution.instances[c.key] = rented[k]
    work = x[model.w] if model.w.size else np.zeros((0, layers.n_blocks))
    total = work.sum(axis=0)
    for g, o in enumerate(model.owned):
        share_g = np.divide(work[g], total, out=np.zeros_like(total), where=total > 1e-9)[cells.block]
        if (share_g > 1e-12).any():
            solution.owned_jobs[o.key] = owned_at_once * share_g
        if model.d.size and (x[model.d[g]] > 1e-9).any():
            solution.displaced[o.key] = np.maximum(x[model.d[g]], 0.0)
    for k, c in enumerate(model.cloud):
        if model.y.size and (x[model.y[k]] > 1e-9).any():
            solution.packed_hours[c.key] = np.maximum(x[model.y[k]], 0.0)
    return solution


def _rented_at(model: Model, owned_at_once: np.ndarray) -> np.ndarray:
    """(offers, cells): whole (or packed) instances for the jobs the owned slots leave, offer by offer."""
    cells = model.layers.cells
    whole = np.zeros((len(model.cloud), len(cells.jobs)))
    covers: dict[float, dict[int, float]] = {}  # cells rent the same few job counts (levels are whole jobs)
    for cell, jobs in enumerate((cells.jobs - owned_at_once).tolist()):
        cover = covers.get(jobs)
        if cover is None:
            cover = covers[jobs] = model.renting.instances(jobs)
        for i, count in cover.items():
            whole[i, cell] = count
    return whole


def rent_only(model: Model, limits: Limits) -> MipSolution:
    """What the same cloud offers solve to with nothing owned and nothing committed (the cloud-only alternative),
    read from a built model's screening curve at K = 0 owned slots instead of building and running a model of its
    own. That model has no columns: every level of every block is rented as the curve prices it at K = 0, which
    does not depend on the owned options (column 0 of `screening` never serves a job), so its solution is this one
    field for field. It is infeasible when the quotas cannot cover the peak without owned slots (no finite rent at
    K = 0)."""
    layers = model.layers
    if layers.required > 0:
        return MipSolution(status=SolveStatus.INFEASIBLE, objective=math.inf)
    rent = float(layers.rent[0])
    weights = limits.weights
    fixed = weights.fixed_cloud_usd if weights is not None and weights.fixed_cloud_usd > 0 and rent > 1e-9 else 0.0
    solution = MipSolution(status=SolveStatus.OPTIMAL, objective=rent + fixed, gap=0.0)
    whole = _rented_at(model, layers.owned_jobs[:, 0])
    for k, c in enumerate(model.cloud):
        if (whole[k] > 1e-12).any():
            solution.instances[c.key] = whole[k]
    return solution


def solve(
    owned: list[OwnedOption],
    cloud: list[CloudOption],
    hosts: list[HostOption],
    blocks: list[Block],
    limits: Limits,
    time_limit_s: float = defaults.SOLVER_TIME_LIMIT_S,
    objective: Literal["cost", "capex", "gpus"] = "cost",
) -> MipSolution:
    """Cheapest plan (`cost`); `capex` and `gpus` find the least spend / fewest GPUs that can meet the
    demand, which is how an infeasible profile learns the nearest feasible limit."""
    started = time.perf_counter()
    return solved(build(owned, cloud, hosts, blocks, limits, objective), started, time_limit_s)


def solved(model: Model, started: float, time_limit_s: float = defaults.SOLVER_TIME_LIMIT_S,
           loaded: Loaded | None = None) -> MipSolution:
    """Run a built model (`loaded`: already handed to HiGHS by `load`) and read its solution out; `started` is when
    its building began (`build_ms`, `solve_ms`)."""
    built = time.perf_counter()
    highs, status = run(model, time_limit_s, loaded)
    solution = read_out(model, highs, status)
    solution.build_ms = 1000.0 * (built - started)
    solution.solve_ms = 1000.0 * (time.perf_counter() - started)
    return solution
