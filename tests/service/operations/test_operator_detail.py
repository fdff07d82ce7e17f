"""Issue 19: no secret in public answers. Stored source errors are redacted, why a source fails and /metrics are
for callers with an API key (or everyone when the operator says so), made-up HTTP methods add no metrics series."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families
from pytest_httpserver import HTTPServer
from sqlalchemy import select

from pricing.gpus import bundled_gpus
from pricing.redact import redact
from pricing.refresh import refresh_source
from pricing.sources.base import SourceConfig
from pricing.sources.feed import FeedSource
from pricing.storage import SourceStatus
from service.app import create_app
from service.core.dependencies import runtime_of
from service.core.settings import Settings
from tests.service.labs.helpers import make_lab

NOW = dt.datetime.now(dt.UTC).replace(microsecond=0)
TOKEN = "s3cr3t-feed-token"
PATH_TOKEN = "3f9a8c1e2b7d4f60a1c2e3b4d5f6a7b8"


@pytest.mark.parametrize(("error", "kept", "gone"), [
    (f"HTTP 403 from https://feeds.lab.internal/quotes.csv?token={TOKEN}&v=2", "feeds.lab.internal/quotes.csv",
     TOKEN),
    (f"connection failed: https://bob:{TOKEN}@feeds.lab.internal:8443/q.csv", "feeds.lab.internal:8443/q.csv", TOKEN),
    (f"Max retries exceeded with url: /v1/list?k={TOKEN} (Caused by ...)", "/v1/list", TOKEN),
    (f"401: Authorization: Bearer {TOKEN} refused", "401", TOKEN),
    (f"bad config api_key={TOKEN}, password: '{TOKEN}'", "bad config", TOKEN),
    ("HTTP 502 from https://api.runpod.io/graphql", "HTTP 502 from https://api.runpod.io/graphql", "?"),
    # issue 31: the token in the path of a feed URL
    (f"404 Client Error: Not Found for url: https://lab.example/feeds/{PATH_TOKEN}/quotes.csv",
     "https://lab.example/feeds/[redacted]/quotes.csv", PATH_TOKEN),
    (f"Max retries exceeded with url: /feeds/{PATH_TOKEN}/quotes.csv (Caused by ...)", "/feeds/", PATH_TOKEN),
    ("HTTP 403 from https://docs.google.com/spreadsheets/d/e/2PACX-1vRx8QzT3mHk2pWq/pub?output=csv",
     "docs.google.com/spreadsheets/d/e/", "2PACX-1vRx8QzT3mHk2pWq"),
    ("HTTP 404 from https://lab.example/token/abc/quotes.csv", "lab.example/token/", "/abc/"),
    ("cannot read price feed file /srv/feeds/vendor_quotes_2025.csv: No such file",
     "/srv/feeds/vendor_quotes_2025.csv", "[redacted]"),
])
def test_redaction_keeps_what_an_operator_acts_on_and_drops_secrets(error: str, kept: str, gone: str) -> None:
    shown = redact(error)
    assert kept in shown and gone not in shown, shown


def _failing_feed(server: HTTPServer) -> FeedSource:
    server.expect_request("/quotes.csv").respond_with_data("forbidden", status=403)
    url = server.url_for("/quotes.csv").replace("http://", f"http://ops:{TOKEN}@") + f"?token={TOKEN}"
    return FeedSource(SourceConfig(url=url, timeout_s=2.0, retries=0))


def test_a_stored_source_error_holds_no_token(engine: Any, server: HTTPServer) -> None:
    outcome = refresh_source(engine, _failing_feed(server), bundled_gpus(), NOW)
    assert outcome.outcome == "failed"
    with engine.connect() as conn:
        stored = conn.execute(select(SourceStatus.__table__.c.last_error)).scalar_one()
    assert "403" in stored and "/quotes.csv" in stored and TOKEN not in stored, stored


@pytest.fixture
def guarded(database_url: str, server: HTTPServer) -> Iterator[tuple[TestClient, dict[str, str]]]:
    source = _failing_feed(server)
    app = create_app(Settings(database_url=database_url, scheduler=False, auth=True), price_sources=[source])
    with TestClient(app) as client:
        refresh_source(runtime_of(app).engine, source, bundled_gpus(), NOW)
        lab = make_lab(app, "ops")
        yield client, lab.headers()


def test_source_detail_needs_a_key_when_auth_is_on(guarded: tuple[TestClient, dict[str, str]]) -> None:
    client, headers = guarded
    (public,) = client.get("/v1/sources").json()
    assert public["source"] == "feed" and public["stale"] and public["consecutive_failures"] == 1
    assert public["last_error"] is None and public["stale_reasons"] == [] and public["missing_credentials"] == []
    assert TOKEN not in client.get("/v1/sources").text
    (detailed,) = client.get("/v1/sources", headers=headers).json()
    assert "403" in detailed["last_error"] and TOKEN not in str(detailed), detailed
    assert any("403" in reason for reason in detailed["stale_reasons"])
    forged = client.get("/v1/sources", headers={"Authorization": "Bearer gpk_forged"}).json()
    assert forged[0]["last_error"] is None


def test_metrics_need_a_key_when_auth_is_on(guarded: tuple[TestClient, dict[str, str]]) -> None:
    client, headers = guarded
    refused = client.get("/metrics")
    assert refused.status_code == 401 and refused.headers["www-authenticate"] == "Bearer"
    assert refused.headers["content-type"].startswith("application/problem+json")
    assert client.get("/metrics", headers={"Authorization": "Bearer gpk_forged"}).status_code == 401
    assert client.get("/metrics", headers=headers).status_code == 200


def test_the_operator_may_make_operations_public(database_url: str, server: HTTPServer) -> None:
    source = _failing_feed(server)
    settings = Settings(database_url=database_url, scheduler=False, auth=True, operations_public=True)
    with TestClient(create_app(settings, price_sources=[source])) as client:
        refresh_source(runtime_of(client.app).engine, source, bundled_gpus(), NOW)  # type: ignore[arg-type]
        assert client.get("/metrics").status_code == 200
        (shown,) = client.get("/v1/sources").json()
        assert "403" in shown["last_error"] and TOKEN not in shown["last_error"]


def test_a_token_in_a_feed_urls_path_is_shown_nowhere(database_url: str, server: HTTPServer) -> None:
    """Issue 31: neither in the error of a failing feed (/v1/sources) nor as the `source` of a working one's rows
    (/v1/prices), which every lab reads."""
    server.expect_request(f"/feeds/{PATH_TOKEN}/gone.csv").respond_with_data("gone", status=404)
    server.expect_request(f"/feeds/{PATH_TOKEN}/quotes.csv").respond_with_data(
        "gpu,condition,unit_price_usd\nRTX 3090,used,750\n", content_type="text/csv")
    failing = FeedSource(SourceConfig(url=server.url_for(f"/feeds/{PATH_TOKEN}/gone.csv"), timeout_s=2.0, retries=0))
    settings = Settings(database_url=database_url, scheduler=False, auth=True, operations_public=True)
    with TestClient(create_app(settings, price_sources=[failing])) as client:
        engine = runtime_of(client.app).engine  # type: ignore[arg-type]
        refresh_source(engine, failing, bundled_gpus(), NOW)
        (shown,) = client.get("/v1/sources").json()
        assert "404" in shown["last_error"] and PATH_TOKEN not in client.get("/v1/sources").text, shown
        working = FeedSource(SourceConfig(url=server.url_for(f"/feeds/{PATH_TOKEN}/quotes.csv"), timeout_s=2.0))
        result = working.fetch(working.session(), bundled_gpus(), NOW)
        assert result.observations and all(PATH_TOKEN not in o.reference for o in result.observations)
        assert "/quotes.csv" in result.observations[0].reference


def _methods(client: TestClient) -> set[str]:
    text = client.get("/metrics").text
    return {s.labels["method"] for family in text_string_to_metric_families(text) for s in family.samples
            if s.name == "gpuplan_http_request_duration_seconds_count"}


def test_made_up_http_methods_share_one_metrics_label(database_url: str) -> None:
    with TestClient(create_app(Settings(database_url=database_url, scheduler=False))) as client:
        for i in range(300):
            assert client.request(f"X{i:03d}", "/v1/plans").status_code == 405
        client.request("PATCH", "/v1/plans")
        methods = _methods(client)
    assert not any(m.startswith("X") for m in methods), sorted(methods)[:10]
    assert {"other", "PATCH", "GET"} <= methods
