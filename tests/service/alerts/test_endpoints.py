"""The alerts and profiles API: what is accepted, what is refused (422 naming the field), what is shown."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pytest_httpserver import HTTPServer

from service.app import create_app
from service.core.settings import Settings
from service.plans.examples import CATALOG_EXAMPLE
from tests.service.alerts.helpers import Receiver, serve


def make_client(database_url: str, **settings: Any) -> TestClient:
    values: dict[str, Any] = {"database_url": database_url, "scheduler": False,
                              "alerts_allowed_networks": ["127.0.0.0/8"], **settings}
    return TestClient(create_app(Settings(**values)))


@pytest.fixture
def client(database_url: str) -> Iterator[TestClient]:
    with make_client(database_url) as c:
        yield c


def threshold(url: str, **condition: Any) -> dict[str, Any]:
    return {"name": "cheap H100", "delivery": {"type": "webhook", "url": url},
            "condition": {"type": "price_threshold", "gpu": "H100 SXM", "kind": "cloud", "pricing": "on_demand",
                          "below_usd": 2.0, **condition}}


def field_errors(response: Any) -> dict[str, str]:
    assert response.status_code == 422, response.text
    body = response.json()
    assert response.headers["content-type"].startswith("application/problem+json")
    return {e["field"]: e["rule"] for e in body["errors"]}


def test_create_shows_the_secret_once_and_normalises_the_gpu(client: TestClient) -> None:
    created = client.post("/v1/alerts", json=threshold("http://127.0.0.1:9/hook", gpu="nvidia h100 80gb hbm3"))
    assert created.status_code == 201, created.text
    body = created.json()
    assert body["secret"].startswith("whsec_") and len(body["secret"]) > 30
    assert body["condition"]["gpu"] == "H100 SXM"
    assert body["status"] == "active" and body["delivery"] == {"type": "webhook", "url": "http://127.0.0.1:9/hook"}
    assert created.headers["location"] == f"/v1/alerts/{body['id']}"
    again = client.get(f"/v1/alerts/{body['id']}").json()
    assert again["secret"] is None and again["id"] == body["id"]
    assert [s["id"] for s in client.get("/v1/alerts").json()["items"]] == [body["id"]]
    assert body["secret"] not in client.get("/v1/alerts").text


@pytest.mark.parametrize(("change", "field", "rule"), [
    ({"gpu": "GTX 9999"}, "condition.gpu", "known_gpu"),
    ({"above_usd": 3.0}, "condition", "value_error"),
    ({"below_usd": -1}, "condition.below_usd", "greater_than"),
    ({"kind": "used", "pricing": "spot"}, "condition", "value_error"),
    ({"colour": "red"}, "condition.colour", "extra_forbidden"),
])
def test_bad_conditions_name_the_field(client: TestClient, change: dict[str, Any], field: str, rule: str) -> None:
    body = threshold("http://127.0.0.1:9/hook")
    body["condition"].update(change)
    assert field_errors(client.post("/v1/alerts", json=body)).get(field) == rule


def test_move_and_plan_conditions_are_checked(client: TestClient) -> None:
    move = {"name": "m", "delivery": {"type": "webhook", "url": "http://127.0.0.1:9/h"},
            "condition": {"type": "price_move", "gpu": "A100 80GB", "move_pct": 0}}
    assert field_errors(client.post("/v1/alerts", json=move)) == {"condition.move_pct": "greater_than"}
    plan = {**move, "condition": {"type": "plan_change", "profile_id": "nope"}}
    assert field_errors(client.post("/v1/alerts", json=plan)) == {"condition.profile_id": "saved_profile"}


@pytest.mark.parametrize(("delivery", "field", "rule"), [
    ({"type": "webhook", "url": "ftp://example.org/x"}, "delivery.url", "url_scheme"),
    ({"type": "webhook", "url": "not a url"}, "delivery.url", "url_parsing"),
    ({"type": "webhook", "url": "http://10.1.2.3/hook"}, "delivery.url", "allowed_target"),
    ({"type": "webhook", "url": "http://169.254.169.254/latest/meta-data"}, "delivery.url", "allowed_target"),
    ({"type": "webhook", "url": "http://[::1]:8080/hook"}, "delivery.url", "allowed_target"),
    ({"type": "email", "to": "not-an-address"}, "delivery.to", "value_error"),
    ({"type": "email", "to": "lab@example.org"}, "delivery.to", "email_configured"),
    ({"type": "pigeon"}, "delivery", "union_tag_invalid"),
])
def test_bad_deliveries_name_the_field(client: TestClient, delivery: dict[str, Any], field: str, rule: str) -> None:
    body = threshold("http://127.0.0.1:9/hook")
    body["delivery"] = delivery
    assert field_errors(client.post("/v1/alerts", json=body)).get(field) == rule


def test_loopback_is_refused_unless_the_operator_allows_it(database_url: str) -> None:
    with make_client(database_url, alerts_allowed_networks=[]) as strict:
        errors = field_errors(strict.post("/v1/alerts", json=threshold("http://127.0.0.1:9/hook")))
    assert errors == {"delivery.url": "allowed_target"}


def test_pause_resume_delete(client: TestClient) -> None:
    sub = client.post("/v1/alerts", json=threshold("http://127.0.0.1:9/hook")).json()
    paused = client.post(f"/v1/alerts/{sub['id']}/pause").json()
    assert paused["status"] == "paused" and paused["status_reason"].startswith("paused on")
    assert [s["id"] for s in client.get("/v1/alerts?status=paused").json()["items"]] == [sub["id"]]
    assert client.get("/v1/alerts?status=active").json()["items"] == []
    assert client.post(f"/v1/alerts/{sub['id']}/test").status_code == 409
    resumed = client.post(f"/v1/alerts/{sub['id']}/resume").json()
    assert (resumed["status"], resumed["status_reason"]) == ("active", None)
    assert client.delete(f"/v1/alerts/{sub['id']}").status_code == 204
    for path in (f"/v1/alerts/{sub['id']}", f"/v1/alerts/{sub['id']}/deliveries"):
        assert client.get(path).status_code == 404
    assert client.post(f"/v1/alerts/{sub['id']}/pause").status_code == 404
    assert client.delete(f"/v1/alerts/{sub['id']}").status_code == 404


def test_test_event_is_signed_and_listed(client: TestClient, server: HTTPServer) -> None:
    receiver = Receiver()
    url = serve(server, receiver)
    sub = receiver.expect(client.post("/v1/alerts", json=threshold(url)).json())
    sent = client.post(f"/v1/alerts/{sub['id']}/test")
    assert sent.status_code == 202, sent.text
    event = sent.json()
    assert (event["type"], event["status"], event["attempts"], event["last_status_code"]) == ("test", "delivered", 1,
                                                                                               200)
    assert receiver.bad_signatures == 0 and receiver.counts() == {event["id"]: 1}
    assert receiver.bodies[0]["subscription"] == {"id": sub["id"], "name": "cheap H100"}
    listed = client.get(f"/v1/alerts/{sub['id']}/deliveries").json()["items"]
    assert [e["id"] for e in listed] == [event["id"]]
    assert [(a["ok"], a["status_code"]) for a in listed[0]["attempt_log"]] == [(True, 200)]


def test_test_event_to_a_failing_endpoint_is_retried_later(client: TestClient, server: HTTPServer) -> None:
    receiver = Receiver(fail_with=503)
    sub = client.post("/v1/alerts", json=threshold(serve(server, receiver))).json()
    event = client.post(f"/v1/alerts/{sub['id']}/test").json()
    assert (event["status"], event["last_status_code"], event["attempts"]) == ("pending", 503, 1)
    assert event["next_attempt_at"] is not None and event["next_attempt_at"] > event["created_at"]


def test_saved_profile_round_trip(client: TestClient) -> None:
    saved = client.post("/v1/profiles", json={"name": "lab 3090", "profile": CATALOG_EXAMPLE})
    assert saved.status_code == 201, saved.text
    body = saved.json()
    assert body["version"] == 1 and body["plan"]["total_cost_usd"] > 0
    assert body["profile"]["demand"]["start"] == "2026-12-01" or body["profile"]["demand"]["start"] > "2026-11-01"
    fetched = client.get(f"/v1/profiles/{body['id']}").json()
    assert fetched["plan"]["total_cost_usd"] == pytest.approx(body["plan"]["total_cost_usd"])
    assert [p["id"] for p in client.get("/v1/profiles").json()["items"]] == [body["id"]]
    watch = {"name": "w", "delivery": {"type": "webhook", "url": "http://127.0.0.1:9/h"},
             "condition": {"type": "plan_change", "profile_id": body["id"]}}
    sub = client.post("/v1/alerts", json=watch)
    assert sub.status_code == 201 and sub.json()["condition"]["cost_move_pct"] == 5.0
    refused = client.delete(f"/v1/profiles/{body['id']}")
    assert refused.status_code == 409 and sub.json()["id"] in refused.json()["detail"]
    client.delete(f"/v1/alerts/{sub.json()['id']}")
    assert client.delete(f"/v1/profiles/{body['id']}").status_code == 204
    assert client.get(f"/v1/profiles/{body['id']}").status_code == 404


def test_an_infeasible_profile_is_not_saved(client: TestClient) -> None:
    profile = copy.deepcopy(CATALOG_EXAMPLE)
    profile["min_gpu_memory_gb"] = 5000
    refused = client.post("/v1/profiles", json={"name": "too big", "profile": profile})
    assert refused.status_code == 422 and refused.json()["errors"]
    assert client.get("/v1/profiles").json()["items"] == []


def test_the_guide_verification_snippet_accepts_our_signature_and_nothing_else() -> None:
    """The user guide (docs/alerts.md) shows receivers how to verify; that code must agree with what the service
    sends."""
    import re
    import textwrap
    import time
    from pathlib import Path

    from service.alerts.signing import sign

    readme = (Path(__file__).resolve().parents[3] / "docs" / "alerts.md").read_text()
    snippet = re.search(r"Verify like `service/alerts/signing.py`:\n\s*```python\n(.*?)```", readme, re.S)
    assert snippet is not None
    namespace: dict[str, Any] = {}
    exec(textwrap.dedent(snippet.group(1)), namespace)  # our own guide
    now = int(time.time())
    body = b'{"id": "e1", "type": "test"}'
    signature = sign("whsec_x", now, body)
    assert namespace["verify"]("whsec_x", str(now), body, signature)
    assert not namespace["verify"]("whsec_y", str(now), body, signature)
    assert not namespace["verify"]("whsec_x", str(now), body + b" ", signature)
    assert not namespace["verify"]("whsec_x", str(now - 3600), body, sign("whsec_x", now - 3600, body))
