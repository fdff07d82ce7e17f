"""The mixed-integer planning model (docs/ARCHITECTURE.md, "The planning model"), built with PuLP and
solved in-process by HiGHS.

Variables: units bought per owned option (integer), hosts per size (integer), owned GPU-hours and
cloud instance-hours per block. The objective is the total cost over the horizon: purchases net of
resale, hosts, energy (working and idle) and cloud hours. Constraints: demand per block, owned
capacity (availability x hours x GPUs), quotas, host slots and PSU watts, budget and GPU count.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Literal

import pulp

from solvers import defaults
from solvers.blocks import Block
from solvers.options import CloudOption, HostOption, OwnedOption


@dataclass(frozen=True)
class Limits:
    usd_per_kwh: float
    availability: float
    host_watts_reserve: float
    max_capex_usd: float | None = None
    max_owned_gpus: int | None = None


@dataclass
class MipSolution:
    status: str  # optimal | time_limited | infeasible | error
    objective: float
    units: dict[str, int] = field(default_factory=dict)
    hosts: dict[int, int] = field(default_factory=dict)  # slots -> count
    owned_hours: dict[tuple[str, int], float] = field(default_factory=dict)  # (key, block) -> GPU-hours
    cloud_hours: dict[tuple[str, int], float] = field(default_factory=dict)  # (key, block) -> instance-hours
    backend: str = "HiGHS"
    solve_ms: float = 0.0
    gap: float | None = None


def unit_bound(option: OwnedOption, blocks: list[Block], limits: Limits) -> int:
    """Most units worth buying: enough for the busiest block; more only adds cost (net price >= 0)."""
    peak_rate = max((b.rate for b in blocks), default=0.0)
    per_unit = option.throughput * limits.availability * option.gpus_per_unit
    bound = math.ceil(peak_rate / per_unit - 1e-9)
    if limits.max_capex_usd is not None and option.unit_price_usd > 0:
        bound = min(bound, math.floor(limits.max_capex_usd / option.unit_price_usd + 1e-9))
    if limits.max_owned_gpus is not None:
        bound = min(bound, limits.max_owned_gpus // option.gpus_per_unit)
    return max(bound, 0)


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
    total_hours = sum(b.hours for b in blocks)
    prob = pulp.LpProblem("gpuplan", pulp.LpMinimize)
    bounds = {o.key: unit_bound(o, blocks, limits) for o in owned}
    owned = [o for o in owned if bounds[o.key] > 0]
    units = {o.key: prob.add_variable(f"u_{i}", 0, bounds[o.key], cat="Integer") for i, o in enumerate(owned)}
    bare = [o for o in owned if not o.includes_host]
    host_vars: dict[int, pulp.LpVariable] = {}
    if bare:
        max_gpus = sum(o.gpus_per_unit * bounds[o.key] for o in bare)
        for h in hosts:
            host_vars[h.host.slots] = prob.add_variable(
                f"m_{h.host.slots}", 0, math.ceil(max_gpus / h.host.slots), cat="Integer"
            )
    x = {
        (o.key, b): prob.add_variable(f"x_{i}_{b}", 0, blk.demand / o.throughput)
        for i, o in enumerate(owned)
        for b, blk in enumerate(blocks)
    }
    y = {
        (c.key, b): prob.add_variable(f"y_{i}_{b}", 0, _cloud_bound(c, blk))
        for i, c in enumerate(cloud)
        for b, blk in enumerate(blocks)
    }
    host_by_slots = {h.host.slots: h for h in hosts}
    capex = pulp.lpSum(o.unit_price_usd * units[o.key] for o in owned) + pulp.lpSum(
        host_by_slots[s].host.base_cost_usd * v for s, v in host_vars.items()
    )
    gpu_count = pulp.lpSum(o.gpus_per_unit * units[o.key] for o in owned)
    cost = (
        pulp.lpSum(
            (o.net_price_usd + limits.usd_per_kwh * o.idle_kwh_per_unit_hour * total_hours) * units[o.key]
            for o in owned
        )
        + pulp.lpSum(
            (
                host_by_slots[s].host.base_cost_usd
                + limits.usd_per_kwh * host_by_slots[s].idle_kwh_per_hour * total_hours
            )
            * v
            for s, v in host_vars.items()
        )
        + pulp.lpSum(
            limits.usd_per_kwh * o.marginal_kwh_per_gpu_hour * x[o.key, b] for o in owned for b in range(len(blocks))
        )
        + pulp.lpSum(c.usd_per_hour * y[c.key, b] for c in cloud for b in range(len(blocks)))
    )
    prob += {"cost": cost, "capex": capex, "gpus": gpu_count}[objective]
    for b, blk in enumerate(blocks):
        prob += (
            pulp.lpSum(o.throughput * x[o.key, b] for o in owned)
            + pulp.lpSum(c.ref_hours_per_hour * y[c.key, b] for c in cloud)
            >= blk.demand,
            f"demand_{b}",
        )
        for o in owned:
            # x <= min(capacity, demand / throughput) * u is valid for integer u and makes the relaxation tight
            cap = min(limits.availability * blk.hours * o.gpus_per_unit, blk.demand / o.throughput)
            prob += x[o.key, b] <= cap * units[o.key]
    if bare:
        prob += (
            pulp.lpSum(o.gpus_per_unit * units[o.key] for o in bare)
            <= pulp.lpSum(s * v for s, v in host_vars.items()),
            "host_slots",
        )
        prob += (
            pulp.lpSum(o.card_watts * o.gpus_per_unit * units[o.key] for o in bare)
            <= pulp.lpSum(
                (host_by_slots[s].host.psu_watts - limits.host_watts_reserve) * v for s, v in host_vars.items()
            ),
            "host_power",
        )
    if limits.max_capex_usd is not None and owned:
        prob += capex <= limits.max_capex_usd, "budget"
    if limits.max_owned_gpus is not None and owned:
        prob += gpu_count <= limits.max_owned_gpus, "gpu_count"

    backend, status, gap = _run(prob, time_limit_s)
    solution = MipSolution(status=status, objective=math.inf, backend=backend, gap=gap)
    if status in ("optimal", "time_limited"):
        solution.objective = float(pulp.value(prob.objective) or 0.0)
        solution.units = {k: round(v.value() or 0) for k, v in units.items() if round(v.value() or 0) > 0}
        solution.hosts = {s: round(v.value() or 0) for s, v in host_vars.items() if round(v.value() or 0) > 0}
        solution.owned_hours = {k: v.value() or 0.0 for k, v in x.items() if (v.value() or 0.0) > 1e-9}
        solution.cloud_hours = {k: v.value() or 0.0 for k, v in y.items() if (v.value() or 0.0) > 1e-9}
    solution.solve_ms = 1000.0 * (time.perf_counter() - started)
    return solution


def _cloud_bound(c: CloudOption, blk: Block) -> float:
    need = blk.demand / c.ref_hours_per_hour
    return need if c.max_instances is None else min(need, c.max_instances * blk.hours)


# Primal heuristics only steer the search (optimality is still proven); on these small models with a
# tight relaxation they cost more than they find: about half the solve time in bench/plan_latency.py.
_HIGHS_OPTIONS = {
    "mip_heuristic_run_feasibility_jump": False,
    "mip_heuristic_run_root_reduced_cost": False,
    "mip_heuristic_run_zi_round": False,
    "mip_heuristic_run_shifting": False,
}


def _run(prob: pulp.LpProblem, time_limit_s: float) -> tuple[str, str, float | None]:
    """Solve on HiGHS in-process; CBC only if HiGHS is unavailable. Never keeps solver files."""
    try:
        solver = pulp.HiGHS(msg=False, timeLimit=time_limit_s, gapRel=defaults.SOLVER_REL_GAP, threads=1,
                            **_HIGHS_OPTIONS)
        prob.solve(solver)
        backend = "HiGHS"
    except (pulp.PulpSolverError, ImportError, AttributeError):  # pragma: no cover - fallback path
        prob.solve(pulp.PULP_CBC_CMD(msg=False, timeLimit=time_limit_s, keepFiles=False))
        backend = "CBC"
    return backend, *_status(prob, backend)


def _status(prob: pulp.LpProblem, backend: str) -> tuple[str, float | None]:
    if backend == "HiGHS":
        import highspy

        model = prob.solverModel
        status = model.getModelStatus()
        has_solution = model.getInfo().primal_solution_status == 2
        if status == highspy.HighsModelStatus.kOptimal:
            return "optimal", _gap(model)
        if status in (highspy.HighsModelStatus.kInfeasible, highspy.HighsModelStatus.kUnboundedOrInfeasible):
            return "infeasible", None
        if status == highspy.HighsModelStatus.kTimeLimit:
            return ("time_limited", _gap(model)) if has_solution else ("error", None)
        return "error", None
    if prob.status == pulp.LpStatusOptimal:  # pragma: no cover - CBC fallback
        return "optimal", None
    return ("infeasible" if prob.status == pulp.LpStatusInfeasible else "error"), None


def _gap(model: object) -> float | None:
    try:
        gap = float(model.getInfo().mip_gap)  # type: ignore[attr-defined]
    except AttributeError:  # pragma: no cover
        return None
    return gap if math.isfinite(gap) else 0.0
