"""Per-period peaks where the plan rents hours for its owned machines' off-hours or maintenance (packed hours, not
whole instances for jobs above the owned slots): those hours are rented GPUs busy, so the period's
`peak_rented_gpus` is at least one instance's GPUs; it read 0 beside 124 rented hours."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from pricing.catalog import bundled_catalog
from solvers.base.profile import Profile
from solvers.plan import make_plan
from tests.conftest import TODAY

# one GPU busy half the time; one RTX 3090 desktop (at most one owned GPU) on 8 hours a day; a 1-GPU VM at $0.50/h
DESKTOP_8H: dict[str, Any] = {
    "workload": "cnn_training", "horizon_months": 12, "electricity_usd_per_kwh": 0.15,
    "throughput_overrides": {"RTX 3090": 1.0},
    "demand": {"gpus": 1, "utilisation": 0.5, "reading": "at_once", "reference_gpu": "RTX 3090",
               "start": "2027-01-01"},
    "options": {"resale": False, "pue": 1.0, "availability": 1.0, "max_owned_gpus": 1, "machine_on": 8},
    "prices": {"mode": "replace",
               "owned": [{"name": "3090 desktop", "gpu": "RTX 3090", "unit_price_usd": 1000, "watts": 450,
                          "idle_watts": 60, "includes_host": True}],
               "cloud": [{"provider": "acme", "name": "1x3090", "gpu": "RTX 3090", "gpu_count": 1,
                          "usd_per_hour": 0.5, "region": "us"}]}}


@pytest.mark.parametrize(("options", "utilisation"), [({"machine_on": 8}, 0.5),
                                                      ({"machine_on": "always", "availability": 0.9}, 1.0)],
                         ids=["off_hours", "maintenance_of_a_busy_card"])
def test_hours_rented_for_owned_machines_count_as_rented_gpus_at_once(options: dict[str, Any],
                                                                     utilisation: float) -> None:
    data = copy.deepcopy(DESKTOP_8H)
    data["options"].update(options)
    data["demand"]["utilisation"] = utilisation
    plan = make_plan(Profile.model_validate(data), bundled_catalog(), TODAY)
    assert plan.buy and plan.cloud
    january = plan.periods[0]
    assert sum(january.cloud_hours.values()) > 0
    assert january.peak_rented_gpus == 1.0
    if options["machine_on"] == 8:  # 372 busy hours in January's 744, 8 of each day's 24 on the desktop
        assert sum(january.cloud_hours.values()) == pytest.approx(124.0)


def test_owned_gpus_busy_together_while_work_waits_are_the_replays() -> None:
    """4 GPUs busy together half of each day over three years, work may wait within the day, desktops on 12 hours a
    day: the plan sees the day's average (2 GPUs), buys four desktops, and the replay runs the work as it arrives,
    four at once; the periods said 2."""
    data = copy.deepcopy(DESKTOP_8H)
    data["horizon_months"] = 36
    data["demand"]["gpus"] = 4
    data["jobs"] = {"patience": "day"}
    data["options"].update(machine_on=12, max_owned_gpus=4)
    plan = make_plan(Profile.model_validate(data), bundled_catalog(), TODAY)
    assert [(b.name, b.count) for b in plan.buy] == [("3090 desktop", 4)]
    assert all(p.waited_gpu_hours == 0.0 for p in plan.periods)
    assert all(p.peak_owned_gpus == 4.0 for p in plan.periods)
