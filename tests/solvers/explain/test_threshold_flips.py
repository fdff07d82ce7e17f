"""The demand threshold is where re-planning flips the decision: the planner itself, asked at the profile's demand
times the reported multiple x0.98 and x1.02, buys nothing below and buys above. Before, a curve scaled by a
multiple kept its hours and scaled its jobs at once, so a fraction of a job rented a whole instance for all its
hours: cloud only never fell below one instance rented all the time, and the thresholds of a monthly series and of
the `average` reading read 0 (`layers.whole_levels`); and the candidates weighed below the demand lacked the
plan's purchase at fewer cards and the single unit cheapest at small demand (`plan._fewer_units`,
`plan._best_singles`)."""

from __future__ import annotations

import copy
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pricing.catalog import Host, bundled_catalog
from service.plans.examples import FINANCE_EXAMPLE, WORKED_EXAMPLE
from solvers.base.profile import Profile
from solvers.base.result import PlanResult
from solvers.explain.weighing import cheapest_purchases, evaluator_for, fewer_units, single_units
from solvers.model.arrays import cells_of
from solvers.model.build import build
from solvers.model.layers import Cells, whole_levels
from solvers.model.purchases import Purchase, Scenario
from solvers.model.solve import rent_only
from solvers.plan import make_plan, solve_core
from tests.conftest import TODAY, cloud_item, owned_item


def bursty_series() -> dict[str, Any]:
    sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))
    from plan_latency import SERIES

    return copy.deepcopy(SERIES)


LAB_AVERAGE = {"workload": "cnn_training", "horizon_months": 36, "electricity_usd_per_kwh": 0.12,
               "demand": {"gpus": 8, "utilisation": 0.6, "reading": "average", "reference_gpu": "RTX 4090"}}


def scaled(data: dict[str, Any], scale: float) -> dict[str, Any]:
    out = copy.deepcopy(data)
    demand = out["demand"]
    if "utilisation" in demand:
        demand["utilisation"] *= scale
    else:
        for point in demand["series"]:
            point["reference_gpu_hours"] *= scale
    return out


def plan(data: dict[str, Any]) -> PlanResult:
    return make_plan(Profile.model_validate(data), bundled_catalog(), TODAY)


def buys(result: PlanResult) -> bool:
    return bool(result.buy or result.hosts)


# Issue 30 (resale on the fitted curve) moved the finance example: it buys 9 RTX PRO 6000, and buying pays from about
# half its demand with 5 cards; the candidates at the units a multiple asks for missed it until they weighed one unit
# fewer too (`Fewer.at`, issue 29: slower cards carry a share of a job, so fewer than count x multiple may pay).
FINANCE_FLIP = FINANCE_EXAMPLE


@pytest.mark.parametrize("data", [bursty_series(), LAB_AVERAGE, FINANCE_FLIP],
                         ids=["monthly_series", "average_reading", "finance_example"])
def test_the_plan_flips_at_the_demand_threshold(data: dict[str, Any]) -> None:
    result = plan(data)
    threshold = result.break_even.demand_scale_threshold
    assert buys(result) and threshold is not None and 0.01 < threshold < 1.0
    assert not buys(plan(scaled(data, threshold * 0.98)))
    assert buys(plan(scaled(data, threshold * 1.02)))


def test_a_fraction_of_a_job_is_one_job_for_that_share_of_the_hours() -> None:
    """4 and 5 jobs at once (the `average` reading's 4.8) at 5% of the demand: 0.2 and 0.25 jobs, that is one job
    for 20% and 25% of the hours; the same work in whole jobs. A curve of whole jobs comes back as it was."""
    cells = Cells(np.array([0, 0]), np.array([4.0, 5.0]) * 0.05, np.array([20.0, 80.0]))
    whole = whole_levels(cells)
    levels = sorted(zip(whole.jobs.tolist(), whole.hours.tolist(), strict=True))
    assert [jobs for jobs, _ in levels] == [0.0, 0.0, 1.0, 1.0]
    assert [hours for _, hours in levels] == pytest.approx([16.0, 60.0, 4.0, 20.0])
    assert float(whole.jobs @ whole.hours) == pytest.approx(float(cells.jobs @ cells.hours))
    integral = Cells(np.array([0, 1]), np.array([2.0, 3.0]), np.array([5.0, 6.0]))
    assert whole_levels(integral) is integral


