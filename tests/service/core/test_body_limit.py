"""Request bodies above GPUPLAN_MAX_BODY_BYTES are a 413 naming the limit, declared or chunked; the limits of a
plan request are stated in OpenAPI (issue 18)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from service.app import create_app
from service.core.settings import Settings
from service.plans.examples import WORKED_EXAMPLE

LIMIT = 2048


@pytest.fixture
def client(database_url: str) -> Iterator[TestClient]:
    settings = Settings(database_url=database_url, max_body_bytes=LIMIT, scheduler=False)
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        yield client


def padded_profile(size: int) -> bytes:
    profile = {**WORKED_EXAMPLE, "notes": "x" * size}
    return json.dumps(profile).encode()


def test_declared_length_above_the_limit_is_413(client: TestClient) -> None:
    answer = client.post("/v1/plans", content=padded_profile(LIMIT), headers={"content-type": "application/json"})
    assert answer.status_code == 413
    assert answer.json()["errors"] == [{"field": "body", "rule": "max_body_bytes",
                                        "message": f"the request body may be at most {LIMIT} bytes"}]


def test_chunked_body_above_the_limit_is_413(client: TestClient) -> None:
    body = padded_profile(LIMIT)
    chunks = (body[i:i + 512] for i in range(0, len(body), 512))  # no Content-Length: counted as it arrives
    answer = client.post("/v1/plans", content=chunks, headers={"content-type": "application/json"})
    assert answer.status_code == 413


def test_body_within_the_limit_is_planned(client: TestClient) -> None:
    body = json.dumps(WORKED_EXAMPLE).encode()
    assert len(body) < LIMIT
    assert client.post("/v1/plans", content=body, headers={"content-type": "application/json"}).status_code == 201


def test_plan_limits_are_in_openapi(client: TestClient) -> None:
    responses = client.get("/openapi.json").json()["paths"]["/v1/plans"]["post"]["responses"]
    assert {"413", "429", "503"} <= set(responses)
    assert "GPUPLAN_PLAN_QUEUE" in responses["503"]["description"]
