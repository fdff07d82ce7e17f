"""Labs and API keys: keys required when auth is on, every lab sees only its own objects (404 for others'),
read-only keys, revocation, rate limits, idempotent POSTs, profile versions, exports and recomputation."""

from __future__ import annotations

import base64
import copy
import io
import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import requests
from fastapi.testclient import TestClient

from service.app import create_app
from service.core.dependencies import runtime_of
from service.core.settings import Settings
from service.labs.repository import create_key, revoke_key
from service.plans import service as plan_service
from service.plans.examples import CATALOG_EXAMPLE
from tests.service.labs.helpers import NOW, Lab, make_lab, served


def settings(database_url: str, **extra: Any) -> Settings:
    values: dict[str, Any] = {"database_url": database_url, "scheduler": False, "auth": True,
                              "alerts_allowed_networks": ["127.0.0.0/8"], "rate_limit_per_minute": 100_000,
                              "rate_limit_burst": 10_000, **extra}
    return Settings(**values)


@pytest.fixture
def client(database_url: str) -> Iterator[TestClient]:
    with TestClient(create_app(settings(database_url))) as c:
        yield c


@pytest.fixture
def labs(client: TestClient) -> tuple[Lab, Lab]:
    return make_lab(client.app, "lab A"), make_lab(client.app, "lab B")  # type: ignore[arg-type]


def ok(response: Any, status: int = 200) -> Any:
    assert response.status_code == status, response.text
    return response.json()


def test_keys_are_needed_except_for_public_reads(client: TestClient, labs: tuple[Lab, Lab]) -> None:
    for method, path in [("GET", "/v1/plans"), ("POST", "/v1/plans"), ("GET", "/v1/profiles"), ("GET", "/v1/alerts"),
                         ("GET", "/v1/plans/x"), ("DELETE", "/v1/profiles/x")]:
        refused = client.request(method, path, json=CATALOG_EXAMPLE)
        assert refused.status_code == 401, (method, path)
        assert refused.headers["www-authenticate"] == "Bearer"
        assert refused.headers["content-type"].startswith("application/problem+json")
        bad = client.request(method, path, json=CATALOG_EXAMPLE, headers={"Authorization": "Bearer gpk_nope"})
        assert bad.status_code == 401 and "unknown or revoked" in bad.json()["detail"]
    for path in ("/healthz", "/docs", "/openapi.json", "/v1/gpus", "/v1/prices?gpu=RTX%203090", "/v1/sources",
                 "/v1/prices/history?gpu=RTX%203090", "/"):
        assert client.get(path).status_code == 200, path
    a, _ = labs
    assert client.get("/v1/plans", headers=a.headers()).status_code == 200


def _objects_of(client: TestClient, lab: Lab) -> dict[str, str]:
    """One of each object a lab owns: a profile, a plan made from it, a subscription with an event."""
    profile = ok(client.post("/v1/profiles", json={"name": "A's", "tags": ["a"], "profile": CATALOG_EXAMPLE},
                             headers=lab.headers()), 201)
    plan = ok(client.post(f"/v1/profiles/{profile['id']}/plans", headers=lab.headers()), 201)
    sub = ok(client.post("/v1/alerts", headers=lab.headers(), json={
        "name": "A's alert", "condition": {"type": "plan_change", "profile_id": profile["id"]},
        "delivery": {"type": "webhook", "url": "http://127.0.0.1:9/down"}}), 201)
    ok(client.post(f"/v1/alerts/{sub['id']}/test", headers=lab.headers()), 202)
    return {"profile_id": profile["id"], "plan_id": plan["id"], "subscription_id": sub["id"]}


