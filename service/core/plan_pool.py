"""Where plans are solved: a bounded pool of worker processes (or inline, the embedded default).

Why processes: the planner is CPU-bound Python that holds the GIL, so plan routes run in AnyIO's worker threads
used one core of the machine, and a few dozen slow plans filled that thread pool until every synchronous route,
the probes included, waited behind them (issue 18). Solving in `ProcessPoolExecutor` workers (a `spawn` context:
no forked copy of the database engine or scheduler threads) uses every core, and the request thread only waits.

Admission is bounded, never a silent wait: at most `workers + queue` plans are in flight per process; the next
one is answered 503 with `Retry-After` at once, and one caller (API key, or client address when auth is off) may
have at most `per_caller` plans in flight (429). A plan that is not back within the time budget answers 422
naming the limit; its slot stays taken until the worker really finishes (the solver's own time limit bounds
that), so the bound stays honest. A worker that dies (out of memory, killed) breaks the executor: the request
answers 503 and a fresh pool is started (and its workers warmed) at once, so the next plan does not pay for it.

Every planner call a request makes goes through here (`plan`): plans, what-if, recompute, sensitivity, the plan
summary of a saved profile (create, new version, read, usage import) and of a plan-change subscription. Background
work (the scheduler's plan-change alerts) takes a slot with `run(..., wait=True)`: it waits for one instead of
being refused, and counts against the same bound, so requests see the pool as it really is.
"""

from __future__ import annotations

import contextlib
import math
import multiprocessing
import os
import threading
from collections import Counter
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from datetime import date
from typing import Literal, ParamSpec, TypeVar

from pricing.catalog import Catalog
from service.core.catalog_shipping import ship, solve_on
from service.core.errors import InvalidField, ServiceUnavailable, TooManyRequests
from solvers.profile import Profile

P = ParamSpec("P")
T = TypeVar("T")
Mode = Literal["inline", "process"]


# plan workers run this much nicer than the API process (GPUPLAN_PLAN_WORKER_NICE): on a busy machine the kernel
# gives the process that answers probes and reads the CPU first, and the solvers take what is left
WORKER_NICENESS = 10


def _lower_priority(niceness: int) -> None:
    if niceness:
        os.nice(niceness)


def _warm() -> int:
    """Import the planner in a fresh worker, so the first real plan does not pay for it."""
    import solvers.plan  # noqa: F401

    return os.getpid()