def test_at_todays_demand_the_evaluator_prices_the_models_curve() -> None:
    """An hourly log of 0 to 29 GPUs busy: each period's levels are compressed into a few fractional ones, which the
    model prices as they are; the thresholds' evaluator prices cloud only at today's demand as the model does (split
    into whole jobs, it was $228 cheaper, and the electricity threshold read 0.081 $/kWh where the plan buys at no
    rate above 0)."""
    busy = np.random.default_rng(1).integers(0, 30, 24 * 90).astype(float)
    data = {"workload": "transformer_training", "electricity_usd_per_kwh": 0.1,
            "demand": {"start": "2027-01-01T00:00:00Z", "busy_gpus": busy.tolist(), "reference_gpu": "RTX 3090"},
            "options": {"resale": False, "availability": 1.0},
            "prices": {"mode": "replace", "owned": [owned_item(2500)],
                       "cloud": [cloud_item(1.2, name="4x", gpu_count=4), cloud_item(0.45, name="1x")]}}
    core = solve_core(Profile.model_validate(data), bundled_catalog(), TODAY)
    cells = cells_of(core.blocks)
    assert (cells.jobs != np.floor(cells.jobs)).sum() > len(cells.jobs) // 2
    model_cloud_only = rent_only(build(core.owned_main, core.options.cloud, core.options.hosts, core.blocks,
                                       core.limits), core.limits).objective
    evaluator = evaluator_for(core.profile, core.owned, core.options, core.blocks, core.limits)
    assert evaluator.cost(Purchase(), Scenario(core.limits.usd_per_kwh)) == pytest.approx(model_cloud_only,
                                                                                            rel=1e-12)


def test_the_electricity_threshold_is_the_tariff_without_the_carbon_price() -> None:
    """The guide's worked example priced at a German tariff with a carbon price of $80/t (381 g/kWh: $0.0305 on
    each kWh of owned energy): the plan stops buying where the tariff passes the reported threshold, within 0.5%
    (it reported the tariff plus the carbon adder, some 0.9% above)."""
    data = copy.deepcopy(WORKED_EXAMPLE)
    data.pop("electricity_usd_per_kwh")
    data["electricity"] = {"location": "DE", "price_per_kwh": 0.12}
    data["options"]["carbon_price_per_tonne"] = 80
    result = plan(data)
    threshold = result.break_even.electricity_threshold_usd_per_kwh
    assert buys(result) and threshold is not None and result.electricity is not None
    assert result.electricity.price_per_kwh == 0.12
    for factor, bought in ((0.995, True), (1.005, False)):
        data["electricity"]["price_per_kwh"] = threshold * factor
        assert buys(plan(data)) is bought


@pytest.mark.parametrize("data", [bursty_series(), FINANCE_EXAMPLE], ids=["monthly_series", "finance_example"])
def test_the_plan_flips_at_the_electricity_threshold(data: dict[str, Any]) -> None:
    """Re-planned at the reported rate x0.98 the plan buys, at x1.02 it does not. The bursty series buys three RTX
    4090 at $0.15/kWh and two from about $0.30 to $0.33: weighing the plan's three and single units only, the
    threshold read 0.302, where re-planning still buys; the plan's purchase at fewer units is weighed too now
    (`Fewer.below`)."""
    result = plan(data)
    threshold = result.break_even.electricity_threshold_usd_per_kwh
    assert buys(result) and threshold is not None
    for factor, bought in ((0.98, True), (1.02, False)):
        moved = copy.deepcopy(data)
        moved["electricity_usd_per_kwh"] = threshold * factor
        assert buys(plan(moved)) is bought


def test_the_plan_flips_at_the_cloud_price_threshold() -> None:
    """Re-planned with every cloud price (on-demand and spot) at the reported multiple x0.98, the bursty series buys
    nothing; at x1.02 it buys. The multiple is the reported price over its reference offer's."""
    data = bursty_series()
    result = plan(data)
    be = result.break_even
    assert buys(result) and be.cloud_price_threshold_usd_per_hour is not None
    assert be.cloud_price_threshold_offer is not None
    today = float(be.cloud_price_threshold_offer.rsplit(" at ", 1)[1].split()[0])
    factor = be.cloud_price_threshold_usd_per_hour / today
    assert 0.1 < factor < 1.0
    catalog = bundled_catalog()
    for moved, bought in ((0.98, False), (1.02, True)):
        cheaper = replace(catalog, cloud=catalog.cloud.assign(usd_per_hour=catalog.cloud["usd_per_hour"] * factor
                                                                * moved))
        assert buys(make_plan(Profile.model_validate(data), cheaper, TODAY)) is bought


