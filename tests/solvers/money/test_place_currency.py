"""Currency, place, taxes and carbon (issue 16 part B), checked against figures derived by hand.

Every expectation comes from the bundled tables' rows (quoted in the comments) and arithmetic done here, never
from running the planner: 2027 has 365 days, so 1 GPU busy 15% of the time works 0.15 x 8,760 = 1,314 hours.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from pydantic import BaseModel

import solvers.base.break_even_result
import solvers.base.inputs_used
import solvers.base.plan_lines
import solvers.base.result
from pricing.catalog import bundled_catalog
from solvers.base.errors import ProfileError
from solvers.base.profile import Profile
from solvers.base.result import PlanResult
from solvers.money.currency import MONEY_FIELDS, STAYS_USD
from solvers.plan import make_plan
from tests.conftest import cloud_item, owned_item, simple_profile

TODAY = dt.date(2026, 11, 23)
HOURS = 0.15 * 8760  # 1,314 GPU-hours in 2027
KWH_4090 = HOURS * 0.450  # the RTX 4090's 450 W board power (gpus.csv), no host, PUE 1: 591.3 kWh
EUR_USD, EUR_GBP = 1.1794, 0.86790  # ECB reference rates of 2026-02-06, the bundled publication


def plan(body: dict[str, Any]) -> PlanResult:
    return make_plan(Profile.model_validate(body), bundled_catalog(), TODAY)


def owned_4090(**extra: Any) -> dict[str, Any]:
    body = simple_profile([owned_item(2000, gpu="RTX 4090")], [], utilisation=0.15, months=12,
                          allow_cloud=False, host_watts_per_working_gpu=0, **extra)
    body["demand"]["reference_gpu"] = "RTX 4090"
    return body


def cloud_4090(region: str = "eu-west-3", **extra: Any) -> dict[str, Any]:
    body = simple_profile([], [cloud_item(0.5, gpu="RTX 4090", provider="aws", region=region)], utilisation=0.15,
                          months=12, allow_buy=False, **extra)
    body["demand"]["reference_gpu"] = "RTX 4090"
    return body


def test_the_guides_rtx_4090_costs_about_100_dollars_a_year_in_electricity() -> None:
    body = owned_4090()
    body["electricity_usd_per_kwh"] = 0.175
    result = plan(body)
    assert result.costs.electricity_usd == pytest.approx(KWH_4090 * 0.175, abs=0.01)  # 103.48 USD
    assert 95 <= result.costs.electricity_usd <= 110
    assert result.electricity is not None and result.electricity.source == "profile"


def test_location_fills_the_rate_from_eurostat_in_euro() -> None:
    body = owned_4090()
    del body["electricity_usd_per_kwh"]
    body["electricity"] = {"location": "de"}
    body["currency"] = "EUR"
    result = plan(body)
    # DE row: 0.2723 EUR/kWh (Eurostat nrg_pc_205 band IB, 2024-S1); a EUR plan shows it unconverted
    assert result.currency == "EUR"
    assert result.electricity is not None and result.electricity.price_per_kwh == pytest.approx(0.2723)
    assert result.electricity.location == "DE" and "nrg_pc_205" in result.electricity.source
    assert result.costs.electricity_usd == pytest.approx(KWH_4090 * 0.2723, abs=0.02)  # 161.01 EUR


def test_us_state_rate_from_eia_and_explicit_rate_wins() -> None:
    body = owned_4090()
    del body["electricity_usd_per_kwh"]
    body["electricity"] = {"location": "US-CA"}
    # California commercial 2023: 23.91 cents/kWh (EIA Electric Power Annual)
    assert plan(body).costs.electricity_usd == pytest.approx(KWH_4090 * 0.2391, abs=0.01)
    body["electricity_usd_per_kwh"] = 0.10
    assert plan(body).costs.electricity_usd == pytest.approx(KWH_4090 * 0.10, abs=0.01)


def test_a_lab_that_only_says_us_gets_the_national_rate_and_carbon() -> None:
    """`{location: "US"}` was a 422 (a carbon row and no price). Now: the US row, 0.1241 USD/kWh (EIA 2022
    commercial average, 12.41 cents) and 366.2 g/kWh (EIA 2023, 1,532 Mt / 4,183,271 GWh), no fallback note."""
    body = owned_4090()
    del body["electricity_usd_per_kwh"]
    body["electricity"] = {"location": "US"}
    result = plan(body)
    assert result.electricity is not None and result.electricity.location == "US"
    assert result.costs.electricity_usd == pytest.approx(KWH_4090 * 0.1241, abs=0.01)  # 73.38 USD
    assert result.carbon is not None and result.carbon.owned_g_co2e_per_kwh == 366.2
    assert result.carbon.owned_kg_co2e == pytest.approx(KWH_4090 * 366.2 / 1000, abs=0.1)  # 216.5 kg
    assert "carbon_owned_fallback" not in [notice.code for notice in result.carbon.notices]


def test_a_texas_lab_gets_texas_carbon_not_the_us_average() -> None:
    body = owned_4090()
    del body["electricity_usd_per_kwh"]
    body["electricity"] = {"location": "US-TX"}
    result = plan(body)
    # US-TX: 0.0882 USD/kWh (EIA 2023 commercial, 8.82 cents); eGRID2022 821.9 lb/MWh x 0.453592 = 372.8 g/kWh
    assert result.costs.electricity_usd == pytest.approx(KWH_4090 * 0.0882, abs=0.01)
    assert result.carbon is not None and result.carbon.owned_g_co2e_per_kwh == 372.8
    assert "carbon_owned_fallback" not in [notice.code for notice in result.carbon.notices]
    assert not any("US-TX" in note for note in result.carbon.notes)


def test_london_rate_from_desnz_converted_at_the_ecb_rates() -> None:
    body = owned_4090()
    del body["electricity_usd_per_kwh"]
    body["electricity"] = {"location": "GB"}
    # GB row: 0.2876 GBP/kWh (DESNZ non-domestic, Small band, 2026 Q1); in USD 0.2876 / 0.86790 x 1.1794 = 0.39082
    usd_per_kwh = 0.2876 / EUR_GBP * EUR_USD
    result = plan(body)
    assert result.electricity is not None and result.electricity.location == "GB"
    assert result.costs.electricity_usd == pytest.approx(KWH_4090 * usd_per_kwh, abs=0.01)  # 591.3 kWh: 231.09 USD
    body["currency"] = "GBP"
    in_gbp = plan(body)
    assert in_gbp.electricity is not None and in_gbp.electricity.price_per_kwh == pytest.approx(0.2876)
    assert in_gbp.costs.electricity_usd == pytest.approx(KWH_4090 * 0.2876, abs=0.01)  # 170.06 GBP


def test_a_toronto_lab_gets_the_ontario_rate_and_the_canadian_grid() -> None:
    body = owned_4090()
    del body["electricity_usd_per_kwh"]
    body["electricity"] = {"location": "CA-ON"}
    body["currency"] = "CAD"
    result = plan(body)
    # CA-ON row: 0.1365 CAD/kWh (Hydro-Quebec 2022, Toronto); carbon: Canada's 170 g/kWh, marked as a fallback
    assert result.costs.electricity_usd == pytest.approx(KWH_4090 * 0.1365, abs=0.01)  # 80.71 CAD
    assert result.carbon is not None and result.carbon.owned_g_co2e_per_kwh == 170
    assert result.carbon.owned_kg_co2e == pytest.approx(KWH_4090 * 170 / 1000, abs=0.1)  # 100.5 kg
    assert any("CA-ON" in note and "Canada" in note for note in result.carbon.notes)


@pytest.mark.parametrize(("electricity", "rule"), [
    ({"location": "XX"}, "known_location"),
    ({"location": "JP"}, "known_location"),  # Japan: a carbon intensity, no price in the table
])
def test_unknown_location_names_the_field(electricity: dict[str, Any], rule: str) -> None:
    body = owned_4090()
    del body["electricity_usd_per_kwh"]
    body["electricity"] = electricity
    with pytest.raises(ProfileError) as error:
        plan(body)
    assert (error.value.field, error.value.rule) == ("electricity.location", rule)


def test_unknown_input_currency_names_the_field() -> None:
    body = owned_4090()
    body["prices"]["owned"][0]["currency"] = "XYZ"
    with pytest.raises(ProfileError) as error:
        plan(body)
    assert (error.value.field, error.value.rule) == ("prices.owned[0].currency", "known_currency")


def test_a_quote_in_leva_converts_at_the_fixed_euro_rate() -> None:
    """BGN left the ECB's set when the euro replaced it (2026-01-01, 1.95583 lev per euro): a 3,911.66 BGN box is
    3,911.66 / 1.95583 = 2,000.00 EUR = 2,000 x 1.1794 = 2,358.80 USD, and the plan names the fixed rate's source."""
    body = owned_4090()
    body["prices"]["owned"][0].update(unit_price_usd=3911.66, currency="BGN")
    result = plan(body)
    assert result.buy[0].unit_price_usd == pytest.approx(3911.66 / 1.95583 * EUR_USD, abs=0.01)
    assert result.buy[0].unit_price_usd == pytest.approx(2358.80, abs=0.01)
    (bgn,) = [r for r in result.exchange_rates.rates if r.currency == "BGN"]
    assert bgn.units_per_eur == 1.95583 and "1.95583" in (bgn.fixed_rate_source or "")
    assert all(r.fixed_rate_source is None for r in result.exchange_rates.rates if r.currency != "BGN")


