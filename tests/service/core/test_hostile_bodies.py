"""Issue 31 at the edge: bounded error lists, bodies of every method within the limit, 401 before a body is read,
one deadline for a whole body, a 500 that closes its connection and names its request, and the computing routes
(estimate, the history chart) keyed or rate-limited like the rest."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from pydantic import ValidationError

from service.app import create_app
from service.core.errors import MAX_ERRORS
from service.core.json_body import _first_errors
from service.core.settings import Settings
from service.plans.examples import WORKED_EXAMPLE
from service.web import history_chart
from solvers.base.profile import Profile
from tests.service.labs.helpers import make_lab

LIMIT = 4096


def many_keys(count: int = 350_000) -> bytes:
    """One JSON object of `count` unknown keys, compact: 350,000 of them fit in 4 MB."""
    return json.dumps({f"{i:x}": 1 for i in range(count)}, separators=(",", ":")).encode()


@pytest.fixture
def client(database_url: str) -> Iterator[TestClient]:
    with TestClient(create_app(Settings(database_url=database_url, scheduler=False)),
                    raise_server_exceptions=False) as c:
        yield c


@pytest.mark.parametrize("path", ["/v1/plans", "/v1/profiles", "/v1/estimate", "/v1/plans/what-if", "/v1/usage",
                                  "/v1/alerts"])
def test_350000_unknown_keys_answer_the_first_errors_and_a_count(client: TestClient, path: str) -> None:
    body = many_keys()
    assert len(body) < 4 * 1024 * 1024
    answer = client.post(path, content=body, headers={"content-type": "application/json"})
    assert answer.status_code == 422, answer.text[:300]
    assert len(answer.content) < 20_000, len(answer.content)  # 30.7 MB before
    problem = answer.json()
    assert len(problem["errors"]) == 20 and problem["error_count"] > 350_000
    assert problem["errors"][0]["field"] and "more errors" in problem["detail"]


def test_only_the_errors_shown_are_read_from_pydantic() -> None:
    """pydantic builds every error at once; turning 350,000 of them into Python objects took 1.6 s, so only the
    first 20 are read back (from its JSON)."""
    with pytest.raises(ValidationError) as invalid:
        Profile.model_validate_json(many_keys())
    first = _first_errors(invalid.value)
    assert len(first) == MAX_ERRORS and invalid.value.error_count() > 350_000
    assert first[1]["type"] == "extra_forbidden" and first[1]["loc"] == ["0"]


def test_a_few_errors_are_all_listed_with_their_count(client: TestClient) -> None:
    profile = {**WORKED_EXAMPLE, "horizon_months": 0, "demand": {**WORKED_EXAMPLE["demand"], "utilisation": 2}}
    problem = client.post("/v1/plans", json=profile).json()
    assert {e["field"] for e in problem["errors"]} == {"horizon_months", "demand.utilisation"}
    assert problem["error_count"] == 2


@pytest.fixture
def limited(database_url: str) -> Iterator[TestClient]:
    settings = Settings(database_url=database_url, max_body_bytes=LIMIT, scheduler=False)
    with TestClient(create_app(settings), raise_server_exceptions=False) as c:
        yield c


@pytest.mark.parametrize("method", ["GET", "DELETE", "OPTIONS", "HEAD", "POST"])
@pytest.mark.parametrize("chunked", [False, True])
def test_a_body_above_the_limit_is_413_whatever_the_method(limited: TestClient, method: str, chunked: bool) -> None:
    body = b"x" * (LIMIT + 1)
    content: Any = (body[i:i + 1000] for i in range(0, len(body), 1000)) if chunked else body
    answer = limited.request(method, "/healthz", content=content)
    assert answer.status_code == 413, (method, answer.status_code)


def test_a_body_within_the_limit_still_reaches_the_route(limited: TestClient) -> None:
    assert limited.request("GET", "/healthz", content=b"x" * 100).status_code == 200


def _asgi(app: FastAPI, method: str, path: str, headers: list[tuple[bytes, bytes]], chunks: list[bytes],
          every_s: float = 0.0) -> tuple[int, dict[bytes, bytes], int]:
    """One request straight to the ASGI app, on an event loop of its own thread (the browser tests leave one
    running on this thread): its status, headers, and how many body chunks the app asked for."""
    with ThreadPoolExecutor(1) as thread:
        return thread.submit(asyncio.run, _asgi_call(app, method, path, headers, chunks, every_s)).result()


async def _asgi_call(app: FastAPI, method: str, path: str, headers: list[tuple[bytes, bytes]],
                     chunks: list[bytes], every_s: float) -> tuple[int, dict[bytes, bytes], int]:
    asked = 0
    started: dict[str, Any] = {}

    async def receive() -> dict[str, Any]:
        nonlocal asked
        asked += 1
        if asked > len(chunks):
            await asyncio.sleep(3600)  # the client sends nothing more
        await asyncio.sleep(every_s)
        return {"type": "http.request", "body": chunks[asked - 1], "more_body": asked < len(chunks)}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            started.update(message)

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method, "path": path,
             "raw_path": path.encode(), "query_string": b"", "headers": headers, "client": ("127.0.0.1", 9),
             "server": ("testserver", 80), "scheme": "http", "root_path": "", "state": {}}
    await asyncio.wait_for(app(scope, receive, send), 10)
    return started["status"], dict(started["headers"]), asked


@pytest.fixture
def keyed(database_url: str) -> Iterator[tuple[FastAPI, dict[str, str]]]:
    app = create_app(Settings(database_url=database_url, scheduler=False, auth=True))
    with TestClient(app) as c:  # runs the lifespan; the requests below go to the app directly
        yield app, make_lab(c.app, "lab").headers()  # type: ignore[arg-type]


@pytest.mark.parametrize("authorization", [None, b"Bearer gpk_forged", b"Basic eDp5"])
def test_with_auth_on_a_keyless_request_is_401_before_its_body_is_read(
        keyed: tuple[FastAPI, dict[str, str]], authorization: bytes | None) -> None:
    app, _ = keyed
    headers = [(b"content-type", b"application/json")]
    if authorization is not None:
        headers.append((b"authorization", authorization))
    status, answered, asked = _asgi(app, "POST", "/v1/plans", headers, [b"{"] * 1000)
    assert status == 401 and answered[b"www-authenticate"] == b"Bearer"
    assert asked == 0  # not one chunk of the body was read


def test_with_auth_on_a_valid_key_still_reaches_the_route(keyed: tuple[FastAPI, dict[str, str]]) -> None:
    app, headers = keyed
    sent = [(b"content-type", b"application/json"), (b"authorization", headers["Authorization"].encode())]
    status, _, _ = _asgi(app, "POST", "/v1/plans", sent, [json.dumps(WORKED_EXAMPLE).encode()])
    assert status == 201


def test_a_body_dripping_a_byte_at_a_time_meets_one_deadline(database_url: str) -> None:
    """Each byte came within the per-chunk timeout, so such a body stayed open forever."""
    app = create_app(Settings(database_url=database_url, scheduler=False, read_timeout_s=1.0))
    with TestClient(app):
        began = time.monotonic()
        status, headers, _ = _asgi(app, "POST", "/v1/plans", [(b"content-type", b"application/json")],
                                   [b" "] * 100, every_s=0.25)
    assert status == 408 and headers[b"connection"] == b"close"
    assert time.monotonic() - began < 3


def test_a_500_closes_its_connection_and_names_its_request(database_url: str) -> None:
    app = create_app(Settings(database_url=database_url, scheduler=False))

    def boom() -> None:
        raise RuntimeError("a failure nobody foresaw")

    app.add_api_route("/boom", boom)
    with TestClient(app, raise_server_exceptions=False) as c:
        answer = c.get("/boom", headers={"X-Request-ID": "probe-31"})
    assert answer.status_code == 500
    assert answer.headers["x-request-id"] == "probe-31"
    assert answer.headers["connection"] == "close"
    assert answer.headers["content-type"].startswith("application/problem+json")
    assert "RuntimeError" not in answer.text


def test_with_auth_on_the_estimate_needs_a_key(keyed: tuple[FastAPI, dict[str, str]]) -> None:
    app, headers = keyed
    workload = {"kind": "train", "model": {"params_b": 1}, "tokens": 1e9}
    with TestClient(app) as c:
        assert c.post("/v1/estimate", json=workload).status_code == 401
        assert c.post("/v1/estimate", json=workload, headers=headers).status_code == 200


def test_anonymous_history_charts_are_rate_limited_by_address_and_drawn_once(
        database_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    drawn = []
    draw = history_chart.price_history_svg
    monkeypatch.setattr(history_chart, "price_history_svg", lambda *a, **k: drawn.append(1) or draw(*a, **k))
    settings = Settings(database_url=database_url, scheduler=False, auth=True, rate_limit_burst=5,
                        rate_limit_per_minute=1)
    with TestClient(create_app(settings)) as c:
        statuses = [c.get("/v1/prices/history.svg", params={"gpu": "RTX 3090"}).status_code for _ in range(8)]
        assert statuses[:5] == [200] * 5 and statuses[5:] == [429] * 3, statuses
        assert len(drawn) == 1  # the same chart was drawn once and kept
        headers = make_lab(c.app, "lab").headers()  # type: ignore[arg-type]
        assert c.get("/v1/prices/history.svg", params={"gpu": "RTX 3090"}, headers=headers).status_code == 200
    with TestClient(create_app(Settings(database_url=database_url, scheduler=False, rate_limit_burst=5))) as c:
        assert all(c.get("/v1/prices/history.svg", params={"gpu": "H100 SXM"}).status_code == 200
                   for _ in range(8))  # auth off: one user, nothing limited
