"""Hostile load on loopback (issue 18): slow, huge and over-long profiles, and slow profiles saved (their plan
solved in the pool too), mixed with normal ones against one replica whose plans are solved in the process pool.
Bounded in count (36 requests, 6 clients) and time. Throughout, /healthz answers within 200 ms; no 5xx; every 201
plan is readable afterwards.

The machine is shared (other sessions, other CI jobs), so "within 200 ms" is judged against the machine's own
scheduling noise in the same run: the same prober times a control server (a bare asyncio HTTP responder in a
process of its own, which no plan can delay) right beside every /healthz probe. A /healthz probe past 200 ms
counts against the replica unless control probes were slow as often; at most 1% of probes may be slow beyond
that, and the slowest no more than a second beyond the slowest control probe. A replica whose probes wait behind
plans is slow where the control is not, so it still fails; a window the machine spoiled is measured once more."""

from __future__ import annotations

import itertools
import json
import math
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import requests

from service.plans.examples import WORKED_EXAMPLE
from tests.conftest import cloud_item, owned_item, simple_profile

CLIENTS = 6
REQUESTS = 36
HEALTH_LIMIT_S = 0.2
PROBE_EVERY_S = 0.02

# the control: answers every request on a keep-alive connection at once, and does nothing else
CONTROL_SERVER = """
import asyncio
async def answer(reader, writer):
    while await reader.readline():
        while (await reader.readline()) not in (b"\\r\\n", b""):
            pass
        writer.write(b"HTTP/1.1 200 OK\\r\\ncontent-length: 2\\r\\n\\r\\nok")
        await writer.drain()
    writer.close()
async def main():
    server = await asyncio.start_server(answer, "127.0.0.1", 0)
    print(server.sockets[0].getsockname()[1], flush=True)
    await server.serve_forever()
asyncio.run(main())
"""


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
def gpuplan_serve(database_url: str, workdir: Path, **settings: str) -> Iterator[str]:
    """`gpuplan serve` in a process of its own, as an operator runs it (the load generator here shares no GIL
    with it), on a free loopback port; stopped with SIGTERM, its plan workers with it. `settings` override the
    environment (GPUPLAN_ names without the prefix)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, "GPUPLAN_DATABASE_URL": database_url, "GPUPLAN_SCHEDULER": "false",
           "GPUPLAN_PLAN_WORKERS": "2", "GPUPLAN_PLAN_QUEUE": "8",
           "GPUPLAN_PLAN_CONCURRENCY_PER_CALLER": str(CLIENTS), "GPUPLAN_MAX_BODY_BYTES": str(1024 * 1024),
           "GPUPLAN_LOG_LEVEL": "warning", **{f"GPUPLAN_{name.upper()}": value for name, value in settings.items()}}
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


@contextmanager
def control_server() -> Iterator[str]:
    """The control the probes are compared with (module docstring)."""
    server = subprocess.Popen([sys.executable, "-c", CONTROL_SERVER], stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        yield f"http://127.0.0.1:{int(server.stdout.readline())}"
    finally:
        server.kill()
        server.wait()


@dataclass
class Probes:
    health: list[tuple[float, int]] = field(default_factory=list)  # (seconds, status) of each /healthz probe
    control: list[float] = field(default_factory=list)  # seconds of the control probe beside it

    def verdict(self) -> str | None:
        """Why this window fails the replica (None: it passes)."""
        slow = sum(seconds >= HEALTH_LIMIT_S for seconds, _ in self.health)
        noise = sum(seconds >= HEALTH_LIMIT_S for seconds in self.control)
        allowed = noise + math.ceil(0.01 * len(self.health))
        slowest, slowest_control = max(s for s, _ in self.health), max(self.control)
        summary = (f"{slow} of {len(self.health)} /healthz probes took 200 ms or more (control: {noise}); slowest "
                   f"{[round(s * 1000) for s in sorted(s for s, _ in self.health)[-5:]]} ms, control's slowest "
                   f"{round(slowest_control * 1000)} ms")
        if slow > allowed:
            return summary
        if slowest >= 1.0 + slowest_control:
            return f"/healthz took {slowest * 1000:.0f} ms while plans were solved; {summary}"
        return None


@contextmanager
def probed(url: str, control: str) -> Iterator[Probes]:
    """One prober timing /healthz and the control side by side while the block runs."""
    probes = Probes()
    done = threading.Event()

    def probe() -> None:
        with requests.Session() as ours, requests.Session() as theirs:
            while not done.is_set():
                began = time.perf_counter()
                theirs.get(control, timeout=5)
                middle = time.perf_counter()
                status = ours.get(f"{url}/healthz", timeout=30).status_code
                probes.control.append(middle - began)
                probes.health.append((time.perf_counter() - middle, status))
                time.sleep(PROBE_EVERY_S)

    prober = threading.Thread(target=probe)
    prober.start()
    try:
        yield probes
    finally:
        done.set()
        prober.join()


def hostile_window(url: str, control: str, bodies: dict[str, bytes]) -> tuple[list[tuple[str, int, str | None]],
                                                                           Probes]:
    """The mix sent by `CLIENTS` clients while one prober times /healthz and the control, side by side."""
    kinds = itertools.islice(itertools.cycle(["normal", "slow", "normal", "huge", "slow_saved", "over_long"]),
                             REQUESTS)

    def send(kind: str) -> tuple[str, int, str | None]:
        path = "/v1/profiles" if kind == "slow_saved" else "/v1/plans"
        answer = requests.post(f"{url}{path}", data=bodies[kind], timeout=60,
                               headers={"content-type": "application/json"})
        return kind, answer.status_code, answer.headers.get("location")

    with probed(url, control) as probes, ThreadPoolExecutor(CLIENTS) as clients:
        answers = list(clients.map(send, kinds))
    return answers, probes


def test_hostile_mix_keeps_the_replica_healthy(database_url: str, tmp_path: Path) -> None:
    # encoded once, before the clock starts: the load generator's threads then do little but wait, so the probe's
    # timing is the server's and not this process's
    bodies = {"normal": json.dumps(WORKED_EXAMPLE).encode(), "slow": json.dumps(slow_profile()).encode(),
              "slow_saved": json.dumps({"name": "slow", "profile": slow_profile()}).encode(),
              "over_long": json.dumps(over_long_profile()).encode(),
              "huge": json.dumps({**WORKED_EXAMPLE, "padding": "x" * (2 * 1024 * 1024)}).encode()}
    expected = {"normal": 201, "slow": 201, "slow_saved": 201, "huge": 413, "over_long": 422}
    with gpuplan_serve(database_url, tmp_path) as url, control_server() as control:
        verdicts = []
        for _ in range(2):  # a second window only when the first failed the replica
            began = time.monotonic()
            answers, probes = hostile_window(url, control, bodies)
            assert time.monotonic() - began < 120
            assert not [a for a in answers if a[1] >= 500], answers
            assert [(kind, status) for kind, status, _ in answers] == [(k, expected[k]) for k, _, _ in answers]
            assert len(probes.health) >= 10 and all(status == 200 for _, status in probes.health)
            for _, _, location in answers:
                if location:
                    assert requests.get(f"{url}{location}", timeout=10).status_code == 200
            verdicts.append(probes.verdict())
            if verdicts[-1] is None:
                break
        # the replica as it was (plans in its threads) answered probes in 2-7 s here, in both windows
        assert verdicts[-1] is None, verdicts


def test_hostile_bodies_keep_the_replica_healthy(database_url: str, tmp_path: Path) -> None:
    """Issue 31: eight 4 MB objects of 350,000 unknown keys each, at once. The API process used to parse and
    validate each on its event loop (about 5 s each; /healthz took 21 s) and answer 30.7 MB; now it reads their
    bytes and a plan worker validates them, and each answer lists 20 errors and their count."""
    hostile = json.dumps({f"{i:x}": 1 for i in range(350_000)}, separators=(",", ":")).encode()
    assert len(hostile) < 4 * 1024 * 1024
    with gpuplan_serve(database_url, tmp_path, max_body_bytes=str(4 * 1024 * 1024),
                       plan_concurrency_per_caller="8") as url, control_server() as control:
        verdicts = []
        for _ in range(2):  # a second window only when the first failed the replica
            with probed(url, control) as probes, ThreadPoolExecutor(8) as clients:
                answers = list(clients.map(lambda _: requests.post(
                    f"{url}/v1/plans", data=hostile, timeout=120, headers={"content-type": "application/json"}),
                    range(8)))
            for answer in answers:
                assert answer.status_code == 422, answer.text[:300]
                assert len(answer.content) < 20_000 and answer.json()["error_count"] > 350_000
            assert len(probes.health) >= 10 and all(status == 200 for _, status in probes.health)
            verdicts.append(probes.verdict())
            if verdicts[-1] is None:
                break
        assert verdicts[-1] is None, verdicts


def _probes(health_ms: list[float], control_ms: list[float]) -> Probes:
    return Probes([(ms / 1000, 200) for ms in health_ms], [ms / 1000 for ms in control_ms])


def test_probes_waiting_behind_plans_fail_the_window() -> None:
    # 100 probes; the control always answers in 2 ms. Three /healthz probes of 250 ms is more than the 1% allowed
    assert _probes([10] * 97 + [250] * 3, [2] * 100).verdict() is not None
    # one is within the 1% a shared machine may cost
    assert _probes([10] * 99 + [250], [2] * 100).verdict() is None
    # a probe 1 s beyond anything the control saw fails by itself
    assert _probes([10] * 99 + [1100], [2] * 100).verdict() is not None


def test_probes_slow_when_the_machine_was_slow_do_not_fail_the_window() -> None:
    # the machine stalled both servers as often: 5 slow /healthz probes against 4 slow control probes (+1 allowed)
    assert _probes([10] * 95 + [400] * 5, [2] * 96 + [300] * 4).verdict() is None
    assert _probes([10] * 99 + [1100], [2] * 99 + [300]).verdict() is None
