"""Probes, metrics, request ids and JSON logs, and the OpenAPI document's error responses."""

from __future__ import annotations

import datetime as dt
import io
import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import create_engine, text

from pricing.sources import build_sources
from service.app import create_app
from service.core.logs import JsonFormatter, RequestIdFilter
from service.core.metrics import DatabaseCollector
from service.core.settings import Settings
from tests.service.alerts.helpers import cloud, store


@pytest.fixture
def app(database_url: str) -> FastAPI:
    return create_app(Settings(database_url=database_url, scheduler=False))


@pytest.fixture
def client(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app) as c:
        yield c


def samples(client: TestClient) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    answer = client.get("/metrics")
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/plain")
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(answer.text) for s in family.samples}


def test_healthz_answers_without_the_database(app: FastAPI) -> None:
    app.state.engine = create_engine("sqlite:////nonexistent-directory/gpuplan.db")
    with TestClient(app) as client:
        assert client.get("/healthz").json() == {"status": "ok"}
        assert client.get("/readyz").status_code == 503


def test_readyz_says_ready_only_at_the_migration_head(client: TestClient, app: FastAPI) -> None:
    ready = client.get("/readyz")
    assert ready.status_code == 200, ready.text
    head = ready.json()["migrations"]["head"]
    assert ready.json()["migrations"]["current"] == head and head
    with app.state.engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = '0001_plans'"))
    try:
        behind = client.get("/readyz")
        assert behind.status_code == 503
        assert behind.headers["content-type"] == "application/problem+json"
        assert behind.json()["migrations"]["current"] == ["0001_plans"]
        assert "gpuplan migrate" in behind.json()["detail"]
    finally:
        with app.state.engine.begin() as conn:
            conn.execute(text("UPDATE alembic_version SET version_num = :v"), {"v": head[0]})


def test_readyz_names_an_unreachable_database(app: FastAPI) -> None:
    app.state.engine = create_engine("sqlite:////nonexistent-directory/gpuplan.db")
    with TestClient(app) as client:
        answer = client.get("/readyz")
    assert answer.status_code == 503 and answer.json()["database"] == "unreachable"
    assert answer.json()["detail"].startswith("database unreachable")


def test_requests_are_timed_by_route_template_and_status(client: TestClient) -> None:
    before = samples(client)
    client.get("/v1/plans/no-such-plan")
    client.get("/v1/plans/another-missing-plan")
    client.get("/no/such/path")
    after = samples(client)
    key = ("gpuplan_http_request_duration_seconds_count",
           (("method", "GET"), ("route", "/v1/plans/{plan_id}"), ("status", "404")))
    assert after[key] - before.get(key, 0) == 2
    unmatched = ("gpuplan_http_request_duration_seconds_count",
                 (("method", "GET"), ("route", "unmatched"), ("status", "404")))
    assert after[unmatched] - before.get(unmatched, 0) == 1
    assert not any("no-such-plan" in str(labels) for _, labels in after)


def test_a_plan_records_its_solve_time(client: TestClient) -> None:
    from service.plans.examples import WORKED_EXAMPLE

    count = ("gpuplan_plan_solve_seconds_count", ())
    before = samples(client).get(count, 0)
    assert client.post("/v1/plans", json=WORKED_EXAMPLE).status_code == 201
    assert samples(client)[count] == before + 1


def test_database_gauges_report_rows_staleness_and_the_outbox(client: TestClient, app: FastAPI) -> None:
    now = dt.datetime.now(dt.UTC) - dt.timedelta(minutes=5)
    store(app.state.engine, [cloud("RTX 4090", 0.5), cloud("H100 SXM", 2.5, name="big")], now=now)
    found = samples(client)
    assert found[("gpuplan_database_up", ())] == 1
    assert found[("gpuplan_source_rows", (("source", "quotes:lab"),))] == 2
    assert found[("gpuplan_source_snapshots_total", (("source", "quotes:lab"),))] == 1
    assert 300 <= found[("gpuplan_source_staleness_seconds", (("source", "quotes:lab"),))] < 400
    assert found[("gpuplan_alert_outbox_pending", ())] == 0
    assert found[("gpuplan_source_enabled", (("source", "aws_spot"),))] == 0  # needs credentials


def test_an_unreachable_database_is_a_gauge_not_a_failed_scrape() -> None:
    collector = DatabaseCollector(create_engine("sqlite:////nonexistent-directory/gpuplan.db"), build_sources())
    families = list(collector.collect())
    assert [(f.name, f.samples[0].value) for f in families] == [("gpuplan_database_up", 0.0)]


def test_the_request_id_is_echoed_and_in_every_log_line_of_the_request(app: FastAPI) -> None:
    @app.get("/test-logs")
    def logs_something() -> dict[str, str]:  # a sync route: runs in a worker thread
        logging.getLogger("gpuplan.test").warning("inside the route")
        return {"ok": "yes"}

    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(RequestIdFilter())
    handler.setFormatter(JsonFormatter())
    logging.getLogger().addHandler(handler)
    try:
        with TestClient(app) as client:
            given = client.get("/test-logs", headers={"X-Request-ID": "req-42"})
            made = client.get("/test-logs")
            unsafe = client.get("/test-logs", headers={"X-Request-ID": "bad id\twith spaces"})
    finally:
        logging.getLogger().removeHandler(handler)
    assert given.headers["X-Request-ID"] == "req-42"
    assert len(made.headers["X-Request-ID"]) == 32
    assert unsafe.headers["X-Request-ID"] != "bad id\twith spaces"
    lines: list[dict[str, Any]] = [json.loads(line) for line in stream.getvalue().splitlines()]
    mine = [line for line in lines if line["request_id"] == "req-42"]
    assert {line["logger"] for line in mine} >= {"gpuplan.test", "gpuplan.access"}
    access = next(line for line in mine if line["logger"] == "gpuplan.access")
    assert access["route"] == "/test-logs" and access["status"] == 200 and access["duration_ms"] >= 0
    assert any(line["request_id"] == made.headers["X-Request-ID"] for line in lines)


def test_the_openapi_document_names_every_error_the_service_answers(client: TestClient) -> None:
    document = client.get("/openapi.json").json()
    assert document["components"]["schemas"]["Problem"]["required"] == ["title", "status", "detail"]
    operations = [(path, method, op) for path, item in document["paths"].items() for method, op in item.items()]
    for path, method, op in operations:
        for status, response in op["responses"].items():
            if status.startswith(("4", "5")):
                assert list(response.get("content", {"application/problem+json": {}})) == \
                    ["application/problem+json"], (method, path, status)
        if any(p["in"] == "path" for p in op.get("parameters", [])):
            assert "404" in op["responses"], (method, path)
        if "requestBody" in op:
            assert {"400", "422"} <= set(op["responses"]), (method, path)
    plan = document["paths"]["/v1/plans/{plan_id}"]["get"]["responses"]
    assert plan["404"]["content"]["application/problem+json"]["schema"] == {"$ref": "#/components/schemas/Problem"}