def test_currency_round_trip() -> None:
    """The same profile with every money input in GBP and the plan in GBP is the USD plan, converted."""
    usd_body = simple_profile([owned_item(2000)], [cloud_item(0.9)], utilisation=0.5, months=24, rate=0.12,
                              resale=True, max_capex_usd=5000)
    gbp = EUR_GBP / EUR_USD  # pounds per dollar
    gbp_body = simple_profile([owned_item(2000 * gbp, currency="GBP")], [cloud_item(0.9 * gbp, currency="GBP")],
                              utilisation=0.5, months=24, rate=0.12, resale=True, max_capex_usd=5000 * gbp,
                              max_capex_currency="GBP")
    del gbp_body["electricity_usd_per_kwh"]
    gbp_body["electricity"] = {"price_per_kwh": 0.12 * gbp, "currency": "GBP"}
    gbp_body["currency"] = "GBP"
    in_usd, in_gbp = plan(usd_body), plan(gbp_body)
    assert in_usd.currency == "USD" and in_gbp.currency == "GBP"
    assert [(b.gpu, b.count) for b in in_gbp.buy] == [(b.gpu, b.count) for b in in_usd.buy] != []
    assert in_gbp.total_cost_usd / gbp == pytest.approx(in_usd.total_cost_usd, abs=0.05)
    assert in_gbp.costs.capex_usd == pytest.approx(2000 * gbp, abs=0.01)
    assert in_gbp.exchange_rates is not None and in_gbp.exchange_rates.as_of == "2026-02-06"
    shown = {r.currency: r.units_per_eur for r in in_gbp.exchange_rates.rates}
    assert shown["GBP"] == EUR_GBP and shown["USD"] == EUR_USD


