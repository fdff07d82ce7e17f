"""Issue 31: a stored plan's sensitivity and recompute are made once, in the plan pool under its time budget, and
kept with the plan: a second read, on this replica or another, costs no re-plan; a new planner makes them again;
an answer past the budget is not kept."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from service.app import create_app
from service.core.dependencies import runtime_of
from service.core.settings import Settings
from service.plans import sensitivity as sensitivity_route
from service.plans import service as plan_service
from service.plans import views
from service.plans.examples import WORKED_EXAMPLE
from service.plans.tables import PlanViewRecord


def _app(database_url: str, **extra: Any) -> TestClient:
    return TestClient(create_app(Settings(database_url=database_url, scheduler=False, **extra)))


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, int]]:
    """How often each view's planner work ran."""
    runs = {"sensitivity": 0, "recompute": 0}
    sensitivity, make_plan = sensitivity_route.sensitivity, plan_service.make_plan

    def counting_sensitivity(*args: Any) -> Any:
        runs["sensitivity"] += 1
        return sensitivity(*args)

    def counting_plan(*args: Any) -> Any:
        runs["recompute"] += 1
        return make_plan(*args)

    monkeypatch.setattr(sensitivity_route, "sensitivity", counting_sensitivity)
    monkeypatch.setattr(plan_service, "make_plan", counting_plan)
    yield runs


def test_views_are_made_once_and_read_back_on_every_replica(database_url: str, counted: dict[str, int]) -> None:
    with _app(database_url) as first:
        plan = first.post("/v1/plans", json=WORKED_EXAMPLE).json()
        made = counted["recompute"]  # the plan itself
        answers = [first.get(f"/v1/plans/{plan['id']}/sensitivity").json(),
                   first.get(f"/v1/plans/{plan['id']}/sensitivity").json()]
        recomputed = [first.post(f"/v1/plans/{plan['id']}/recompute").json() for _ in range(2)]
        assert first.get(f"/v1/plans/{plan['id']}/sensitivity.svg").status_code == 200
    with _app(database_url) as other:  # another replica on the same database
        answers.append(other.get(f"/v1/plans/{plan['id']}/sensitivity").json())
        recomputed.append(other.post(f"/v1/plans/{plan['id']}/recompute").json())
    assert counted["sensitivity"] == 1 and counted["recompute"] == made + 1
    assert answers[0] == answers[1] == answers[2]
    assert recomputed[0] == recomputed[1] == recomputed[2]
    assert recomputed[0]["total_cost_usd"] == plan["total_cost_usd"]


def test_a_new_planner_makes_the_views_again(database_url: str, counted: dict[str, int],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    with _app(database_url) as client:
        plan_id = client.post("/v1/plans", json=WORKED_EXAMPLE).json()["id"]
        client.get(f"/v1/plans/{plan_id}/sensitivity")
        monkeypatch.setattr(views, "planner_version", lambda: "a planner released later")
        client.get(f"/v1/plans/{plan_id}/sensitivity")
        client.get(f"/v1/plans/{plan_id}/sensitivity")
    assert counted["sensitivity"] == 2


def test_a_view_past_the_time_budget_is_not_kept(database_url: str) -> None:
    with _app(database_url, plan_executor="process", plan_workers=1, plan_time_budget_s=120.0) as client:
        plan_id = client.post("/v1/plans", json=WORKED_EXAMPLE).json()["id"]
        pool = runtime_of(client.app).plan_pool  # type: ignore[arg-type]
        pool.budget_s = 0.01  # no sensitivity is done in 10 ms
        late = client.get(f"/v1/plans/{plan_id}/sensitivity")
        assert late.status_code == 422 and late.json()["errors"][0]["rule"] == "plan_time_budget"
        assert pool.in_flight == 0  # its work was stopped
        with runtime_of(client.app).engine.connect() as conn:  # type: ignore[arg-type]
            assert conn.execute(select(func.count()).select_from(PlanViewRecord.__table__)).scalar() == 0
