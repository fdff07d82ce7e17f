"""The three demand notions (concurrency, job width, patience) on cases derived by hand (issue 13)."""

from __future__ import annotations

from typing import Any

import pytest

from pricing.catalog import bundled_catalog
from solvers.base.errors import InfeasibleProfile
from solvers.base.profile import Profile
from solvers.base.result import PlanResult
from solvers.plan import make_plan
from tests.conftest import TODAY, cloud_item, owned_item, simple_profile

HOURS_2027 = 365 * 24


def plan_for(profile: dict[str, Any]) -> PlanResult:
    return make_plan(Profile.model_validate(profile), bundled_catalog(), TODAY)


def rtx4090(price: float, count: int, name: str) -> dict[str, Any]:
    return cloud_item(price, gpu="RTX 4090", name=name, gpu_count=count)


def hourly(busy: list[float], start: str = "2027-01-04T00:00:00Z", **jobs: Any) -> dict[str, Any]:
    """A profile on an hourly concurrency series (the usage-log form), with the caller's prices."""
    profile = simple_profile([], [])
    profile["demand"] = {"start": start, "busy_gpus": busy, "reference_gpu": "RTX 3090"}
    del profile["horizon_months"]
    profile["jobs"] = jobs
    return profile


def test_one_gpu_half_the_year_rents_one_gpu_instances_not_a_quarter_of_a_4x() -> None:
    # The case: 1 GPU busy 50% of a year; a 1x offer at 0.30/h and a 4x at 0.40/h. A one-GPU job runs on
    # one GPU: 4,380 h x 0.30 = 1,314 (the pooled model planned 1,095 h of the 4x for 438).
    profile = simple_profile([], [rtx4090(0.30, 1, "1x"), rtx4090(0.40, 4, "4x")], utilisation=0.5)
    profile["demand"]["reference_gpu"] = "RTX 4090"
    plan = plan_for(profile)
    assert plan.total_cost_usd == pytest.approx(1314.0, abs=0.01)
    assert [c.name for c in plan.cloud] == ["1x"]
    assert sum(p.unused_rented_gpu_hours for p in plan.periods) == pytest.approx(0.0, abs=1e-6)
    # Work that may wait a month can be batched four at a time on the 4x: 1,095 h x 0.40 = 438.
    profile["jobs"] = {"patience": "month"}
    batched = plan_for(profile)
    assert batched.total_cost_usd == pytest.approx(438.0, abs=0.01)
    # the 4x is rented whole and the waiting jobs fill it: 4 GPUs run at once, for 93 h in January (not 1 GPU)
    assert all(p.peak_rented_gpus == pytest.approx(4.0) for p in batched.periods)
    assert batched.periods[0].cloud_hours == {"cloud[0]": pytest.approx(93.0)}
    assert (batched.cloud[0].provider, batched.cloud[0].name) == ("testcloud", "4x")
    # the utilisation form's busy hours replayed as the first 12 h of each day at 1 GPU, run four at a time on the
    # 4x (rented when four GPU-hours are queued, in hours 3, 7 and 11): three of each four wait, 9 GPU-hours a day
    # (279 in January), the longest 3 h
    assert batched.periods[0].waited_gpu_hours == pytest.approx(31 * 9.0, abs=1e-3)
    assert batched.periods[0].max_wait_hours == 3


def test_unused_gpus_of_a_whole_instance_are_paid_and_reported() -> None:
    # Only a 4x offer: one job keeps one of its four GPUs busy; 4,380 h x 0.40 paid, 3 x 4,380 GPU-hours unused.
    profile = simple_profile([], [rtx4090(0.40, 4, "4x")], utilisation=0.5)
    profile["demand"]["reference_gpu"] = "RTX 4090"
    plan = plan_for(profile)
    assert plan.total_cost_usd == pytest.approx(0.40 * 4380, abs=0.01)
    assert sum(p.unused_rented_gpu_hours for p in plan.periods) == pytest.approx(3 * 4380, abs=0.01)
    assert max(p.peak_rented_gpus for p in plan.periods) == pytest.approx(1.0)


