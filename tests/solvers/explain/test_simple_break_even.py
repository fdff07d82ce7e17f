"""The guide's closed form and the cloud-price threshold compare with what the job can use (hand-checkable).

Prices are the profile's own (mode replace), PUE 1, no idle power, no resale, availability 1, 2027 (8,760 h), so
every figure below is arithmetic on the numbers in the profile.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from pricing.catalog import Catalog, Host, bundled_catalog
from solvers.base.options import CloudOption
from solvers.base.profile import Profile
from solvers.base.result import PlanResult
from solvers.explain.simple import JobDemand, cheapest_cloud, cloud_usd_per_job_hour, jobs_per_instance
from solvers.plan import make_plan
from tests.conftest import TODAY, cloud_item, owned_item, simple_profile

BOX = owned_item(2000.0, watts=450)  # an RTX 3090 desktop, 0.45 kW while working
ONE = cloud_item(1.0, name="vm1")  # 1 x RTX 3090 at $1.00/h
FOUR = cloud_item(3.2, name="vm4", gpu_count=4)  # 4 x RTX 3090 at $3.20/h: $0.80 per GPU-hour, all four busy


def _plan(profile: dict[str, Any], catalog: Catalog | None = None) -> PlanResult:
    return make_plan(Profile.model_validate(profile), catalog or bundled_catalog(), TODAY)


def _offer(name: str, price: float, gpus: int) -> CloudOption:
    return CloudOption(key=name, provider="t", name=name, gpu="RTX 3090", gpu_count=gpus, usd_per_hour=price,
                       region="r", pricing="on_demand", ref_hours_per_hour=float(gpus), max_instances=None,
                       source="test", as_of="2027-01-01", feed="request", slots=gpus)


def test_an_instance_is_priced_over_the_jobs_it_holds_at_once() -> None:
    """One job at once pays a whole 4-GPU instance ($3.20 a job-hour) against $1.00 for the 1-GPU one; four jobs
    at once, or work that may wait (packed), share it ($0.80)."""
    one, four = _offer("one", 1.0, 1), _offer("four", 3.2, 4)
    alone, busy, packed = JobDemand(12.0, 1), JobDemand(96.0, 4), JobDemand(12.0, 1, packed=True)
    assert [jobs_per_instance(four, d) for d in (alone, busy, packed)] == [1, 4, 4]
    assert cloud_usd_per_job_hour(four, alone) == pytest.approx(3.2)
    assert cloud_usd_per_job_hour(four, busy) == pytest.approx(0.8)
    assert cheapest_cloud([four, one], alone) is one
    assert cheapest_cloud([one, four], busy) is four
    assert cheapest_cloud([one, four], packed) is four


def test_a_one_gpu_job_is_compared_with_the_one_gpu_offer() -> None:
    """One GPU at 50%: cloud only rents vm1 for 4,380 h ($4,380; vm4 would cost $14,016), the plan buys the box
    ($2,000 + 4,380 h x 0.45 kW x $0.10 = $2,197.10). Cloud prices must fall to 2,197.10 / 4,380 = 0.501621 of
    today's for renting to win: $0.501621/h on vm1 (not $1.605/h on vm4, the cheapest per GPU-hour of a full
    instance). The closed form: 2,000 / (12 h x $1.00 - 12 h x 0.45 kW x $0.10) = 2,000 / 11.46 = 174.52 days."""
    plan = _plan(simple_profile([BOX], [FOUR, ONE], utilisation=0.5, pue=1.0))
    assert [b.count for b in plan.buy] == [1] and plan.cloud == []
    be = plan.break_even
    assert be.cloud_price_threshold_offer is not None and be.cloud_price_threshold_offer.startswith("testcloud/vm1 ")
    assert be.cloud_price_threshold_usd_per_hour == pytest.approx(2197.10 / 4380, abs=1e-4)
    simple = be.simple
    assert simple is not None and simple.cloud.startswith("testcloud/vm1 ")
    assert (simple.units, simple.jobs, simple.cloud_jobs_per_instance, simple.capped_by) == (1, 1, 1, None)
    assert simple.cloud_usd_per_day == pytest.approx(12.0)
    assert simple.owned_usd_per_day == pytest.approx(0.54)
    assert simple.days == pytest.approx(2000 / 11.46, abs=0.01)


def test_the_plans_own_offer_when_it_rents() -> None:
    """One GPU at 5%: renting 438 h of vm1 ($438) beats the box; the threshold is stated on vm1, the offer rented,
    at the factor where buying would pay: (2,000 + 438 x 0.045) / 438 = 4.611370 x $1.00."""
    plan = _plan(simple_profile([BOX], [FOUR, ONE], utilisation=0.05, pue=1.0))
    assert plan.buy == [] and [c.name for c in plan.cloud] == ["vm1"]
    be = plan.break_even
    assert be.cloud_price_threshold_offer is not None and be.cloud_price_threshold_offer.startswith("testcloud/vm1 ")
    assert be.cloud_price_threshold_usd_per_hour == pytest.approx((2000 + 438 * 0.045) / 438, abs=1e-4)
    assert be.simple is not None and be.simple.cloud_usd_per_day == pytest.approx(1.2)


def _hosts(*hosts: Host) -> Catalog:
    return dataclasses.replace(bundled_catalog(), hosts=list(hosts))


TWO_BOX = Host(name="2-GPU box", slots=2, base_cost_usd=1000.0, psu_watts=2000.0, idle_watts=0.0, source="test",
               as_of="2026-01-01", kind="workstation")
EIGHT_BOX = Host(name="8-GPU box", slots=8, base_cost_usd=5000.0, psu_watts=8000.0, idle_watts=0.0, source="test",
                 as_of="2026-01-01", kind="workstation")


def _eight_gpu_job() -> dict[str, Any]:
    """One job of 8 RTX 3090s, running half the hours; bare cards at $1,000, or 8 x RTX 3090 rented at $8/h."""
    profile = simple_profile([owned_item(1000.0, watts=350, includes_host=False)],
                             [cloud_item(8.0, name="vm8", gpu_count=8)], utilisation=0.5, pue=1.0)
    profile["demand"]["gpus"] = 8
    profile["jobs"] = {"gpus_per_job": 8}
    return profile


def test_an_eight_gpu_job_buys_eight_cards_in_one_host_that_holds_them() -> None:
    """The job runs 12 h a day on 8 cards: 8 x $1,000 + one 8-GPU box $5,000 = $13,000 (the 2-GPU box, cheaper,
    holds no whole job), against 12 job-hours x $8 = $96 a day of vm8."""
    plan = _plan(_eight_gpu_job(), _hosts(TWO_BOX, EIGHT_BOX))
    simple = plan.break_even.simple
    assert simple is not None
    assert (simple.units, simple.hosts, simple.host_name, simple.jobs, simple.gpus_per_job) == (8, 1, "8-GPU box", 1, 8)
    assert simple.upfront_usd == pytest.approx(13_000.0)
    assert simple.cloud_usd_per_day == pytest.approx(96.0)
    assert simple.days == pytest.approx(13_000 / (96.0 - simple.owned_usd_per_day), abs=0.01)
    assert simple.owned == "8 x RTX 3090 box 1000.0 in 1 x 8-GPU box"


def test_an_eight_gpu_job_with_no_host_that_holds_it_has_no_closed_form() -> None:
    plan = _plan(_eight_gpu_job(), _hosts(TWO_BOX))
    assert plan.buy == []
    assert plan.break_even.simple is None
    assert plan.break_even.simple_note is not None and "one whole job" in plan.break_even.simple_note


def _four_busy(**options: Any) -> dict[str, Any]:
    """Four 1-GPU jobs every hour: the average needs four $2,000 boxes; vm1 costs 4 x 24 x $1 = $96 a day."""
    profile = simple_profile([BOX], [ONE], utilisation=1.0, pue=1.0, **options)
    profile["demand"]["gpus"] = 4
    return profile


def test_the_closed_form_keeps_within_the_capex_budget() -> None:
    """$5,000 buys two boxes: they carry 2 x 24 job-hours a day, $48 of vm1 against 48 h x 0.45 kW x $0.10 =
    $2.16 of power: 4,000 / 45.84 = 87.26 days."""
    plan = _plan(_four_busy(max_capex_usd=5000))
    assert sum(b.count for b in plan.buy) <= 2
    simple = plan.break_even.simple
    assert simple is not None
    assert (simple.units, simple.jobs, simple.capped_by, simple.upfront_usd) == (2, 2, "max_capex_usd", 4000.0)
    assert simple.cloud_usd_per_day == pytest.approx(48.0)
    assert simple.owned_usd_per_day == pytest.approx(2.16)
    assert simple.days == pytest.approx(4000 / 45.84, abs=0.01)


def test_the_closed_form_keeps_within_the_gpu_limit() -> None:
    simple = _plan(_four_busy(max_owned_gpus=3)).break_even.simple
    assert simple is not None
    assert (simple.units, simple.capped_by, simple.cloud_usd_per_day) == (3, "max_owned_gpus", pytest.approx(72.0))


def test_without_limits_the_closed_form_carries_the_whole_average() -> None:
    simple = _plan(_four_busy()).break_even.simple
    assert simple is not None
    assert (simple.units, simple.capped_by, simple.cloud_usd_per_day) == (4, None, pytest.approx(96.0))


def test_the_closed_form_weighs_the_plans_own_count_of_jobs() -> None:
    """At 95% availability the 8-GPU job running 98% of the hours needs 23.52 / (24 x 0.95) = 1.03 jobs' worth of
    cards to carry its whole average, so sized on its own the closed form bought two 8-GPU boxes; the plan buys one
    (and rents the hours its box is down), and the closed form weighs that one: 8 cards + one box, $13,000."""
    profile = _eight_gpu_job()
    profile["options"]["availability"] = 0.95
    profile["demand"]["utilisation"] = 0.98
    plan = _plan(profile, _hosts(TWO_BOX, EIGHT_BOX))
    assert [(b.count, h.count) for b in plan.buy for h in plan.hosts] == [(8, 1)]
    simple = plan.break_even.simple
    assert simple is not None
    assert (simple.units, simple.hosts, simple.jobs, simple.capped_by) == (8, 1, 1, None)
    assert simple.upfront_usd == pytest.approx(13_000.0)