class PlanPool:
    def __init__(self, mode: Mode, workers: int, queue: int, per_caller: int, budget_s: float,
                 niceness: int = WORKER_NICENESS) -> None:
        self.mode, self.workers, self.queue, self.niceness = mode, workers, queue, niceness
        self.per_caller, self.budget_s = per_caller, budget_s
        self._lock = threading.Lock()
        self._freed = threading.Condition(self._lock)
        self._in_flight = 0
        self._by_caller: Counter[str] = Counter()
        self._executor: ProcessPoolExecutor | None = None
        self._closed = False

    @property
    def capacity(self) -> int:
        return self.workers + self.queue

    @property
    def in_flight(self) -> int:
        return self._in_flight

    def start(self) -> None:
        """Start the workers and import the planner in each (called by the app's lifespan)."""
        with self._lock:
            self._closed = False
        if self.mode == "process":
            self._warm(self._current())

    def _warm(self, executor: ProcessPoolExecutor) -> None:
        for future in [executor.submit(_warm) for _ in range(self.workers)]:
            future.result(timeout=120)

    def shutdown(self) -> None:
        with self._lock:
            executor, self._executor, self._closed = self._executor, None, True
        if executor is not None:
            executor.shutdown(wait=True, cancel_futures=True)

    def _current(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._closed:
                raise ServiceUnavailable("the service is stopping; retry on another replica", 1)
            if self._executor is None:
                self._executor = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"),
                                                     initializer=_lower_priority, initargs=(self.niceness,))
            return self._executor

    def _discard(self, broken: ProcessPoolExecutor) -> None:
        """Drop a broken executor and start its successor now, warming its workers in the background: the next
        plan then finds them ready instead of spending its time budget on starting Python and the planner."""
        with self._lock:
            replaced = self._executor is broken and not self._closed
            if replaced:
                self._executor = None
        broken.shutdown(wait=False, cancel_futures=True)
        if replaced:
            fresh = self._current()
            threading.Thread(target=self._warm_quietly, args=(fresh,), name="plan-pool-warm", daemon=True).start()

    def _warm_quietly(self, executor: ProcessPoolExecutor) -> None:
        # a worker that dies again breaks the pool for the next plan, answered 503 then
        with contextlib.suppress(Exception):
            self._warm(executor)

    def _admit(self, caller: str, wait: bool) -> None:
        with self._lock:
            while wait and (self._in_flight >= self.capacity or self._by_caller[caller] >= self.per_caller):
                self._freed.wait()
            if self._in_flight >= self.capacity:
                retry = max(1, math.ceil(self.capacity / max(1, self.workers)))
                raise ServiceUnavailable(f"the planner is busy ({self._in_flight} plans in flight, the limit is "
                                         f"{self.capacity}); retry later", retry)
            if self._by_caller[caller] >= self.per_caller:
                raise TooManyRequests(f"at most {self.per_caller} plans may be in flight at once for one API key "
                                      f"(or client address)", 1)
            self._in_flight += 1
            self._by_caller[caller] += 1

    def _release(self, caller: str) -> None:
        with self._lock:
            self._in_flight -= 1
            self._by_caller[caller] -= 1
            if self._by_caller[caller] <= 0:
                del self._by_caller[caller]
            self._freed.notify_all()

    def plan(self, caller: str, work: Callable[[Profile, Catalog, date], T], profile: Profile, catalog: Catalog,
             today: date, *, wait: bool = False, shared: bool = True) -> T:
        """`work(profile, catalog, today)` within the bounds. In a worker, a `shared` catalog (the one in force,
        or one re-read at recorded prices and kept) crosses once per catalog; a one-off catalog (the what-if's
        scaled prices) goes with the call."""
        run = self.run_waiting if wait else self.run
        if self.mode == "process" and shared:
            return run(caller, solve_on, work, profile, ship(catalog), today)
        return run(caller, solve_on, work, profile, catalog, today)

    def run(self, caller: str, solve: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """`solve(*args)` in a worker (or here, inline), within the bounds; blocking, so call it from a
        request's worker thread. `solve` and its arguments must pickle (a module-level function)."""
        self._admit(caller, wait=False)
        return self._admitted(caller, solve, *args, **kwargs)

    def run_waiting(self, caller: str, solve: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """As `run`, but waiting for a free slot instead of answering 503/429: background work, never a request."""
        self._admit(caller, wait=True)
        return self._admitted(caller, solve, *args, **kwargs)

    def _admitted(self, caller: str, solve: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        if self.mode == "inline":
            try:
                return solve(*args, **kwargs)
            finally:
                self._release(caller)
        try:
            executor = self._current()
            future: Future[T] = executor.submit(solve, *args, **kwargs)
        except BrokenProcessPool:
            self._release(caller)
            self._discard(executor)
            raise ServiceUnavailable("a planner worker stopped; retry", 1) from None
        except BaseException:
            self._release(caller)
            raise
        future.add_done_callback(lambda _: self._release(caller))
        try:
            return future.result(timeout=self.budget_s)
        except FutureTimeout:
            raise InvalidField("body", "plan_time_budget",
                               f"the plan did not finish within the time budget of {self.budget_s:g} s; "
                               "make the profile smaller (fewer quote items or series points)") from None
        except BrokenProcessPool:
            self._discard(executor)
            raise ServiceUnavailable("a planner worker stopped while solving this plan; retry", 1) from None