def test_eight_gpus_at_once_with_four_owned_rents_four_in_the_busy_hours() -> None:
    # 8 GPUs together for 60% of the hours, at most 4 owned: the 4 owned run 4 jobs in the busy hours and 4 more
    # are rented then (4 x 5,256 h), not pooled into owned idle hours.
    busy = 0.6 * HOURS_2027
    profile = simple_profile([owned_item(1000)], [cloud_item(1.0)], utilisation=0.6, max_owned_gpus=4)
    profile["demand"]["gpus"] = 8
    plan = plan_for(profile)
    assert plan.buy[0].count == 4
    assert sum(c.hours for c in plan.cloud) == pytest.approx(4 * busy, abs=1e-3)
    assert plan.total_cost_usd == pytest.approx(4 * 1000 + 4 * busy * 0.045 + 4 * busy * 1.0, abs=0.05)
    assert all(p.peak_owned_gpus == pytest.approx(4) and p.peak_rented_gpus == pytest.approx(4)
               for p in plan.periods)
    # Read as an average (4.8 GPUs busy at every hour), the 4 owned serve 4 all the time; 0.8 is rented.
    profile["demand"]["reading"] = "average"
    average = plan_for(profile)
    assert sum(c.hours for c in average.cloud) == pytest.approx(0.8 * HOURS_2027, abs=1e-3)


def test_a_week_of_patience_lets_one_owned_gpu_absorb_a_monday_burst() -> None:
    # Four weeks; every Monday 2 GPUs are busy for 24 h, nothing else. Owned box $50, cloud $1/h, energy 0.045/h.
    week = [2.0] * 24 + [0.0] * 144
    owned, cloud = [owned_item(50)], [cloud_item(1.0)]
    none = hourly(week * 4)
    none["prices"] = {"mode": "replace", "owned": owned, "cloud": cloud}
    plan = plan_for(none)
    # no patience: 2 owned (100 + 192 h x 0.045 = 108.64) beat 1 owned + 96 h rented (150.32) and cloud only (192)
    assert plan.buy[0].count == 2
    assert plan.total_cost_usd == pytest.approx(100 + 192 * 0.045, abs=0.01)
    waits = hourly(week * 4, patience="week")
    waits["prices"] = none["prices"]
    absorbed = plan_for(waits)
    assert absorbed.buy[0].count == 1 and absorbed.cloud == []
    assert absorbed.total_cost_usd == pytest.approx(50 + 192 * 0.045, abs=0.01)
    # first come first served on the one owned GPU: 2 arrive each Monday hour and 1 is served, so of the 48
    # GPU-hours only hour 0's first is served on arrival (47 wait each week); the queue peaks at 24 GPU-hours at
    # Monday's end and drains one an hour, so hour 23's work runs in hour 47: 24 h late (not the week's 168 h)
    assert absorbed.periods[0].waited_gpu_hours == pytest.approx(4 * 47, abs=1e-3)
    assert absorbed.periods[0].max_wait_hours == 24


def test_two_gpu_jobs_cannot_use_one_gpu_instances() -> None:
    cheap_1x, dear_2x = cloud_item(0.5, name="1x"), cloud_item(1.5, name="2x", gpu_count=2)
    profile = simple_profile([], [cheap_1x, dear_2x], utilisation=0.5)
    profile["demand"]["gpus"] = 2
    profile["jobs"] = {"gpus_per_job": 2}
    plan = plan_for(profile)
    assert [c.name for c in plan.cloud] == ["2x"]
    assert plan.total_cost_usd == pytest.approx(0.5 * HOURS_2027 * 1.5, abs=0.01)
    profile["prices"]["cloud"] = [cheap_1x]
    with pytest.raises(InfeasibleProfile) as info:
        plan_for(profile)
    assert "gpus_per_job 2" in info.value.message


def test_work_in_gpu_hours_needs_more_gpu_time_on_wider_jobs() -> None:
    # 1,000 reference GPU-hours in January as 2-GPU jobs: the guide's 1.9x on 2 GPUs = 95% efficiency, so
    # 1,000 / 0.95 GPU-hours = 526.3 h of a 2x instance at $2/h; a measured 80% makes it 625 h.
    profile = simple_profile([], [cloud_item(2.0, name="2x", gpu_count=2)])
    profile["demand"] = {"series": [{"month": "2027-01", "reference_gpu_hours": 1000}], "reference_gpu": "RTX 3090"}
    del profile["horizon_months"]
    profile["jobs"] = {"gpus_per_job": 2}
    plan = plan_for(profile)
    assert plan.cloud[0].hours == pytest.approx(1000 / 0.95 / 2, abs=1e-3)
    assert plan.total_cost_usd == pytest.approx(1000 / 0.95, abs=0.01)
    assert plan.periods[0].delivered_reference_gpu_hours == pytest.approx(1000, abs=0.01)
    assert any("95.0% efficiency" in w for w in plan.warnings)
    profile["jobs"] = {"gpus_per_job": 2, "scaling_efficiency": 0.8}
    measured = plan_for(profile)
    assert measured.total_cost_usd == pytest.approx(1000 / 0.8, abs=0.01)


