"""Load a built model into HiGHS, solve it within the time limit, map its status and read the solution out in
model terms (units, hosts, jobs and instances per level); also the rent-only solution read without a solve.

In: a `Model` from solvers.model.build. Out: a `MipSolution` (solvers.model.arrays)."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace
from typing import Literal

import highspy
import numpy as np

from solvers.base import defaults
from solvers.base.options import CloudOption, HostOption, OwnedOption
from solvers.demand.blocks import Block
from solvers.model.arrays import (
    Limits,
    MipSolution,
    Model,
    SolveStatus,
)
from solvers.model.build import build
from solvers.model.builder import Arrays, concat


@dataclass(frozen=True)
class Loaded:
    """A HiGHS instance holding a built model, its options and its MIP start, ready to `run`."""

    highs: highspy.Highs
    arrays: Arrays


def load(model: Model, time_limit_s: float = defaults.SOLVER_TIME_LIMIT_S) -> Loaded:
    """Hand the model to a fresh HiGHS: options, the arrays in one call, the MIP start. A step of its own so that a
    thread can say when its MIP is about to run (the alternatives' buy-only MIP, `explain.alternatives`), and so that
    no other thread's Python sits between loading and running (measured: the main run started 0.4-4.5 ms late)."""
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
    """The solution in model terms. Why whole arrays at once: option by option and offer by offer it made some
    thirty small numpy calls per option (a bursty plan's read-out 0.19 ms -> 0.1 ms, measured 2026-11-28); each
    figure is the same operation on the same floats."""
    solution = MipSolution(status=status, objective=math.inf)
    if not status.has_solution:
        return solution
    has_cols = model.builder.n_cols > 0
    x = np.asarray(highs.getSolution().col_value) if has_cols else np.zeros(0)
    info = highs.getInfo()
    solution.objective = (float(info.objective_function_value) if has_cols else 0.0) + (0.0 if has_cols
                                                                                        else model.offset)
    gap = float(info.mip_gap) if has_cols and concat(model.builder.integer, bool).any() else 0.0
    solution.gap = gap if math.isfinite(gap) else 0.0
    units = [round(v) for v in x[model.u].tolist()]
    solution.units = {o.key: n for o, n in zip(model.owned, units, strict=True) if n > 0}
    solution.hosts = {h.host.name: n for h, n in zip(model.hosts, [round(v) for v in x[model.m].tolist()],
                                                      strict=False) if n > 0}
    layers = model.layers
    cells = layers.cells
    if model.fluid is not None:
        owned_at_once, rented = model.fluid.read(x, len(model.cloud))
    else:
        steps = min(round(float(x[model.mu].sum())) if len(model.mu) else 0, len(layers.ks) - 1)
        owned_at_once = layers.owned_jobs[:, steps]
        rented = _rented_at(model, owned_at_once)
    if len(model.cloud):
        renting = np.any(rented > 1e-12, axis=1).tolist()
        for k, c in enumerate(model.cloud):
            if renting[k]:
                solution.instances[c.key] = rented[k]
    # an option not bought works nothing: HiGHS may leave it work within its feasibility tolerance (1e-7 of a
    # capacity row), which read as a share of the owned jobs gave an unbought card GPU-hours (and a plan its
    # period lines for a purchase it does not list)
    bought = [n > 0 for n in units]
    work = x[model.w] if model.w.size else np.zeros((0, layers.n_blocks))
    if not all(bought):
        work = np.where(np.array(bought)[:, None], work, 0.0)
    total = work.sum(axis=0)
    if len(model.owned):
        share = np.divide(work, total[None, :], out=np.zeros_like(work),
                          where=(total > 1e-9)[None, :])[:, cells.block]  # (owned, cells)
        shared = (share > 1e-12).any(axis=1).tolist()
        displaced = x[model.d] if model.d.size else None
        displaces = [False] * len(model.owned) if displaced is None else (displaced > 1e-9).any(axis=1).tolist()
        for g, o in enumerate(model.owned):
            if shared[g]:
                solution.owned_jobs[o.key] = owned_at_once * share[g]
            if bought[g] and displaces[g]:
                assert displaced is not None
                solution.displaced[o.key] = np.maximum(displaced[g], 0.0)
    if model.y.size:
        packed = x[model.y]
        packs = (packed > 1e-9).any(axis=1).tolist()
        for k, c in enumerate(model.cloud):
            if packs[k]:
                solution.packed_hours[c.key] = np.maximum(packed[k], 0.0)
    return solution


def _rented_at(model: Model, owned_at_once: np.ndarray) -> np.ndarray:
    """(offers, cells): whole (or packed) instances for the jobs the owned slots leave, offer by offer. Cells rent
    the same few job counts (levels are whole jobs): each distinct count is looked up once."""
    cells = model.layers.cells
    values, where = np.unique(cells.jobs - owned_at_once, return_inverse=True)
    table = np.zeros((len(model.cloud), len(values)))
    for i, jobs in enumerate(values.tolist()):
        for k, count in model.renting.instances(jobs).items():
            table[k, i] = count
    whole: np.ndarray = table[:, where.reshape(-1)]
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
