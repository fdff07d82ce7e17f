"""Plans side by side (`GET /v1/plans/compare`, `/compare.svg`) and a plan's own profile (`/{id}/profile`):
lab-scoped like every plan read, 404 for an id the caller cannot see, 422 naming `ids` and its rule."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from service.app import create_app
from service.core.settings import Settings
from service.plans.compare import differing_inputs
from service.plans.examples import WORKED_EXAMPLE
from tests.service.labs.helpers import Lab, make_lab


@pytest.fixture
def client(database_url: str) -> Iterator[TestClient]:
    settings = Settings(database_url=database_url, scheduler=False, auth=True, rate_limit_per_minute=100_000,
                        rate_limit_burst=10_000)
    with TestClient(create_app(settings), raise_server_exceptions=False) as c:
        yield c


@pytest.fixture
def labs(client: TestClient) -> tuple[Lab, Lab]:
    return make_lab(client.app, "lab A"), make_lab(client.app, "lab B")  # type: ignore[arg-type]


def _plan(client: TestClient, lab: Lab, profile: dict[str, Any]) -> dict[str, Any]:
    made = client.post("/v1/plans", json=profile, headers=lab.headers())
    assert made.status_code == 201, made.text
    body: dict[str, Any] = made.json()
    return body


def _busier() -> dict[str, Any]:
    profile = copy.deepcopy(WORKED_EXAMPLE)
    profile["demand"]["utilisation"] = 0.6
    profile["electricity_usd_per_kwh"] = 0.3
    return profile


def test_a_plan_gives_back_its_own_profile(client: TestClient, labs: tuple[Lab, Lab]) -> None:
    a, b = labs
    plan = _plan(client, a, _busier())
    profile = client.get(f"/v1/plans/{plan['id']}/profile", headers=a.headers())
    assert profile.status_code == 200
    assert profile.json()["demand"]["utilisation"] == 0.6 and profile.json()["electricity_usd_per_kwh"] == 0.3
    assert client.get(f"/v1/plans/{plan['id']}/profile", headers=b.headers()).status_code == 404


def test_two_plans_side_by_side(client: TestClient, labs: tuple[Lab, Lab]) -> None:
    a, _ = labs
    light, busy = _plan(client, a, WORKED_EXAMPLE), _plan(client, a, _busier())
    answer = client.get(f"/v1/plans/compare?ids={light['id']},{busy['id']}", headers=a.headers())
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert [p["id"] for p in body["plans"]] == [light["id"], busy["id"]]
    for shown, stored in zip(body["plans"], (light, busy), strict=True):
        assert shown["total_cost_usd"] == stored["total_cost_usd"]
        assert shown["break_even_days"] == stored["break_even"]["days"]
        assert shown["cloud_only_total_usd"] == stored["alternatives"]["cloud_only"]["total_cost_usd"]
        bought = [p for p in shown["purchases"] if p["kind"] in ("buy", "host")]  # capex: cards, machines, hosts
        assert sum(p["cost_usd"] for p in bought) == pytest.approx(stored["costs"]["capex_usd"])
    assert body["cheapest_id"] == min((light, busy), key=lambda p: p["total_cost_usd"])["id"]
    differing = {d["field"]: d["values"] for d in body["differing_inputs"]}
    assert differing == {"demand.utilisation": [0.15, 0.6], "electricity_usd_per_kwh": [0.12, 0.3]}

    svg = client.get(f"/v1/plans/compare.svg?ids={light['id']},{busy['id']}", headers=a.headers())
    assert svg.status_code == 200 and svg.headers["content-type"].startswith("image/svg+xml")
    assert 'id="series-plan-0"' in svg.text and 'id="series-plan-1"' in svg.text


def test_another_labs_plan_is_not_found_in_a_comparison(client: TestClient, labs: tuple[Lab, Lab]) -> None:
    a, b = labs
    mine, theirs = _plan(client, a, WORKED_EXAMPLE), _plan(client, b, WORKED_EXAMPLE)
    for path in ("/v1/plans/compare", "/v1/plans/compare.svg"):
        refused = client.get(f"{path}?ids={mine['id']},{theirs['id']}", headers=a.headers())
        assert refused.status_code == 404 and theirs["id"] in refused.json()["detail"]


@pytest.mark.parametrize(("ids", "rule"), [("one", "item_count"), ("a,a", "unique"), ("a,b,c,d,e,f,g", "item_count"),
                                           (" , ", "item_count")])
def test_bad_id_lists_are_422_naming_the_rule(client: TestClient, labs: tuple[Lab, Lab], ids: str, rule: str) -> None:
    a, _ = labs
    refused = client.get(f"/v1/plans/compare?ids={ids}", headers=a.headers())
    assert refused.status_code == 422
    errors = refused.json()["errors"]
    assert [(e["field"], e["rule"]) for e in errors] == [("ids", rule)] and errors[0]["message"]


def test_only_differing_leaves_are_listed() -> None:
    one = {"demand": {"gpus": 1, "utilisation": 0.2}, "prices": {"cloud": [1, 2]}}
    two = {"demand": {"gpus": 1, "utilisation": 0.2}, "prices": {"cloud": [1, 3]}, "horizon_months": 24}
    found = {d.field: d.values for d in differing_inputs([one, two])}
    assert found == {"prices.cloud": [[1, 2], [1, 3]], "horizon_months": [None, 24]}


def test_a_plans_sensitivity_as_json_and_tornado(client: TestClient, labs: tuple[Lab, Lab]) -> None:
    a, b = labs
    plan = _plan(client, a, WORKED_EXAMPLE)
    answer = client.get(f"/v1/plans/{plan['id']}/sensitivity", headers=a.headers())
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["base_total_usd"] == pytest.approx(plan["total_cost_usd"])
    assert {r["input"] for r in body["rows"]} >= {"demand_scale", "electricity", "cloud_prices", "hardware_prices",
                                                  "horizon"}
    svg = client.get(f"/v1/plans/{plan['id']}/sensitivity.svg", headers=a.headers())
    assert svg.status_code == 200 and svg.headers["content-type"].startswith("image/svg+xml")
    for row in body["rows"]:
        assert f'id="bar-{row["input"]}' in svg.text
    for path in ("sensitivity", "sensitivity.svg"):
        assert client.get(f"/v1/plans/{plan['id']}/{path}", headers=b.headers()).status_code == 404


def test_what_if_replans_without_storing(client: TestClient, labs: tuple[Lab, Lab]) -> None:
    a, _ = labs
    stored = _plan(client, a, WORKED_EXAMPLE)
    same = client.post("/v1/plans/what-if", json={"profile": WORKED_EXAMPLE}, headers=a.headers())
    assert same.status_code == 200, same.text
    assert same.json()["id"] is None and same.json()["total_cost_usd"] == pytest.approx(stored["total_cost_usd"])
    cheap_cloud = client.post("/v1/plans/what-if", json={"profile": WORKED_EXAMPLE, "cloud_price_scale": 0.05},
                              headers=a.headers()).json()
    assert stored["buy"] and not cheap_cloud["buy"]  # renting at 5% of the price beats buying
    assert len(client.get("/v1/plans", headers=a.headers()).json()["items"]) == 1
    refused = client.post("/v1/plans/what-if", json={"profile": WORKED_EXAMPLE, "cloud_price_scale": 0},
                          headers=a.headers())
    assert refused.status_code == 422 and refused.json()["errors"][0]["field"] == "cloud_price_scale"
