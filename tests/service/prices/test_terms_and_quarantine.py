"""Commitment prices in GET /v1/prices and quarantined rows in GET /v1/sources (issue 15), with real answers
replayed on loopback (Azure's reservations, a gpuhunt catalog with a bait price)."""

from __future__ import annotations

import datetime as dt

from fastapi.testclient import TestClient
from pytest_httpserver import HTTPServer

from pricing.gpus import bundled_gpus
from pricing.refresh import refresh_source
from service.app import create_app
from service.core.dependencies import runtime_of
from service.core.settings import Settings
from service.plans.examples import CATALOG_EXAMPLE
from tests.pricing.replays.azure import AzureReplay
from tests.pricing.replays.gpuhunt import VERSION, GpuHuntReplay
from tests.pricing.test_quarantine_and_terms import _zip_with

NOW = dt.datetime.now(dt.UTC).replace(microsecond=0)


def test_prices_serve_commitments_with_term_and_payment(database_url: str, server: HTTPServer) -> None:
    replay = AzureReplay()
    source = replay.source(server)
    app = create_app(Settings(database_url=database_url, scheduler=False), price_sources=[source])
    client = TestClient(app, raise_server_exceptions=False)
    bundled = client.get("/v1/prices", params={"kind": "commitment"}).json()
    assert bundled and {p["kind"] for p in bundled} == {"commitment"}
    assert {p["pricing"] for p in bundled} <= {"reserved", "committed"} and all(p["term_months"] for p in bundled)
    replay.install_good(server)
    assert refresh_source(runtime_of(app).engine, source, bundled_gpus(), NOW).outcome == "ok"
    azure = client.get("/v1/prices", params={"kind": "commitment", "provider": "azure"}).json()
    assert [(p["name"], p["term_months"], p["payment"]) for p in azure] == [
        ("Standard_NC24ads_A100_v4", 12, "all_upfront")]
    assert abs(azure[0]["usd_per_hour"] - 19305 / 8760) < 1e-9
    everything = client.get("/v1/prices", params={"gpu": "A100 80GB PCIe"}).json()
    assert {"cloud", "commitment"} <= {p["kind"] for p in everything}
    assert all(p["pricing"] in ("on_demand", "spot") for p in everything if p["kind"] == "cloud")
    # a plan never uses a commitment price (the finance issue makes them decisions)
    plan = client.post("/v1/plans", json=CATALOG_EXAMPLE).json()
    assert not any(c.get("pricing") in ("reserved", "committed") for c in plan.get("cloud", []))


def test_sources_list_quarantined_rows(database_url: str, server: HTTPServer) -> None:
    source = GpuHuntReplay().source(server)
    app = create_app(Settings(database_url=database_url, scheduler=False), price_sources=[source])
    client = TestClient(app, raise_server_exceptions=False)
    server.expect_request("/v2/version").respond_with_data(VERSION)
    server.expect_request(f"/v2/{VERSION}/catalog.zip").respond_with_data(
        _zip_with("p6-b200.48xlarge,us-east-1,0.08,192,2048,8,B200,180.0,False,,nvidia,\n"))
    assert refresh_source(runtime_of(app).engine, source, bundled_gpus(), NOW).outcome == "ok"
    (state,) = client.get("/v1/sources").json()
    assert len(state["quarantined"]) == 1
    assert state["quarantined"][0].startswith("aws p6-b200.48xlarge us-east-1 on_demand 0.08 USD: ")
    b200 = client.get("/v1/prices", params={"gpu": "B200", "provider": "aws", "kind": "cloud"}).json()
    assert all(p["usd_per_hour"] > 1 for p in b200)
