"""Work that runs beside the plan on one long-lived second thread when that thread is idle, else inline when its
result is asked for: the alternatives' solves (`solvers.explain.alternatives`) and the pricing of today's purchase in
every future of a plan under uncertainty (`solvers.uncertainty.decide`); and `two_at_a_time`, many small solves on a
pool of two threads by the same rule (each future's exact pricing). In the base because both stages use it."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")


class Deferred(Generic[T]):
    """Work (the alternatives' solves and accounts) that runs beside the caller on the alternatives' thread when
    that thread is idle, else when its result is asked for. Why: HiGHS's `run` releases the GIL, so the buy-only
    alternative's MIP runs on the second core while the main one runs, and its Python (building, accounting) runs
    while the main MIP holds no GIL; under load, when plans already fill the cores, the thread is busy and each plan
    does its own alternatives inline, adding no queue and no threads."""

    def __init__(self, solve_it: Callable[[bool], T]) -> None:
        """`solve_it(background)`: True on the alternatives' thread, beside the caller, False inline."""
        self._solve_it = solve_it
        self._future: Future[T] | None = None
        executor = _alternatives_thread()
        if _ALTERNATIVES_IDLE.acquire(blocking=False):
            try:
                self._future = executor.submit(solve_it, True)
            except BaseException:
                _ALTERNATIVES_IDLE.release()
                raise
            self._future.add_done_callback(lambda _: _ALTERNATIVES_IDLE.release())

    @property
    def beside(self) -> bool:
        """Whether the work runs on the alternatives' thread, beside the caller (else inline, at `result`)."""
        return self._future is not None

    def result(self) -> T:
        return self._solve_it(False) if self._future is None else self._future.result()


_ALTERNATIVES_IDLE = threading.Lock()
_FUTURES_IDLE = threading.Lock()


def two_at_a_time(work: Callable[[T], R], items: Sequence[T]) -> list[R]:
    """`work` over `items` in order, two at a time on a pool of two threads when it is idle, else here one by one:
    the same rule as `Deferred`, for many small solves (a plan under uncertainty prices its purchase in every future,
    `solvers.uncertainty.recourse`). Why the fallback: the pool is the process's, and plans solved side by side (the
    inline plan executor's threads) would queue on it past their deadlines."""
    if len(items) < 2 or not _FUTURES_IDLE.acquire(blocking=False):
        return [work(item) for item in items]
    try:
        return list(_executor("gpuplan-futures", 2).map(work, items))
    finally:
        _FUTURES_IDLE.release()


_EXECUTORS: dict[str, tuple[int, ThreadPoolExecutor]] = {}
_EXECUTORS_MADE = threading.Lock()


def _alternatives_thread() -> ThreadPoolExecutor:
    return _executor("gpuplan-alternatives", 1)


def _executor(name: str, workers: int) -> ThreadPoolExecutor:
    """Long-lived threads per process and name (HiGHS keeps a task scheduler per calling thread); made again in a
    forked child, whose copy of the parent's threads does not run."""
    with _EXECUTORS_MADE:
        found = _EXECUTORS.get(name)
        if found is None or found[0] != os.getpid():
            found = _EXECUTORS[name] = (os.getpid(), ThreadPoolExecutor(workers, thread_name_prefix=name))
        return found[1]
