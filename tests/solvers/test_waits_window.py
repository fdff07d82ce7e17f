"""Patience windows are planned at their average load; the read-out replays the hours first come, first served
(solvers/waits.py) and the plan says when work waits longer than its window (notice `waits_beyond_window`).

Hand case, cloud only at $1 per GPU-hour, `patience: week`, weeks from Monday 2027-01-04: a burst of 4 GPUs for the
24 hours of Sunday, 96 GPU-hours.
- Every week: each week rents its average, 96 / 168 = 0.571 GPUs every hour. Capacity before Sunday idles; the
  burst is served at 0.571 an hour from hour 144, 96 GPU-hours in 168 h, done as the next burst starts (hour 312):
  its last GPU-hour (arrived in hour 167) waits 144 whole hours, within the 168 h window: no notice.
- Every other week: the quiet weeks rent nothing, so week 1's backlog (96 - 24 x 0.571 = 82.3 GPU-hours at its end)
  waits through week 2 and is served in week 3 at 0.571 an hour: 144 h more, done at hour 480; the last GPU-hour
  waited 480 - 168 = 312 h, beyond the 168 h it may wait: the plan says so.
"""

from __future__ import annotations

import datetime as dt

import numpy as np

from pricing.catalog import bundled_catalog
from solvers.plan import make_plan
from solvers.profile import Profile
from solvers.result import PlanResult
from tests.conftest import cloud_item


def _plan(every: int) -> PlanResult:
    busy = np.zeros(24 * 7 * 8)
    for week in range(0, 8, every):
        busy[week * 168 + 144: week * 168 + 168] = 4.0
    body = {"workload": "transformer_training",
            "demand": {"start": "2027-01-04T00:00:00Z", "busy_gpus": busy.tolist(), "reference_gpu": "RTX 3090"},
            "jobs": {"patience": "week"}, "electricity_usd_per_kwh": 0.1,
            "options": {"resale": False, "availability": 1.0, "allow_buy": False},
            "prices": {"mode": "replace", "owned": [], "cloud": [cloud_item(1.0)]}}
    return make_plan(Profile.model_validate(body), bundled_catalog(), dt.date(2026, 11, 26))


def test_work_that_waits_within_its_window_gets_no_notice() -> None:
    plan = _plan(every=1)
    assert max(p.max_wait_hours for p in plan.periods) == 144.0
    assert "waits_beyond_window" not in [n.code for n in plan.notices]


def test_work_that_waits_beyond_its_window_is_said() -> None:
    plan = _plan(every=2)
    assert plan.total_cost_usd == 384.0  # 4 bursts x 96 GPU-hours at $1: the window model's price
    assert max(p.max_wait_hours for p in plan.periods) == 312.0
    found = [n for n in plan.notices if n.code == "waits_beyond_window"]
    assert found and found[0].params["hours"] == 312.0 and found[0].params["window_hours"] == 168.0
