"""Issue 16 audit, items 2 and 3: the purchase request on the plan's basis, and FOCUS columns that keep the
provider's prices apart from commitments' list prices and from the carbon price.

Hand figures (12% a year, compounded monthly: a flow at the end of month m, m = 1..12, is worth 1.01^-m):
one RTX 3090 desktop at $2,200 (450 W, no idle, PUE 1, $0.12/kWh) against a cloud RTX 3090 at $2.14/h, one GPU busy
50% of the hours of 2027 (h_m = 0.5 x hours of month m). Cloud only: 2.14 x h_m a month; buying: $2,200 at the
start and 0.45 kW x $0.12 x h_m a month of electricity.
"""

from __future__ import annotations

import io
from typing import Any

import pandas as pd
import pytest
from fastapi.testclient import TestClient

from pricing.catalog import Catalog, bundled_catalog
from service.app import create_app
from service.core.settings import Settings
from service.plans.exports import line_items, plan_csv, purchase_request
from solvers.base.profile import Profile
from solvers.base.result import PlanResult
from solvers.plan import make_plan
from tests.conftest import TODAY, cloud_item, owned_item, simple_profile

DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)  # 2027
HOURS = [0.5 * 24 * d for d in DAYS]
V = [1.01 ** -(m + 1) for m in range(12)]
CLOUD_PV = sum(2.14 * h * v for h, v in zip(HOURS, V, strict=True))
PLAN_PV = 2200 + sum(0.45 * 0.12 * h * v for h, v in zip(HOURS, V, strict=True))


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return bundled_catalog()


def _plan(catalog: Catalog, body: dict[str, Any]) -> PlanResult:
    return make_plan(Profile.model_validate(body), catalog, TODAY)


def _twelve_percent() -> dict[str, Any]:
    body = simple_profile([owned_item(2200)], [cloud_item(2.14)], utilisation=0.5, months=12, rate=0.12,
                          discount_rate=0.12, pue=1.0)
    return body


def test_the_purchase_request_speaks_the_plans_present_value_basis(catalog: Catalog) -> None:
    plan = _plan(catalog, _twelve_percent())
    assert [b.count for b in plan.buy] == [1] and plan.break_even.basis == "present_value"
    # by hand: cloud only 2.14 x 4,380 h = 9,373.20 nominal, 8,789.05 at present value; the plan 2,436.52 nominal,
    # 2,200 + 221.78 = 2,421.78 at present value
    assert pytest.approx(8_789.05, abs=0.01) == CLOUD_PV and pytest.approx(2_421.78, abs=0.01) == PLAN_PV
    assert plan.costs.present_value_usd == pytest.approx(PLAN_PV, abs=0.01)
    assert plan.alternatives.cloud_only is not None
    assert plan.alternatives.cloud_only.costs.present_value_usd == pytest.approx(CLOUD_PV, abs=0.01)
    request = purchase_request(plan, "12% lab")
    basis = request["basis"]
    assert (basis["basis"], basis["discount_rate"]) == ("present_value", 0.12)
    assert basis["total_present_value"] == pytest.approx(PLAN_PV, abs=0.01)
    assert basis["total_nominal"] == pytest.approx(2200 + 0.054 * 4380, abs=0.01)  # 2,436.52
    assert basis["saving"] == pytest.approx(CLOUD_PV - PLAN_PV, abs=0.02)  # 6,367.27
    assert basis["saving_nominal"] == pytest.approx(9_373.20 - 2_436.52, abs=0.02)  # 6,936.68
    text = request["justification"]
    assert "present values at a 12% annual discount rate" in text
    assert "costs $2,422 over" in text and "at present value, against $8,789" in text  # not the nominal 2,437
    assert "a saving of $6,367" in text
    assert "In nominal terms (undiscounted) the plan costs $2,437 against $9,373" in text
    assert "cash_flows" in text
    assert len(request["cash_flows"]) == 13 and request["cash_flows"][0].month == "start"
    assert request["cash_flows"][-1].cumulative_present_value_usd == pytest.approx(PLAN_PV, abs=0.01)


def test_a_nominal_plan_still_speaks_nominal(catalog: Catalog) -> None:
    plan = _plan(catalog, simple_profile([owned_item(2200)], [cloud_item(2.14)], utilisation=0.5, months=12,
                                         rate=0.12, pue=1.0))
    request = purchase_request(plan, None)
    assert request["basis"]["basis"] == "nominal" and request["basis"]["discount_rate"] == 0.0
    assert "present value" not in request["justification"]
    assert "costs $2,437 over" in request["justification"] and "a saving of $6,937" in request["justification"]


