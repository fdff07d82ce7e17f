"""Purchases decided at a later month (issue 32): the split extensive form against enumeration, a purchase that
waits for demand that comes later, and flat demand that buys at once."""

from __future__ import annotations

import datetime as dt
import time
from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from pricing.catalog import Catalog
from solvers.base.finance import Financing, Terms
from solvers.base.profile import Profile
from solvers.demand.blocks import merge_periods, model_weights
from solvers.model.build import build
from solvers.model.solve import solved
from solvers.offers.place_inputs import prepare
from solvers.plan import _solve_prepared, make_plan, today_of
from solvers.uncertainty.decide import build_futures, fix_purchase, split
from solvers.uncertainty.deferral import capex_at, decision_cuts
from solvers.uncertainty.extensive import solve_extensive
from solvers.uncertainty.recourse import evaluate_fixed
from tests.solvers.uncertainty.conftest import TODAY, lab

STILL = {"demand": {"sigma": 0}, "cloud_price_trend": {"per_year": 0, "spread": 0}, "electricity": {"spread": 0},
         "resale": {"spread": 0}, "scenarios": 8, "decision_months": [0, 6]}
DESK = [{"name": "Desk 1x4090", "gpu": "RTX 4090", "gpus_per_unit": 1, "unit_price_usd": 2900, "watts": 600,
         "includes_host": True}]


def _series(before: float, after: float, months: int) -> dict[str, Any]:
    """Reference GPU-hours per month from the plan's start (TODAY): `before` the first six months, `after` then."""
    points = []
    for i in range(months):
        year, month = divmod(TODAY.month - 1 + i, 12)
        points.append({"month": f"{TODAY.year + year}-{month + 1:02d}",
                       "reference_gpu_hours": before if i < 6 else after})
    return {"series": points, "reference_gpu": "RTX 4090"}


def _profile(uncertainty: dict[str, Any], demand: dict[str, Any], months: int, **extra: Any) -> dict[str, Any]:
    return {"workload": "transformer_training", "demand": demand, "horizon_months": months,
            "electricity_usd_per_kwh": 0.15, "uncertainty": uncertainty, **extra}


