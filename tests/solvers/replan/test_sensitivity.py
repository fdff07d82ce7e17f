"""Sensitivity by re-planning: each input moved alone to the ends of its stated range, every end a whole plan."""

from __future__ import annotations

import copy
import datetime as dt

import pytest

from pricing.catalog import Catalog, bundled_catalog
from service.plans.examples import CATALOG_EXAMPLE, WORKED_EXAMPLE
from solvers.base.profile import Profile
from solvers.plan import make_plan
from solvers.replan.sensitivity import RANGES, sensitivity
from tests.conftest import cloud_item, owned_item, simple_profile

TODAY = dt.date(2026, 11, 23)


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return bundled_catalog()


def test_the_worked_example_moves_with_hardware_and_electricity(catalog: Catalog) -> None:
    profile = Profile.model_validate(WORKED_EXAMPLE)
    found = sensitivity(profile, catalog, TODAY)
    base = make_plan(profile, catalog, TODAY)
    assert found.base_total_usd == pytest.approx(base.total_cost_usd)
    rows = {r.input: r for r in found.rows}
    hardware = rows["hardware_prices"]
    capex = base.costs.capex_usd
    # one desktop bought at 0.75x and 1.5x its price: the totals move by exactly the capex share
    assert hardware.low_total_usd == pytest.approx(base.total_cost_usd - 0.25 * capex, abs=0.05)
    assert hardware.high_total_usd == pytest.approx(base.total_cost_usd + 0.5 * capex, abs=0.05)
    electricity = rows["electricity"]
    assert electricity.base_value == 0.12 and electricity.low_value == pytest.approx(0.06)
    assert electricity.low_total_usd is not None and electricity.high_total_usd is not None
    assert electricity.low_total_usd < found.base_total_usd < electricity.high_total_usd
    swings = [r.swing_usd for r in found.rows]
    assert swings == sorted(swings, reverse=True)


def test_double_the_demand_turns_renting_into_buying(catalog: Catalog) -> None:
    """Hand-checkable: a 1,000 USD GPU against 1 USD/h over a year (guide's simplifications, 0.045 kW-h at 0.1).
    At 8% renting costs 700.80 and buying 1,031.54: rent. Doubled work (16%) rents for 1,401.60 and buys for
    1,063.07: buy. The same GPU busy twice the hours, not twice the GPUs at once."""
    profile = Profile.model_validate(simple_profile([owned_item(1000)], [cloud_item(1.0)], utilisation=0.08))
    found = sensitivity(profile, catalog, TODAY)
    assert found.base_decision == "rent only"
    assert found.base_total_usd == pytest.approx(0.08 * 8760, abs=0.01)
    demand = next(r for r in found.rows if r.input == "demand_scale")
    assert demand.low_decision == "rent only" and demand.high_decision.startswith("buy ")
    # the same decision as items, for a page that writes it in its language: nothing bought, then the one GPU
    assert demand.low_purchases == [] and demand.high_purchases is not None
    assert [(b.count, b.name) for b in demand.high_purchases] == [(1, profile.prices.owned[0].name)]
    assert demand.high_decision == f"buy 1 x {demand.high_purchases[0].name}"
    assert demand.low_total_usd == pytest.approx(0.04 * 8760, abs=0.01)
    assert demand.high_total_usd == pytest.approx(1000 + 0.16 * 8760 * 0.045, abs=0.01)
    assert demand.decision_changes
    cloud = next(r for r in found.rows if r.input == "cloud_prices")
    assert cloud.low_total_usd == pytest.approx(found.base_total_usd / 2, rel=1e-3)  # renting only: linear in price


def test_every_stated_range_is_used_when_resale_applies(catalog: Catalog) -> None:
    profile = copy.deepcopy(CATALOG_EXAMPLE)
    profile.setdefault("options", {})["resale"] = True
    found = sensitivity(Profile.model_validate(profile), catalog, TODAY)
    assert {r.input for r in found.rows} == {r.key for r in RANGES}
    horizon = next(r for r in found.rows if r.input == "horizon")
    assert (horizon.low_value, horizon.high_value) == (horizon.base_value / 2, horizon.base_value * 2)


