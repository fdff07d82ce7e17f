"""The model's data: its limits, the columns and rows being built, the built arrays, and what a solve returns.

Why apart from the build: the MIP start (solvers.model.start) and the fluid cells (solvers.model.fluid) fill the
same builder the build does, and the build calls them; with the types here, none of them imports another back."""

from __future__ import annotations

import math
import os
import sys
from dataclasses import dataclass, field
from enum import StrEnum

import highspy
import numpy as np

from solvers.base.finance import Weights
from solvers.base.options import CloudOption, HostOption, OwnedOption
from solvers.demand.blocks import Block
from solvers.model.builder import Builder
from solvers.model.fluid import Fluid
from solvers.model.layers import Cells, Layers, Renting


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
        np.repeat(np.arange(len(blocks), dtype=np.int64), [len(b.jobs) for b in blocks]),
        np.concatenate([b.jobs for b in blocks]).astype(float),
        np.concatenate([b.level_hours for b in blocks]).astype(float),
    )


def credit(option: OwnedOption, fluid: bool) -> float:
    """Reference jobs at once that one job slot of `option` carries: the model's unit of owned capacity.

    Work that may wait (`fluid`: patience day, week or month) is fluid within its window, so a slot of relative
    throughput r does r reference job-hours in every hour of it, as a rented GPU does: a 3x card does the work of
    three reference GPUs, a 0.9x card nine tenths of one. Work that may not wait holds a slot per job: a faster
    slot finishes its job sooner and idles (a job cannot start before it arrives), a slower one holds its job
    longer (`availability_rows`: the overrun in its idle hours, the rest to packed cloud hours), so each carries one
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
    return _bound(option, need, limits)


def unit_bounds(owned: list[OwnedOption], blocks: list[Block], limits: Limits) -> dict[str, int]:
    """`unit_bound` of every option at once: each option's busiest block found in one array operation, with the
    same divisions as option by option (a loop of blocks per option took 50 us of a bursty build, measured
    2026-11-28)."""
    load = block_load(blocks)
    peak, work = load
    speed = np.array([o.throughput for o in owned], dtype=float)
    availability = np.array([o.available(limits.availability) for o in owned], dtype=float)
    done = np.array([d for d, _ in work], dtype=float)
    hours = np.array([h for _, h in work], dtype=float)
    if not (speed > 0).all() or not (availability > 0).all() or not (hours > 0).all():
        return {o.key: unit_bound(o, blocks, limits, load) for o in owned}  # as it fails, option by option
    fluid = not limits.integer_instances
    busy = done[None, :] / speed[:, None]
    busiest = (busy / (availability[:, None] * hours[None, :])).max(axis=1, initial=-math.inf)
    bounds = {}
    for o, most in zip(owned, busiest.tolist(), strict=True):
        if o.slots_per_unit <= 0:
            bounds[o.key] = 0
            continue
        need = peak / credit(o, fluid)
        bounds[o.key] = _bound(o, max(need, most), limits)
    return bounds


def _bound(option: OwnedOption, need: float, limits: Limits) -> int:
    """`unit_bound` from the slots the option needs."""
    if option.includes_host or option.width == 1 or option.is_commitment:
        bound = math.ceil(need / option.slots_per_unit - 1e-9)
    else:  # bare cards pooled for wider jobs serve whole jobs (`slot_columns`' q): enough cards for whole jobs
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
            [(b.job_hours, b.hours) for b in blocks])


INF = highspy.kHighsInf


# `host_spend_rows` prices hosts for every card count a plan can reach up to this many cards (a covering knapsack in
# Python: 1.0 ms for 1,000 cards over the bundled five host kinds, 2.1 ms for 2,048, measured 2026-11-27); beyond it
# the row charges nothing for cards above its slots
MAX_CARDS_PRICED = 2048


def first_highs_quietly() -> None:
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


@dataclass
class Model:
    """The built model and the column ranges the read-out needs."""

    builder: Builder
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
    start: tuple[np.ndarray, np.ndarray] | None = None  # integer columns and values of a MIP start (model.start)
    credits: np.ndarray = field(default_factory=lambda: np.zeros(0))  # per owned option: `credit`
    fluid: Fluid | None = None  # work that may wait: the per-cell columns of `solvers.model.fluid` (then mu is empty)
    # (owned, hosts): cards of each option a host of each kind holds, -1 where it does not take them (`host_capacity`)
    capacity: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.int64))
    # read once by the build for the slot, availability and active-hours rows and the start (the reformulation checks,
    # `slots.maintenance_in_idle_hours` and `active_rows_needed`, still make their own from the blocks and options):
    # per block its hours and its hours in which some job runs; per owned option its throughput and availability
    block_hours: np.ndarray = field(default_factory=lambda: np.zeros(0))
    active_hours: np.ndarray = field(default_factory=lambda: np.zeros(0))
    speed: np.ndarray = field(default_factory=lambda: np.zeros(0))
    availability: np.ndarray = field(default_factory=lambda: np.zeros(0))
    # each owned option's slot column and its coefficient (`slots.slot_terms_of`), made on first use
    slot_terms: tuple[np.ndarray, np.ndarray] | None = None

    @property
    def n_blocks(self) -> int:
        return self.layers.n_blocks
