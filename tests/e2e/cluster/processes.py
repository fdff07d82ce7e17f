"""Real gpuplan processes for the cluster tests: API replicas (`gpuplan serve`, uvicorn) and schedulers
(`gpuplan scheduler`), each with its own log file, started and stopped like an operator would."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import requests
from prometheus_client.parser import text_string_to_metric_families

START_TIMEOUT_S = 60.0
# `python -c` rather than the `gpuplan` script: the same interpreter and package as the tests, wherever it lives
GPUPLAN = [sys.executable, "-c", "from service.cli import app; app()"]


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_until(condition: Callable[[], bool], timeout_s: float, what: str, step_s: float = 0.05) -> float:
    """Poll `condition` until it holds; return how long that took. Fails the test after `timeout_s`."""
    started = time.monotonic()
    while True:
        if condition():
            return time.monotonic() - started
        if time.monotonic() - started > timeout_s:
            raise AssertionError(f"timed out after {timeout_s:.0f} s waiting for {what}")
        time.sleep(step_s)


@dataclass
class Service:
    name: str
    process: subprocess.Popen[bytes]
    log_path: Path
    url: str  # the API's base URL, or the scheduler's metrics endpoint

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def metrics(self) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
        """Every sample this process exposes now: (name, sorted labels) -> value."""
        path = self.url if self.url.endswith("/metrics") else f"{self.url}/metrics"
        text = requests.get(path, timeout=5).text
        return {(s.name, tuple(sorted(s.labels.items()))): s.value
                for family in text_string_to_metric_families(text) for s in family.samples}

    def metric(self, name: str, **labels: str) -> float:
        """One sample's value (0 when the process has not reported it yet)."""
        try:
            return self.metrics().get((name, tuple(sorted(labels.items()))), 0.0)
        except requests.RequestException:
            return float("nan")

    def kill(self) -> None:
        """SIGKILL: no clean-up, no lock release; the operating system closes its connections."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.alive:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


@dataclass
class Cluster:
    """gpuplan processes sharing one database; `env` holds the GPUPLAN_* settings they all get."""

    workdir: Path
    env: dict[str, str]
    services: list[Service] = field(default_factory=list)

    def _start(self, name: str, args: list[str], extra: dict[str, str], url: str, ready_path: str) -> Service:
        log_path = self.workdir / f"{name}.log"
        env = {**os.environ, **self.env, **extra}
        with log_path.open("wb") as log:
            process = subprocess.Popen([*GPUPLAN, *args], cwd=self.workdir, env=env, stdout=log,
                                       stderr=subprocess.STDOUT)
        service = Service(name, process, log_path, url)
        self.services.append(service)

        def ready() -> bool:
            if not service.alive:
                raise AssertionError(f"{name} exited with {process.returncode}:\n{service.log()[-4000:]}")
            try:
                return requests.get(f"{url.removesuffix('/metrics')}{ready_path}", timeout=2).status_code == 200
            except requests.ConnectionError:
                return False

        wait_until(ready, START_TIMEOUT_S, f"{name} to answer", step_s=0.2)
        return service

    def start_api(self, name: str) -> Service:
        port = free_port()
        return self._start(name, ["serve", "--host", "127.0.0.1", "--port", str(port)],
                           {"GPUPLAN_SCHEDULER": "false"}, f"http://127.0.0.1:{port}", "/readyz")

    def start_scheduler(self, name: str) -> Service:
        port = free_port()
        return self._start(name, ["scheduler"], {"GPUPLAN_SCHEDULER_METRICS_PORT": str(port),
                                                 "GPUPLAN_HOST": "127.0.0.1"},
                           f"http://127.0.0.1:{port}/metrics", "")

    def stop(self) -> None:
        for service in self.services:
            service.stop()

    def logs(self) -> str:
        return "\n".join(f"--- {s.name} ---\n{s.log()[-3000:]}" for s in self.services)