def _commitment_profile(**options: Any) -> dict[str, Any]:
    """Two H100s busy 90% of 2027: on demand $10/h or spot $7/h in aws us-east-1, or one 12-month commitment at
    $6/h (at most one instance)."""
    body = simple_profile([], [cloud_item(10.0, gpu="H100 SXM", name="h1", provider="aws", region="us-east-1"),
                               cloud_item(7.0, gpu="H100 SXM", name="h1", provider="aws", region="us-east-1",
                                          pricing="spot")],
                          utilisation=0.9, months=12, allow_buy=False, allow_spot=True, **options)
    body["demand"]["reference_gpu"] = "H100 SXM"
    body["demand"]["gpus"] = 2
    body["prices"]["commitments"] = [{"provider": "aws", "name": "h1", "gpu": "H100 SXM", "usd_per_hour": 6.0,
                                      "term_months": 12, "region": "us-east-1", "max_instances": 1}]
    body["jobs"] = {"patience": "month"}
    return body


def test_focus_commitment_list_price_is_the_on_demand_one_and_carbon_is_its_own_line(catalog: Catalog) -> None:
    plan = _plan(catalog, _commitment_profile(carbon_price_per_tonne=1000))
    items = line_items(plan)
    by_type: dict[str, list[dict[str, Any]]] = {}
    for item in items:
        by_type.setdefault(item["type"], []).append(item)
    commit = by_type["commitment"][0]
    # the provider's on-demand price is the list (and, FOCUS: excluding commitment discounts, the contracted)
    # price; the committed rate is what is billed
    assert (commit["ListUnitPrice"], commit["ContractedUnitPrice"], commit["x_CommittedUnitPrice"]) == (10.0, 10.0, 6.0)
    assert commit["unit_price"] == 6.0 and commit["PricingQuantity"] == 8760.0
    assert commit["BilledCost"] == commit["EffectiveCost"] == 52_560.0  # 6 x 8,760, no carbon in it
    assert commit["ListCost"] == 87_600.0  # ListCost - EffectiveCost: the commitment's saving
    assert (commit["PricingCategory"], commit["ChargeCategory"], commit["ChargeFrequency"]) == (
        "Committed", "Usage", "Recurring")
    assert commit["CommitmentDiscountCategory"] == "Usage" and commit["CommitmentDiscountId"]
    # worked every held hour: one Used line, no Unused one
    assert [c["CommitmentDiscountStatus"] for c in by_type["commitment"]] == ["Used"]
    assert commit["x_ListPriceOffer"] == "aws h1 (us-east-1)"
    assert commit["CommitmentDiscountType"] == "Reserved / committed instance"
    # 0.7 kW x 1.57 x 0.2676 kg/kWh (US-VA, eGRID2022) x $1/kg = $0.2940924 per held hour, 8,760 h
    assert commit["x_CarbonCost"] == pytest.approx(2_576.25, abs=0.01)
    spot = [i for i in by_type["cloud"] if "spot" in i["item"]]
    assert spot
    for line in spot:  # the provider's price, not 7 + its carbon cost
        assert (line["ListUnitPrice"], line["PricingCategory"], line["ChargeFrequency"]) == (7.0, "Dynamic",
                                                                                           "Usage-Based")
        assert line["BilledCost"] == pytest.approx(7.0 * line["PricingQuantity"], abs=0.01)
    carbon = by_type["carbon"]
    assert len(carbon) == 1 and carbon[0]["ChargeCategory"] == "Adjustment"
    assert carbon[0]["ListUnitPrice"] == 1000.0 and carbon[0]["PricingUnit"] == "tonne CO2e"
    # the line sums each line's carbon, the report prices the summed kilograms: each rounded to the cent
    assert plan.carbon is not None and carbon[0]["line_total"] == pytest.approx(plan.carbon.carbon_cost, abs=0.015)
    assert sum(i["line_total"] for i in items) == pytest.approx(plan.total_cost_usd, abs=0.005)
    table = pd.read_csv(io.StringIO(plan_csv(plan)))
    assert {"PricingCategory", "ChargeFrequency", "CommitmentDiscountType", "x_CarbonCost"} <= set(table.columns)