def test_an_end_beyond_the_bounds_has_no_plan_rather_than_an_error(catalog: Catalog) -> None:
    from solvers.base.bounds import MAX_GPUS

    profile = copy.deepcopy(CATALOG_EXAMPLE)
    # the largest lab allowed, busy 80% of the hours: double the work needs 1.6 x MAX_GPUS at once, not a profile
    profile["demand"]["gpus"] = MAX_GPUS
    profile["demand"]["utilisation"] = 0.8
    profile["prices"] = {"mode": "replace", "owned": [], "cloud": [
        {"provider": "p", "name": "vm", "gpu": "RTX 3090", "usd_per_hour": 0.5}]}
    profile["options"] = {"allow_buy": False}
    found = sensitivity(Profile.model_validate(profile), catalog, TODAY)
    demand = next(r for r in found.rows if r.input == "demand_scale")
    assert demand.high_total_usd is None and demand.high_decision == "no feasible plan"
    assert demand.high_purchases is None  # no plan: no items, unlike renting only (an empty list)
    assert demand.low_total_usd == pytest.approx(found.base_total_usd / 2, rel=1e-3)


def test_dearer_capital_turns_a_marginal_purchase_into_renting(catalog: Catalog) -> None:
    """The discount-rate row (issue 16's cost of capital), by hand: one GPU busy every hour for 36 months, rented
    at $1/h (26,304 h: $26,304 nominal) or bought for $23,000 (100 W at $0.10/kWh: $263; no resale). Undiscounted,
    buying is cheaper; at 15% a year (1.25% a month) the 36 monthly cloud bills are worth about 0.80 of their
    sum today (annuity factor 28.8 / 36), about $21,100 < $23,000, so renting wins."""
    profile = Profile.model_validate({
        "workload": "transformer_training",
        "demand": {"gpus": 1, "utilisation": 1.0, "reference_gpu": "RTX 3090", "start": "2027-01-01"},
        "horizon_months": 36, "electricity_usd_per_kwh": 0.10, "options": {"resale": False},
        "prices": {"mode": "replace",
                   "owned": [{"name": "box", "gpu": "RTX 3090", "unit_price_usd": 23_000, "watts": 100,
                              "idle_watts": 0, "includes_host": True}],
                   "cloud": [{"provider": "p", "name": "vm", "gpu": "RTX 3090", "usd_per_hour": 1.0,
                              "region": "r"}]}})
    found = sensitivity(profile, catalog, TODAY)
    row = next(r for r in found.rows if r.input == "discount_rate")
    assert (row.low_value, row.high_value, row.unit) == (0.0, 0.15, "per year")
    assert found.base_decision == row.low_decision == "buy 1 x box"
    assert row.high_decision == "rent only" and row.decision_changes
    assert row.high_total_usd == pytest.approx(26_304.0, abs=1.0)  # nominal: what renting pays


def test_electricity_moves_around_the_rate_of_the_place_not_the_default(catalog: Catalog) -> None:
    """A plan in euros at a German socket: the electricity row is half to double Germany's rate (in USD, the row's
    unit), not of the 0.175 USD/kWh default the profile would get without a place."""
    from service.plans.examples import PLACE_EXAMPLE
    from solvers.replan.sensitivity import _base_value, _variant

    profile = Profile.model_validate(PLACE_EXAMPLE)
    base = make_plan(profile, catalog, TODAY)
    assert base.electricity is not None and base.exchange_rates is not None
    eur = next(r.usd_per_unit for r in base.exchange_rates.rates if r.currency == "EUR")
    # the plan states the rate in EUR; the row in USD: EUR/kWh x USD per EUR
    expected = base.electricity.price_per_kwh * eur
    value, unit = _base_value("electricity", profile, base)
    assert unit == "USD/kWh" and value == pytest.approx(expected) and value != pytest.approx(0.175)
    moved, _ = _variant("electricity", profile, catalog, 0.5, base)
    assert moved.electricity_usd_per_kwh == pytest.approx(expected / 2)
