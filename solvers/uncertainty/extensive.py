"""The sample average problem as one HiGHS MIP (extensive form): every future's model side by side, block-diagonal,
its first-stage columns tied by non-anticipativity rows, and the objective of the profile's choice.

First stage (decided today, the same in every future): units bought of each owned option, including commitments
(their terms start at month 0), and host machines. Everything else is recourse: owned work, rented instances,
packed hours, the slot steps of the screening curve, per future. A future given as a `deferral.Split` (its model
split at a later decision month) adds recourse of its own: what it buys at that month (`Stage.deferred`; held at 0
with `hold_deferred`).

Objectives, over futures s with probabilities p_s and totals c_s (each future's model cost with its offset):
- expected: min sum_s p_s c_s;
- cvar: min sum_s p_s c_s + w (eta + sum_s p_s z_s / alpha), z_s >= c_s - eta, z_s >= 0 (Rockafellar and Uryasev
  2000: at the optimum eta is the value at risk and the bracket the mean of the worst alpha of futures);
- regret: min t, t >= c_s - best_s (each future's own optimum), plus a tie-break of 1e-7 x the expected cost.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal, Protocol

import highspy
import numpy as np

from solvers.base import defaults
from solvers.model.arrays import INF, Model, SolveStatus
from solvers.model.builder import Arrays
from solvers.model.solve import map_status

Objective = Literal["expected", "cvar", "regret"]
REGRET_TIE_BREAK = 1e-7

# symmetry detection finds none between futures (their data differ) and cost 20% of a 100-future solve
_OPTIONS: dict[str, bool | int | float | str] = {"output_flag": False, "threads": 1, "mip_detect_symmetry": False}
# with each future's recourse relaxed (and for one future alone) the planning model's own settings, its primal
# heuristics off (`solvers.model.solve._HIGHS_OPTIONS`: on these small, tight models they cost more than they find): a
# future's recourse with the purchase held 2.3 ms instead of 7 ms, the relaxed form of 100 futures 356 ms instead of
# 404 (measured 2026-11-28); the full extensive form is slower with them (4.6 s against 3.2 s), so keeps HiGHS's own
RELAXED_OPTIONS: dict[str, bool | int | float | str] = {
    **_OPTIONS, "mip_heuristic_run_feasibility_jump": False, "mip_heuristic_run_root_reduced_cost": False,
    "mip_heuristic_run_zi_round": False, "mip_heuristic_run_shifting": False}


class Stage(Protocol):
    """What the extensive form reads of one future: a `Piece` (its planning model), or a
    `solvers.uncertainty.deferral.Split` (its model split at the later decision months, with later purchases)."""

    @property
    def weight(self) -> float: ...
    @property
    def arrays(self) -> Arrays: ...
    @property
    def first_stage(self) -> np.ndarray: ...
    @property
    def names(self) -> list[str]: ...
    @property
    def n_units(self) -> int: ...
    @property
    def offset(self) -> float: ...
    @property
    def deferred(self) -> np.ndarray: ...
    @property
    def later_outlay(self) -> np.ndarray: ...
    @property
    def later_resale(self) -> np.ndarray: ...


@dataclass(frozen=True)
class Piece:
    """One future's built model and its probability."""

    model: Model
    weight: float

    @cached_property
    def arrays(self) -> Arrays:
        """The model's arrays, made once (every solve of the future reads them)."""
        return self.model.builder.arrays()

    @property
    def first_stage(self) -> np.ndarray:
        """The model's first-stage columns: units of every owned option, then host machines."""
        return np.concatenate([self.model.u, self.model.m]).astype(np.int64)

    @property
    def names(self) -> list[str]:
        return [o.key for o in self.model.owned] + [h.host.name for h in self.model.hosts[: len(self.model.m)]]

    @property
    def n_units(self) -> int:
        """First-stage names before this index are owned options, from it host machines."""
        return len(self.model.u)

    @property
    def offset(self) -> float:
        return self.model.offset

    @property
    def deferred(self) -> np.ndarray:
        """No later purchases: everything is bought at month 0."""
        return np.zeros(0, dtype=np.int64)

    @property
    def later_outlay(self) -> np.ndarray:
        return np.zeros(0)

    @property
    def later_resale(self) -> np.ndarray:
        return np.zeros(0)


@dataclass
class Stacked:
    """A solved extensive form: the first-stage decision, each future's total, and how the solve went."""

    status: SolveStatus
    units: dict[str, int] = field(default_factory=dict)
    hosts: dict[str, int] = field(default_factory=dict)
    totals: np.ndarray = field(default_factory=lambda: np.zeros(0))
    objective: float = math.inf
    gap: float | None = None
    solve_ms: float = 0.0
    columns: int = 0
    rows: int = 0
    x: np.ndarray = field(default_factory=lambda: np.zeros(0))  # the solution's columns (a start for the next)
    bound: float = -math.inf  # HiGHS's dual bound on the objective
    later: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))  # per future, its later purchases (`Split`)


