"""Issue 16: when a commitment is paid. An all-upfront term is paid at its start, a partial-upfront term pays its fee
there and the rest hourly, a no-upfront term every month; the cash-flow table and the present value follow.

Hand figures: a plan from 2027-01-01 over 24 months holds two 12-month terms (2027 and 2028, starting at t = 0 and
t = 12 months); providers price a term at 730 h a month, so an all-upfront term at $6/h costs 6 x 730 x 12 = $52,560.
2027 has 8,760 h, 2028 8,784 h (leap year). Discounting: (1 + r/12)^-t, t in months; at 12%, 1.01^-12 = 0.887449.
"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from pricing.catalog import Catalog, bundled_catalog
from solvers.base.profile import Profile
from solvers.plan import make_plan
from tests.conftest import TODAY, cloud_item, simple_profile

MONTH_HOURS = [24.0 * d for d in (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31,
                                  31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)]  # 2027 then 2028
V = 1.01 ** -12  # 0.887449


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return bundled_catalog()


def _profile(payment: str, rate: float = 0.12, months: int = 24, **quote: Any) -> dict[str, Any]:
    """One H100 busy 90% of the time: on demand $10/h, or a 12-month commitment at $6/h (reserving pays above 60%)."""
    profile = simple_profile([], [cloud_item(10.0, gpu="H100 SXM", name="h1")], utilisation=0.9, months=months,
                             allow_buy=False, discount_rate=rate)
    profile["demand"]["reference_gpu"] = "H100 SXM"
    profile["prices"]["commitments"] = [{"provider": "testcloud", "name": "h1", "gpu": "H100 SXM",
                                         "usd_per_hour": 6.0, "term_months": 12, "region": "r1", "payment": payment,
                                         **quote}]
    return profile


def _plan(profile: dict[str, Any], catalog: Catalog) -> Any:
    return make_plan(Profile.model_validate(profile), catalog, TODAY)


def test_all_upfront_terms_are_paid_at_their_starts(catalog: Catalog) -> None:
    plan = _plan(_profile("all_upfront"), catalog)
    line = plan.commitments[0]
    assert (line.count, line.terms, line.payment, line.upfront_usd) == (1, 2, "all_upfront", 52_560.0)
    flows = {f.month: f for f in plan.cash_flows}
    # the 2027 term at the start; the 2028 term in the row dated 2028-01-01 (period 2027-12, counted at its end)
    assert flows["start"].commitments_usd == 52_560.0 and flows["start"].net_usd == 52_560.0
    assert flows["2027-12"].date == "2028-01-01" and flows["2027-12"].commitments_usd == 52_560.0
    assert [f.commitments_usd for f in plan.cash_flows if f.month not in ("start", "2027-12")] == [0.0] * 23
    # nominal 2 x 52,560 = 105,120; present value 52,560 x (1 + 0.887449) = 99,204.33
    assert plan.total_cost_usd == pytest.approx(105_120.0, abs=0.01)
    assert plan.costs.commitments_usd == pytest.approx(105_120.0, abs=0.01)
    assert plan.costs.present_value_usd == pytest.approx(52_560.0 * (1 + V), abs=0.02)
    assert plan.costs.present_value_usd == pytest.approx(99_204.33, abs=0.02)


def test_partial_upfront_pays_the_fee_at_the_start_and_the_rest_hourly(catalog: Catalog) -> None:
    plan = _plan(_profile("partial_upfront", upfront_usd=20_000.0), catalog)
    # the hourly part: 6 - 20,000 / (730 x 12) = 6 - 2.283105 = 3.716895 $/h
    hourly = 6.0 - 20_000.0 / 8760.0
    assert hourly == pytest.approx(3.716895, abs=1e-6)
    flows = plan.cash_flows
    assert flows[0].commitments_usd == 20_000.0
    assert flows[1].month == "2027-01" and flows[1].commitments_usd == pytest.approx(744 * hourly, abs=0.01)  # 2,765.37
    assert flows[12].month == "2027-12" and flows[12].commitments_usd == pytest.approx(20_000 + 744 * hourly, abs=0.01)
    # nominal: 2 fees + 17,544 h x 3.716895 = 40,000 + 65,209.21 = 105,209.21
    assert plan.total_cost_usd == pytest.approx(40_000 + 17_544 * hourly, abs=0.02)
    by_hand = 20_000 * (1 + V) + sum(hourly * h * 1.01 ** -(m + 1) for m, h in enumerate(MONTH_HOURS))
    assert plan.costs.present_value_usd == pytest.approx(by_hand, abs=0.02)
    assert plan.commitments[0].cost_usd == pytest.approx(plan.total_cost_usd, abs=0.01)


def test_no_upfront_stays_monthly(catalog: Catalog) -> None:
    plan = _plan(_profile("no_upfront"), catalog)
    assert plan.cash_flows[0].commitments_usd == 0.0
    assert plan.cash_flows[1].commitments_usd == pytest.approx(6.0 * 744)
    assert plan.commitments[0].payment == "no_upfront" and plan.commitments[0].upfront_usd == 0.0
    assert plan.total_cost_usd == pytest.approx(6.0 * sum(MONTH_HOURS))  # 105,264: calendar hours, 2028 is leap


def test_paying_upfront_costs_more_in_present_value_and_the_plan_weighs_it(catalog: Catalog) -> None:
    """$5.80/h all upfront (50,808 at t = 0) against $6/h monthly over 2027 (52,560 nominal): upfront is cheaper
    undiscounted; at 12% the monthly bills are worth 6 x sum(h_m x 1.01^-m) = 49,284 < 50,808, so the plan pays
    monthly. Both quotes cover the same instance; only one is needed."""
    def both(rate: float) -> Any:
        profile = _profile("no_upfront", rate=rate, months=12)
        profile["prices"]["commitments"].append({**profile["prices"]["commitments"][0], "name": "h1-upfront",
                                                 "usd_per_hour": 5.8, "payment": "all_upfront"})
        return _plan(profile, catalog)

    monthly_pv = sum(6.0 * h * 1.01 ** -(m + 1) for m, h in enumerate(MONTH_HOURS[:12]))
    assert monthly_pv == pytest.approx(49_284.41, abs=0.01)
    undiscounted = both(0.0)
    assert [(c.name, c.payment) for c in undiscounted.commitments] == [("h1-upfront", "all_upfront")]
    assert undiscounted.total_cost_usd == pytest.approx(5.8 * 8760, abs=0.01)  # 50,808
    discounted = both(0.12)
    assert [(c.name, c.payment) for c in discounted.commitments] == [("h1", "no_upfront")]
    assert discounted.costs.present_value_usd == pytest.approx(monthly_pv, abs=0.02)


def test_upfront_fee_rules() -> None:
    with pytest.raises(ValidationError, match="needs upfront_usd"):
        Profile.model_validate(_profile("partial_upfront"))
    with pytest.raises(ValidationError, match="partial_upfront only"):
        Profile.model_validate(_profile("all_upfront", upfront_usd=1000.0))
    with pytest.raises(ValidationError, match="exceeds the term's price"):
        Profile.model_validate(_profile("partial_upfront", upfront_usd=60_000.0))  # > 6 x 8,760 = 52,560


def test_commitment_quotes_in_another_currency(catalog: Catalog) -> None:
    """A quote in EUR is converted like every other input: 6 EUR/h and a 20,000 EUR fee at the bundled rate."""
    usd_per_eur = catalog.fx.usd_per_unit("EUR")  # 1.1794 on 2026-02-06
    plan = _plan(_profile("partial_upfront", upfront_usd=20_000.0, currency="EUR"), catalog)
    assert plan.commitments[0].usd_per_hour == pytest.approx(6.0 * usd_per_eur, abs=1e-6)
    assert plan.commitments[0].upfront_usd == pytest.approx(20_000.0 * usd_per_eur, abs=0.01)
    assert "EUR" in [r.currency for r in plan.exchange_rates.rates]
