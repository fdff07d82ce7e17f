"""The OpenAPI document as third-party tools read it (issue 33): short operation ids, every non-JSON answer with
its media type and schema, the saved profile and the plan's horizon typed, the API key optional when auth is off,
and no schema nothing refers to. tests/service/test_generated_client.py generates a client from it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from service.app import create_app
from service.core.settings import Settings

METHODS = ("get", "put", "post", "delete", "patch")


def _document(tmp_path: Path, auth: bool) -> dict[str, Any]:
    app = create_app(Settings(database_url=f"sqlite:///{tmp_path / 'doc.db'}", scheduler=False, auth=auth))
    document: dict[str, Any] = app.openapi()
    return document


def _operations(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(method, path, item[method]) for path, item in document["paths"].items() for method in METHODS
            if method in item]


@pytest.fixture(scope="module")
def document(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return _document(tmp_path_factory.mktemp("openapi"), auth=False)


def test_every_operation_has_a_short_unique_id(document: dict[str, Any]) -> None:
    ids = {f"{method.upper()} {path}": op.get("operationId", "") for method, path, op in _operations(document)}
    too_long = {where: name for where, name in ids.items()
                if not re.fullmatch(r"[a-z]+(_[a-z]+){0,3}", name) or len(name) > 30}
    assert too_long == {}  # FastAPI's own are `create_plan_v1_plans_post`
    assert len(set(ids.values())) == len(ids) >= 40
    assert ids["POST /v1/plans"] == "create_plan"
    assert ids["GET /v1/plans/{plan_id}/sensitivity"] == "get_plan_sensitivity"


def test_every_answer_declares_its_media_type_and_a_schema(document: dict[str, Any]) -> None:
    bare, media = [], set()
    for method, path, op in _operations(document):
        for status, answer in op["responses"].items():
            for kind, content in answer.get("content", {}).items():
                media.add(kind)
                if "schema" not in content:
                    bare.append(f"{method.upper()} {path} {status} {kind}")
    assert bare == []  # a generated client drops an answer without a schema, and a strict one fails on it
    assert {"image/svg+xml", "text/csv", "application/json", "application/problem+json"} <= media
    csv = document["paths"]["/v1/plans/{plan_id}.csv"]["get"]["responses"]["200"]["content"]
    assert csv == {"text/csv": {"schema": {"type": "string"}}}


def test_the_saved_profile_and_the_horizon_are_typed(document: dict[str, Any]) -> None:
    schemas = document["components"]["schemas"]
    for model in ("ProfileOut", "ProfileVersionOut"):
        assert schemas[model]["properties"]["profile"]["$ref"] == "#/components/schemas/Profile", model
    assert schemas["PlanResult"]["properties"]["horizon"]["$ref"] == "#/components/schemas/PlanHorizon"
    horizon = schemas["PlanHorizon"]
    assert sorted(horizon["required"]) == ["days", "end", "periods", "start"]
    assert {k: v["type"] for k, v in horizon["properties"].items()} == {
        "start": "string", "end": "string", "days": "integer", "periods": "integer"}


def test_no_schema_is_left_that_nothing_uses(document: dict[str, Any]) -> None:
    schemas = document["components"]["schemas"]
    used = set(re.findall(r'"#/components/schemas/([^"]+)"', json.dumps(document)))
    assert sorted(set(schemas) - used) == []
    assert "HTTPValidationError" not in schemas and "ValidationError" not in schemas


def test_the_api_key_is_optional_with_auth_off_and_required_with_it_on(document: dict[str, Any],
                                                                         tmp_path: Path) -> None:
    secured = [(m, p, op) for m, p, op in _operations(document) if op.get("security")]
    assert len(secured) >= 25
    for method, path, op in secured:
        assert op["security"] == [{}, {"HTTPBearer": []}], (method, path)
        assert not {"401", "403"} & set(op["responses"]), (method, path)
    with_auth = {(m, p): op for m, p, op in _operations(_document(tmp_path, auth=True))}
    for method, path, _ in secured:
        op = with_auth[(method, path)]
        assert op["security"] == [{"HTTPBearer": []}] and "401" in op["responses"], (method, path)
    assert "403" in with_auth[("post", "/v1/plans")]["responses"]  # a read-only key may not make plans
