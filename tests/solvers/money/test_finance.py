"""Issue 16 (solver side): present values, loans, depreciation, commitments, opex, each checked by hand.

Hand figures: 2027 has 8,760 hours (365 days), and a 12-month term from 2027-01-01 runs the calendar year;
the discount convention is (1 + r/12)^-t with t in calendar months (solvers/base/finance.py).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import numpy as np
import pytest

from pricing.catalog import Catalog, bundled_catalog
from solvers.base.finance import (
    Financing,
    Weights,
    annuity_payment,
    capex_schedule,
    declining_balance,
    discount,
    months_between,
    months_to,
    straight_line,
)
from solvers.base.profile import Profile
from solvers.model.arrays import Limits
from solvers.model.solve import solve
from solvers.plan import make_plan, solve_core
from tests.conftest import TODAY, cloud_item, owned_item, simple_profile

HOURS_2027 = 8760.0
TERM_12 = 8760.0  # 2027-01-01 to 2028-01-01
MONTH_HOURS_2027 = [24.0 * d for d in (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)]


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return bundled_catalog()


def _plan(profile: dict[str, Any], catalog: Catalog) -> Any:
    return make_plan(Profile.model_validate(profile), catalog, TODAY)


# --- present value, loans, depreciation -----------------------------------------------------------------------


def test_present_value_of_a_monthly_stream_by_hand() -> None:
    # $100 at the end of each month for a year at 12% (1% a month): 100 x (1 - 1.01^-12) / 0.01
    # 1.01^12 = 1.126825, 1 / 1.126825 = 0.887449, (1 - 0.887449) / 0.01 = 11.2551 -> $1,125.51
    pv = float(np.dot(np.full(12, 100.0), discount(0.12, np.arange(1, 13))))
    assert pv == pytest.approx(1125.51, abs=0.01)
    assert float(discount(0.0, 7.5)) == 1.0


def test_calendar_months() -> None:
    start = dt.date(2027, 1, 1)
    assert months_between(start, dt.date(2027, 3, 1)) == 2.0
    assert months_between(start, dt.date(2027, 1, 16)) == pytest.approx(15 / 31)  # half of January
    assert months_between(dt.date(2027, 1, 31), dt.date(2027, 2, 28)) == 1.0  # clipped to February's end
    days = [dt.date(2027, 2, 1), dt.date(2027, 1, 16), dt.date(2028, 1, 1), dt.date(2027, 3, 1)]
    assert months_to(start, days).tolist() == pytest.approx([months_between(start, d) for d in days])


def test_annuity_payment_by_hand() -> None:
    # $10,000 at 6% over 36 months: 50 / (1 - 1.005^-36); 1.005^36 = 1.196681 -> 50 / 0.164355 = 304.22
    assert annuity_payment(10_000, 0.06, 36) == pytest.approx(304.22, abs=0.01)
    assert annuity_payment(12_000, 0.0, 24) == 500.0


@pytest.mark.parametrize("horizon_months", [48.0, 36.0, 12.0, 7.5])
def test_financing_at_the_discount_rate_is_pv_neutral(horizon_months: float) -> None:
    schedule = capex_schedule(Financing(0.06, 36, down_payment=0.2), horizon_months)
    assert schedule.present_value(0.06) == pytest.approx(1.0, abs=1e-9)
    # nominal: 0.2 + 0.8 x 36 x 0.0304219 = 1.07615 when the loan ends within the horizon
    if horizon_months >= 36:
        assert schedule.nominal == pytest.approx(0.2 + 0.8 * 36 * 0.0304219, abs=1e-5)
    # at a higher discount rate the loan is worth less than cash today; at a lower one, more
    assert schedule.present_value(0.10) < 1.0 < schedule.present_value(0.02)


def test_cash_purchase_is_one_dollar_at_the_start() -> None:
    schedule = capex_schedule(None, 24.0)
    assert schedule.nominal == 1.0 and schedule.present_value(0.1) == 1.0


def test_straight_line_by_hand() -> None:
    rows = straight_line(10_000, 5)
    assert [r.depreciation for r in rows] == [2000.0] * 5
    assert [r.closing_book_value for r in rows] == [8000.0, 6000.0, 4000.0, 2000.0, 0.0]
    with_salvage = straight_line(10_000, 5, salvage=1000)
    assert [r.depreciation for r in with_salvage] == pytest.approx([1800.0] * 5)
    assert with_salvage[-1].closing_book_value == pytest.approx(1000.0)


def test_double_declining_balance_by_hand() -> None:
    # rate 2/5 = 40%: 4000 (of 10000), 2400 (of 6000), 1440 (of 3600), 864 (of 2160), the rest 1296
    rows = declining_balance(10_000, 5)
    assert [r.depreciation for r in rows] == pytest.approx([4000, 2400, 1440, 864, 1296])
    assert [r.opening_book_value for r in rows] == pytest.approx([10_000, 6000, 3600, 2160, 1296])
    assert rows[-1].closing_book_value == pytest.approx(0.0)
    # a 50% rate with a 3000 salvage: 5000 (of 10000), then only 2000 (5000 - 3000), then nothing
    capped = declining_balance(10_000, 5, rate=0.5, salvage=3000)
    assert [r.depreciation for r in capped] == pytest.approx([5000, 2000, 0, 0, 0])
    assert capped[-1].closing_book_value == pytest.approx(3000)


# --- commitments ------------------------------------------------------------------------------------------------


def _reserved_profile(utilisation: float, **options: Any) -> dict[str, Any]:
    """On-demand at $10/h or a 1-year commitment at $6/h (60%): reserving pays above 60% busy."""
    profile = simple_profile([], [cloud_item(10.0, gpu="H100 SXM", name="h1")], utilisation=utilisation,
                             allow_buy=False, **options)
    profile["demand"]["reference_gpu"] = "H100 SXM"
    profile["prices"]["commitments"] = [{"provider": "testcloud", "name": "h1", "gpu": "H100 SXM",
                                         "usd_per_hour": 6.0, "term_months": 12, "region": "r1"}]
    return profile


@pytest.mark.parametrize(("utilisation", "reserves"), [(0.7, True), (0.61, True), (0.5, False), (0.59, False)])
def test_commitment_pays_only_above_its_utilisation(catalog: Catalog, utilisation: float, reserves: bool) -> None:
    # reserved: 6 x 8760 = 52,560 a year, used or not; on demand: 10 x 8760 x u, so u* = 0.6:
    # 0.59 stays on demand (51,684 < 52,560), 0.61 reserves (53,436 > 52,560)
    plan = _plan(_reserved_profile(utilisation), catalog)
    on_demand = 10.0 * HOURS_2027 * utilisation
    if reserves:
        assert [(c.count, c.term_months, c.terms) for c in plan.commitments] == [(1, 12, 1)]
        assert plan.commitments[0].cost_usd == pytest.approx(6.0 * TERM_12)
        assert plan.total_cost_usd == pytest.approx(6.0 * TERM_12)
        assert plan.cloud == []
        assert plan.alternatives.cloud_only is not None  # cloud only may reserve too: nothing is bought
    else:
        assert plan.commitments == []
        assert plan.total_cost_usd == pytest.approx(on_demand)


def test_commitments_off_by_default_without_quotes(catalog: Catalog) -> None:
    profile = _reserved_profile(0.9)
    profile["prices"]["commitments"] = []
    profile["options"]["allow_commitments"] = None
    plan = _plan(profile, catalog)
    assert plan.commitments == []
    explicit_off = _reserved_profile(0.9, allow_commitments=False)
    assert _plan(explicit_off, catalog).commitments == []


def test_a_term_longer_than_the_horizon_is_paid_in_full(catalog: Catalog) -> None:
    profile = _reserved_profile(1.0)
    profile["horizon_months"] = 6
    profile["prices"]["commitments"][0]["term_months"] = 12
    plan = _plan(profile, catalog)
    # six months of on-demand (4,344 h x $10 = 43,440) against a whole year reserved (52,560): on demand
    six_months = sum(MONTH_HOURS_2027[:6])
    assert plan.commitments == [] and plan.total_cost_usd == pytest.approx(10.0 * six_months)
    profile["prices"]["commitments"][0]["usd_per_hour"] = 4.0  # 35,040 for the whole term: now it pays
    plan = _plan(profile, catalog)
    assert plan.commitments[0].cost_usd == pytest.approx(4.0 * TERM_12)
    assert plan.total_cost_usd == pytest.approx(4.0 * TERM_12)
    assert plan.periods[-1].commitments_usd == pytest.approx(4.0 * (MONTH_HOURS_2027[5] + TERM_12 - six_months))


def _bursty_concurrency() -> dict[str, Any]:
    """Every day of 2027: 6 h at 1 GPU, 15 h at 2, 3 h at 3. Level 1 busy 100%, level 2 75%, level 3 12.5%."""
    day = [1.0] * 6 + [2.0] * 15 + [3.0] * 3
    return {"start": "2027-01-01T00:00:00Z", "busy_gpus": day * 365, "reference_gpu": "A100 80GB PCIe"}


def test_own_the_base_reserve_the_middle_rent_the_peak(catalog: Catalog) -> None:
    """Per GPU slot a year: own $8,000 (one GPU allowed), reserve 1.2 x 8760 = $10,512, rent $2 x busy hours.
    Level 2 (6,570 h): reserve < rent 13,140; level 3 (1,095 h): rent 2,190 < reserve."""
    a100 = "A100 80GB PCIe"
    profile = simple_profile([owned_item(8000.0, gpu=a100)], [cloud_item(2.0, gpu=a100, name="h1")], rate=0.0,
                             max_owned_gpus=1)
    profile.pop("horizon_months")
    profile["demand"] = _bursty_concurrency()
    profile["prices"]["commitments"] = [{"provider": "testcloud", "name": "h1", "gpu": "A100 80GB PCIe",
                                         "usd_per_hour": 1.2, "term_months": 12, "region": "r1"}]
    plan = _plan(profile, catalog)
    assert [(b.gpu, b.count) for b in plan.buy] == [("A100 80GB PCIe", 1)]
    assert [c.count for c in plan.commitments] == [1]
    assert [(c.name, round(c.hours, 3)) for c in plan.cloud] == [("h1", 1095.0)]
    assert plan.total_cost_usd == pytest.approx(8000.0 + 1.2 * TERM_12 + 2.0 * 1095.0)
    assert plan.costs.commitments_usd == pytest.approx(1.2 * TERM_12)


# --- cost of capital --------------------------------------------------------------------------------------------


def test_present_value_of_a_plan_by_hand(catalog: Catalog) -> None:
    plan = _plan(_reserved_profile(0.9, discount_rate=0.12), catalog)
    # $6/h every hour of each 2027 month, paid at the month's end (the term is the calendar year)
    paid = [6.0 * h for h in MONTH_HOURS_2027]
    by_hand = sum(v * 1.01 ** -(m + 1) for m, v in enumerate(paid))
    assert plan.costs.present_value_usd == pytest.approx(by_hand, abs=0.02)
    assert plan.total_cost_usd == pytest.approx(sum(paid))  # nominal stays nominal
    flows = plan.cash_flows
    assert [f.month for f in flows][:2] == ["start", "2027-01"] and len(flows) == 13
    assert flows[1].commitments_usd == pytest.approx(6.0 * 744) and flows[1].discount_factor == pytest.approx(1 / 1.01)
    assert flows[-1].cumulative_usd == pytest.approx(plan.total_cost_usd, abs=0.01)
    assert flows[-1].cumulative_present_value_usd == pytest.approx(by_hand, abs=0.02)


def test_discounting_favours_paying_later(catalog: Catalog) -> None:
    """Buy a $9,000 card or rent at $1.15/h every hour of 2027 ($10,074 nominal). At 20% a year the rent's PV is
    about 10,074 x 0.90 = 9,070 > 9,000: still buy; at 40%, about 10,074 x 0.81 = 8,160 < 9,000: rent."""
    base = simple_profile([owned_item(9000.0, watts=1)], [cloud_item(1.15)], utilisation=1.0, rate=0.0)
    assert [b.count for b in _plan(base, catalog).buy] == [1]
    assert [b.count for b in _plan({**base, "options": {**base["options"], "discount_rate": 0.2}}, catalog).buy] == [1]
    rented = _plan({**base, "options": {**base["options"], "discount_rate": 0.4}}, catalog)
    assert rented.buy == [] and rented.cloud


def test_financing_at_the_discount_rate_keeps_the_plan_and_its_present_value(catalog: Catalog) -> None:
    base = simple_profile([owned_item(20_000.0, gpu="A100 80GB PCIe")], [cloud_item(4.0, gpu="A100 80GB PCIe")],
                          utilisation=0.8, months=24, discount_rate=0.08)
    base["demand"]["reference_gpu"] = "A100 80GB PCIe"
    cash = _plan(base, catalog)
    financed_profile = {**base, "options": {**base["options"],
                                            "financing": {"annual_rate": 0.08, "term_months": 36,
                                                          "down_payment": 0.1}}}
    financed = _plan(financed_profile, catalog)
    assert [(b.gpu, b.count) for b in financed.buy] == [(b.gpu, b.count) for b in cash.buy] == [("A100 80GB PCIe", 1)]
    assert financed.costs.present_value_usd == pytest.approx(cash.costs.present_value_usd, abs=0.05)
    assert financed.costs.financing_interest_usd > 0
    assert financed.total_cost_usd == pytest.approx(cash.total_cost_usd + financed.costs.financing_interest_usd,
                                                    abs=0.02)
    assert financed.cash_flows[0].capex_usd == pytest.approx(2000.0)  # the down payment
    loan_payment = annuity_payment(18_000.0, 0.08, 36)
    assert financed.cash_flows[1].capex_usd == pytest.approx(loan_payment, abs=0.01)


def test_break_even_on_the_present_value_basis(catalog: Catalog) -> None:
    base = simple_profile([owned_item(6000.0)], [cloud_item(1.0)], utilisation=1.0, months=24, rate=0.0)
    nominal = _plan(base, catalog)
    discounted = _plan({**base, "options": {**base["options"], "discount_rate": 0.3}}, catalog)
    assert nominal.break_even.days is not None and discounted.break_even.days is not None
    # $24 a day of rent saved repays $6,000 after 250 days nominal; discounted savings take longer
    assert nominal.break_even.days == pytest.approx(250.0, abs=1.0)
    assert discounted.break_even.days > nominal.break_even.days + 5


# --- today's plans unchanged ------------------------------------------------------------------------------------

PROFILES = [
    simple_profile([owned_item(1500.0)], [cloud_item(0.8)], utilisation=0.6),
    simple_profile([owned_item(1500.0), owned_item(900.0, watts=300, gpu="RTX 3080")], [cloud_item(0.5)],
                   utilisation=0.3, months=30),
    simple_profile([owned_item(30_000.0, gpu="H100 SXM", gpus_per_unit=8)], [cloud_item(2.5, gpu="H100 SXM")],
                   utilisation=0.9, rate=0.2),
]


@pytest.mark.parametrize("profile", PROFILES)
def test_discount_rate_zero_is_todays_plan(catalog: Catalog, profile: dict[str, Any]) -> None:
    implicit = _plan(profile, catalog)
    explicit = _plan({**profile, "options": {**profile["options"], "discount_rate": 0.0}}, catalog)
    dump = {k: v for k, v in implicit.model_dump().items() if k != "solver"}
    assert dump == {k: v for k, v in explicit.model_dump().items() if k != "solver"}
    assert implicit.costs.present_value_usd == implicit.total_cost_usd
    assert implicit.cash_flows[-1].cumulative_usd == pytest.approx(implicit.total_cost_usd, abs=0.01)


@pytest.mark.parametrize("profile", PROFILES)
def test_unit_weights_give_the_nominal_model(catalog: Catalog, profile: dict[str, Any]) -> None:
    """The weighted model (discount factors all 1, cash) is the nominal model exactly: same objective, same mix."""
    core = solve_core(Profile.model_validate(profile), catalog, TODAY)
    limits = core.limits
    hours = sum(b.hours for b in core.blocks)
    weighted = Limits(**{**limits.__dict__, "weights": Weights(np.ones(len(core.blocks)), hours, 1.0, 1.0)})
    a = solve(core.owned_main, core.options.cloud, core.options.hosts, core.blocks, limits)
    b = solve(core.owned_main, core.options.cloud, core.options.hosts, core.blocks, weighted)
    assert a.units == b.units and a.hosts == b.hosts
    assert b.objective == pytest.approx(a.objective, rel=1e-9)


# --- operating costs --------------------------------------------------------------------------------------------


def test_owned_opex_line_items_by_hand(catalog: Catalog) -> None:
    opex = {"colocation_usd_per_kw_month": 200.0, "maintenance_usd_per_gpu_year": 120.0,
            "staff_usd_per_gpu_month": 10.0, "staff_hours_per_month": 2.0, "staff_usd_per_hour": 50.0,
            "storage_networking_usd_per_month": 30.0}
    profile = simple_profile([owned_item(1000.0, gpus_per_unit=2, watts=900)], [cloud_item(3.0)], utilisation=1.0,
                             opex=opex)
    profile["demand"]["gpus"] = 2
    plan = _plan(profile, catalog)
    assert [b.count for b in plan.buy] == [1]
    # per hour of 2027 for the 2-GPU unit: colocation 200 x 0.9 kW / 730.5, maintenance 2 x 120 / 8766,
    # staff 2 x 10 / 730.5; then 12 months x (2 h x $50 + $30)
    per_hour = 200 * 0.9 / 730.5 + 2 * 120 / 8766 + 2 * 10 / 730.5
    assert plan.costs.opex_usd == pytest.approx(per_hour * HOURS_2027 + 12 * 130.0, abs=0.01)
    assert plan.total_cost_usd == pytest.approx(plan.costs.capex_usd + plan.costs.electricity_usd
                                                + plan.costs.opex_usd, abs=0.02)
    assert sum(p.opex_usd for p in plan.periods) == pytest.approx(plan.costs.opex_usd, abs=0.1)


def test_fixed_monthly_opex_can_tip_the_plan_to_the_cloud(catalog: Catalog) -> None:
    # buy $1,000 (a year's rent at $0.2/h busy 70% is 1,226.40); $25 a month of storage makes owning 1,300
    profile = simple_profile([owned_item(1000.0, watts=1)], [cloud_item(0.2)], utilisation=0.7, rate=0.0)
    assert [b.count for b in _plan(profile, catalog).buy] == [1]
    profile["options"]["opex"] = {"storage_networking_usd_per_month": 25.0}
    plan = _plan(profile, catalog)
    assert plan.buy == [] and plan.total_cost_usd == pytest.approx(0.2 * 0.7 * HOURS_2027)


def test_the_guides_rtx_4090_electricity_still_about_100_a_year(catalog: Catalog) -> None:
    """DOMAIN §4: 450 W x 15% x 8,760 h x $0.175/kWh = $103.47 a year, with or without the new options."""
    for options in ({}, {"discount_rate": 0.07, "opex": {"maintenance_usd_per_gpu_year": 50.0}}):
        profile = simple_profile([owned_item(1600.0, gpu="RTX 4090", watts=450)], [], utilisation=0.15,
                                 rate=0.175, **options)
        profile["demand"]["reference_gpu"] = "RTX 4090"
        plan = _plan(profile, catalog)
        assert plan.costs.electricity_usd == pytest.approx(0.45 * 0.15 * HOURS_2027 * 0.175, abs=0.01)
        assert 95 <= plan.costs.electricity_usd <= 110


def test_cloud_data_costs_only_while_the_cloud_is_used(catalog: Catalog) -> None:
    """Rent at $0.2/h for 50% of 2027 ($876) or buy a $1,000 box: rent. 1,000 GB kept in the cloud at $0.02 per
    GB-month adds $20 a month while renting ($240): renting now costs $1,116 and buying wins, paying no data cost."""
    profile = simple_profile([owned_item(1000.0, watts=1)], [cloud_item(0.2)], utilisation=0.5, rate=0.0)
    rented = _plan(profile, catalog)
    assert rented.buy == [] and rented.total_cost_usd == pytest.approx(876.0)
    profile["options"]["cloud_data"] = {"dataset_gb": 600, "checkpoints_gb": 400, "storage_usd_per_gb_month": 0.02}
    bought = _plan(profile, catalog)
    assert [b.count for b in bought.buy] == [1] and bought.costs.cloud_data_usd == 0.0
    assert bought.alternatives.cloud_only is not None
    assert bought.alternatives.cloud_only.costs.cloud_data_usd == pytest.approx(240.0)
    assert bought.alternatives.cloud_only.total_cost_usd == pytest.approx(876.0 + 240.0)


def test_cloud_egress_needs_a_price() -> None:
    with pytest.raises(ValueError, match="egress_usd_per_gb"):
        Profile.model_validate(simple_profile([], [cloud_item(1.0)], cloud_data={
            "storage_usd_per_gb_month": 0.02, "egress_gb_per_month": 100}))


def test_catalog_commitments_reserve_the_three_year_term(catalog: Catalog) -> None:
    """Eight H100 busy all the time for 2027-2029 (1,096 days = 26,304 h) at AWS us-east-1 (commitments.csv):
    p5.48xlarge on demand $55.04/h, 1-year reserved $40.4545/h (three terms), 3-year $20.6951/h: the 3-year.
    80 GB of memory leaves out the L40S (its 3-year g6e.xlarge, 27 of them at $0.6997/h, would be cheaper)."""
    profile = simple_profile([], [], utilisation=1.0, months=36, allow_buy=False, allow_commitments=True,
                             providers=["aws"], regions=["us-east-1"])
    profile["prices"] = {}
    profile["demand"].update(gpus=8, reference_gpu="H100 SXM")
    profile["min_gpu_memory_gb"] = 80
    plan = _plan(profile, catalog)
    assert [(c.name, c.count, c.term_months, c.terms) for c in plan.commitments] == [("p5.48xlarge", 1, 36, 1)]
    assert plan.total_cost_usd == pytest.approx(20.6951 * 26_304, abs=0.01)
    assert plan.cloud == []


def test_a_commitment_narrower_than_a_job_is_not_offered(catalog: Catalog) -> None:
    profile = simple_profile([], [cloud_item(2.0, gpu="L40S", gpu_count=2)], utilisation=1.0, allow_buy=False,
                             allow_commitments=True)
    profile["demand"].update(gpus=2, reference_gpu="L40S")  # one 2-GPU job all the time
    profile["jobs"] = {"gpus_per_job": 2}
    profile["prices"]["commitments"] = [
        {"provider": "testcloud", "name": "one", "gpu": "L40S", "gpu_count": 1, "usd_per_hour": 0.1,
         "term_months": 12},
        {"provider": "testcloud", "name": "two", "gpu": "L40S", "gpu_count": 2, "usd_per_hour": 1.0,
         "term_months": 12}]
    core = solve_core(Profile.model_validate(profile), catalog, TODAY)
    assert [o.name for o in core.options.owned if o.is_commitment] == ["two"]
    plan = _plan(profile, catalog)  # $1 x 8,760 h committed against $2 x 8,760 h on demand
    assert [(c.name, c.count) for c in plan.commitments] == [("two", 1)]
    assert plan.total_cost_usd == pytest.approx(8760.0)
