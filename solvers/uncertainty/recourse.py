"""Each future's total with the first stage held: the futures then share nothing, so each is solved alone (its
model with the purchase, host and commitment columns fixed: 2.3 ms a future of a 36-month lab, where their
extensive form with the same columns fixed took HiGHS 2.9 s for 100, measured 2026-11-28)."""

from __future__ import annotations

import time
from dataclasses import replace

import highspy
import numpy as np

from solvers.base import defaults
from solvers.model.arrays import SolveStatus
from solvers.model.solve import map_status
from solvers.uncertainty.extensive import RELAXED_OPTIONS, Piece, Stacked


def future_total(piece: Piece, fixed: dict[str, int], time_limit_s: float) -> tuple[SolveStatus, float]:
    """One future's best total with its first-stage columns at `fixed` (absent names at 0); inf without a plan."""
    arrays = piece.arrays
    lower, upper = arrays.lower.copy(), arrays.upper.copy()
    for name, k in zip(piece.names, piece.first_stage, strict=True):
        lower[k] = upper[k] = float(fixed.get(name, 0))
    highs = highspy.Highs()  # type: ignore[no-untyped-call]
    highs.disableCallbacks()  # type: ignore[no-untyped-call]
    for name, option in RELAXED_OPTIONS.items():
        highs.setOptionValue(name, option)
    highs.setOptionValue("mip_rel_gap", defaults.SOLVER_REL_GAP)
    highs.setOptionValue("time_limit", float(max(time_limit_s, 0.05)))
    replace(arrays, lower=lower, upper=upper).pass_to(highs, piece.model.offset)
    highs.run()
    info = highs.getInfo()
    status = map_status(highs.getModelStatus(), info.primal_solution_status == 2)
    return status, float(info.objective_function_value) if status.has_solution else np.inf


def evaluate_fixed(pieces: list[Piece], fixed: dict[str, int],
                   time_limit_s: float = defaults.SOLVER_TIME_LIMIT_S) -> Stacked:
    """Every future's total with the first stage at `fixed`; the worst status of them."""
    started = time.perf_counter()
    deadline = started + time_limit_s
    totals, statuses = [], []
    for piece in pieces:
        status, total = future_total(piece, fixed, deadline - time.perf_counter())
        statuses.append(status)
        totals.append(total)
    worst = max(statuses, key=lambda s: (not s.has_solution, s != SolveStatus.OPTIMAL))
    values = np.array(totals)
    weights = np.array([p.weight for p in pieces])
    units = {k: n for k, n in fixed.items() if k in set(pieces[0].names[: len(pieces[0].model.u)]) and n}
    hosts = {k: n for k, n in fixed.items() if k in set(pieces[0].names[len(pieces[0].model.u):]) and n}
    return Stacked(worst, units, hosts, values, float(np.dot(weights, values)), 0.0,
                   1000.0 * (time.perf_counter() - started))
