"""Waits when owned machines are on only h hours a day (`options.machine_on`): work that arrives while they are off
queues for them (solvers/money/accounting.py `Ledger._waits`, solvers/demand/waits.py `on_hours`).

Hand case: 1 GPU busy the first 12 h of each day (utilisation 0.5, the utilisation form's day pattern), may wait a
day (`patience: day`), own prices only: RTX 3090 machines at $900, a $5/h cloud that never pays. Machines on 6 h a
day work at most 6 h a day each (the model's cap), so the 12 GPU-hours of a day need two, and the plan buys two.
They are on the day's six busiest hours, 00:00-06:00, at 2 GPUs:
- the work of 06:00-12:00 (6 GPU-hours) waits for the next morning: the 06:00 hour's work runs at 00:00 the next
  day, 18 h later; the next morning's own work queues behind it until 05:00;
- from the second day on, 6 + 5 = 11 GPU-hours a day wait (the hours 00:00-04:00 arrive into a queue; 05:00's
  hour finds it empty), the first day's 6 only.
On machines on always (or when working) the same plan waits for nothing.
"""

from __future__ import annotations

import numpy as np
import pytest

from pricing.catalog import bundled_catalog
from solvers.base.profile import Profile
from solvers.demand.waits import on_hours
from solvers.plan import make_plan
from tests.conftest import TODAY, cloud_item, owned_item, simple_profile


def _plan(machine_on: object) -> object:
    body = simple_profile([owned_item(900, gpu="RTX 3090")], [cloud_item(5.0)], utilisation=0.5,
                          machine_on=machine_on)
    body["jobs"] = {"patience": "day"}
    return make_plan(Profile.model_validate(body), bundled_catalog(), TODAY)


def test_work_arriving_while_the_machines_are_off_waits_for_them() -> None:
    plan = _plan(6)
    assert [(b.gpu, b.count) for b in plan.buy] == [("RTX 3090", 2)]  # type: ignore[attr-defined]
    january = plan.periods[0]  # type: ignore[attr-defined]
    assert january.max_wait_hours == 18.0
    assert january.waited_gpu_hours == pytest.approx(6 + 30 * 11, abs=1e-3)
    assert all(p.max_wait_hours == 18.0 for p in plan.periods)  # type: ignore[attr-defined]


@pytest.mark.parametrize("machine_on", ["always", "when_working", 24])
def test_machines_on_whenever_there_is_work_keep_it_from_waiting(machine_on: object) -> None:
    plan = _plan(machine_on)
    assert all(p.waited_gpu_hours == 0.0 and p.max_wait_hours == 0.0 for p in plan.periods)  # type: ignore[attr-defined]


def test_the_machines_are_on_in_the_busiest_hours_of_the_day() -> None:
    arrivals = np.tile(np.r_[np.zeros(8), np.ones(4), 2 * np.ones(2), np.zeros(10)], 3)  # busiest 12:00-14:00
    on = on_hours(arrivals, 4.5)
    day = on[:24]
    assert day[12] == day[13] == 1.0 and day[8] == day[9] == 1.0 and day[10] == 0.5  # ties: the earlier hour
    assert day.sum() == pytest.approx(4.5) and np.array_equal(on[24:48], day)
