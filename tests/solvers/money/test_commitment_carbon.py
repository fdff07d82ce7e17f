"""Issue 16 audit, item 1: reserved / committed instances emit CO2e and carry the carbon price.

Hand figures: one H100 SXM (board power 700 W, gpus.csv) reserved for 12 months from 2027-01-01 in aws us-east-1
(Virginia, US-VA: 267.6 gCO2e/kWh, EPA eGRID2022 state rate), cloud PUE 1.57 (the default).
A reserved instance is held, and counted, every hour of its term: 8,760 h (2027).
  kWh = 0.7 kW x 8,760 h x 1.57 = 9,627.24 kWh;  kg = 9,627.24 x 0.2676 = 2,576.249 kgCO2e.
At $1,000/t ($1/kg) the carbon price of one held hour is 0.7 x 1.57 x 0.2676 = $0.2940924/h, paid hourly.
On demand costs $10/h, the commitment $6/h: without a carbon price reserving pays above 60% utilisation
(6 / 10); at $1,000/t above 6.2940924 / 10.2940924 = 61.14%. So at 61% utilisation the plan reserves without a
carbon price and rents on demand with one: before the fix the carbon price (on demand only) pushed it to reserve.
"""

from __future__ import annotations

from typing import Any

import pytest

from pricing.catalog import Catalog, bundled_catalog
from solvers.base.profile import Profile
from solvers.base.result import PlanResult
from solvers.plan import make_plan
from tests.conftest import TODAY, simple_profile

KWH = 0.7 * 8760 * 1.57  # 9,627.24
KG = KWH * 267.6 / 1000  # 2,576.249
ADDER = 0.7 * 1.57 * 267.6 / 1000  # $0.2940924 per held hour at $1/kg


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return bundled_catalog()


def _plan(catalog: Catalog, utilisation: float, price: float | None = None,
          payment: str = "no_upfront") -> PlanResult:
    body: dict[str, Any] = simple_profile(
        [], [{"provider": "aws", "name": "h1", "gpu": "H100 SXM", "usd_per_hour": 10.0, "region": "us-east-1"}],
        utilisation=utilisation, months=12, allow_buy=False)
    body["demand"]["reference_gpu"] = "H100 SXM"
    body["prices"]["commitments"] = [{"provider": "aws", "name": "h1", "gpu": "H100 SXM", "usd_per_hour": 6.0,
                                      "term_months": 12, "region": "us-east-1", "payment": payment}]
    if price is not None:
        body["options"]["carbon_price_per_tonne"] = price
    return make_plan(Profile.model_validate(body), catalog, TODAY)


def test_a_reserved_h100_emits_every_held_hour(catalog: Catalog) -> None:
    plan = _plan(catalog, 0.9)
    assert pytest.approx(2576.249, abs=1e-3) == KG
    line = plan.commitments[0]
    assert (line.count, line.paid_hours, line.kg_co2e) == (1, 8760.0, pytest.approx(KG, abs=1e-3))
    carbon = plan.carbon
    assert carbon is not None and not plan.cloud
    assert carbon.rented_kg_co2e == pytest.approx(2576.249, abs=1e-3)
    assert carbon.committed_kg_co2e == pytest.approx(2576.249, abs=1e-3)
    region = carbon.regions[0]
    assert (region.provider, region.region, region.location) == ("aws", "us-east-1", "US-VA")
    assert (region.instance_hours, region.committed_instance_hours) == (0.0, 8760.0)
    assert region.kwh == pytest.approx(KWH, abs=1e-3)
    assert line.on_demand_usd_per_hour == 10.0  # the profile's own on-demand quote of the same instance


@pytest.mark.parametrize("payment", ["no_upfront", "all_upfront"])
def test_the_carbon_price_is_paid_on_every_held_hour(catalog: Catalog, payment: str) -> None:
    plan = _plan(catalog, 0.9, price=1000, payment=payment)
    line = plan.commitments[0]
    assert line.carbon_usd_per_hour == pytest.approx(ADDER, abs=1e-6)
    # 6 x 8,760 = 52,560 for the instance (all upfront: 6 x 730 x 12 = 52,560 at the start), + 8,760 x 0.2940924
    assert plan.total_cost_usd == pytest.approx(52_560.0 + 2_576.25, abs=0.01)
    assert line.cost_usd == pytest.approx(55_136.25, abs=0.01)
    assert plan.carbon is not None and plan.carbon.carbon_cost == 2_576.25  # rounded to the cent
    if payment == "all_upfront":  # the fee stays the provider's; the carbon price comes hour by hour
        assert line.upfront_usd == 52_560.0
        assert plan.cash_flows[0].commitments_usd == 52_560.0
        assert plan.cash_flows[1].commitments_usd == pytest.approx(744 * ADDER, abs=0.01)  # January 2027


def test_a_carbon_price_no_longer_favours_reserving(catalog: Catalog) -> None:
    assert 6.0 / 10.0 < 0.61 < (6.0 + ADDER) / (10.0 + ADDER)
    free = _plan(catalog, 0.61)
    assert [m.count for m in free.commitments] == [1] and not free.cloud
    priced = _plan(catalog, 0.61, price=1000)
    assert not priced.commitments
    assert priced.cloud[0].hours == pytest.approx(0.61 * 8760, abs=1e-6)
    assert priced.total_cost_usd == pytest.approx(0.61 * 8760 * (10.0 + ADDER), abs=0.01)  # 55,586.55
