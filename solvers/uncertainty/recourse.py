"""Each future's total with the first stage held: the futures then share nothing, so each is solved alone (its
model with the purchase, host and commitment columns fixed: 2.3 ms a future of a 36-month lab, where their
extensive form with the same columns fixed took HiGHS 2.9 s for 100, measured 2026-11-28), two at a time on a
pool of two long-lived threads when it is idle (HiGHS's `run` releases the GIL, so the second core works too)."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import TypeVar

import highspy
import numpy as np

from solvers.base import defaults
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
    later = np.round(np.asarray(highs.getSolution().col_value)[piece.deferred]) if len(piece.deferred) else (
        np.zeros(0))
    return status, float(info.objective_function_value), later


_POOL: tuple[int, ThreadPoolExecutor] | None = None
_POOL_MADE = threading.Lock()
_POOL_IDLE = threading.Lock()

T = TypeVar("T")
R = TypeVar("R")


def two_at_a_time(work: Callable[[T], R], items: list[T]) -> list[R]:
    """`work` over `items` in order, two at a time on the futures' pool when it is idle, else here one by one. Why
    the fallback: the pool is the process's, and plans solved side by side (the inline plan executor's threads) would
    queue on it past their deadlines, as `solvers.base.deferred` avoids for the alternatives."""
    if len(items) < 2 or not _POOL_IDLE.acquire(blocking=False):
        return [work(item) for item in items]
    try:
        return list(_pool().map(work, items))
    finally:
        _POOL_IDLE.release()


def _pool() -> ThreadPoolExecutor:
    """Two threads per process, made again in a forked child (whose copy of the parent's threads does not run); long-
    lived because HiGHS keeps a task scheduler per calling thread."""
    global _POOL
    with _POOL_MADE:
        if _POOL is None or _POOL[0] != os.getpid():
            _POOL = (os.getpid(), ThreadPoolExecutor(2, thread_name_prefix="gpuplan-futures"))
        return _POOL[1]


def evaluate_fixed(pieces: list[Stage], fixed: dict[str, int],
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
