"""GET /v1/prices shows the catalog audit: each row's flags and whether it is quarantined (issue 30), for the
bundled rows and for a live row a refresh brings (a real gpuhunt catalog answer replayed on loopback)."""

from __future__ import annotations

import datetime as dt

from fastapi.testclient import TestClient
from pytest_httpserver import HTTPServer

from pricing.gpus import bundled_gpus
from pricing.refresh import refresh_source
from service.app import create_app
from service.core.dependencies import runtime_of
from service.core.settings import Settings
from tests.pricing.replays.gpuhunt import VERSION, GpuHuntReplay
from tests.pricing.test_quarantine_and_terms import _zip_with

NOW = dt.datetime.now(dt.UTC).replace(microsecond=0)


def test_prices_show_flags_and_quarantined_rows_of_the_bundled_snapshot(database_url: str) -> None:
    client = TestClient(create_app(Settings(database_url=database_url, scheduler=False), price_sources=[]),
                        raise_server_exceptions=False)
    rows = client.get("/v1/prices", params={"gpu": "L40S", "kind": "cloud"}).json()
    suspect = next(r for r in rows if r["name"] == "packet-ai-l40s-1x")
    assert suspect["quarantined"] is True
    assert any(f.startswith("out_of_band: 0.54 USD per GPU-hour is below half") and f.endswith("[quarantined]")
               for f in suspect["flags"])
    plain = next(r for r in rows if r["provider"] == "aws" and r["name"] == "g6e.xlarge")
    assert plain["quarantined"] is False and all("[quarantined]" not in f for f in plain["flags"])
    cards = client.get("/v1/prices", params={"gpu": "RTX 2080 Ti", "kind": "new"}).json()
    assert cards and all(any(f.startswith("not_sold_new") and f.endswith("[withdrawn]") for f in r["flags"])
                         for r in cards)


def test_a_live_row_out_of_its_band_is_quarantined_and_shown(database_url: str, server: HTTPServer) -> None:
    source = GpuHuntReplay().source(server)
    app = create_app(Settings(database_url=database_url, scheduler=False), price_sources=[source])
    client = TestClient(app, raise_server_exceptions=False)
    server.expect_request("/v2/version").respond_with_data(VERSION)
    # 8 B200 at 12.8 USD/h: 1.6 per GPU-hour, above the refresh's own floor (a quarter of the cheapest offer) but
    # below half the other providers' median
    server.expect_request(f"/v2/{VERSION}/catalog.zip").respond_with_data(
        _zip_with("p6-b200.48xlarge,us-east-1,12.8,192,2048,8,B200,180.0,False,,nvidia,\n"))
    assert refresh_source(runtime_of(app).engine, source, bundled_gpus(), NOW).outcome == "ok"
    (state,) = client.get("/v1/sources").json()
    assert state["quarantined"] == []  # the refresh kept it: only the audit holds it back
    b200 = client.get("/v1/prices", params={"gpu": "B200", "provider": "aws", "kind": "cloud"}).json()
    live = next(r for r in b200 if r["usd_per_hour"] == 12.8)
    assert live["quarantined"] is True and any(f.startswith("out_of_band") for f in live["flags"])