def test_purchases_name_their_seller_and_taxes_have_no_unit_price(catalog: Catalog) -> None:
    body = simple_profile([owned_item(2200, source="Dell quote 2027-01"), owned_item(2300)], [cloud_item(2.14)],
                          utilisation=0.9, months=36, rate=0.12, pue=1.0, vat_percent=20)
    plan = _plan(catalog, body)
    items = line_items(plan)
    bought = [i for i in items if i["type"] == "gpu"]
    assert bought and all(i["ProviderName"] in ("Dell quote 2027-01", "") for i in bought)
    assert all(i["ProviderName"] != "request" for i in items)
    assert all(i["PricingCategory"] == "Standard" and i["ChargeFrequency"] == "One-Time" for i in bought)
    (tax,) = [i for i in items if i["type"] == "tax"]
    assert tax["ListUnitPrice"] is None and tax["ContractedUnitPrice"] is None and tax["PricingCategory"] is None
    # FOCUS: ListCost and ContractedCost are never null (a tax's follow the charges it is on: here its BilledCost),
    # PricingQuantity and PricingUnit are null for Tax
    assert tax["ListCost"] == tax["ContractedCost"] == tax["BilledCost"] == tax["line_total"] > 0
    assert tax["PricingQuantity"] is None and tax["PricingUnit"] is None


def test_a_reservation_named_apart_from_its_on_demand_offer_still_has_its_list_price(catalog: Catalog) -> None:
    """The profile's on-demand quote is `h1`, its 12-month reservation `h1 1-year reserved`: the list price comes
    from the on-demand offer with the same provider, GPU and GPU count (by name, none was found and ListCost read
    the committed $6, a saving of zero)."""
    body = _commitment_profile()
    body["prices"]["commitments"][0]["name"] = "h1 1-year reserved"
    (line,) = _plan(catalog, body).commitments
    assert (line.on_demand_usd_per_hour, line.on_demand_offer) == (10.0, "aws h1 (us-east-1)")
    items = line_items(_plan(catalog, body))
    (commit,) = [i for i in items if i["type"] == "commitment"]
    assert (commit["ListUnitPrice"], commit["x_CommittedUnitPrice"]) == (10.0, 6.0)
    assert commit["ListCost"] - commit["EffectiveCost"] == pytest.approx(4.0 * 8760, abs=0.01)


def test_a_reservation_takes_the_catalogs_on_demand_price_of_the_same_gpus(catalog: Catalog) -> None:
    """A quoted 8 x H100 reservation in aws us-east-1 under a name the catalog does not list: its list price is the
    catalog's on-demand p5.48xlarge there (8 x H100 SXM, $55.04/h in the bundled snapshot)."""
    body = simple_profile([], [], utilisation=1.0, months=12, allow_buy=False, providers=["aws"])
    body["prices"]["mode"] = "extend"
    body["demand"].update(reference_gpu="H100 SXM", gpus=8)
    body["min_gpu_memory_gb"] = 80
    body["prices"]["commitments"] = [{"provider": "aws", "name": "8xH100 1-year quote", "gpu": "H100 SXM",
                                      "gpu_count": 8, "usd_per_hour": 15.0, "term_months": 12,
                                      "region": "us-east-1"}]
    plan = _plan(catalog, body)
    (line,) = [m for m in plan.commitments if m.name == "8xH100 1-year quote"]
    assert (line.on_demand_usd_per_hour, line.on_demand_offer) == (55.04, "aws p5.48xlarge (us-east-1)")


def test_catalog_purchases_carry_the_catalog_vendor(catalog: Catalog) -> None:
    body = simple_profile([], [cloud_item(5.0, gpu="RTX 4090")], utilisation=1.0, months=36, rate=0.12)
    body["demand"]["reference_gpu"] = "RTX 4090"
    body["prices"]["mode"] = "extend"
    body["options"]["providers"] = ["testcloud"]
    plan = _plan(catalog, body)
    assert plan.buy and all(b.vendor for b in plan.buy)
    vendors = {i["ProviderName"] for i in line_items(plan) if i["type"] == "gpu"}
    assert vendors == {b.vendor for b in plan.buy} and "request" not in vendors


def test_the_purchase_request_over_http_carries_basis_and_cash_flows(database_url: str) -> None:
    client = TestClient(create_app(Settings(database_url=database_url)), raise_server_exceptions=False)
    created = client.post("/v1/plans", json=_twelve_percent())
    assert created.status_code == 201, created.text
    request = client.get(f"/v1/plans/{created.json()['id']}/purchase-request")
    assert request.status_code == 200, request.text
    body = request.json()
    assert body["basis"]["basis"] == "present_value" and body["basis"]["discount_rate"] == 0.12
    assert body["basis"]["total_present_value"] == pytest.approx(PLAN_PV, abs=0.01)
    assert len(body["cash_flows"]) == 13
    assert all("PricingCategory" in i and "x_CarbonCost" in i for i in body["line_items"])
