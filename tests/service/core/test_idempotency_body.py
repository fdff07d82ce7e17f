"""Issue 31: an Idempotency-Key compares the parsed body (a retry may re-indent it), and a 422 `plan_time_budget`,
which a quieter moment may not give, is not kept for the retry."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from service.app import create_app
from service.core.errors import InvalidField
from service.core.settings import Settings
from service.plans import endpoints as plan_endpoints
from service.plans.examples import CATALOG_EXAMPLE, WORKED_EXAMPLE

JSON = {"content-type": "application/json"}


@pytest.fixture
def client(database_url: str) -> Iterator[TestClient]:
    with TestClient(create_app(Settings(database_url=database_url, scheduler=False))) as c:
        yield c


def test_the_same_body_re_indented_is_the_same_request(client: TestClient) -> None:
    headers = {**JSON, "Idempotency-Key": "same-body"}
    first = client.post("/v1/plans", content=json.dumps(CATALOG_EXAMPLE).encode(), headers=headers)
    assert first.status_code == 201, first.text
    reordered = dict(reversed(list(CATALOG_EXAMPLE.items())))
    for body in (json.dumps(CATALOG_EXAMPLE, indent=4), json.dumps(reordered, separators=(",", ":"))):
        again = client.post("/v1/plans", content=body.encode(), headers=headers)
        assert again.status_code == 201, again.text
        assert again.headers["idempotent-replayed"] == "true" and again.json()["id"] == first.json()["id"]
    other = client.post("/v1/plans", json=WORKED_EXAMPLE, headers=headers)
    assert other.status_code == 422 and other.json()["errors"][0]["rule"] == "same_request"


def test_a_plan_past_its_time_budget_is_not_kept_for_the_retry(client: TestClient,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    original, calls = plan_endpoints.plan_for, []

    def late_once(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 1:  # as the plan pool answers a plan not solved within the budget
            raise InvalidField("body", "plan_time_budget", "the plan did not finish within the time budget")
        return original(*args, **kwargs)

    monkeypatch.setattr(plan_endpoints, "plan_for", late_once)
    headers = {"Idempotency-Key": "busy-moment"}
    late = client.post("/v1/plans", json=CATALOG_EXAMPLE, headers=headers)
    assert late.status_code == 422 and late.json()["errors"][0]["rule"] == "plan_time_budget"
    retried = client.post("/v1/plans", json=CATALOG_EXAMPLE, headers=headers)
    assert retried.status_code == 201 and "idempotent-replayed" not in retried.headers
    # any other 422 is the request's own fault, and kept
    bad = {**CATALOG_EXAMPLE, "horizon_months": 0}
    assert client.post("/v1/plans", json=bad, headers={"Idempotency-Key": "bad"}).status_code == 422
    kept = client.post("/v1/plans", json=bad, headers={"Idempotency-Key": "bad"})
    assert kept.status_code == 422 and kept.headers["idempotent-replayed"] == "true"