def test_every_endpoint_hides_another_labs_objects(client: TestClient, labs: tuple[Lab, Lab]) -> None:
    a, b = labs
    ids = _objects_of(client, a)
    sacct = "JobID|Start|End|AllocTRES|State\n1|2024-05-01T10:00:00|2024-05-01T12:00:00|gres/gpu=2|COMPLETED\n"
    bodies = {("PUT", "/v1/profiles/{profile_id}"): {"name": "taken over", "profile": CATALOG_EXAMPLE},
              ("POST", "/v1/profiles/{profile_id}/usage"): {"text": sacct}}
    checked = []
    for path, operations in client.app.openapi()["paths"].items():  # type: ignore[attr-defined]
        params = re.findall(r"\{(\w+)\}", path)
        for method in operations:
            method = method.upper()
            if not params:
                if method == "GET" and path.startswith("/v1/") and "gpu" not in str(operations):
                    listed = client.get(path, headers=b.headers())
                    assert not any(v in listed.text for v in ids.values()), path
                continue
            assert set(params) <= set(ids), f"no object for {path}: add one to _objects_of"
            url = path.format(**ids)
            answer = client.request(method, url, headers=b.headers(), json=bodies.get((method, path)))
            assert answer.status_code == 404, (method, url, answer.status_code, answer.text)
            checked.append((method, path))
    assert len(checked) >= 15, checked
    # nothing of A's was touched, and A itself still sees everything
    assert ok(client.get(f"/v1/profiles/{ids['profile_id']}", headers=a.headers()))["name"] == "A's"
    assert ok(client.get(f"/v1/alerts/{ids['subscription_id']}", headers=a.headers()))["status"] == "active"
    assert ok(client.get(f"/v1/plans/{ids['plan_id']}", headers=a.headers()))["id"] == ids["plan_id"]
    assert [p["id"] for p in ok(client.get("/v1/plans", headers=a.headers()))["items"]] == [ids["plan_id"]]


def test_read_only_keys_read_and_cannot_write(client: TestClient, labs: tuple[Lab, Lab]) -> None:
    a, _ = labs
    ids = _objects_of(client, a)
    assert ok(client.get(f"/v1/plans/{ids['plan_id']}", headers=a.headers(read_only=True)))["id"] == ids["plan_id"]
    for method, path in [("POST", "/v1/plans"), ("DELETE", f"/v1/profiles/{ids['profile_id']}"),
                         ("POST", f"/v1/alerts/{ids['subscription_id']}/pause")]:
        refused = client.request(method, path, json=CATALOG_EXAMPLE, headers=a.headers(read_only=True))
        assert refused.status_code == 403 and "read-only" in refused.json()["detail"]
    assert ok(client.get(f"/v1/alerts/{ids['subscription_id']}", headers=a.headers()))["status"] == "active"


def test_a_revoked_key_stops_working_at_once(client: TestClient, labs: tuple[Lab, Lab]) -> None:
    engine = runtime_of(client.app).engine  # type: ignore[arg-type]
    info, token = create_key(engine, "lab A", "temp", False, NOW)
    assert client.get("/v1/plans", headers={"Authorization": f"Bearer {token}"}).status_code == 200
    revoke_key(engine, info.id, NOW)
    assert client.get("/v1/plans", headers={"Authorization": f"Bearer {token}"}).status_code == 401
    assert client.get("/v1/plans", headers=labs[0].headers()).status_code == 200  # the lab's other keys work


def test_rate_limit_per_key(database_url: str) -> None:
    with TestClient(create_app(settings(database_url, rate_limit_per_minute=60, rate_limit_burst=3))) as c:
        a, b = make_lab(c.app, "A"), make_lab(c.app, "B")  # type: ignore[arg-type]
        codes = [c.get("/v1/plans", headers=a.headers()).status_code for _ in range(4)]
        assert codes == [200, 200, 200, 429]
        limited = c.get("/v1/plans", headers=a.headers())
        assert limited.status_code == 429 and 1 <= int(limited.headers["retry-after"]) <= 2
        assert c.get("/v1/plans", headers=b.headers()).status_code == 200  # per key, not global


