"""The plan pool's worker processes: each one solves a job at a time, and a job whose request ended is stopped.

Why not `concurrent.futures.ProcessPoolExecutor` (issue 18's pool): a job cannot be taken back from it once a
worker runs it, and killing that worker breaks the whole executor, so every other plan in flight failed with it.
After a 422 `plan_time_budget` the worker went on solving for minutes (four sensitivities of a large hourly plan
held both workers for 180 s while other callers' small plans timed out, issue 31). Here each worker is a process
of its own with a pipe and a thread in the API process that feeds it: a job not started yet is dropped from the
queue when its request ends, and a running one is stopped by killing its worker alone, which is replaced at once
(and warmed), while the other workers go on.

Workers are `spawn`ed (no forked copy of the database engine or the scheduler's threads), run `niceness` lower
than the API process, and exit on their own within a second when the process that started them is gone (a
`kill -9` of the server used to leave them running).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import threading
import time
from collections import deque
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

# how often a worker checks that its parent still runs, and a feeder that its job is still wanted
PARENT_CHECK_S = 0.5
CANCEL_CHECK_S = 0.05
WARM_TIMEOUT_S = 120.0


class WorkerLost(Exception):
    """The worker running a job died (out of memory, killed from outside) before it answered."""


class Cancelled(Exception):
    """The job was cancelled before it finished."""


def _watch_parent(parent: int) -> None:
    while True:
        time.sleep(PARENT_CHECK_S)
        if os.getppid() != parent:  # re-parented: the API process is gone
            os._exit(0)


def _worker_main(conn: Connection, niceness: int, parent: int, warm: Callable[[], Any] | None) -> None:
    """A worker's life: lower its priority, watch its parent, import the planner, then answer jobs one by one."""
    if niceness:
        os.nice(niceness)
    threading.Thread(target=_watch_parent, args=(parent,), name="parent-watch", daemon=True).start()
    if warm is not None:
        warm()
    conn.send(("ready", os.getpid()))
    while True:
        try:
            solve, args = conn.recv()
        except (EOFError, OSError):
            return
        try:
            answer: tuple[str, Any] = ("ok", solve(*args))
        except BaseException as exc:  # every failure goes back to the request that asked
            answer = ("error", exc)
        try:
            conn.send(answer)
        except Exception as exc:  # an answer or an exception that does not pickle
            conn.send(("error", RuntimeError(f"the worker's answer could not be sent back: {type(exc).__name__}")))


class Job:
    """One call waiting for, or running in, a worker: `result` waits for it, `cancel` takes it back."""

    def __init__(self, solve: Callable[..., Any], args: tuple[Any, ...]) -> None:
        self.solve, self.args = solve, args
        self._done = threading.Event()
        self._value: Any = None
        self._error: BaseException | None = None
        self._callbacks: list[Callable[[Job], None]] = []
        self._lock = threading.Lock()
        self.cancelled = False
        self.started = False

    def add_done_callback(self, callback: Callable[[Job], None]) -> None:
        with self._lock:
            if not self._done.is_set():
                self._callbacks.append(callback)
                return
        callback(self)

    def _finish(self, value: Any = None, error: BaseException | None = None) -> None:
        with self._lock:
            if self._done.is_set():
                return
            self._value, self._error = value, error
            self._done.set()
            callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback(self)

    def done(self) -> bool:
        return self._done.is_set()

    def result(self, timeout: float | None = None) -> Any:
        """The answer; TimeoutError when none came within `timeout` (the job keeps running: cancel it)."""
        if not self._done.wait(timeout):
            raise TimeoutError
        if self._error is not None:
            raise self._error
        return self._value

    def cancel(self) -> None:
        """Take the job back: dropped if it waits, its worker stopped (and replaced) if it runs."""
        self.cancelled = True
        self._finish(error=Cancelled())