def test_default_efficiency_interpolates_the_guides_figures() -> None:
    from solvers.base.demand_units import default_efficiency

    assert default_efficiency(1) == 1.0
    assert default_efficiency(3) == pytest.approx(2.8 / 3)
    assert default_efficiency(4) == pytest.approx(3.5 / 4)
    assert default_efficiency(8) == pytest.approx(7.0 / 8)
    assert 7.0 / 8 <= default_efficiency(6) <= 3.5 / 4


def test_a_marketplace_listing_is_one_machine_and_can_be_excluded() -> None:
    # 3 jobs at once all year; a Vast listing at $0.10/h is one 1-GPU host, a cloud 1x costs $1/h
    listing = {"provider": "vast", "name": "host-123", "gpu": "RTX 3090", "usd_per_hour": 0.10, "region": "r1"}
    profile = simple_profile([], [listing, cloud_item(1.0)], utilisation=1.0)
    profile["demand"]["gpus"] = 3
    plan = plan_for(profile)
    assert plan.total_cost_usd == pytest.approx(HOURS_2027 * (0.10 + 2 * 1.0), abs=0.01)
    assert any("marketplace listing vast host-123 (r1, on-demand):" in w for w in plan.warnings), plan.warnings
    profile["options"]["allow_marketplace"] = False
    without = plan_for(profile)
    assert without.total_cost_usd == pytest.approx(HOURS_2027 * 3.0, abs=0.01)
    profile["options"] |= {"allow_marketplace": True, "allow_unverified_hosts": False}
    assert plan_for(profile).total_cost_usd == pytest.approx(HOURS_2027 * 3.0, abs=0.01)


def test_hourly_series_with_fractional_hours_is_exact() -> None:
    # 1.5 GPUs busy on average every hour of January = 1 job half the time and 2 jobs the other half; with one
    # owned GPU the cloud takes the second job for 372 h.
    profile = hourly([1.5] * 744, start="2027-01-01T00:00:00Z")
    profile["prices"] = {"mode": "replace", "owned": [owned_item(100)], "cloud": [cloud_item(1.0)]}
    profile["options"]["max_owned_gpus"] = 1
    plan = plan_for(profile)
    assert sum(c.hours for c in plan.cloud) == pytest.approx(372, abs=1e-6)
    assert plan.periods[0].demand_reference_gpu_hours == pytest.approx(1.5 * 744)
    assert plan.periods[0].delivered_reference_gpu_hours == pytest.approx(1.5 * 744, abs=1e-3)


def test_series_at_week_and_day_resolution_and_gpus_at_once() -> None:
    # a week of 336 reference GPU-hours at 4 GPUs at once: 84 h with 4 jobs; cloud only at $1/h: 336
    profile = simple_profile([], [cloud_item(1.0)])
    profile["demand"] = {"resolution": "week", "reference_gpu": "RTX 3090",
                         "series": [{"start": "2027-01-04", "reference_gpu_hours": 336, "gpus_at_once": 4}]}
    del profile["horizon_months"]
    plan = plan_for(profile)
    assert plan.total_cost_usd == pytest.approx(336, abs=0.01)
    assert plan.periods[0].peak_rented_gpus == pytest.approx(4)
    with pytest.raises(ValueError, match="Monday"):
        Profile.model_validate(profile | {"demand": profile["demand"] | {
            "series": [{"start": "2027-01-05", "reference_gpu_hours": 1}]}})
    profile["demand"] = {"resolution": "day", "reference_gpu": "RTX 3090",
                         "series": [{"start": "2027-01-04", "reference_gpu_hours": 48}]}
    assert plan_for(profile).total_cost_usd == pytest.approx(48, abs=0.01)


