"""The plan pool (issue 18): plans solved in worker processes, bounded admission answered at once (503 with
Retry-After, 429 per caller), a time budget answered as a 422 naming it, a dead worker answered 503 and
replaced. Real `spawn` workers, so CI exercises the pool and not only the inline default."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from service.app import create_app
from service.core.dependencies import runtime_of
from service.core.errors import InvalidField, ServiceUnavailable, TooManyRequests
from service.core.json_body import request_ended
from service.core.plan_pool import PlanPool, RequestEnded
from service.core.settings import Settings
from service.plans.examples import WORKED_EXAMPLE
from tests.service.core.pool_jobs import die, sleep_then, worker_pid


@pytest.fixture
def pool() -> Iterator[PlanPool]:
    started = PlanPool("process", workers=2, queue=1, per_caller=2, budget_s=5.0)
    started.start()
    yield started
    started.shutdown()


def test_work_runs_in_other_processes(pool: PlanPool) -> None:
    assert pool.run("a", worker_pid, 0) != os.getpid()


def test_full_queue_is_503_with_retry_after_at_once(pool: PlanPool) -> None:
    # capacity 3: three slow jobs from three callers fill it; the fourth is refused without waiting
    threads = [threading.Thread(target=pool.run, args=(f"c{i}", sleep_then, 1.0)) for i in range(3)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 5
    while pool.in_flight < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    began = time.monotonic()
    with pytest.raises(ServiceUnavailable) as refused:
        pool.run("other", sleep_then, 0.0)
    assert time.monotonic() - began < 0.1
    assert refused.value.headers is not None and int(refused.value.headers["Retry-After"]) >= 1
    for thread in threads:
        thread.join()
    deadline = time.monotonic() + 5
    while pool.in_flight and time.monotonic() < deadline:  # released by the future's callback, just after
        time.sleep(0.01)
    assert pool.in_flight == 0
    assert pool.run("other", sleep_then, 0.0) == 0.0


def test_one_caller_is_limited_to_its_share(pool: PlanPool) -> None:
    threads = [threading.Thread(target=pool.run, args=("greedy", sleep_then, 1.0)) for _ in range(2)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 5
    while pool.in_flight < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    with pytest.raises(TooManyRequests):
        pool.run("greedy", sleep_then, 0.0)
    assert pool.run("modest", sleep_then, 0.0) == 0.0  # another caller still gets the free slot
    for thread in threads:
        thread.join()


def test_time_budget_is_a_422_naming_the_limit_and_the_work_is_stopped() -> None:
    """Issue 31: after the 422 the worker went on solving (for minutes, with large plans); now it is stopped and
    replaced, and the slot is free at once."""
    pool = PlanPool("process", workers=1, queue=0, per_caller=1, budget_s=0.3)
    pool.start()
    try:
        (first,) = pool.worker_pids
        with pytest.raises(InvalidField) as late:
            pool.run("a", sleep_then, 30.0)
        assert late.value.rule == "plan_time_budget" and "0.3" in late.value.message
        assert pool.in_flight == 0  # the slot is free: its work was stopped
        _gone(first)
        pool.budget_s = 120.0  # a fresh worker starts Python and the planner: seconds on a busy machine
        assert pool.run("a", worker_pid, 0) not in (first, os.getpid())
    finally:
        pool.shutdown()


def _gone(pid: int, within_s: float = 10.0) -> None:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    raise AssertionError(f"process {pid} still runs")


def test_work_whose_request_ended_is_stopped_queued_or_running() -> None:
    pool = PlanPool("process", workers=1, queue=1, per_caller=2, budget_s=60.0)
    pool.start()
    try:
        (first,) = pool.worker_pids
        ended = threading.Event()
        outcomes: list[str] = []

        def request(seconds: float) -> None:
            request_ended.set(ended.is_set)  # as service/core/json_body.py sets it for each request
            try:
                pool.run("a", sleep_then, seconds)
                outcomes.append("answered")
            except RequestEnded:
                outcomes.append("ended")

        running = threading.Thread(target=request, args=(30.0,))
        running.start()
        while pool.in_flight < 1:
            time.sleep(0.01)
        queued = threading.Thread(target=request, args=(30.0,))
        queued.start()
        while pool.in_flight < 2:
            time.sleep(0.01)
        began = time.monotonic()
        ended.set()  # both clients went away
        running.join()
        queued.join()
        assert outcomes == ["ended", "ended"] and time.monotonic() - began < 2
        assert pool.in_flight == 0
        _gone(first)  # the running one's worker was stopped, not left solving for 30 s
    finally:
        pool.shutdown()


def test_workers_exit_when_the_server_is_killed(tmp_path: Path) -> None:
    """Issue 31: plan workers outlived a kill -9 of the server; now they exit within a second or two, the one
    solving a long plan too (an idle worker sees its pipe close; a busy one notices its parent is gone)."""
    script = tmp_path / "server.py"
    script.write_text(
        "import threading, time\n"
        "from service.core.plan_pool import PlanPool\n"
        "if __name__ == '__main__':\n"
        "    pool = PlanPool('process', workers=2, queue=0, per_caller=1, budget_s=600.0)\n"
        "    pool.start()\n"
        "    threading.Thread(target=pool.run, args=('a', time.sleep, 600), daemon=True).start()\n"
        "    while pool.in_flight < 1:\n"
        "        time.sleep(0.01)\n"
        "    time.sleep(0.5)\n"
        "    print(' '.join(map(str, pool.worker_pids)), flush=True)\n"
        "    time.sleep(600)\n")
    server = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True,
                              cwd=Path(__file__).resolve().parents[3])
    try:
        assert server.stdout is not None
        pids = [int(pid) for pid in server.stdout.readline().split()]
        assert len(pids) == 2
        os.kill(server.pid, signal.SIGKILL)
        server.wait()
        for pid in pids:
            _gone(pid)
    finally:
        if server.poll() is None:
            server.kill()


def test_dead_worker_is_503_and_the_pool_recovers() -> None:
    # what is tested is the 503 and the recovery, not how fast a fresh worker starts on a busy machine (it starts
    # Python and imports the planner: seconds when many sessions share the cores), so the budget is generous here
    pool = PlanPool("process", workers=2, queue=1, per_caller=2, budget_s=120.0)
    pool.start()
    try:
        with pytest.raises(ServiceUnavailable):
            pool.run("a", die, 0)
        assert pool.in_flight == 0
        assert pool.run("a", worker_pid, 0) != os.getpid()
        assert pool.in_flight == 0
    finally:
        pool.shutdown()


def test_inline_mode_runs_here_and_is_bounded_too() -> None:
    inline = PlanPool("inline", workers=1, queue=0, per_caller=1, budget_s=1.0)
    assert inline.run("a", worker_pid, 0) == os.getpid()
    assert inline.in_flight == 0


def test_app_with_the_pool_plans_and_stores(database_url: str) -> None:
    settings = Settings(database_url=database_url, plan_executor="process", plan_workers=1, scheduler=False)
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:  # lifespan starts the pool
        created = client.post("/v1/plans", json=WORKED_EXAMPLE)
        assert created.status_code == 201, created.text
        assert 285 <= created.json()["break_even"]["days"] <= 300
        assert client.get(created.headers["location"]).json() == created.json()
        assert client.get("/healthz").status_code == 200


@pytest.mark.parametrize("path", ["/v1/plans", "/v1/profiles/{id}/plans"])
def test_plans_of_one_address_share_its_limit(database_url: str, path: str) -> None:
    """With auth off, the per-caller limit counts the client address on every plan route: a plan in flight for
    TestClient's address ("testclient") leaves no slot for another when the limit is one."""
    settings = Settings(database_url=database_url, plan_concurrency_per_caller=1, scheduler=False)
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        saved = client.post("/v1/profiles", json={"name": "limited", "profile": WORKED_EXAMPLE})
        assert saved.status_code == 201, saved.text
        url = path.format(id=saved.json()["id"])
        holding = threading.Thread(target=runtime_of(client.app).plan_pool.run,  # type: ignore[arg-type]
                                   args=("address:testclient", sleep_then, 1.0))
        holding.start()
        time.sleep(0.1)
        try:
            busy = client.post(url, json=WORKED_EXAMPLE)
        finally:
            holding.join()
        assert busy.status_code == 429, busy.text
        assert busy.headers["retry-after"] == "1"
        assert client.post(url, json=WORKED_EXAMPLE).status_code == 201  # the slot is free again
