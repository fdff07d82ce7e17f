"""The HTTP API: plans created and read back (also after a restart), catalog reads, and 422s that
name the field and the rule. Runs on SQLite, or on PostgreSQL when GPUPLAN_TEST_DATABASE_URL is set."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from fastapi.testclient import TestClient

from pricing.catalog import Catalog
from service.app import create_app
from service.core.settings import Settings
from service.plans.examples import CATALOG_EXAMPLE, SERIES_EXAMPLE, WORKED_EXAMPLE


@pytest.fixture
def client(database_url: str) -> TestClient:
    return TestClient(create_app(Settings(database_url=database_url)), raise_server_exceptions=False)


def test_worked_example_over_http(client: TestClient, database_url: str) -> None:
    created = client.post("/v1/plans", json=WORKED_EXAMPLE)
    assert created.status_code == 201, created.text
    body = created.json()
    assert 285 <= body["break_even"]["days"] <= 300
    assert created.headers["location"] == f"/v1/plans/{body['id']}"
    for key in ("status", "total_cost_usd", "buy", "hosts", "cloud", "costs", "break_even", "alternatives",
                "prices_as_of", "warnings", "solver"):
        assert key in body
    assert set(body["solver"]) >= {"backend", "status", "solve_ms", "gap"}
    assert set(body["break_even"]) >= {"days", "cumulative", "utilisation_threshold", "simple",
                                       "electricity_threshold_usd_per_kwh", "cloud_price_threshold_usd_per_hour"}
    # a new process on the same database still answers
    restarted = TestClient(create_app(Settings(database_url=database_url)))
    again = restarted.get(f"/v1/plans/{body['id']}")
    assert again.status_code == 200 and again.json() == body


@pytest.mark.parametrize("example", [CATALOG_EXAMPLE, SERIES_EXAMPLE])
def test_bundled_catalog_plans(client: TestClient, example: dict[str, Any]) -> None:
    response = client.post("/v1/plans", json=example)
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["prices_as_of"] and all(len(v) == 10 for v in body["prices_as_of"].values())
    alt = body["alternatives"]["cloud_only"]
    assert body["total_cost_usd"] <= alt["total_cost_usd"] + 0.01


def _invalid(client: TestClient, change: Any) -> dict[str, Any]:
    profile = copy.deepcopy(CATALOG_EXAMPLE)
    change(profile)
    response = client.post("/v1/plans", json=profile)
    assert response.status_code == 422, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    assert "Traceback" not in response.text
    return response.json()


@pytest.mark.parametrize(
    ("change", "field", "rule"),
    [
        (lambda p: p.update(workload="gan_training"), "workload", "literal_error"),
        (lambda p: p["demand"].update(utilisation=0), "demand.utilisation", "greater_than"),
        (lambda p: p["demand"].update(utilisation=1.5), "demand.utilisation", "less_than_equal"),
        (lambda p: p.update(electricity_usd_per_kwh=-0.1), "electricity_usd_per_kwh", "greater_than_equal"),
        (lambda p: p.update(horizon_months=0), "horizon_months", "greater_than_equal"),
        (lambda p: p.update(horizon_months=121), "horizon_months", "less_than_equal"),
        (lambda p: p.update(color="red"), "color", "extra_forbidden"),
        (lambda p: p.update(demand={"series": [], "reference_gpu": "RTX 3090"}), "demand.series", "too_short"),
        (lambda p: p.update(prices={"owned": [{"name": "x", "gpu": "RTX 3090", "unit_price_usd": -5}]}),
         "prices.owned[0].unit_price_usd", "greater_than_equal"),
        (lambda p: p["demand"].update(reference_gpu="GTX 9999"), "demand.reference_gpu", "known_gpu"),
        (lambda p: p["options"].update(providers=["nimbus"]), "options.providers", "known_provider"),
        # one GPU busy at once cannot run a 2-GPU job: it was planned as half a job, at half the price
        (lambda p: p.update(jobs={"gpus_per_job": 2}), "demand.gpus", "whole_jobs"),
    ],
)
def test_bad_input_names_field_and_rule(client: TestClient, change: Any, field: str, rule: str) -> None:
    body = _invalid(client, change)
    assert {"field": field, "rule": rule} in [{"field": e["field"], "rule": e["rule"]} for e in body["errors"]]


@pytest.mark.parametrize("machine_on", [25, 0, "sometimes", None, "\u0663", "1_2"])
def test_machine_on_out_of_its_rule_is_one_error_on_the_field(client: TestClient, machine_on: Any) -> None:
    """Not one error per branch of its union, named after pydantic's branches
    (`options.machine_on.literal['always','when_working']`)."""
    body = _invalid(client, lambda p: p["options"].update(machine_on=machine_on))
    assert [(e["field"], e["rule"]) for e in body["errors"]] == [("options.machine_on", "machine_on")]
    assert "hours a day" in body["errors"][0]["message"]


def test_nan_is_rejected(client: TestClient) -> None:
    raw = '{"workload": "cnn_training", "demand": {"gpus": 1, "utilisation": NaN, "reference_gpu": "RTX 3090"},' \
          ' "horizon_months": 12}'
    response = client.post("/v1/plans", content=raw, headers={"content-type": "application/json"})
    assert response.status_code == 422
    assert "Traceback" not in response.text


def test_infeasible_profile_names_the_constraint(client: TestClient) -> None:
    body = _invalid(client, lambda p: p.update(min_gpu_memory_gb=300))
    assert body["constraint"] == "min_gpu_memory_gb"
    assert "300 GB" in body["detail"] and body["nearest_feasible"] > 0


def test_unknown_plan_is_404_problem(client: TestClient) -> None:
    response = client.get("/v1/plans/does-not-exist")
    assert response.status_code == 404
    assert response.json()["status"] == 404


def test_unexpected_failure_is_a_500_problem_without_trace(database_url: str) -> None:
    def broken() -> Catalog:
        raise RuntimeError("secret internals")

    client = TestClient(create_app(Settings(database_url=database_url), catalog_source=broken),
                        raise_server_exceptions=False)
    response = client.post("/v1/plans", json=CATALOG_EXAMPLE)
    assert response.status_code == 500
    assert "secret internals" not in response.text and "Traceback" not in response.text


def test_catalog_reads(client: TestClient) -> None:
    gpus = client.get("/v1/gpus", params={"workload": "transformer_training", "reference_gpu": "V100"}).json()
    a100 = next(g for g in gpus if g["name"] == "A100 40GB")
    assert abs(a100["relative_throughput"] / 1.70 - 1) <= 0.1
    prices = client.get("/v1/prices", params={"gpu": "rtx4090", "kind": "used"}).json()
    assert prices and all(p["gpu"] == "RTX 4090" and p["condition"] == "used" for p in prices)
    aws = client.get("/v1/prices", params={"provider": "aws", "kind": "cloud"}).json()
    assert aws and {p["provider"] for p in aws} == {"aws"} and all(p["source"] and p["as_of"] for p in aws)
    assert client.get("/v1/prices", params={"gpu": "nope"}).status_code == 422
    assert client.get("/healthz").json()["status"] == "ok"


def test_openapi_documents_examples(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    examples = spec["paths"]["/v1/plans"]["post"]["requestBody"]["content"]["application/json"]["examples"]
    assert examples["worked_example"]["value"]["prices"]["mode"] == "replace"
    assert client.get("/docs").status_code == 200
