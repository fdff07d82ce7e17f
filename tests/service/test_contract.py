"""The HTTP contract as a whole: every error is one problem shape with `errors`, every JSON endpoint declares
what it answers, and endpoints get what they need through typed dependencies, never `app.state`."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from service.app import create_app
from service.core.settings import Settings

SERVICE = Path(__file__).resolve().parents[2] / "service"


@pytest.fixture
def app(database_url: str) -> FastAPI:
    return create_app(Settings(database_url=database_url))


@pytest.fixture
def client(app: FastAPI) -> TestClient:
    return TestClient(app, raise_server_exceptions=False)


@pytest.mark.parametrize(("path", "params", "field", "rule"), [
    ("/v1/gpus", {"workload": "juggling"}, "workload", "known_workload"),
    ("/v1/gpus", {"reference_gpu": "Voodoo 3"}, "reference_gpu", "known_gpu"),
    ("/v1/prices", {"gpu": "Voodoo 3"}, "gpu", "known_gpu"),
    ("/v1/prices/history", {"gpu": "Voodoo 3"}, "gpu", "known_gpu"),
    ("/v1/prices/history.svg", {"gpu": "Voodoo 3"}, "gpu", "known_gpu"),
])
def test_a_rule_only_the_service_checks_is_a_422_naming_field_and_rule(
        client: TestClient, path: str, params: dict[str, str], field: str, rule: str) -> None:
    answer = client.get(path, params=params)
    assert answer.status_code == 422, answer.text
    assert answer.headers["content-type"] == "application/problem+json"
    body = answer.json()
    assert body["title"] == "Invalid request" and body["status"] == 422
    assert [(e["field"], e["rule"]) for e in body["errors"]] == [(field, rule)]
    assert body["detail"].startswith(f"{field}: ")


@pytest.mark.parametrize(("method", "path", "status"), [
    ("get", "/v1/plans/nope", 404),
    ("get", "/v1/plans/nope/purchase-request", 404),
    ("get", "/v1/profiles/nope", 404),
    ("get", "/v1/alerts/nope", 404),
    ("delete", "/v1/alerts/nope", 404),
    ("get", "/v1/no-such-path", 404),
    ("put", "/healthz", 405),
    ("post", "/v1/plans", 422),
])
def test_every_error_is_a_problem_document_with_errors(client: TestClient, method: str, path: str,
                                                       status: int) -> None:
    answer = client.request(method, path)
    assert answer.status_code == status
    body = answer.json()
    assert set(body) >= {"type", "title", "status", "detail", "errors"} and body["status"] == status
    assert isinstance(body["errors"], list) and body["title"] != "Error"


def test_a_missing_object_names_what_and_which(client: TestClient) -> None:
    assert client.get("/v1/profiles/p-1").json()["detail"] == "no saved profile with id 'p-1'"
    assert client.get("/v1/alerts/a-1").json()["detail"] == "no alert subscription with id 'a-1'"
    assert client.get("/v1/plans/x-1.csv").json()["detail"] == "no plan with id 'x-1'"


def test_auth_errors_carry_their_status_and_headers(database_url: str) -> None:
    client = TestClient(create_app(Settings(database_url=database_url, auth=True)))
    answer = client.get("/v1/plans")
    assert answer.status_code == 401 and answer.headers["www-authenticate"] == "Bearer"
    assert answer.json()["title"] == "Unauthorized" and answer.json()["errors"] == []


def test_every_json_answer_is_described_by_a_named_model(app: FastAPI) -> None:
    """A success answer in JSON points at a schema (so schemathesis can check answers against it), not at a
    bare object or an empty schema."""
    document: dict[str, Any] = app.openapi()
    json_answers, untyped = 0, []
    for path, item in document["paths"].items():
        for method, operation in item.items():
            for status, answer in operation["responses"].items():
                schema = answer.get("content", {}).get("application/json", {}).get("schema")
                if not status.startswith("2") or schema is None:
                    continue
                json_answers += 1
                if "$ref" not in json.dumps(schema):
                    untyped.append(f"{method.upper()} {path}")
    assert untyped == [] and json_answers >= 20


def test_no_endpoint_module_touches_app_state() -> None:
    offenders = [str(p.relative_to(SERVICE)) for p in SERVICE.rglob("*.py")
                 if p.name != "dependencies.py" and re.search(r"\bapp\.state\b", p.read_text())]
    assert offenders == []


def test_only_entry_points_stand_at_the_root_of_service() -> None:
    assert sorted(p.name for p in SERVICE.glob("*.py")) == ["__init__.py", "app.py", "cli.py",
                                                            "scheduler_process.py"]
