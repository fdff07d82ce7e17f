"""The request mix of bench/load.py (run by locust, not by hand): plan requests and price reads, spread over
every API replica in LOAD_URLS, each user at a constant rate so the total is the target requests/s."""

from __future__ import annotations

import itertools
import os
import random
import sys
import time
from pathlib import Path
from urllib.parse import quote

import gevent
from locust import HttpUser, task

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from service.plans.examples import CATALOG_EXAMPLE, SERIES_EXAMPLE, WORKED_EXAMPLE

URLS = [u.rstrip("/") for u in os.environ["LOAD_URLS"].split(",") if u]
PER_USER_RPS = float(os.environ.get("LOAD_PER_USER_RPS", "1"))
PROFILES = (CATALOG_EXAMPLE, WORKED_EXAMPLE, SERIES_EXAMPLE)
GPUS = ("H100 SXM", "A100 80GB", "RTX 4090", "RTX 3090", "L40S", "V100")


class Planner(HttpUser):
    host = URLS[0]

    def wait_time(self) -> float:
        """Each user on a fixed schedule of its own: one request every 1/PER_USER_RPS s from a random start.

        (locust's constant_throughput anchors every user's schedule at the instant it was created, and users are
        created in whole-second batches: every user would fire in the same millisecond each second, a burst no
        real crowd of clients makes.)"""
        self.next_start += 1 / PER_USER_RPS
        return max(0.0, self.next_start - time.perf_counter())

    def on_start(self) -> None:
        start = random.randrange(len(URLS))  # users spread over the replicas, each one round-robin
        self.replicas = itertools.islice(itertools.cycle(URLS), start, None)
        self.next_start = time.perf_counter() + random.uniform(0, 1 / PER_USER_RPS)
        gevent.sleep(self.next_start - time.perf_counter())

    def _url(self, path: str) -> str:
        return f"{next(self.replicas)}{path}"

    @task(3)
    def plan(self) -> None:
        with self.client.post(self._url("/v1/plans"), json=random.choice(PROFILES), name="POST /v1/plans",
                              catch_response=True) as answer:
            if answer.status_code != 201:
                answer.failure(f"{answer.status_code}: {answer.text[:200]}")

    @task(3)
    def prices_of_a_gpu(self) -> None:
        self.client.get(self._url(f"/v1/prices?gpu={quote(random.choice(GPUS))}"), name="GET /v1/prices?gpu=")

    @task(1)
    def all_prices(self) -> None:
        self.client.get(self._url("/v1/prices"), name="GET /v1/prices")

    @task(1)
    def price_history(self) -> None:
        self.client.get(self._url(f"/v1/prices/history?gpu={quote(random.choice(GPUS))}&kind=cloud"),
                        name="GET /v1/prices/history")

    @task(1)
    def gpus(self) -> None:
        self.client.get(self._url("/v1/gpus"), name="GET /v1/gpus")

    @task(1)
    def sources(self) -> None:
        self.client.get(self._url("/v1/sources"), name="GET /v1/sources")
