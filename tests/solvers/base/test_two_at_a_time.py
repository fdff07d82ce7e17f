"""`two_at_a_time` (solvers/base/deferred.py): many small solves two at a time on the process's pool, only when it
is idle (each future's exact pricing of a plan under uncertainty)."""

from __future__ import annotations

import threading

from solvers.base import deferred


def test_futures_run_here_when_the_pool_is_busy() -> None:
    """`two_at_a_time` uses the futures' pool only when it is idle: a second caller (another plan in the inline
    executor, or the plan's second thread) runs its futures on its own thread instead of queueing behind the first."""
    def where(_: int) -> str:
        return threading.current_thread().name

    assert set(deferred.two_at_a_time(where, [1, 2, 3, 4])) <= {"gpuplan-futures_0", "gpuplan-futures_1"}
    with deferred._FUTURES_IDLE:  # the pool busy with another caller
        assert deferred.two_at_a_time(where, [1, 2]) == [threading.current_thread().name] * 2
    assert deferred.two_at_a_time(where, [1]) == [threading.current_thread().name]  # one item: no handover
