"""A small always-on service in the workload form (solvers/workload/demand.py, solvers/base/demand_units.py
`load_unit`):
its load is rounded to whole replicas of the type that serves it, not to whole replicas of the fastest type.

The review's case: an 8B model in bf16 generating 3e8 tokens a month is about 35 GB200-hours of work a month
(0.05 of one GB200 on average); any type that holds the model (35.6 GB) carries it with one replica, so the plan
holds exactly one replica of the cheapest fitting offer every hour, not a whole GB200's worth of load on slow
cards (before: 6.65 owned GPUs and $41,632 of purchases; cloud only an 8 x RTX 6000 Ada for every hour)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from pricing.catalog import bundled_catalog
from solvers.base.profile import Profile
from solvers.base.result import PlanResult
from solvers.plan import make_plan
from tests.conftest import cloud_item, owned_item

TODAY = dt.date(2026, 11, 21)  # the plan starts on 2026-12-01
HOURS = 731 * 24  # 2026-12-01 .. 2028-12-01 (2028 is a leap year): 17,544 h
SERVE = {"kind": "serve", "model": {"params_b": 8, "kv_heads": 8}, "precision": "bf16", "tokens": 3e8}
# own prices: the fastest type (B200, 8 GPUs a machine), one fitting 48 GB card, and RTX 4090 pairs (24 GB each:
# a replica is tensor parallel over 2)
CLOUD = [cloud_item(37.70, gpu="B200", name="b200-8x", gpu_count=8),
         cloud_item(0.54, gpu="L40S", name="l40s-1x", gpu_count=1),
         cloud_item(0.70, gpu="RTX 4090", name="4090-2x", gpu_count=2)]


def plan_for(owned: list[dict[str, Any]], cloud: list[dict[str, Any]]) -> PlanResult:
    profile = {"workload": SERVE, "horizon_months": 24, "electricity_usd_per_kwh": 0.15,
               "options": {"resale": False, "availability": 1.0},
               "prices": {"mode": "replace", "owned": owned, "cloud": cloud}}
    return make_plan(Profile.model_validate(profile), bundled_catalog(), TODAY)


def test_a_small_service_rents_one_replica_of_the_cheapest_fitting_offer_every_hour() -> None:
    plan = plan_for([], CLOUD)
    assert plan.buy == []
    assert [(c.gpu, c.gpus_per_job) for c in plan.cloud] == [("L40S", 1)]
    # one L40S present every hour: 17,544 h x $0.54 = $9,473.76 (the B200 box: 17,544 x 37.70 = $661,409)
    assert plan.cloud[0].hours == pytest.approx(HOURS, abs=1e-6)
    assert plan.total_cost_usd == pytest.approx(HOURS * 0.54, abs=0.01)
    assert all(p.served_every_hour for p in plan.periods)
    # the accounts deliver the load served, not a whole GB200 every hour (one unit of load is the whole load here)
    for p in plan.periods:
        assert p.delivered_reference_gpu_hours == pytest.approx(p.demand_reference_gpu_hours, rel=1e-3)
    assert plan.workload is not None and plan.workload.reference_gpu == "B200"


def test_without_the_48_gb_card_one_pair_of_rtx_4090s_carries_it() -> None:
    plan = plan_for([], [c for c in CLOUD if c["gpu"] != "L40S"])
    # a replica of the model is 2 RTX 4090s: one 2-GPU instance every hour, 17,544 h x $0.70 = $12,280.80
    assert [(c.gpu, c.gpus_per_job) for c in plan.cloud] == [("RTX 4090", 2)]
    assert plan.total_cost_usd == pytest.approx(HOURS * 0.70, abs=0.01)


def test_a_cheap_owned_card_that_holds_the_model_is_bought_once_and_nothing_is_rented() -> None:
    owned = [owned_item(3000, gpu="RTX PRO 6000", watts=600)]
    plan = plan_for(owned, CLOUD)
    assert [(b.gpu, b.count) for b in plan.buy] == [("RTX PRO 6000", 1)]
    assert plan.cloud == []
    # capex $3,000 (no resale) + its electricity, well under a year of the L40S
    assert plan.costs.capex_usd == pytest.approx(3000.0)
    assert plan.costs.cloud_usd == 0.0
    assert plan.total_cost_usd == pytest.approx(3000.0 + plan.costs.electricity_usd, abs=0.01)
    assert all(p.served_every_hour and p.peak_owned_gpus <= 1.0 for p in plan.periods)


def test_the_demand_threshold_of_a_service_that_buys_is_not_above_today() -> None:
    # a $5,000 RTX A6000 box against a 1 x A40 at $0.44/h (17,544 h: $7,719) and the B200 box: buying pays today.
    # Whole replicas make "buying pays" non-monotone in the demand multiple (the card carries 1.8 x today's load;
    # 2 x needs a rented A40 beside it, which does not pay; far larger multiples pay again), and the bisection,
    # which assumes buying pays at every multiple above the threshold, answered 316 x for a plan that buys at 1 x
    owned = [owned_item(5000, gpu="RTX A6000", watts=300)]
    plan = plan_for(owned, [CLOUD[0], cloud_item(0.44, gpu="A40", name="a40-1x", gpu_count=1)])
    assert [(b.gpu, b.count) for b in plan.buy] == [("RTX A6000", 1)] and plan.cloud == []
    threshold = plan.break_even.demand_scale_threshold
    assert threshold is not None and threshold <= 1.0