def test_idempotent_posts_make_one_object_under_concurrent_retries(database_url: str) -> None:
    app = create_app(settings(database_url))
    a, b = make_lab(app, "A"), make_lab(app, "B")
    with served(app) as url:
        barrier = threading.Barrier(10)
        answers: list[requests.Response] = []

        def post() -> None:
            barrier.wait()
            answers.append(requests.post(f"{url}/v1/plans", json=CATALOG_EXAMPLE, timeout=60,
                                         headers={**a.headers(), "Idempotency-Key": "order-42"}))

        threads = [threading.Thread(target=post) for _ in range(10)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert [r.status_code for r in answers] == [201] * 10
        assert len({r.json()["id"] for r in answers}) == 1
        assert sum(r.headers.get("idempotent-replayed") == "true" for r in answers) == 9
        assert len(requests.get(f"{url}/v1/plans", headers=a.headers(), timeout=10).json()["items"]) == 1
        # the same key from another lab is another request; a changed body under the same key is refused
        other = requests.post(f"{url}/v1/plans", json=CATALOG_EXAMPLE, timeout=60,
                              headers={**b.headers(), "Idempotency-Key": "order-42"})
        assert other.status_code == 201 and other.json()["id"] != answers[0].json()["id"]
        changed = {**CATALOG_EXAMPLE, "horizon_months": 24}
        reused = requests.post(f"{url}/v1/plans", json=changed, timeout=60,
                               headers={**a.headers(), "Idempotency-Key": "order-42"})
        assert reused.status_code == 422 and reused.json()["errors"][0]["field"] == "Idempotency-Key"


def test_a_failed_request_is_not_replayed(client: TestClient, labs: tuple[Lab, Lab]) -> None:
    a, _ = labs
    headers = {**a.headers(), "Idempotency-Key": "k1"}
    bad = {**CATALOG_EXAMPLE, "horizon_months": 0}
    first = client.post("/v1/plans", json=bad, headers=headers)
    again = client.post("/v1/plans", json=bad, headers=headers)
    assert first.status_code == again.status_code == 422
    assert again.headers.get("idempotent-replayed") == "true"  # a 4xx answer is the answer
    limited = client.post("/v1/plans", json=CATALOG_EXAMPLE, headers={"Idempotency-Key": "k2"})
    assert limited.status_code == 401
    assert client.post("/v1/plans", json=CATALOG_EXAMPLE, headers={**a.headers(), "Idempotency-Key": "k2"}
                       ).status_code == 201


def test_profile_versions_plans_and_recompute(client: TestClient, labs: tuple[Lab, Lab]) -> None:
    a, _ = labs
    h = a.headers()
    saved = ok(client.post("/v1/profiles", json={"name": "v", "profile": CATALOG_EXAMPLE}, headers=h), 201)
    changed = copy.deepcopy(CATALOG_EXAMPLE)
    changed["demand"]["utilisation"] = 0.6
    updated = ok(client.put(f"/v1/profiles/{saved['id']}", json={"name": "v2", "tags": ["gpu-lab"],
                                                                  "profile": changed}, headers=h))
    assert (updated["version"], updated["name"], updated["tags"]) == (2, "v2", ["gpu-lab"])
    versions = ok(client.get(f"/v1/profiles/{saved['id']}/versions", headers=h))
    assert [(v["version"], v["profile"]["demand"]["utilisation"]) for v in versions] == [(1, 0.15), (2, 0.6)]
    plan = ok(client.post(f"/v1/profiles/{saved['id']}/plans", headers=h), 201)
    assert (plan["profile_id"], plan["profile_version"], plan["prices_in_force"]) == (saved["id"], 2, {})
    again = ok(client.post(f"/v1/plans/{plan['id']}/recompute", headers=h))
    assert again["total_cost_usd"] == plan["total_cost_usd"] and again["buy"] == plan["buy"]
    listed = ok(client.get(f"/v1/plans?profile_id={saved['id']}", headers=h))["items"]
    assert [(p["id"], p["profile_version"]) for p in listed] == [(plan["id"], 2)]
    assert ok(client.get("/v1/profiles?tag=gpu-lab", headers=h))["items"][0]["id"] == saved["id"]
    assert ok(client.get("/v1/profiles?tag=other", headers=h))["items"] == []


def test_csv_export_adds_up_to_the_plan_and_the_purchase_request_explains_it(client: TestClient,
                                                                             labs: tuple[Lab, Lab]) -> None:
    a, _ = labs
    plan = ok(client.post("/v1/plans", json=CATALOG_EXAMPLE, headers=a.headers()), 201)
    exported = client.get(f"/v1/plans/{plan['id']}.csv", headers=a.headers())
    assert exported.status_code == 200 and exported.headers["content-type"].startswith("text/csv")
    table = pd.read_csv(io.StringIO(exported.text))
    assert list(table.columns)[:12] == ["line", "item", "type", "gpu", "condition", "quantity", "unit",
                                        "unit_price", "currency", "vendor_source", "price_as_of", "line_total"]
    assert {"ChargeCategory", "ListUnitPrice", "ContractedUnitPrice", "PricingCurrency", "BilledCost",
            "EffectiveCost", "x_KgCO2e"} <= set(table.columns)  # FOCUS names after the original columns
    assert (table["BilledCost"] == table["line_total"]).all()
    assert round(table["line_total"].sum(), 2) == round(plan["total_cost_usd"], 2)
    assert set(table["currency"]) == {"USD"}
    bought = table[table["type"] == "gpu"]
    assert (bought["quantity"] * bought["unit_price"]).round(2).tolist() == bought["line_total"].tolist()
    assert round(bought["line_total"].sum() + table[table["type"] == "host"]["line_total"].sum(), 2) == \
        round(plan["costs"]["capex_usd"], 2)
    request = ok(client.get(f"/v1/plans/{plan['id']}/purchase-request", headers=a.headers()))
    assert request["total_cost_usd"] == plan["total_cost_usd"]
    assert [x["option"] for x in request["alternatives"]][:2] == ["this plan", "cloud only"]
    if plan["buy"]:
        assert f"pays for itself after {-(-plan['break_even']['days'] // 1):.0f} days" in request["justification"]
    assert sum(i["line_total"] for i in request["line_items"]) == pytest.approx(plan["total_cost_usd"], abs=0.005)


def test_pagination_walks_every_item_once(client: TestClient, labs: tuple[Lab, Lab]) -> None:
    a, _ = labs
    made = [ok(client.post("/v1/plans", json=CATALOG_EXAMPLE, headers=a.headers()), 201)["id"] for _ in range(5)]
    seen, cursor, pages = [], None, 0
    while True:
        query = "/v1/plans?limit=2" + (f"&cursor={cursor}" if cursor else "")
        body = ok(client.get(query, headers=a.headers()))
        seen += [p["id"] for p in body["items"]]
        pages += 1
        cursor = body["next_cursor"]
        if cursor is None:
            break
    assert pages == 3 and sorted(seen) == sorted(made) and len(seen) == 5
    assert seen == list(reversed(made))  # newest first
    bad = client.get("/v1/plans?cursor=not-a-cursor", headers=a.headers())
    assert bad.status_code == 422 and bad.json()["errors"][0]["field"] == "cursor"


def _guide_block(language: str, after: str) -> str:
    readme = (Path(__file__).resolve().parents[3] / "docs" / "procurement.md").read_text()
    start = readme.index(after)
    match = re.search(rf"```{language}\n(.*?)```", readme[start:], re.S)
    assert match is not None
    return match.group(1)


def test_the_guide_integration_examples_run_against_a_live_service(database_url: str, tmp_path: Path) -> None:
    app = create_app(settings(database_url))
    lab = make_lab(app, "vision lab")
    (tmp_path / "profile.json").write_text(json.dumps({"name": "vision", "tags": ["q4"], "profile": CATALOG_EXAMPLE}))
    with served(app) as url:
        env = {**os.environ, "GPUPLAN_URL": url, "GPUPLAN_KEY": lab.key}
        script = subprocess.run(["bash", "-euo", "pipefail", "-c", _guide_block("bash", "## Integrate with")],
                                cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False)
        assert script.returncode == 0, script.stderr
        table = pd.read_csv(tmp_path / "plan.csv")
        request = json.loads((tmp_path / "purchase-request.json").read_text())
        assert round(table["line_total"].sum(), 2) == round(request["total_cost_usd"], 2)
        program = subprocess.run([sys.executable, "-c", _guide_block("python", "## Integrate with")], cwd=tmp_path,
                                 env=env, capture_output=True, text=True, timeout=120, check=False)
        assert program.returncode == 0, program.stderr
        assert request["justification"] in program.stdout
        plans = requests.get(f"{url}/v1/plans", headers=lab.headers(), timeout=10).json()["items"]
        profiles = requests.get(f"{url}/v1/profiles", headers=lab.headers(), timeout=10).json()["items"]
    assert len(plans) == 1 and len(profiles) == 1  # the Python retry replayed the script's objects
    assert f"[{plans[0]['total_cost_usd']}]" in program.stdout


def test_a_revoked_key_gets_no_replay(client: TestClient, labs: tuple[Lab, Lab]) -> None:
    engine = runtime_of(client.app).engine  # type: ignore[arg-type]
    info, token = create_key(engine, "lab A", "temp", False, NOW)
    headers = {"Authorization": f"Bearer {token}", "Idempotency-Key": "k1"}
    assert client.post("/v1/plans", json=CATALOG_EXAMPLE, headers=headers).status_code == 201
    revoke_key(engine, info.id, NOW)
    again = client.post("/v1/plans", json=CATALOG_EXAMPLE, headers=headers)
    assert again.status_code == 401 and "idempotent-replayed" not in again.headers


def test_an_unhandled_error_frees_the_idempotency_key(database_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    with TestClient(create_app(settings(database_url)), raise_server_exceptions=False) as c:
        a = make_lab(c.app, "A")  # type: ignore[arg-type]
        original, calls = plan_service.save_plan, []

        def failing_once(*args: Any, **kwargs: Any) -> Any:
            calls.append(1)
            if len(calls) == 1:
                raise RuntimeError("database went away")
            return original(*args, **kwargs)

        monkeypatch.setattr(plan_service, "save_plan", failing_once)
        headers = {**a.headers(), "Idempotency-Key": "retry-me"}
        assert c.post("/v1/plans", json=CATALOG_EXAMPLE, headers=headers).status_code == 500
        retried = c.post("/v1/plans", json=CATALOG_EXAMPLE, headers=headers)  # at once, not after a timeout
        assert retried.status_code == 201 and "idempotent-replayed" not in retried.headers


@pytest.mark.parametrize("zone", ["America/New_York", "Asia/Tokyo"])
def test_cursors_do_not_depend_on_the_servers_time_zone(client: TestClient, labs: tuple[Lab, Lab],
                                                        monkeypatch: pytest.MonkeyPatch, zone: str) -> None:
    import time

    monkeypatch.setenv("TZ", zone)
    time.tzset()
    try:
        a, _ = labs
        made = {ok(client.post("/v1/plans", json=CATALOG_EXAMPLE, headers=a.headers()), 201)["id"] for _ in range(3)}
        seen, cursor = [], None
        for _ in range(5):
            body = ok(client.get("/v1/plans?limit=1" + (f"&cursor={cursor}" if cursor else ""), headers=a.headers()))
            seen += [p["id"] for p in body["items"]]
            cursor = body["next_cursor"]
            if cursor is None:
                break
        assert sorted(seen) == sorted(made)
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()
    naive = base64.urlsafe_b64encode(json.dumps(["2026-01-01T00:00:00", "x"]).encode()).decode()
    assert client.get(f"/v1/profiles?cursor={naive}", headers=labs[0].headers()).status_code == 200


def test_concurrent_puts_make_one_version_and_tell_the_others(database_url: str) -> None:
    app = create_app(settings(database_url))
    a = make_lab(app, "A")
    with served(app) as url:
        saved = requests.post(f"{url}/v1/profiles", json={"name": "p", "profile": CATALOG_EXAMPLE},
                              headers=a.headers(), timeout=60).json()
        barrier = threading.Barrier(6)
        codes: list[int] = []

        def put(i: int) -> None:
            barrier.wait()
            codes.append(requests.put(f"{url}/v1/profiles/{saved['id']}", headers=a.headers(), timeout=60,
                                      json={"name": f"p{i}", "profile": CATALOG_EXAMPLE}).status_code)

        threads = [threading.Thread(target=put, args=(i,)) for i in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        versions = requests.get(f"{url}/v1/profiles/{saved['id']}/versions", headers=a.headers(), timeout=10).json()
    assert 500 not in codes and codes.count(200) >= 1 and set(codes) <= {200, 409}
    assert [v["version"] for v in versions] == list(range(1, 2 + codes.count(200)))
