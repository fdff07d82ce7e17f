"""Currency, place, taxes and carbon over HTTP: 422s that name the field, and exports that still add up."""

from __future__ import annotations

import io
from typing import Any

import pandas as pd
import pytest
from fastapi.testclient import TestClient

from service.app import create_app
from service.core.settings import Settings
from tests.conftest import cloud_item, owned_item, simple_profile


@pytest.fixture
def client(database_url: str) -> TestClient:
    return TestClient(create_app(Settings(database_url=database_url)), raise_server_exceptions=False)


def profile(**changes: Any) -> dict[str, Any]:
    body = simple_profile([owned_item(1800, gpu="RTX 4090", currency="EUR")],
                          [cloud_item(0.9, gpu="RTX 4090", provider="aws", region="eu-central-1")],
                          utilisation=0.5, months=24, resale=True, vat_percent=19, import_duty_percent=2,
                          carbon_price_per_tonne=80, carbon_price_currency="EUR")
    body["demand"]["reference_gpu"] = "RTX 4090"
    del body["electricity_usd_per_kwh"]
    body["electricity"] = {"location": "DE"}
    body["currency"] = "EUR"
    return body | changes


@pytest.mark.parametrize(("change", "field", "rule"), [
    ({"electricity": {"location": "ZZ"}}, "electricity.location", "known_location"),
    ({"electricity": {"location": "D-E"}}, "electricity.location", "value_error"),
    ({"currency": "XYZ"}, "currency", "literal_error"),
])
def test_bad_place_or_currency_is_a_422_naming_the_field(client: TestClient, change: dict[str, Any], field: str,
                                                         rule: str) -> None:
    response = client.post("/v1/plans", json=profile(**change))
    assert response.status_code == 422, response.text
    assert {"field": field, "rule": rule} in [{k: e[k] for k in ("field", "rule")} for e in response.json()["errors"]]


def test_a_euro_plan_with_taxes_and_carbon_exports_to_the_cent(client: TestClient) -> None:
    created = client.post("/v1/plans", json=profile())
    assert created.status_code == 201, created.text
    plan = created.json()
    assert plan["currency"] == "EUR" and plan["exchange_rates"]["as_of"] == "2026-02-06"
    assert plan["carbon"]["owned_g_co2e_per_kwh"] == 381 and plan["purchase_tax"]["vat_percent"] == 19
    table = pd.read_csv(io.StringIO(client.get(f"/v1/plans/{plan['id']}.csv").text))
    assert round(table["line_total"].sum(), 2) == round(plan["total_cost_usd"], 2)
    assert set(table["PricingCurrency"]) == {"EUR"} and set(table["currency"]) == {"EUR"}
    if plan["buy"]:
        # 1,800 EUR net + 21% taxes: the purchase line is net, the tax line holds the 21%
        bought = table[table["type"] == "gpu"]
        assert bought["unit_price"].tolist() == pytest.approx([1800.0] * len(bought), abs=0.01)
        tax = table[table["ChargeCategory"] == "Tax"]["line_total"].sum()
        assert tax == pytest.approx(0.21 * bought["line_total"].sum() + 0.21 * table[table["type"] == "host"][
            "line_total"].sum(), abs=0.02)
    request = client.get(f"/v1/plans/{plan['id']}/purchase-request").json()
    assert request["currency"] == "EUR" and request["carbon"]["owned_location"] == "DE"
    assert sum(i["line_total"] for i in request["line_items"]) == pytest.approx(plan["total_cost_usd"], abs=0.005)
