"""Work that runs beside the plan on one long-lived second thread when that thread is idle, else inline when its
result is asked for: the alternatives' solves (`solvers.explain.alternatives`) and the pricing of today's purchase in
every future of a plan under uncertainty (`solvers.uncertainty.decide`). In the base because both stages use it."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Generic, TypeVar

T = TypeVar("T")


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

    def result(self) -> T:
        return self._solve_it(False) if self._future is None else self._future.result()


_ALTERNATIVES_IDLE = threading.Lock()


_ALTERNATIVES: tuple[int, ThreadPoolExecutor] | None = None


def _alternatives_thread() -> ThreadPoolExecutor:
    """One long-lived thread per process (HiGHS keeps a task scheduler per calling thread); made again in a forked
    child, whose copy of the parent's thread does not run."""
    global _ALTERNATIVES
    if _ALTERNATIVES is None or _ALTERNATIVES[0] != os.getpid():
        _ALTERNATIVES = (os.getpid(), ThreadPoolExecutor(1, thread_name_prefix="gpuplan-alternatives"))
    return _ALTERNATIVES[1]
