"""Every request that runs the planner goes through the plan pool and its bounds (issue 18), not only POST
/v1/plans: with the pool's one slot taken, each such route answers 503 with Retry-After at once instead of
solving on its own thread, /healthz still answers, and each works again once the slot is free. The scheduler's
plan-alert re-plans wait for a slot in the same pool instead of being refused or bypassing it."""

from __future__ import annotations

import datetime as dt
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from pricing.catalog import bundled_catalog
from service.alerts.worker import AlertWorker, Channels, RetryPolicy
from service.app import create_app
from service.core.dependencies import runtime_of
from service.core.plan_pool import PlanPool
from service.core.settings import Settings
from service.plans.examples import CATALOG_EXAMPLE, WORKED_EXAMPLE
from solvers.base.profile import Profile
from tests.service.core.pool_jobs import sleep_then
from tests.service.usage.helpers import DATA

HOLD_S = 1.5


@pytest.fixture
def client(database_url: str) -> Iterator[TestClient]:
    # one slot (one worker, no queue), solved inline: what counts here is whether a route asks the pool at all
    settings = Settings(database_url=database_url, plan_workers=1, plan_queue=0, scheduler=False,
                        alerts_allowed_networks=["127.0.0.0/8"])
    with TestClient(create_app(settings), raise_server_exceptions=False) as test_client:
        yield test_client


def _routes(client: TestClient) -> list[tuple[str, str, dict[str, Any] | None]]:
    """(method, path, body) of every route that plans, on a saved profile and a stored plan made just now."""
    saved = client.post("/v1/profiles", json={"name": "lab", "profile": CATALOG_EXAMPLE})
    assert saved.status_code == 201, saved.text
    pid = saved.json()["id"]
    plan = client.post(f"/v1/profiles/{pid}/plans")
    assert plan.status_code == 201, plan.text
    plan_id = plan.json()["id"]
    return [
        ("POST", "/v1/plans", WORKED_EXAMPLE),
        ("POST", "/v1/plans/what-if", {"profile": WORKED_EXAMPLE, "cloud_price_scale": 1.5}),
        ("POST", f"/v1/plans/{plan_id}/recompute", None),
        ("GET", f"/v1/plans/{plan_id}/sensitivity", None),
        ("GET", f"/v1/plans/{plan_id}/sensitivity.svg", None),
        ("POST", "/v1/profiles", {"name": "another", "profile": WORKED_EXAMPLE}),
        ("GET", f"/v1/profiles/{pid}", None),
        ("PUT", f"/v1/profiles/{pid}", {"name": "lab v2", "profile": CATALOG_EXAMPLE}),
        ("POST", f"/v1/profiles/{pid}/usage", {"text": (DATA / "sacct_allocations.txt").read_text()}),
        ("POST", f"/v1/profiles/{pid}/plans", None),
        ("POST", "/v1/alerts", {"name": "watch", "delivery": {"type": "webhook", "url": "http://127.0.0.1:9/h"},
                                "condition": {"type": "plan_change", "profile_id": pid}}),
    ]


def test_every_planning_route_is_bounded_by_the_pool(client: TestClient) -> None:
    routes = _routes(client)
    pool = runtime_of(client.app).plan_pool  # type: ignore[arg-type]
    holder = threading.Thread(target=pool.run, args=("address:someone-else", sleep_then, HOLD_S))
    holder.start()
    deadline = time.monotonic() + 5
    while pool.in_flight < 1 and time.monotonic() < deadline:
        time.sleep(0.01)
    try:
        refused = {f"{method} {path}": client.request(method, path, json=body) for method, path, body in routes}
        health = client.get("/healthz")
    finally:
        holder.join()
    # before this change the profile, usage, what-if, sensitivity and alert routes solved on the request's thread
    # and answered 200/201 here, whatever the pool held
    assert {name: answer.status_code for name, answer in refused.items()} == {name: 503 for name in refused}
    assert all(int(answer.headers["retry-after"]) >= 1 for answer in refused.values())
    assert all(answer.json()["title"] for answer in refused.values())  # problem documents, not stack traces
    assert health.status_code == 200
    # the slot is free again: the same requests are answered (201/200; the usage import makes a new version)
    served = {f"{method} {path}": client.request(method, path, json=body).status_code for method, path, body in routes}
    assert set(served.values()) <= {200, 201}, served


def test_the_alert_re_plans_wait_for_a_slot_in_the_pool() -> None:
    pool = PlanPool("inline", workers=1, queue=0, per_caller=1, budget_s=5.0)
    worker = AlertWorker(None, bundled_catalog, Channels(None, None),  # type: ignore[arg-type]
                         RetryPolicy(), plan_pool=pool)
    holder = threading.Thread(target=pool.run, args=("a request", sleep_then, 0.5))
    holder.start()
    while pool.in_flight < 1:
        time.sleep(0.01)
    began = time.monotonic()
    summary = worker.replan(Profile.model_validate(WORKED_EXAMPLE), bundled_catalog(), dt.date(2026, 11, 25))
    waited = time.monotonic() - began
    holder.join()
    # it waited for the request's slot (never a 503 for background work), then solved within the pool
    assert summary is not None and summary["total_cost_usd"] > 0
    assert waited >= 0.2
    assert pool.in_flight == 0


def test_an_alert_re_plan_past_the_budget_is_skipped_not_an_alert() -> None:
    pool = PlanPool("process", workers=1, queue=0, per_caller=1, budget_s=0.05)
    worker = AlertWorker(None, bundled_catalog, Channels(None, None),  # type: ignore[arg-type]
                         RetryPolicy(), plan_pool=pool)
    try:
        # a cold worker (the pool was not started) cannot import the planner within 50 ms: no summary this time,
        # so the subscription keeps its baseline rather than reporting "no feasible plan any more"
        assert worker.replan(Profile.model_validate(WORKED_EXAMPLE), bundled_catalog(), dt.date(2026, 11, 25)) is None
    finally:
        pool.shutdown()
