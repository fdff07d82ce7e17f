"""Issue 13's case through the API: a 24/7 inference service that needs 80 GB gets GPUs present every hour."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from fastapi.testclient import TestClient

from pricing.catalog import bundled_catalog
from service.app import create_app
from service.core.settings import Settings

HOURS = 731 * 24  # 2027-01-01 .. 2029-01-01
SERVICE: dict[str, Any] = {
    "workload": "inference_16bit",
    "min_gpu_memory_gb": 80,
    "horizon_months": 24,
    "demand": {"gpus": 2, "utilisation": 1.0, "reference_gpu": "H100 SXM", "start": "2027-01-01"},
    "jobs": {"runs": "continuously"},
}


@pytest.fixture
def client(database_url: str) -> TestClient:
    return TestClient(create_app(Settings(database_url=database_url)), raise_server_exceptions=False)


def test_a_24_7_service_needing_80_gb_has_two_gpus_of_80_gb_every_hour(client: TestClient) -> None:
    response = client.post("/v1/plans", json=SERVICE)
    assert response.status_code == 201, response.text
    plan = response.json()
    memory = {g.name: g.memory_gb for g in bundled_catalog().gpus}
    owned = sum(b["count"] * b["gpus_per_unit"] for b in plan["buy"])
    assert all(memory[b["gpu"]] >= 80 for b in plan["buy"]) and all(memory[c["gpu"]] >= 80 for c in plan["cloud"])
    # the rented GPUs make up what is not owned, in every one of the 17,544 hours
    rented_gpu_hours = sum(c["hours"] * c["gpu_count"] for c in plan["cloud"])
    assert owned >= 2 or rented_gpu_hours >= (2 - owned) * HOURS - 1e-3
    for period in plan["periods"]:
        assert period["served_every_hour"] is True
        assert period["peak_owned_gpus"] + period["peak_rented_gpus"] >= 2 - 1e-9
        rented = sum(period["cloud_hours"].values())
        assert owned >= 2 or rented >= (2 - owned) * 24 * period["days"] / max(
            c["gpu_count"] for c in plan["cloud"]) - 1e-3
    # the same need read as work that finishes sooner on a faster GPU is the bug: it rents fewer GPU-hours
    training = client.post("/v1/plans", json={**SERVICE, "jobs": {}}).json()
    if not training["buy"]:
        assert sum(c["hours"] * c["gpu_count"] for c in training["cloud"]) < 2 * HOURS


def test_always_on_load_cannot_wait(client: TestClient) -> None:
    profile = copy.deepcopy(SERVICE)
    profile["jobs"]["patience"] = "week"
    response = client.post("/v1/plans", json=profile)
    assert response.status_code == 422
    errors = response.json()["errors"]
    assert errors[0]["field"] == "jobs" and "cannot wait" in errors[0]["message"]