def read_first_stage(piece: Stage, values: np.ndarray) -> tuple[dict[str, int], dict[str, int]]:
    """Units and hosts (names with a positive count) from the first-stage columns' values, in `piece.names` order."""
    counts = [round(float(v)) for v in values]
    names, n = piece.names, piece.n_units
    return ({k: c for k, c in zip(names[:n], counts[:n], strict=True) if c > 0},
            {k: c for k, c in zip(names[n:], counts[n:], strict=True) if c > 0})


def solve_extensive(pieces: Sequence[Stage], objective: Objective = "expected", *, alpha: float = 0.1,
                    risk_weight: float = 1.0, best: np.ndarray | None = None,
                    fixed: dict[str, int] | None = None, free: set[str] | None = None,
                    time_limit_s: float = defaults.SOLVER_TIME_LIMIT_S, start: np.ndarray | None = None,
                    relax_recourse: bool = False, rel_gap: float = defaults.SOLVER_REL_GAP,
                    hold_deferred: bool = False) -> Stacked:
    """Build and solve the extensive form. `fixed`: first-stage columns held at these values (names absent are
    held at 0) except those named in `free`, which stay decisions; `best`: each future's own optimum (regret);
    `start`: a feasible solution of the same futures' columns (another solve's `x`), a MIP start;
    `relax_recourse`: every integer column but the first stage continuous (a bound: each future's recourse at
    its linear relaxation, a tenth of the time; `solvers.uncertainty.decide` prices the decision exactly after);
    `hold_deferred`: later purchases (`Split.deferred`) held at 0, every purchase decided at month 0."""
    names = pieces[0].names
    for piece in pieces[1:]:
        if piece.names != names:
            raise ValueError("every future's model must have the same first-stage columns")
    arrays = [p.arrays for p in pieces]
    col_at = np.cumsum([0] + [a.n_cols for a in arrays])
    row_at = np.cumsum([0] + [a.n_rows for a in arrays])
    nnz_at = np.cumsum([0] + [len(a.value) for a in arrays])
    n_cols, n_rows = int(col_at[-1]), int(row_at[-1])
    weights = np.array([p.weight for p in pieces])
    offsets = np.array([p.offset for p in pieces])
    cost = np.concatenate([a.cost for a in arrays])
    lower = np.concatenate([a.lower for a in arrays])
    upper = np.concatenate([a.upper for a in arrays])
    integer = np.concatenate([a.integer for a in arrays])
    if hold_deferred:
        for s, p in enumerate(pieces):
            upper[col_at[s] + p.deferred] = 0.0
    if relax_recourse:
        tied = integer[np.concatenate([col_at[s] + p.first_stage for s, p in enumerate(pieces)])]
        integer = np.zeros_like(integer)
        integer[np.concatenate([col_at[s] + p.first_stage for s, p in enumerate(pieces)])] = tied
    starts = [np.concatenate([a.start[:-1] + nnz_at[s] for s, a in enumerate(arrays)])]
    index = [np.concatenate([a.index.astype(np.int64) + col_at[s] for s, a in enumerate(arrays)])]
    value = [np.concatenate([a.value for a in arrays])]
    row_lower = [np.concatenate([a.row_lower for a in arrays])]
    row_upper = [np.concatenate([a.row_upper for a in arrays])]
    nnz = int(nnz_at[-1])

    def add_rows(cols: list[np.ndarray], vals: list[np.ndarray], lo: np.ndarray, hi: np.ndarray) -> None:
        nonlocal nnz, n_rows
        lengths = np.array([len(c) for c in cols])
        starts.append(nnz + np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64))
        index.append(np.concatenate(cols).astype(np.int64))
        value.append(np.concatenate(vals).astype(float))
        row_lower.append(lo)
        row_upper.append(hi)
        nnz += int(lengths.sum())
        n_rows += len(cols)

    first = pieces[0].first_stage
    if len(first) and len(pieces) > 1:  # non-anticipativity: x_s - x_0 = 0 for every tied column
        cols, vals = [], []
        for s, piece in enumerate(pieces[1:], start=1):
            for j, k in zip(piece.first_stage, first, strict=True):
                cols.append(np.array([col_at[s] + j, k]))
                vals.append(np.array([1.0, -1.0]))
        add_rows(cols, vals, np.zeros(len(cols)), np.zeros(len(cols)))
    if fixed is not None:
        for name, k in zip(names, first, strict=True):
            if free is not None and name in free:
                continue
            held = float(fixed.get(name, 0))
            if held > upper[k] + 1e-9:
                upper[k] = held  # a purchase beyond the futures' bound (the deterministic plan's): still priced
            lower[k] = upper[k] = held

    per_piece = [cost[col_at[s]: col_at[s + 1]].copy() for s in range(len(pieces))]
    objective_offset = float(np.dot(weights, offsets))
    extra_cost: list[float] = []
    extra_lower: list[float] = []
    extra_upper: list[float] = []
    if objective == "expected":
        cost = np.concatenate([c * w for c, w in zip(per_piece, weights, strict=True)])
    else:  # a total column per future: c_s - cost_s . x_s = offset_s
        total_col = n_cols + np.arange(len(pieces))
        cost = np.zeros(n_cols)
        cols, vals = [], []
        for s, c in enumerate(per_piece):
            nz = np.flatnonzero(c)
            cols.append(np.concatenate([[total_col[s]], col_at[s] + nz]))
            vals.append(np.concatenate([[1.0], -c[nz]]))
        add_rows(cols, vals, offsets.copy(), offsets.copy())
        extra_lower += [-INF] * len(pieces)
        extra_upper += [INF] * len(pieces)
        objective_offset = 0.0
        if objective == "cvar":
            extra_cost += list(weights)
            eta = total_col[-1] + 1
            z = eta + 1 + np.arange(len(pieces))
            extra_cost += [risk_weight, *(risk_weight * weights / alpha).tolist()]
            extra_lower += [-INF] + [0.0] * len(pieces)
            extra_upper += [INF] * (1 + len(pieces))
            add_rows([np.array([z[s], total_col[s], eta]) for s in range(len(pieces))],
                     [np.array([1.0, -1.0, 1.0])] * len(pieces), np.zeros(len(pieces)), np.full(len(pieces), INF))
        else:
            if best is None:
                raise ValueError("the regret objective needs each future's own optimum")
            extra_cost += list(REGRET_TIE_BREAK * weights)
            t = total_col[-1] + 1
            extra_cost += [1.0]
            extra_lower += [-INF]
            extra_upper += [INF]
            add_rows([np.array([t, total_col[s]]) for s in range(len(pieces))],
                     [np.array([1.0, -1.0])] * len(pieces), -np.asarray(best, dtype=float),
                     np.full(len(pieces), INF))
    n_extra = len(extra_cost)
    all_cost = np.concatenate([cost, np.array(extra_cost)])
    all_lower = np.concatenate([lower, np.array(extra_lower)])
    all_upper = np.concatenate([upper, np.array(extra_upper)])
    all_integer = np.concatenate([integer, np.zeros(n_extra, dtype=bool)])
    start = np.concatenate([*starts, [nnz]]).astype(np.int32)
    stacked = Arrays(n_cols + n_extra, n_rows, all_cost, all_lower, all_upper, np.concatenate(row_lower),
                     np.concatenate(row_upper), start, np.concatenate(index).astype(np.int32),
                     np.concatenate(value), all_integer)
    started = time.perf_counter()
    highs = highspy.Highs()  # type: ignore[no-untyped-call]
    highs.disableCallbacks()  # type: ignore[no-untyped-call]
    for name, option in (RELAXED_OPTIONS if relax_recourse or len(pieces) == 1 else _OPTIONS).items():
        highs.setOptionValue(name, option)
    highs.setOptionValue("time_limit", float(max(time_limit_s, 0.05)))
    highs.setOptionValue("mip_rel_gap", float(rel_gap))
    stacked.pass_to(highs, objective_offset)
    if start is not None and len(start) >= n_cols:
        tied = np.flatnonzero(all_integer[:n_cols])
        highs.setSolution(len(tied), tied.astype(np.int32), np.round(start[tied]))
    highs.run()
    info = highs.getInfo()
    status = map_status(highs.getModelStatus(), info.primal_solution_status == 2)
    answer = Stacked(status, solve_ms=1000.0 * (time.perf_counter() - started), columns=stacked.n_cols,
                     rows=stacked.n_rows)
    if not status.has_solution:
        return answer
    x = np.asarray(highs.getSolution().col_value)
    answer.x = x
    answer.objective = float(info.objective_function_value)
    answer.bound = float(info.mip_dual_bound) if all_integer.any() else answer.objective
    gap = float(info.mip_gap)
    answer.gap = gap if math.isfinite(gap) else 0.0
    answer.totals = np.array([float(np.dot(per_piece[s], x[col_at[s]: col_at[s + 1]])) + offsets[s]
                              for s in range(len(pieces))])
    answer.units, answer.hosts = read_first_stage(pieces[0], x[first])
    answer.later = np.array([np.round(x[col_at[s] + p.deferred]) for s, p in enumerate(pieces)])
    return answer