def test_owned_carbon_by_hand() -> None:
    body = owned_4090()
    body["electricity"] = {"location": "FR"}  # France 2023: 56 gCO2e/kWh (OWID/Ember)
    carbon = plan(body).carbon
    assert carbon is not None and carbon.owned_kwh == pytest.approx(KWH_4090, abs=0.01)
    assert carbon.owned_kg_co2e == pytest.approx(591.3 * 0.056, abs=0.01)  # 33.11 kg
    assert carbon.rented_kg_co2e == 0


def test_rented_carbon_by_hand_and_the_carbon_price_in_the_cloud_cost() -> None:
    # aws eu-west-3 is Paris (FR, 56 g/kWh); RTX 4090 450 W; cloud PUE 1.57 (Uptime Institute 2021 average)
    kg = HOURS * 0.450 * 1.57 * 0.056  # 51.99 kg
    free = plan(cloud_4090())
    assert free.carbon is not None and free.carbon.rented_kg_co2e == pytest.approx(kg, abs=0.01)
    assert free.costs.cloud_usd == pytest.approx(HOURS * 0.5, abs=0.01)
    priced = plan(cloud_4090(carbon_price_per_tonne=100))
    assert priced.costs.cloud_usd == pytest.approx(HOURS * 0.5 + kg * 0.1, abs=0.01)  # + 5.20 USD
    assert priced.carbon is not None and priced.carbon.carbon_cost == pytest.approx(kg * 0.1, abs=0.01)


