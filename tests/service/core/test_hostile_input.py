"""Issue 19: input that passed validation and answered 500 is now a 422 naming the field and the rule.

Each case is one the hostile probe sent; every test runs on SQLite and again on PostgreSQL (`-m database`), where a
NUL byte used to reach the driver.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from service.app import create_app
from service.core.settings import Settings
from service.plans.examples import CATALOG_EXAMPLE


@pytest.fixture
def client(database_url: str) -> Iterator[TestClient]:
    settings = Settings(database_url=database_url, scheduler=False)
    with TestClient(create_app(settings), raise_server_exceptions=False) as c:
        yield c


def refused(response: Any, field: str, rule: str | None = None) -> dict[str, Any]:
    assert response.status_code == 422, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    body: dict[str, Any] = response.json()
    assert [e["field"] for e in body["errors"]] == [field], body
    if rule is not None:
        assert body["errors"][0]["rule"] == rule, body
    return body


def _cursor(raw: str) -> str:
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


@pytest.mark.parametrize("path", ["/v1/plans", "/v1/profiles", "/v1/alerts"])
@pytest.mark.parametrize("raw", [
    json.dumps(["0001-01-01T00:00:00+14:00", "x"]),  # UTC of it is before year 1
    json.dumps(["9999-12-31T23:59:59-14:00", "x"]),  # ... after year 9999
    "[" * 5000 + "]" * 5000,  # nesting deeper than the JSON parser's recursion
    json.dumps([["2026-01-01T00:00:00Z"], "x"]),  # the right length, the wrong types
    json.dumps(["2026-01-01T00:00:00Z", "x" * 1000]),
])
def test_cursors_are_validated_as_data(client: TestClient, path: str, raw: str) -> None:
    refused(client.get(path, params={"cursor": _cursor(raw)}), "cursor")


def test_a_cursor_the_api_wrote_still_pages(client: TestClient) -> None:
    for name in ("a", "b", "c"):
        assert client.post("/v1/profiles", json={"name": name, "profile": CATALOG_EXAMPLE}).status_code == 201
    first = client.get("/v1/profiles", params={"limit": 2}).json()
    rest = client.get("/v1/profiles", params={"limit": 2, "cursor": first["next_cursor"]}).json()
    assert [p["name"] for p in first["items"] + rest["items"]] == ["c", "b", "a"]


@pytest.mark.parametrize("since", ["0001-01-01T00:00:00+14:00", "1999-12-31T23:00:00Z", "2101-01-01"])
def test_price_history_bounds_its_timestamps(client: TestClient, since: str) -> None:
    body = refused(client.get("/v1/prices/history", params={"gpu": "RTX 3090", "since": since}), "since",
                   "date_range")
    assert "2000-01-01" in body["errors"][0]["message"]


def test_price_history_takes_a_zoned_timestamp_within_bounds(client: TestClient) -> None:
    answer = client.get("/v1/prices/history", params={"gpu": "RTX 3090", "since": "2000-01-01T00:00:00+14:00"})
    assert answer.status_code == 200 and answer.json(), answer.text


def test_nul_in_a_path_id_a_query_filter_or_a_name_is_refused_before_the_database(client: TestClient) -> None:
    refused(client.get("/v1/plans/a%00b"), "path", "no_control_characters")
    refused(client.get("/v1/profiles/a%00b"), "path", "no_control_characters")
    refused(client.get("/v1/plans", params={"profile_id": "a\x00b"}), "profile_id", "no_control_characters")
    refused(client.get("/v1/profiles", params={"name": "a\x00b"}), "name", "no_control_characters")
    refused(client.get("/v1/profiles", params={"tag": "\x1b[31m"}), "tag", "no_control_characters")
    refused(client.post("/v1/profiles", json={"name": "a\x00b", "profile": CATALOG_EXAMPLE}), "name",
            "no_control_characters")
    nested = {"name": "ok", "tags": ["fine", "bad\x00"], "profile": CATALOG_EXAMPLE}
    refused(client.post("/v1/profiles", json=nested), "tags[1]", "no_control_characters")
    profile = {**CATALOG_EXAMPLE, "demand": {**CATALOG_EXAMPLE["demand"], "reference_gpu": "RTX\x00 3090"}}
    refused(client.post("/v1/plans", json=profile), "demand.reference_gpu", "no_control_characters")
    assert client.get("/v1/profiles").json()["items"] == []  # nothing was stored


def test_tabs_and_newlines_in_text_are_still_accepted(client: TestClient) -> None:
    saved = client.post("/v1/profiles", json={"name": "two\tlines\nof text", "profile": CATALOG_EXAMPLE})
    assert saved.status_code == 201, saved.text


def test_an_error_does_not_echo_a_megabyte_back(client: TestClient) -> None:
    huge = "x" * 1_000_000
    profile = {**CATALOG_EXAMPLE, "demand": {**CATALOG_EXAMPLE["demand"], "reference_gpu": huge}}
    answer = client.post("/v1/plans", json=profile)  # names are short (issue 31): refused by length, not echoed
    assert answer.status_code == 422 and len(answer.content) < 5_000, len(answer.content)
    assert answer.json()["errors"][0]["rule"] == "string_too_long"
    answer = client.post("/v1/plans", json={**CATALOG_EXAMPLE, huge: 1})  # an unknown key is its field's name
    assert answer.status_code == 422 and len(answer.content) < 5_000, len(answer.content)
    assert "more characters" in answer.json()["detail"]
    missing = client.get(f"/v1/prices/history?gpu={'y' * 8000}")
    assert missing.status_code == 422 and len(missing.content) < 5_000
    assert client.get(f"/v1/plans/{'z' * 8000}").status_code == 404
    assert len(client.get(f"/v1/plans/{'z' * 8000}").content) < 5_000