def test_concurrency_input_validation() -> None:
    base = {"workload": "cnn_training", "demand": {"start": "2027-01-01T00:30:00Z", "busy_gpus": [1.0],
                                                   "reference_gpu": "RTX 3090"}}
    with pytest.raises(ValueError, match="on the hour"):
        Profile.model_validate(base)
    with pytest.raises(ValueError, match="no demand"):
        Profile.model_validate(base | {"demand": base["demand"] | {"start": "2027-01-01T00:00:00Z",
                                                                   "busy_gpus": [0.0, 0.0]}})
    ok = Profile.model_validate(base | {"demand": base["demand"] | {"start": "2027-01-01T02:00:00+02:00"}})
    assert ok.demand.start.hour == 0  # type: ignore[union-attr]


def test_a_very_large_lab_still_plans_on_a_bounded_model() -> None:
    # 3,000 GPUs at once: owned slots on a grid of 256 steps, whole-instance covers beyond 2,048 jobs in bulk
    profile = simple_profile([owned_item(1000)], [cloud_item(1.0), cloud_item(6.0, name="8x", gpu_count=8)],
                             utilisation=0.5)
    profile["demand"]["gpus"] = 3000
    plan = plan_for(profile)
    assert plan.status == "optimal"
    assert plan.solver.levels <= 12
    # owning beats renting here (1,000 vs 0.5 x 8,760 h x 0.75/GPU-h): everything is bought, nothing rented
    assert sum(b.count for b in plan.buy) == 3000 and plan.cloud == []
    for period in plan.periods:
        assert period.delivered_reference_gpu_hours >= period.demand_reference_gpu_hours - 0.01


def test_unverified_hosts_off_keeps_verified_marketplace_hosts() -> None:
    # the same 3-jobs year as above; the $0.10 Vast host is kept without unverified hosts once it says verified
    listing = {"provider": "vast", "name": "host-123", "gpu": "RTX 3090", "usd_per_hour": 0.10, "region": "r1",
               "verified": True}
    profile = simple_profile([], [listing, cloud_item(1.0)], utilisation=1.0, allow_unverified_hosts=False)
    profile["demand"]["gpus"] = 3
    assert plan_for(profile).total_cost_usd == pytest.approx(HOURS_2027 * (0.10 + 2 * 1.0), abs=0.01)
    profile["options"]["allow_marketplace"] = False
    assert plan_for(profile).total_cost_usd == pytest.approx(HOURS_2027 * 3.0, abs=0.01)


def test_the_bundled_vast_rows_are_verified_hosts() -> None:
    """The bundled Vast aggregates were fetched with Vast's verified-only default query (defaults.VERIFIED_HOST_FEEDS):
    excluding unverified hosts keeps them; excluding the marketplace drops them."""
    from solvers.offers.cloud import cloud_candidates
    from solvers.offers.throughput import ThroughputModel

    catalog = bundled_catalog()

    def vast_rows(**options: Any) -> int:
        profile = Profile.model_validate({"workload": "transformer_training", "horizon_months": 12,
                                          "demand": {"gpus": 1, "utilisation": 0.5, "reference_gpu": "RTX 3090"},
                                          "options": options})
        table = cloud_candidates(catalog, profile, ThroughputModel(catalog.gpus, profile), TODAY)
        return int((table.provider == "vast").sum())

    everything = vast_rows()
    assert everything > 0
    assert vast_rows(allow_unverified_hosts=False) == everything
    assert vast_rows(allow_marketplace=False) == 0


def test_the_marketplace_warning_counts_an_aggregates_listings() -> None:
    # a Vast aggregate of 3 listings (3 host machines): the warning says so, not "one host machine"
    aggregate = {"provider": "vast", "name": "3090 median", "gpu": "RTX 3090", "usd_per_hour": 0.10, "region": "r1",
                 "max_instances": 3}
    profile = simple_profile([], [aggregate, cloud_item(1.0)], utilisation=1.0)
    plan = plan_for(profile)
    note = next(n for n in plan.notices if n.code.startswith("marketplace"))
    assert note.code == "marketplace_aggregate" and note.params["count"] == 3
    assert "an aggregate of 3 listings (3 host machines" in note.text and "one host machine" not in note.text
    assert note.text in plan.warnings


def test_work_that_may_wait_reports_no_wait_when_the_plan_serves_it_as_it_arrives() -> None:
    # one owned GPU for one GPU busy half the time: a month of patience changes nothing, and nothing waits
    profile = simple_profile([owned_item(10)], [cloud_item(1.0)], utilisation=0.5)
    profile["jobs"] = {"patience": "month"}
    plan = plan_for(profile)
    assert [b.count for b in plan.buy] == [1]
    assert all(p.waited_gpu_hours == 0 and p.max_wait_hours == 0 for p in plan.periods)