@pytest.mark.parametrize(("count", "fewer"), [(1, []), (2, [1]), (3, [2, 1]), (8, [7, 6, 4, 1]), (9, [8, 7, 5, 1])])
def test_the_plans_purchase_at_fewer_units_halves_the_step_each_time(count: int, fewer: list[int]) -> None:
    """1, 2, 4, ... units fewer than the plan's, and one unit: a few runs on today's curve, not one per count; each
    in hosts that hold it (the bursty series' RTX 4090 cards)."""
    core = solve_core(Profile.model_validate(bursty_series()), bundled_catalog(), TODAY)
    (key,) = core.main.units
    below = fewer_units(Purchase({key: count}), core.owned, core.options.hosts, 0.15, 1000.0, [Purchase()]).below()
    assert [p.units[key] for p in below] == fewer
    hosts = {h.host.name: h.host for h in core.options.hosts}
    for p in below:
        assert sum(hosts[name].slots * n for name, n in p.hosts.items()) >= p.units[key]


def test_fewer_cards_of_wide_jobs_sit_in_hosts_that_hold_a_whole_job() -> None:
    """Two-GPU jobs on bare RTX 3090 cards, a $500 one-slot desktop and a $2,000 two-slot workstation: the plan's
    four cards at half the demand are two cards in the workstation, never in two desktops (cheaper, and unable to run
    a 2-GPU job); fewer cards than a job are rounded up to whole jobs, and a count between whole jobs is weighed at
    the whole jobs below it too."""
    desktop = Host("1-slot desktop, 1,000 W", 1, 500, 1000, 30, "test", "2027-01-01")
    workstation = Host("2-slot workstation, 2,000 W", 2, 2000, 2000, 50, "test", "2027-01-01")
    data = {"workload": "transformer_training", "horizon_months": 36, "electricity_usd_per_kwh": 0.15,
            "demand": {"gpus": 4, "utilisation": 0.6, "reference_gpu": "RTX 3090"},
            "jobs": {"gpus_per_job": 2, "scaling_efficiency": 1.0},
            "prices": {"mode": "replace", "owned": [owned_item(800, includes_host=False)], "cloud": []}}
    catalog = replace(bundled_catalog(), hosts=[desktop, workstation])
    core = solve_core(Profile.model_validate(data), catalog, TODAY)
    (option,) = [o for o in core.owned if not o.includes_host]
    assert option.width == 2
    fewer = fewer_units(Purchase({option.key: 4}), core.owned, core.options.hosts, 0.15, 1000.0, [Purchase()])
    for scale in (0.5, 0.3):  # 2 cards; 1.2 cards rounded up to a whole job of 2 (one fewer: the same job)
        (smaller,) = fewer.at(scale)
        assert smaller.units == {option.key: 2} and smaller.hosts == {workstation.name: 1}
    # 2.4 cards are two whole jobs, the plan's own four (not weighed); one card fewer is one whole job, weighed
    (fewer_job,) = fewer.at(0.6)
    assert fewer_job.units == {option.key: 2} and fewer_job.hosts == {workstation.name: 1}
    assert fewer.at(0.9) == []  # 3.6 cards: two whole jobs either way


@pytest.mark.parametrize("demand", [1.0, 0.05, 3.0])
def test_the_cheapest_single_units_are_those_a_full_sort_gives(demand: float) -> None:
    """`plan._cheapest` runs single units in the order of what they cost to hold and stops once that bound passes
    the count-th cost: the same units, in the same order, as sorting every one by its cost."""
    core = solve_core(Profile.model_validate(bursty_series()), bundled_catalog(), TODAY)
    singles = single_units(core.owned, core.options.hosts, core.limits)
    assert len(singles) > 8
    scenario = Scenario(core.limits.usd_per_kwh, demand=demand)
    for count in (1, 2, 4, 6):
        evaluator = evaluator_for(core.profile, core.owned, core.options, core.blocks, core.limits)
        want = sorted(singles, key=lambda p: evaluator.cost(p, scenario))[:count]
        fresh = evaluator_for(core.profile, core.owned, core.options, core.blocks, core.limits)
        got = cheapest_purchases(singles, count, fresh, scenario)
        assert [p.units for p in got] == [p.units for p in want]