def test_a_carbon_price_can_move_the_work_to_a_cleaner_grid() -> None:
    """Two equal offers, 0.001 USD/h apart: the cheaper in Germany (381 g), the dearer in France (56 g).
    Without a price the German one wins; at 100 USD/t the difference per hour is
    0.45 x 1.57 x (0.381 - 0.056) x 0.1 = 0.0230 USD > 0.001, so France wins."""
    offers = [cloud_item(0.500, gpu="RTX 4090", provider="aws", region="eu-central-1", name="de"),
              cloud_item(0.501, gpu="RTX 4090", provider="aws", region="eu-west-3", name="fr")]
    body = simple_profile([], offers, utilisation=0.15, months=12, allow_buy=False)
    body["demand"]["reference_gpu"] = "RTX 4090"
    assert [c.name for c in plan(body).cloud] == ["de"]
    body["options"]["carbon_price_per_tonne"] = 100
    assert [c.name for c in plan(body).cloud] == ["fr"]


def test_vat_and_duty_on_purchases_only() -> None:
    body = owned_4090(vat_percent=19, import_duty_percent=5)
    result = plan(body)
    assert result.buy[0].unit_price_usd == pytest.approx(2000 * 1.24)
    assert result.costs.electricity_usd == pytest.approx(KWH_4090 * 0.1, abs=0.01)  # energy untaxed
    assert result.purchase_tax is not None and "gross" in result.purchase_tax.note
    cloud = plan(cloud_4090(vat_percent=19))
    assert cloud.costs.cloud_usd == pytest.approx(HOURS * 0.5, abs=0.01)


def test_every_usd_field_of_the_plan_is_listed_as_money() -> None:
    """A money field added to the plan but not to MONEY_FIELDS would stay in USD in a EUR plan."""
    missing = []
    modules = (solvers.base.result, solvers.base.plan_lines, solvers.base.break_even_result, solvers.base.inputs_used)
    models = {name: model for module in modules for name, model in vars(module).items()
              if isinstance(model, type) and issubclass(model, BaseModel) and model.__module__ == module.__name__}
    assert {"PlanResult", "BuyLine", "BreakEven", "CarbonReport"} <= set(models)
    for name, model in models.items():
        for field in model.model_fields:
            if "usd" in field and field not in MONEY_FIELDS.get(name, {}) and f"{name}.{field}" not in STAYS_USD:
                missing.append(f"{name}.{field}")
    assert missing == []


def test_opex_and_cloud_storage_prices_in_euros_are_converted() -> None:
    # maintenance EUR 100 per GPU-year (of 8,766 h) on one owned RTX 4090 for the 8,760 h of 2027:
    # 100 x 1.1794 x 8,760 / 8,766 = USD 117.86; cloud storage of 1,000 GB at EUR 0.02 per GB-month while renting,
    # 12 months: 240 EUR = USD 283.06
    owned = owned_4090(opex={"maintenance_usd_per_gpu_year": 100, "currency": "EUR"})
    in_usd = owned_4090(opex={"maintenance_usd_per_gpu_year": 100 * EUR_USD})
    assert plan(owned).costs.opex_usd == pytest.approx(100 * EUR_USD * 8760 / 8766, abs=0.01)
    assert plan(owned).total_cost_usd == pytest.approx(plan(in_usd).total_cost_usd, abs=0.01)
    rented = plan(cloud_4090(cloud_data={"dataset_gb": 1000, "storage_usd_per_gb_month": 0.02, "currency": "EUR"}))
    assert rented.costs.cloud_data_usd == pytest.approx(12 * 1000 * 0.02 * EUR_USD, abs=0.01)
    with pytest.raises(ProfileError) as info:
        plan(owned_4090(opex={"maintenance_usd_per_gpu_year": 100, "currency": "XYZ"}))
    assert info.value.field == "options.opex.currency"
