"""Fixtures of the cluster tests: a PostgreSQL schema of their own, a price source and a webhook receiver on
loopback, and a factory of gpuplan processes.

They need PostgreSQL (advisory locks, several processes writing): without GPUPLAN_TEST_DATABASE_URL pointing
at one they skip. `.ci/run` sets it for its `-m database` run.
"""

from __future__ import annotations

import itertools
import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytest_httpserver import HTTPServer
from sqlalchemy import Engine, create_engine, make_url, text
from werkzeug import Request, Response

from pricing.sources import SOURCE_CLASSES
from tests.e2e.cluster.processes import Cluster
from tests.pricing.replays.runpod import scaled_gpu_types
from tests.service.alerts.helpers import Receiver


def postgres_url() -> str:
    url = os.environ.get("GPUPLAN_TEST_DATABASE_URL", "")
    if not url.startswith("postgresql"):
        pytest.skip("needs PostgreSQL: set GPUPLAN_TEST_DATABASE_URL=postgresql+psycopg://... (as .ci/run does)")
    return url


@pytest.fixture(scope="module")
def database_in_schema(request: pytest.FixtureRequest) -> Iterator[str]:
    """A fresh schema per test module (`search_path` in the URL), so these tests never touch the tables
    the other PostgreSQL tests drop and re-create in `public`."""
    base = postgres_url()
    schema = f"gpuplan_e2e_{request.module.__name__.rsplit('.', 1)[-1]}"
    admin = create_engine(base)
    with admin.begin() as conn:
        conn.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    url = make_url(base).update_query_dict({"options": f"-csearch_path={schema}"})
    yield url.render_as_string(hide_password=False)
    with admin.begin() as conn:
        conn.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
    admin.dispose()


@pytest.fixture(scope="module")
def cluster_engine(database_in_schema: str) -> Iterator[Engine]:
    eng = create_engine(database_in_schema)
    yield eng
    eng.dispose()


class PriceSource:
    """RunPod's GraphQL answer, its prices alternating between two levels on every fetch (a 25% move, inside
    the plausibility guards), so each refresh changes prices and feeds the alerts."""

    def __init__(self) -> None:
        self.fetches = 0
        self._lock = threading.Lock()
        self._scales = itertools.cycle((1.0, 1.25))

    def handle(self, _: Request) -> Response:
        with self._lock:
            self.fetches += 1
            scale = next(self._scales)
        return Response(json.dumps(scaled_gpu_types(scale)), content_type="application/json")


@pytest.fixture(scope="module")
def loopback() -> Iterator[HTTPServer]:
    server = HTTPServer(host="127.0.0.1", port=0, threaded=True)
    server.start()
    yield server
    server.clear()
    server.stop()


@pytest.fixture(scope="module")
def price_source(loopback: HTTPServer) -> PriceSource:
    source = PriceSource()
    loopback.expect_request("/graphql", method="POST").respond_with_handler(source.handle)
    return source


@pytest.fixture(scope="module")
def receiver(loopback: HTTPServer) -> Receiver:
    hooks = Receiver()
    loopback.expect_request("/hook", method="POST").respond_with_handler(hooks.handle)
    return hooks


def cluster_env(database_url: str, price_base_url: str, tick_s: float, interval_s: float,
                leader_check_s: float) -> dict[str, str]:
    """RunPod from loopback, every other source off, short ticks, webhooks to loopback allowed."""
    env = {f"GPUPLAN_SOURCES__{key.upper()}__ENABLED": "false" for key in SOURCE_CLASSES if key != "runpod"}
    env.update({
        "GPUPLAN_DATABASE_URL": database_url,
        "GPUPLAN_SOURCES__RUNPOD__BASE_URL": price_base_url,
        "GPUPLAN_SOURCES__RUNPOD__INTERVAL_HOURS": str(interval_s / 3600),
        "GPUPLAN_SOURCES__RUNPOD__TIMEOUT_S": "5",
        "GPUPLAN_SOURCES__RUNPOD__RETRIES": "0",
        "GPUPLAN_SCHEDULER_TICK_S": str(tick_s),
        "GPUPLAN_SCHEDULER_FIRST_TICK_S": "0",
        "GPUPLAN_LEADER_CHECK_S": str(leader_check_s),
        "GPUPLAN_ALERTS_TICK_S": "0.5",
        "GPUPLAN_ALERTS_ALLOWED_NETWORKS": "127.0.0.0/8",
        "GPUPLAN_ALERTS_WEBHOOK_TIMEOUT_S": "5",
        "GPUPLAN_LOG_FORMAT": "json",
        "GPUPLAN_LOG_LEVEL": "info",
        # the load test sends far more than a person would from one address
        "GPUPLAN_RATE_LIMIT_PER_MINUTE": "1000000",
        "GPUPLAN_RATE_LIMIT_BURST": "100000",
    })
    return env


@pytest.fixture(scope="module")
def make_cluster(database_in_schema: str) -> Iterator[list[Cluster]]:
    """Clusters started by a module are stopped at its end (their logs stay in the temp directory), before
    their schema is dropped."""
    started: list[Cluster] = []
    yield started
    for cluster in started:
        cluster.stop()


def new_cluster(started: list[Cluster], workdir: Path, env: dict[str, str]) -> Cluster:
    cluster = Cluster(workdir, env)
    started.append(cluster)
    return cluster
