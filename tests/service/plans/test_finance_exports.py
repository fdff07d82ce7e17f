"""Issue 16 over HTTP: the new profile options, the CSV export still adding up to the cent with commitments, opex
and financing interest, and the purchase request's depreciation schedule (hand-checked)."""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest
from fastapi.testclient import TestClient

from service.app import create_app
from service.core.settings import Settings
from tests.conftest import cloud_item, owned_item, simple_profile


@pytest.fixture
def client(database_url: str) -> TestClient:
    return TestClient(create_app(Settings(database_url=database_url)), raise_server_exceptions=False)


def _finance_profile() -> dict[str, Any]:
    """Buy one $10,000 box (A100 at 90% busy); the second GPU's busy share goes to a commitment or on demand."""
    profile = simple_profile([owned_item(10_000.0, gpu="A100 80GB PCIe", watts=400)],
                             [cloud_item(3.0, gpu="A100 80GB PCIe")], utilisation=0.9, months=24,
                             max_owned_gpus=1, discount_rate=0.06,
                             financing={"annual_rate": 0.09, "term_months": 36, "down_payment": 0.25},
                             opex={"colocation_usd_per_kw_month": 150.0, "maintenance_usd_per_gpu_year": 300.0,
                                   "storage_networking_usd_per_month": 40.0})
    profile["demand"] = {"gpus": 2, "utilisation": 0.9, "reference_gpu": "A100 80GB PCIe", "start": "2027-01-01"}
    profile["prices"]["commitments"] = [{"provider": "testcloud", "name": "vm", "gpu": "A100 80GB PCIe",
                                         "usd_per_hour": 1.9, "term_months": 12, "region": "r1",
                                         "source": "quote 2026-11"}]
    return profile


def test_csv_adds_up_with_commitments_opex_and_interest(client: TestClient) -> None:
    created = client.post("/v1/plans", json=_finance_profile())
    assert created.status_code == 201, created.text
    plan = created.json()
    assert plan["buy"] and plan["commitments"] and plan["discount_rate"] == 0.06
    costs = plan["costs"]
    assert costs["opex_usd"] > 0 and costs["financing_interest_usd"] > 0 and costs["commitments_usd"] > 0
    assert costs["present_value_usd"] < plan["total_cost_usd"]
    rows = list(csv.DictReader(io.StringIO(client.get(f"/v1/plans/{plan['id']}.csv").text)))
    kinds = {r["type"] for r in rows}
    assert {"gpu", "commitment", "opex", "financing", "electricity"} <= kinds
    assert round(sum(float(r["line_total"]) for r in rows), 2) == round(plan["total_cost_usd"], 2)
    committed = [r for r in rows if r["type"] == "commitment"]
    # two 12-month terms, 2027-01-01 to 2029-01-01 (731 days, 2028 is a leap year), at $1.90 for one instance;
    # FOCUS: the hours it worked and those it was held idle are rows of their own (CommitmentDiscountStatus)
    assert [r["CommitmentDiscountStatus"] for r in committed] == ["Used", "Unused"]
    assert sum(float(r["PricingQuantity"]) for r in committed) == pytest.approx(24 * 731, abs=0.001)
    assert sum(float(r["line_total"]) for r in committed) == pytest.approx(1.9 * 24 * 731, abs=0.011)
    # the cash-flow table: a start row, 24 months, and the nominal total at the end
    flows = plan["cash_flows"]
    assert len(flows) == 25 and flows[0]["capex_usd"] == pytest.approx(0.25 * costs["capex_usd"], abs=0.01)
    assert flows[-1]["cumulative_usd"] == pytest.approx(plan["total_cost_usd"], abs=0.05)
    assert flows[-1]["cumulative_present_value_usd"] == pytest.approx(costs["present_value_usd"], abs=0.05)


def test_purchase_request_depreciation_by_hand(client: TestClient) -> None:
    profile = simple_profile([owned_item(6000.0)], [cloud_item(1.0)], utilisation=1.0)
    plan = client.post("/v1/plans", json=profile).json()
    assert plan["costs"]["capex_usd"] == 6000.0
    default = client.get(f"/v1/plans/{plan['id']}/purchase-request").json()["depreciation"]
    assert default["method"] == "straight_line" and default["years"] == 5
    assert [r["depreciation_usd"] for r in default["schedule"]] == [1200.0] * 5
    ddb = client.get(f"/v1/plans/{plan['id']}/purchase-request",
                     params={"depreciation_method": "declining_balance", "depreciation_years": 3}).json()
    # 2/3 of the book value a year: 4000 (of 6000), 1333.33 (of 2000), the rest 666.67
    rows = ddb["depreciation"]["schedule"]
    assert [r["depreciation_usd"] for r in rows] == [4000.0, 1333.33, 666.67]
    assert [r["closing_book_value_usd"] for r in rows] == [2000.0, 666.67, 0.0]
    salvage = client.get(f"/v1/plans/{plan['id']}/purchase-request",
                         params={"depreciation_years": 4, "salvage_usd": 1000}).json()["depreciation"]
    assert [r["depreciation_usd"] for r in salvage["schedule"]] == [1250.0] * 4


def test_cloud_only_plan_has_no_depreciation(client: TestClient) -> None:
    plan = client.post("/v1/plans", json=simple_profile([], [cloud_item(1.0)], utilisation=0.2)).json()
    assert client.get(f"/v1/plans/{plan['id']}/purchase-request").json()["depreciation"] is None


@pytest.mark.parametrize(("options", "field", "rule"), [
    ({"discount_rate": 1.5}, "options.discount_rate", "less_than_equal"),
    ({"financing": {"annual_rate": 0.05, "term_months": 0}}, "options.financing.term_months", "greater_than_equal"),
    ({"opex": {"maintenance_usd_per_gpu_year": -1}}, "options.opex.maintenance_usd_per_gpu_year",
     "greater_than_equal"),
])
def test_bad_finance_inputs_name_field_and_rule(client: TestClient, options: dict[str, Any], field: str,
                                               rule: str) -> None:
    response = client.post("/v1/plans", json=simple_profile([], [cloud_item(1.0)], **options))
    assert response.status_code == 422, response.text
    errors = response.json()["errors"]
    assert any(e["field"] == field and e["rule"] == rule for e in errors), errors


def test_bad_depreciation_query_is_a_422(client: TestClient) -> None:
    plan = client.post("/v1/plans", json=simple_profile([owned_item(6000.0)], [cloud_item(1.0)], utilisation=1.0))
    response = client.get(f"/v1/plans/{plan.json()['id']}/purchase-request", params={"depreciation_years": 0})
    assert response.status_code == 422
    assert any(e["field"].endswith("depreciation_years") for e in response.json()["errors"])
