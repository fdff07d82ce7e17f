"""Each future's total with the first stage held: the futures then share nothing, so each is solved alone (its
model with the purchase, host and commitment columns fixed: 2.3 ms a future of a 36-month lab, where their
extensive form with the same columns fixed took HiGHS 2.9 s for 100, measured 2026-11-28), two at a time when the
process's pool is idle (`solvers.base.deferred.two_at_a_time`: HiGHS's `run` releases the GIL, so the second core
works too)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace

import highspy
import numpy as np

from solvers.base import defaults
from solvers.base.deferred import two_at_a_time
from solvers.model.arrays import SolveStatus
from solvers.model.solve import map_status
from solvers.uncertainty.extensive import RELAXED_OPTIONS, Stacked, Stage, read_first_stage


def future_total(piece: Stage, fixed: dict[str, int], time_limit_s: float,
                 hold_deferred: bool = False) -> tuple[SolveStatus, float, np.ndarray]:
    """One future's best total with its first-stage columns at `fixed` (absent names at 0), and its later
    purchases (`Split.deferred`: what it buys at the later decision months; held at 0 with `hold_deferred`);
    inf without a plan."""
    arrays = piece.arrays
    lower, upper = arrays.lower.copy(), arrays.upper.copy()
    for name, k in zip(piece.names, piece.first_stage, strict=True):
        lower[k] = upper[k] = float(fixed.get(name, 0))
    if hold_deferred:
        upper[piece.deferred] = 0.0
    highs = highspy.Highs()  # type: ignore[no-untyped-call]
    highs.disableCallbacks()  # type: ignore[no-untyped-call]
    for name, option in RELAXED_OPTIONS.items():
        highs.setOptionValue(name, option)
    highs.setOptionValue("mip_rel_gap", defaults.SOLVER_REL_GAP)
    highs.setOptionValue("time_limit", float(max(time_limit_s, 0.05)))
    replace(arrays, lower=lower, upper=upper).pass_to(highs, piece.offset)
    highs.run()
    info = highs.getInfo()
    status = map_status(highs.getModelStatus(), info.primal_solution_status == 2)
    if not status.has_solution:
        return status, np.inf, np.zeros(len(piece.deferred))
    later = np.round(np.asarray(highs.getSolution().col_value)[piece.deferred])
    return status, float(info.objective_function_value), later


def evaluate_fixed(pieces: Sequence[Stage], fixed: dict[str, int],
                   time_limit_s: float = defaults.SOLVER_TIME_LIMIT_S, hold_deferred: bool = False) -> Stacked:
    """Every future's total with the first stage at `fixed` (later purchases each future's best, or held at 0
    with `hold_deferred`); the worst status of them."""
    started = time.perf_counter()
    deadline = started + time_limit_s

    def one(piece: Stage) -> tuple[SolveStatus, float, np.ndarray]:
        return future_total(piece, fixed, deadline - time.perf_counter(), hold_deferred)

    found = two_at_a_time(one, pieces)
    statuses = [f[0] for f in found]
    totals = [f[1] for f in found]
    later = [f[2] for f in found]
    worst = max(statuses, key=lambda s: (not s.has_solution, s != SolveStatus.OPTIMAL))
    values = np.array(totals)
    weights = np.array([p.weight for p in pieces])
    first = pieces[0]
    units, hosts = read_first_stage(first, np.array([float(fixed.get(name, 0)) for name in first.names]))
    return Stacked(worst, units, hosts, values, float(np.dot(weights, values)), 0.0,
                   1000.0 * (time.perf_counter() - started), later=np.array(later))
