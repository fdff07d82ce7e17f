"""Where plans are solved: a bounded pool of worker processes (or inline, the embedded default).

Why processes: the planner is CPU-bound Python that holds the GIL, so plan routes run in AnyIO's worker threads
used one core of the machine, and a few dozen slow plans filled that thread pool until every synchronous route,
the probes included, waited behind them (issue 18). Solving in worker processes (service/core/plan_workers.py,
`spawn`ed: no forked copy of the database engine or scheduler threads) uses every core, and the request thread
only waits. A profile crosses to a worker as its JSON (`ProfileJson`), and a request body that is a profile as its
bytes, validated there (`plan_body`): never a pickled pydantic model (issue 31).

Admission is bounded, never a silent wait: at most `workers + queue` plans are in flight per process; the next
one is answered 503 with `Retry-After` at once, and one caller (API key, or client address when auth is off) may
have at most `per_caller` plans in flight (429). A plan that is not back within the time budget answers 422
naming the limit, and its work is stopped (issue 31: the worker used to go on solving for minutes): a job still
queued is dropped, a running one's worker is killed and replaced, and its slot is free again. So is the work of a
request whose client went away (`json_body.request_ended`). A worker that dies (out of memory, killed) answers its
request 503 and is replaced at once; the other workers and their plans go on. Inline (the embedded default), a
plan is solved on the request's thread, without a time budget, as before.

Every planner call a request makes goes through here (`plan`): plans, what-if, recompute, sensitivity, the plan
summary of a saved profile (create, new version, read, usage import) and of a plan-change subscription. Background
work (the scheduler's plan-change alerts) takes a slot with `run(..., wait=True)`: it waits for one instead of
being refused, and counts against the same bound, so requests see the pool as it really is.
"""

from __future__ import annotations

import math
import os
import threading
import time
from collections import Counter
from collections.abc import Callable
from datetime import date
from typing import Any, Literal, ParamSpec, TypeVar

from pricing.catalog import Catalog
from service.core.catalog_shipping import ProfileJson, ship, solve_body, solve_on
from service.core.errors import InvalidField, ServiceError, ServiceUnavailable, TooManyRequests
from service.core.json_body import JsonBody, request_ended
from service.core.plan_workers import Cancelled, Job, WorkerLost, Workers
from solvers.base.profile import Profile

P = ParamSpec("P")
T = TypeVar("T")
Mode = Literal["inline", "process"]

# plan workers run this much nicer than the API process (GPUPLAN_PLAN_WORKER_NICE): on a busy machine the kernel
# gives the process that answers probes and reads the CPU first, and the solvers take what is left
WORKER_NICENESS = 10
_POLL_S = 0.1


class RequestEnded(ServiceError):
    """The client went away before its plan was solved; the work was stopped (nobody reads this answer)."""

    status, title = 499, "Client closed request"


def _warm() -> int:
    """Import the planner in a fresh worker, so the first real plan does not pay for it."""
    import solvers.plan  # noqa: F401

    return os.getpid()


def time_budget_error(budget_s: float) -> InvalidField:
    return InvalidField("body", "plan_time_budget",
                        f"the plan did not finish within the time budget of {budget_s:g} s; make the profile smaller "
                        "(fewer quote items or series points)")


class PlanPool:
    def __init__(self, mode: Mode, workers: int, queue: int, per_caller: int, budget_s: float,
                 niceness: int = WORKER_NICENESS) -> None:
        self.mode, self.workers, self.queue, self.niceness = mode, workers, queue, niceness
        self.per_caller, self.budget_s = per_caller, budget_s
        self._lock = threading.Lock()
        self._freed = threading.Condition(self._lock)
        self._in_flight = 0
        self._by_caller: Counter[str] = Counter()
        self._processes: Workers | None = None
        self._closed = False

    @property
    def capacity(self) -> int:
        return self.workers + self.queue

    @property
    def in_flight(self) -> int:
        return self._in_flight

    @property
    def worker_pids(self) -> list[int]:
        """The worker processes' ids (empty inline or before the first plan)."""
        return [] if self._processes is None else self._processes.pids

    def start(self) -> None:
        """Start the workers and import the planner in each (called by the app's lifespan)."""
        with self._lock:
            self._closed = False
        if self.mode == "process":
            self._current().wait_until_ready()

    def shutdown(self) -> None:
        with self._lock:
            processes, self._processes, self._closed = self._processes, None, True
        if processes is not None:
            processes.shutdown()

    def _current(self) -> Workers:
        with self._lock:
            if self._closed:
                raise ServiceUnavailable("the service is stopping; retry on another replica", 1)
            if self._processes is None:
                self._processes = Workers(self.workers, self.niceness, warm=_warm)
            return self._processes

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
        if self.mode == "inline":
            return run(caller, solve_on, work, profile, catalog, today)
        return run(caller, solve_on, work, ProfileJson.of(profile), ship(catalog) if shared else catalog, today)

    def plan_body(self, caller: str, work: Callable[[Profile, Catalog, date], T], body: JsonBody,
                  catalog: Catalog, today: date) -> tuple[T, str]:
        """`work` on a request body that is a profile, validated once: in the worker (the API process never parses
        it), or here inline. Returns the answer and the profile's JSON (what is stored)."""
        if self.mode == "inline":
            return self.run(caller, solve_body, work, body.raw, catalog, today)
        return self.run(caller, solve_body, work, body.raw, ship(catalog), today)

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
            job = self._current().submit(_call, solve, args, kwargs)
        except BaseException:
            self._release(caller)
            raise
        job.add_done_callback(lambda _: self._release(caller))
        answer: T = self._wait(job)
        return answer

    def _wait(self, job: Job) -> Any:
        """The job's answer within the budget; the job is cancelled (its worker stopped) when the budget passes or
        the request ends first."""
        deadline = time.monotonic() + self.budget_s
        ended = request_ended.get()
        while True:
            try:
                return job.result(timeout=max(0.0, min(_POLL_S, deadline - time.monotonic())))
            except TimeoutError:
                pass
            except Cancelled:
                raise RequestEnded("the request ended before its plan was solved") from None
            except WorkerLost:
                raise ServiceUnavailable("a planner worker stopped while solving this plan; retry", 1) from None
            if time.monotonic() >= deadline:
                job.cancel()
                raise time_budget_error(self.budget_s)
            if ended is not None and ended():
                job.cancel()
                raise RequestEnded("the request ended before its plan was solved")


def _call(solve: Callable[..., T], args: tuple[object, ...], kwargs: dict[str, object]) -> T:
    return solve(*args, **kwargs)
