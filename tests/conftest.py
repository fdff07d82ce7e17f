"""Shared fixtures. The database is SQLite by default; GPUPLAN_TEST_DATABASE_URL selects another
(`.ci/run` points it at the local PostgreSQL server, database `test`)."""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pytest_httpserver import HTTPServer
from sqlalchemy import Connection, Engine, create_engine, event, text

TODAY = dt.date(2026, 11, 21)
# every table the migrations create, children before parents (PostgreSQL runs reuse one database)
DATABASE_TABLES = ("idempotency_keys", "plan_views", "profile_versions", "alert_evaluations", "alert_attempts",
                   "alert_events", "alert_baselines", "alert_subscriptions", "profiles", "plans", "api_keys", "labs",
                   "source_status", "price_observations", "price_snapshots", "alembic_version")


@pytest.fixture
def database_url(tmp_path: Path) -> Iterator[str]:
    url = os.environ.get("GPUPLAN_TEST_DATABASE_URL")
    if not url:
        yield f"sqlite:///{tmp_path / 'gpuplan.db'}"
        return
    engine = create_engine(url)
    with engine.begin() as conn:  # a clean schema for every test
        for table in DATABASE_TABLES:
            conn.execute(text(f"DROP TABLE IF EXISTS {table}"))
    engine.dispose()
    yield url


@pytest.fixture(autouse=True)
def dispose_server_engines() -> Iterator[None]:
    """After each test, dispose every engine on a database server (not SQLite) that the test connected through.

    Why: many tests build an app with `TestClient(create_app(...))` without `with`, so its lifespan, which disposes
    the app's engine, never runs; and they build engines of their own. Such a pool keeps its connections open until
    the engine is collected, which FastAPI's module-level caches of endpoint callables (they hold recent apps) put
    off indefinitely, and across the PostgreSQL run they piled up to the server's max_connections ("sorry, too many
    clients already" in CI). Disposing here closes them at the end of the
    test that opened them, whatever the test did. An app's own shutdown is tested in
    tests/service/core/test_engine_lifecycle.py. Engines a test reaches that outlive it (a module's fixture) only
    reconnect on their next use."""
    touched: dict[int, Engine] = {}

    def remember(conn: Connection) -> None:
        if conn.engine.dialect.name != "sqlite":
            touched.setdefault(id(conn.engine), conn.engine)

    event.listen(Engine, "engine_connect", remember)
    try:
        yield
    finally:
        event.remove(Engine, "engine_connect", remember)
        for engine in touched.values():
            engine.dispose()


@pytest.fixture(autouse=True)
def replay_every_plan() -> Iterator[list[str]]:
    """Every plan a test makes in this process is replayed hour by hour (solvers/replay/hourly.py, issue 29): its cost
    must
    equal the replay's within the bound of the model's named approximations the replay reports, else the test fails
    (plans solved in the service's worker processes are replayed by the tests that make them there)."""
    from solvers.plan import PLAN_OBSERVERS, replay_core

    found: list[str] = []

    def observe(core: Any, today: dt.date) -> None:
        model = core.plan.costs.total_usd
        played = replay_core(core, today)
        bound = 0.01 + 1e-6 * abs(model) + sum(played.approximations.values())
        if core.main.gap:
            bound += core.main.gap * abs(model)
        if not abs(played.total_usd - model) <= bound:
            profile = core.profile.model_dump_json(exclude_defaults=True)
            found.append(f"model {model:.2f} vs replay {played.total_usd:.2f} (bound {bound:.2f}, approximations "
                         f"{played.approximations}) for {profile}")

    PLAN_OBSERVERS.append(observe)
    try:
        yield found
    finally:
        PLAN_OBSERVERS.remove(observe)
    assert not found, "the replay disagrees with the model:\n" + "\n".join(found)


def owned_item(price: float, watts: float = 450, gpu: str = "RTX 3090", **extra: Any) -> dict[str, Any]:
    return {"name": f"{gpu} box {price}", "gpu": gpu, "unit_price_usd": price, "watts": watts, "idle_watts": 0,
            "includes_host": True, **extra}


def cloud_item(price: float, gpu: str = "RTX 3090", name: str = "vm", **extra: Any) -> dict[str, Any]:
    return {"provider": "testcloud", "name": name, "gpu": gpu, "usd_per_hour": price, "region": "r1", **extra}


def simple_profile(owned: list[dict[str, Any]], cloud: list[dict[str, Any]], utilisation: float = 0.5,
                   months: int = 12, rate: float = 0.1, **options: Any) -> dict[str, Any]:
    """A profile on the caller's own prices only, with the guide's simplifications (no idle, no resale). Its demand
    reads N GPUs at u as N together (`at_once`), the reading the hand calculations of the tests that raise N use
    (one GPU is the same under every reading)."""
    return {
        "workload": "transformer_training",
        "demand": {"gpus": 1, "utilisation": utilisation, "reading": "at_once", "reference_gpu": "RTX 3090",
                   "start": "2027-01-01"},
        "horizon_months": months,
        "electricity_usd_per_kwh": rate,
        "options": {"resale": False, "availability": 1.0, **options},
        "prices": {"mode": "replace", "owned": owned, "cloud": cloud},
    }


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests that use the database are marked `database`: `.ci/run` runs them again on PostgreSQL."""
    for item in items:
        if "database_url" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.database)


@pytest.fixture
def server() -> Iterator[HTTPServer]:
    """A real HTTP server on loopback for a source to talk to (the tests never mock `requests`)."""
    srv = HTTPServer(host="127.0.0.1", port=0)
    srv.start()
    yield srv
    srv.clear()
    srv.stop()


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    """A migrated database (the same Alembic migrations the service runs on start)."""
    from service.core.db import make_engine, migrate

    migrate(database_url)
    eng = make_engine(database_url)
    yield eng
    eng.dispose()
