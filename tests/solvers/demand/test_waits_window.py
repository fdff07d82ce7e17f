"""Patience windows are planned at their average load; the read-out replays the hours first come, first served
(solvers/demand/waits.py) and the plan says when work waits longer than its window (notice `waits_beyond_window`).

Rented hours are taken when work arrives (`waits.rented_in_batches`): each window's rented GPU-hours, its average
load above the owned GPUs hour by hour, go to the hours whose work exceeds the owned GPUs, in whole instances of the
offer the plan rents (here one GPU each).
- Cloud only at $1 per GPU-hour, `patience: week`, weeks from Monday 2027-01-04, a burst of 4 GPUs for the 24 hours
  of Sunday (96 GPU-hours): the week rents 96 GPU-hours, taken on Sunday as the work comes: nothing waits. Read
  flat, 0.571 GPUs from Monday, the burst waited up to 144 h, and with quiet weeks between bursts (which rent
  nothing) 312 h, which the plan called beyond its window.
- Owned only, one RTX 3090 machine, `patience: day`, three days from 2027-01-01: 24 GPU-hours arrive in the last
  hour of day 1 and 24 in the first hour of day 2 (each day averages 1 GPU, so the plan buys one). Day 1's burst
  runs in hours 23-46, day 2's behind it in hours 47-70: its last GPU-hour waits 70 - 24 = 46 h, beyond the 24 h
  it may wait, and the plan says so.
- A usage log shorter than the horizon (182 days of a 36-month plan, patience day, cloud only): before, the work of
  its last day waited until the horizon's end, about 2.5 years.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import numpy as np

from pricing.catalog import bundled_catalog
from solvers.base.profile import Profile
from solvers.base.result import PlanResult
from solvers.plan import make_plan
from tests.conftest import cloud_item, owned_item

TODAY = dt.date(2026, 11, 26)


def _plan(busy: np.ndarray, start: str, patience: str, owned: list[dict[str, Any]], cloud: list[dict[str, Any]],
          **extra: Any) -> PlanResult:
    body = {"workload": "transformer_training",
            "demand": {"start": start, "busy_gpus": busy.tolist(), "reference_gpu": "RTX 3090"},
            "jobs": {"patience": patience}, "electricity_usd_per_kwh": 0.1,
            "options": {"resale": False, "availability": 1.0, "allow_buy": bool(owned), "allow_cloud": bool(cloud)},
            "prices": {"mode": "replace", "owned": owned, "cloud": cloud}, **extra}
    return make_plan(Profile.model_validate(body), bundled_catalog(), TODAY)


def _sunday_bursts(every: int) -> PlanResult:
    busy = np.zeros(24 * 7 * 8)
    for week in range(0, 8, every):
        busy[week * 168 + 144: week * 168 + 168] = 4.0
    return _plan(busy, "2027-01-04T00:00:00Z", "week", [], [cloud_item(1.0)])


def test_rented_hours_are_taken_when_the_work_comes() -> None:
    for every in (1, 2):
        plan = _sunday_bursts(every)
        assert plan.total_cost_usd == 96.0 * len(range(0, 8, every))  # the window model's price, unchanged
        assert all(p.waited_gpu_hours == 0.0 and p.max_wait_hours == 0.0 for p in plan.periods)
        assert "waits_beyond_window" not in [n.code for n in plan.notices]


def test_work_that_waits_beyond_its_window_for_owned_gpus_is_said() -> None:
    busy = np.zeros(72)
    busy[23] = busy[24] = 24.0
    plan = _plan(busy, "2027-01-01T00:00:00Z", "day", [owned_item(900)], [])
    assert [(b.gpu, b.count) for b in plan.buy] == [("RTX 3090", 1)]
    assert plan.periods[0].max_wait_hours == 46.0
    found = [n for n in plan.notices if n.code == "waits_beyond_window"]
    assert found and found[0].params["hours"] == 46.0 and found[0].params["window_hours"] == 24.0


def test_a_log_shorter_than_the_horizon_does_not_wait_until_its_end() -> None:
    day = np.r_[np.ones(9), np.full(12, 6.0), np.ones(3)]  # 6 GPUs from 09:00 to 21:00, 1 at night
    busy = np.tile(day, 182)
    plan = _plan(busy, "2027-01-01T00:00:00Z", "day", [], [cloud_item(1.0)], horizon_months=36)
    assert max(p.max_wait_hours for p in plan.periods) == 0.0
    assert "waits_beyond_window" not in [n.code for n in plan.notices]


def test_a_one_machine_listing_serves_a_burst_one_hour_at_a_time() -> None:
    # 24 GPU-hours arrive at midnight each of three days; the only offer is one 1-GPU machine (max_instances 1):
    # the burst runs one GPU-hour an hour, its last GPU-hour 23 h later; without the quota it could all be rented
    # at once and nothing would wait
    busy = np.zeros(72)
    busy[[0, 24, 48]] = 24.0
    one = _plan(busy, "2027-01-01T00:00:00Z", "day", [], [cloud_item(1.0, max_instances=1)])
    assert one.periods[0].max_wait_hours == 23.0
    assert one.periods[0].waited_gpu_hours == 3 * 23.0
    unlimited = _plan(busy, "2027-01-01T00:00:00Z", "day", [], [cloud_item(1.0)])
    assert unlimited.periods[0].max_wait_hours == 0.0


def test_two_listings_run_their_instances_at_once() -> None:
    # 12 GPUs busy 12 hours a day (144 GPU-hours) may wait within the week; two 4-GPU listings of one machine each
    # beside a dearer 1-GPU VM: the plan rents the first listing all week and the second half of it (1,008 GPU-hours a
    # week), 8 GPUs an hour; a day's work is done by the next morning, so nothing waits a day, let alone the week
    busy = np.tile(np.r_[np.full(12, 12.0), np.zeros(12)], 7 * 4)
    listings = [cloud_item(1.6, name="hostA 4x3090", gpu_count=4, max_instances=1),
                cloud_item(1.7, name="hostB 4x3090", gpu_count=4, max_instances=1), cloud_item(0.6, name="1x3090")]
    plan = _plan(busy, "2027-01-04T00:00:00Z", "week", [], listings)
    assert {c.name: c.hours for c in plan.cloud} == {"hostA 4x3090": 672.0, "hostB 4x3090": 336.0}
    assert 0 < max(p.max_wait_hours for p in plan.periods) < 24.0
    assert not any("longer than" in w for w in plan.warnings)


def test_batches_are_an_instance_hour_of_reference_work() -> None:
    # one reference GPU busy every hour for a week; the only offer is a 4-GPU instance whose GPUs each do 4 times
    # the reference's work: one instance-hour does 16 reference GPU-hours, so work queues until 16 are there
    # (hour 15, the first GPU-hour waiting 15 h) and each day's last 8 run at its end
    busy = np.ones(24 * 7)
    plan = _plan(busy, "2027-01-04T00:00:00Z", "day", [], [cloud_item(8.0, gpu="H100 SXM", gpu_count=4)],
                 throughput_overrides={"H100 SXM": 4.0})
    assert plan.periods[0].max_wait_hours == 15.0