class _Worker:
    """One process and the pipe to it; started (and warmed) by its feeder thread."""

    def __init__(self, context: Any, niceness: int, warm: Callable[[], Any] | None) -> None:
        here, there = context.Pipe(duplex=True)
        self.process = context.Process(target=_worker_main, args=(there, niceness, os.getpid(), warm), daemon=True,
                                       name="gpuplan-plan-worker")
        self.process.start()
        there.close()
        self.conn: Connection = here
        self.pid: int | None = None

    def wait_ready(self, timeout: float) -> bool:
        if not self.conn.poll(timeout):
            return False
        try:
            kind, pid = self.conn.recv()
        except (EOFError, OSError):
            return False
        self.pid = pid
        return bool(kind == "ready")

    def stop(self) -> None:
        with contextlib.suppress(OSError):
            self.conn.close()
        if self.process.is_alive():
            self.process.kill()
        self.process.join(timeout=5)


class Workers:
    """`count` worker processes taking jobs from one queue in order."""

    def __init__(self, count: int, niceness: int = 0, warm: Callable[[], Any] | None = None) -> None:
        self.count, self.niceness, self.warm = count, niceness, warm
        self._context = multiprocessing.get_context("spawn")
        self._queue: deque[Job] = deque()
        self._wake = threading.Condition()
        self._closed = False
        self._workers: list[_Worker | None] = [None] * count
        self._feeders = [threading.Thread(target=self._feed, args=(slot,), name=f"plan-feeder-{slot}", daemon=True)
                         for slot in range(count)]
        for feeder in self._feeders:
            feeder.start()

    @property
    def pids(self) -> list[int]:
        return [w.pid for w in self._workers if w is not None and w.pid is not None]

    def submit(self, solve: Callable[..., Any], *args: Any) -> Job:
        job = Job(solve, args)
        with self._wake:
            if self._closed:
                raise RuntimeError("the plan workers are stopped")
            self._queue.append(job)
            self._wake.notify()
        return job

    def wait_until_ready(self, timeout: float = WARM_TIMEOUT_S) -> None:
        """Block until every worker has started and warmed (the app's start-up)."""
        deadline = time.monotonic() + timeout
        while len(self.pids) < self.count and time.monotonic() < deadline and not self._closed:
            time.sleep(0.02)

    def shutdown(self) -> None:
        with self._wake:
            self._closed = True
            pending, self._queue = list(self._queue), deque()
            self._wake.notify_all()
        for job in pending:
            job.cancel()
        for feeder in self._feeders:
            feeder.join(timeout=10)

    def _next(self) -> Job | None:
        with self._wake:
            while not self._closed:
                while self._queue:
                    job = self._queue.popleft()
                    if not job.cancelled:
                        job.started = True
                        return job
                self._wake.wait()
            return None

    def _start(self, slot: int) -> _Worker:
        worker = _Worker(self._context, self.niceness, self.warm)
        self._workers[slot] = worker
        worker.wait_ready(WARM_TIMEOUT_S)
        return worker

    def _feed(self, slot: int) -> None:
        """Start this slot's worker, then hand it jobs one by one; replace it when it dies or is stopped."""
        worker = self._start(slot)
        try:
            while (job := self._next()) is not None:
                if not self._run(worker, job):
                    worker.stop()
                    if self._closed:
                        return
                    worker = self._start(slot)
        finally:
            worker.stop()

    def _run(self, worker: _Worker, job: Job) -> bool:
        """Run one job; False when the worker must be replaced (it died, or was stopped with its job)."""
        try:
            worker.conn.send((job.solve, job.args))
        except OSError:  # the worker's pipe is closed: it died while idle
            job._finish(error=WorkerLost())
            return False
        except Exception as exc:  # arguments that do not pickle: the caller's error, the worker is fine
            job._finish(error=exc)
            return True
        while True:
            try:
                if worker.conn.poll(CANCEL_CHECK_S):
                    kind, value = worker.conn.recv()
                    if kind == "ready":  # a worker that warmed slower than `WARM_TIMEOUT_S`
                        worker.pid = value
                        continue
                    if kind == "ok":
                        job._finish(value=value)
                    else:
                        job._finish(error=value)
                    return True
            except (EOFError, OSError):
                job._finish(error=WorkerLost())
                return False
            if job.cancelled:
                return False
            if self._closed:
                job.cancel()
                return False