def test_split_extensive_form_equals_enumeration(catalog: Catalog) -> None:
    """With later purchases, the extensive form's optimum is the best over month-0 units n0 of the mean over futures
    of the best month-6 units n6 in each; each future's cost from its two halves' own models built and solved with
    the units held (apart from the split form): the first half at n0, the second at n0 + n6, every unit's price
    net of resale paid once (nominal basis: the same at month 0 and 6)."""
    option = {"scenarios": 6, "seed": 2, "demand": {"scale": [0.3, 2.5]}, "decision_months": [0, 6]}
    profile, core = _core(_profile(option, _series(300.0, 2200.0, 24), 24, prices={"owned": DESK}), catalog)
    today = today_of(core)
    keys = {o.key for o in core.owned if o.name.startswith("Desk ")}
    cuts, skipped = decision_cuts(today.periods, [0, 6])
    assert cuts == [6] and skipped == []
    assert profile.uncertainty is not None
    futures = build_futures(today, profile.uncertainty, keys, models=False, cuts=cuts)
    (desk,) = futures.owned
    most = min(futures.bounds[desk.key], 4)
    bounds = {desk.key: most}
    futures.bounds = bounds
    futures.pieces = [split(today, futures, s) for s in range(len(futures.inputs))]
    cut = dt.date(TODAY.year + (TODAY.month + 5) // 12, (TODAY.month + 5) % 12 + 1, 1)
    half_cost = []  # per future: cost of the first half at n, of the second half at n
    nets = []  # per future: the unit's price net of its resale (the future's resale)
    for inp in futures.inputs:
        (own,) = [o for o in inp.owned if o.key == desk.key]
        nets.append(own.net_price_usd)
        halves = []
        for chunk in ([p for p in inp.periods if p.end <= cut], [p for p in inp.periods if p.start >= cut]):
            blocks = merge_periods(chunk)
            limits = replace(inp.limits, weights=model_weights(today.terms, chunk, blocks))
            costs = []
            for n in range(most + 1):
                model = build([o for o in inp.owned if o.key == desk.key], inp.cloud, core.options.hosts, blocks,
                              limits, bounds=bounds, reduce=False)
                fix_purchase(model, {desk.key: n}, {})
                sol = solved(model, time.perf_counter())
                assert sol.status.has_solution
                costs.append(sol.objective - n * own.net_price_usd)  # the price counted once, below
            halves.append(costs)
        half_cost.append(halves)
    best = np.inf
    for n0 in range(most + 1):
        per_future = [min(first[n0] + second[n0 + n6] + (n0 + n6) * net for n6 in range(most - n0 + 1))
                      for (first, second), net in zip(half_cost, nets, strict=True)]
        best = min(best, float(np.dot(futures.weights, per_future)))
    stacked = solve_extensive(futures.pieces, "expected")
    assert stacked.status.value == "optimal"
    assert stacked.objective == pytest.approx(best, rel=1e-6)
    assert stacked.later.any()  # the case is one where some future buys at month 6
    priced = evaluate_fixed(futures.pieces, {**stacked.units, **stacked.hosts})
    assert priced.objective == pytest.approx(best, rel=1e-6)
    held = solve_extensive(futures.pieces, "expected", hold_deferred=True)
    assert held.objective > best * (1 + 1e-6)  # waiting is worth something here


def _core(profile: dict[str, Any], catalog: Catalog) -> tuple[Profile, Any]:
    prep = prepare(Profile.model_validate(profile), catalog)
    return prep.profile, _solve_prepared(prep.profile, prep.catalog, TODAY, True)


def test_demand_from_month_6_buys_at_month_6(catalog: Catalog) -> None:
    """No work for six months, then four GPUs' worth: the purchase waits for month 6 (paid six months later at a
    discount rate of 8%: 0.0391 of its price less), cheaper than buying at month 0."""
    body = _profile(STILL, _series(0.0, 4 * 730.0, 36), 36, options={"discount_rate": 0.08})
    plan = make_plan(Profile.model_validate(body), catalog, TODAY)
    risk = plan.risk
    assert risk is not None and risk.deferral_months == [6]
    assert plan.buy == []  # nothing at month 0
    (month,) = risk.deferred
    assert month.month == 6 and month.probability_buys == 1.0
    cards = [p for p in month.purchases if p.kind == "purchase"]
    assert cards and all(p.probability == 1.0 for p in cards)
    assert risk.value_of_waiting_usd is not None and risk.value_of_waiting_usd > 0
    assert risk.deterministic_expected_total_usd is not None
    assert risk.expected_total_usd == pytest.approx(risk.deterministic_expected_total_usd - risk.value_of_waiting_usd,
                                                    abs=0.05)
    # what waiting saves is the price paid six months later, discounted (hosts and cards alike)
    today = make_plan(Profile.model_validate({**body, "uncertainty": None}), catalog, TODAY)
    price = sum(b.count * b.unit_price_usd for b in today.buy) + sum(h.count * h.unit_price_usd for h in today.hosts)
    assert risk.value_of_waiting_usd == pytest.approx(price * (1 - (1 + 0.08 / 12) ** -6), rel=1e-3)
    # one future: planning for it alone loses nothing; all the saving is waiting's, not counted twice
    assert risk.value_of_stochastic_solution_usd == pytest.approx(0.0, abs=0.01)
    # the plan says that it rents what the futures buy at month 6, in its words and as a notice
    assert "100% of the profile's futures also buy at month 6" in plan.recommendation
    assert "buying now does not pay" in plan.recommendation
    (waits,) = [n for n in plan.notices if n.code == "purchases_wait"]
    assert waits.params["month"] == 6 and waits.params["share"] == 1.0
    assert today.notices == [n for n in today.notices if n.code != "purchases_wait"]


def test_the_fan_steps_when_the_purchase_is_paid(catalog: Catalog) -> None:
    """Demand from month 6, every purchase waits for it: the fan shows no outlay before month 6 and the purchase's
    price, paid at month 6 (discounted six months at 8%), as a step there; its last point is the plan's total."""
    body = _profile(STILL, _series(0.0, 4 * 730.0, 36), 36, options={"discount_rate": 0.08})
    risk = make_plan(Profile.model_validate(body), catalog, TODAY).risk
    assert risk is not None and risk.deferral_months == [6]
    today = make_plan(Profile.model_validate({**body, "uncertainty": None}), catalog, TODAY)
    price = sum(b.count * b.unit_price_usd for b in today.buy) + sum(h.count * h.unit_price_usd for h in today.hosts)
    paid = price * (1 + 0.08 / 12) ** -6
    fan = risk.fan
    assert fan[5].plan_p50_usd < 0.05 * paid  # six months without work: (nearly) nothing spent
    assert fan[6].plan_p50_usd - fan[5].plan_p50_usd >= paid  # the purchase, and month 6's running cost
    assert fan[-1].plan_p50_usd == pytest.approx(risk.p50_total_usd, abs=0.02)


def test_regret_with_a_later_month_is_never_negative(catalog: Catalog) -> None:
    """Objective regret with purchases that may wait: each future's own best may wait too, so no future's regret is
    below zero (against own bests decided at month 0 only, a future that waits beat its "best")."""
    still = {**STILL, "objective": "regret", "demand": {"scale": [0.8, 1.25]}, "scenarios": 4}
    body = _profile(still, _series(0.0, 4 * 730.0, 24), 24, options={"discount_rate": 0.08})
    risk = make_plan(Profile.model_validate(body), catalog, TODAY).risk
    assert risk is not None and risk.deferral_months == [6] and any(m.purchases for m in risk.deferred)
    assert risk.max_regret_usd is not None and risk.max_regret_usd >= -0.01


def test_flat_demand_buys_at_month_0(catalog: Catalog) -> None:
    """Flat demand: renting for six months costs more than paying at once, so everything is bought at month 0
    (today's plan exactly), nothing waits, and waiting is worth 0."""
    body = lab(STILL, gpus=4, utilisation=0.8, months=24, options={"discount_rate": 0.08})
    plan = make_plan(Profile.model_validate(body), catalog, TODAY)
    today = make_plan(Profile.model_validate({**body, "uncertainty": None}), catalog, TODAY)
    risk = plan.risk
    assert risk is not None and risk.deferral_months == [6]
    assert plan.buy == today.buy and plan.buy and plan.total_cost_usd == today.total_cost_usd
    assert [m.purchases for m in risk.deferred] == [[]] and risk.value_of_waiting_usd == 0.0


def test_uncertain_demand_buys_less_now_and_the_busy_futures_top_up(catalog: Catalog) -> None:
    """Demand within a factor of 2.5 either way: the plan with later purchases costs no more in expectation than the
    best decided at month 0 (value of waiting >= 0), and where futures wait they buy at month 6."""
    option = {"scenarios": 12, "seed": 1, "demand": {"scale": [0.4, 2.5]}, "decision_months": [0, 6, 12]}
    plan = make_plan(Profile.model_validate(lab(option, gpus=4, months=24)), catalog, TODAY)
    risk = plan.risk
    assert risk is not None and risk.deferral_months == [6]
    assert risk.value_of_waiting_usd is not None and risk.value_of_waiting_usd >= 0
    assert "waits at most until month 6" in risk.note and [w.month for w in risk.waiting] == [6, 12]
    assert risk.deterministic_expected_total_usd is not None
    assert risk.expected_total_usd <= risk.deterministic_expected_total_usd + 1e-6 * risk.expected_total_usd
    for month in risk.deferred:
        assert 0 <= month.probability_buys <= 1
        for bought in month.purchases:
            assert 0 < bought.probability <= month.probability_buys or bought.kind == "host"
            assert bought.mean_units <= bought.max_units


def test_decision_months_off_the_periods_are_skipped(catalog: Catalog) -> None:
    """A plan starting mid-month (its first period half a month longer): month 6 falls within a period, so no
    purchase is modelled then; month 12 is the horizon's end."""
    _, core = _core(lab(None, months=12), catalog)
    periods = today_of(core).periods
    shifted = [replace(periods[0], start=periods[0].start - dt.timedelta(days=15)), *periods[1:]]
    assert decision_cuts(periods, [0, 6, 12]) == ([6], [])  # 12 is the horizon's end
    assert decision_cuts(shifted, [0, 6]) == ([], [6])


@pytest.mark.parametrize("financing", [None, Financing(0.07, 24, 0.2)])
def test_a_price_paid_later_is_discounted_from_the_plans_start(financing: Financing | None) -> None:
    """capex_at(month 0) is the plan's own capex weight; cash at month 6 is (1 + r/12)^-6 of it."""
    from solvers.base.finance import calendar, weights_for

    terms = Terms(discount_rate=0.06, financing=financing)
    start, end = dt.date(2026, 11, 1), dt.date(2029, 11, 1)
    months = [dt.date(2026 + (10 + i) // 12, (10 + i) % 12 + 1, 1) for i in range(37)]
    cal = calendar(months[:-1], months[1:])
    weights = weights_for(terms, cal, np.full(36, 730.0), np.zeros(36, dtype=np.int64), 1)
    assert weights is not None
    assert capex_at(terms, start, end, 0) == pytest.approx(weights.capex, rel=1e-12)
    if financing is None:
        assert capex_at(terms, start, end, 6) == pytest.approx(1.005 ** -6, rel=1e-12)
    else:
        assert capex_at(terms, start, end, 6) < capex_at(terms, start, end, 0)
    assert capex_at(Terms(), start, end, 6) == 1.0

