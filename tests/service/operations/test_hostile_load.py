"""Hostile load on loopback (issue 18): slow, huge and over-long profiles mixed with normal ones against one
replica whose plans are solved in the process pool. Bounded in count (36 plan requests, 6 clients) and time.
Throughout, /healthz answers within 200 ms (99% of probes, none past 1 s on a shared machine); no 5xx; every
201 plan is readable afterwards."""

from __future__ import annotations

import itertools
import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import requests

from service.plans.examples import WORKED_EXAMPLE
from tests.conftest import cloud_item, owned_item, simple_profile

CLIENTS = 6
REQUESTS = 36
HEALTH_LIMIT_S = 0.2


def slow_profile() -> dict[str, Any]:
    """40 owned RTX 3090 offers trading price against watts: none dominates another, so the solver branches
    (about 1.3 s a plan on this 2-core machine; 80 such items take 11 s)."""
    owned = [owned_item(800 + 5 * i, watts=450 - 1.5 * i) for i in range(40)]
    profile = simple_profile(owned, [cloud_item(1.0 + 0.01 * i, name=f"vm{i}") for i in range(20)],
                             utilisation=0.6, months=36)
    profile["demand"]["gpus"] = 8
    return profile


def over_long_profile() -> dict[str, Any]:
    """1,001 owned items: one more than the bound of `prices.owned`."""
    return simple_profile([owned_item(1000 + i) for i in range(1001)], [cloud_item(1.0)])


@contextmanager
def gpuplan_serve(database_url: str, workdir: Path) -> Iterator[str]:
    """`gpuplan serve` in a process of its own, as an operator runs it (the load generator here shares no GIL
    with it), on a free loopback port; stopped with SIGTERM, its plan workers with it."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, "GPUPLAN_DATABASE_URL": database_url, "GPUPLAN_SCHEDULER": "false",
           "GPUPLAN_PLAN_WORKERS": "2", "GPUPLAN_PLAN_QUEUE": "8",
           "GPUPLAN_PLAN_CONCURRENCY_PER_CALLER": str(CLIENTS), "GPUPLAN_MAX_BODY_BYTES": str(1024 * 1024),
           "GPUPLAN_LOG_LEVEL": "warning"}
    log = (workdir / "serve.log").open("w")
    server = subprocess.Popen([sys.executable, "-m", "service.cli", "serve", "--port", str(port)], env=env,
                              stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            assert server.poll() is None, (workdir / "serve.log").read_text()[-3000:]
            assert time.monotonic() < deadline, "gpuplan serve did not start"
            try:
                if requests.get(f"{url}/healthz", timeout=1).status_code == 200:
                    break
            except requests.ConnectionError:
                time.sleep(0.2)
        yield url
    finally:
        server.terminate()  # uvicorn waits for requests in flight: a bounded wait, then SIGKILL
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()


def test_hostile_mix_keeps_the_replica_healthy(database_url: str, tmp_path: Path) -> None:
    # encoded once, before the clock starts: the load generator's threads then do little but wait, so the probe's
    # timing is the server's and not this process's
    bodies = {"normal": json.dumps(WORKED_EXAMPLE).encode(), "slow": json.dumps(slow_profile()).encode(),
              "over_long": json.dumps(over_long_profile()).encode(),
              "huge": json.dumps({**WORKED_EXAMPLE, "padding": "x" * (2 * 1024 * 1024)}).encode()}
    kinds = itertools.islice(itertools.cycle(["normal", "slow", "normal", "huge", "slow", "over_long"]), REQUESTS)
    with gpuplan_serve(database_url, tmp_path) as url:
        health: list[tuple[float, int]] = []
        done = threading.Event()

        def probe() -> None:
            with requests.Session() as session:
                while not done.is_set():
                    began = time.perf_counter()
                    status = session.get(f"{url}/healthz", timeout=5).status_code
                    health.append((time.perf_counter() - began, status))
                    time.sleep(0.05)

        def send(kind: str) -> tuple[str, int, str | None]:
            answer = requests.post(f"{url}/v1/plans", data=bodies[kind], timeout=60,
                                   headers={"content-type": "application/json"})
            return kind, answer.status_code, answer.headers.get("location")

        prober = threading.Thread(target=probe)
        prober.start()
        began = time.monotonic()
        try:
            with ThreadPoolExecutor(CLIENTS) as clients:
                answers = list(clients.map(send, kinds))
        finally:
            done.set()
            prober.join()
        elapsed = time.monotonic() - began

        assert elapsed < 120
        assert not [a for a in answers if a[1] >= 500], answers
        expected = {"normal": 201, "slow": 201, "huge": 413, "over_long": 422}
        assert [(kind, status) for kind, status, _ in answers] == [(k, expected[k]) for k, _, _ in answers]
        assert len(health) >= 10 and all(status == 200 for _, status in health)
        # the CI machine is shared (other jobs' processes take the cores too): 99% of probes within 200 ms and
        # none past a second; the replica as it was (plans in its threads) answered probes in 2-7 s here
        times = sorted(seconds for seconds, _ in health)
        within = sum(seconds < HEALTH_LIMIT_S for seconds in times) / len(times)
        slowest_ms = [round(t * 1000) for t in times[-5:]]
        assert within >= 0.99, f"{within:.1%} of /healthz probes within 200 ms; slowest {slowest_ms} ms"
        assert times[-1] < 1.0, f"/healthz took {times[-1] * 1000:.0f} ms while plans were solved"
        for _, _, location in answers:
            if location:
                assert requests.get(f"{url}{location}", timeout=10).status_code == 200
