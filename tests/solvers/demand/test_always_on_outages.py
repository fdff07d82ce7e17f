"""An always-on service's owned replicas down for maintenance are covered hour by hour by instances that each carry
one replica (solvers/offers/cloud.py `cloud_options(displaced_replicas=True)`, `CloudOption.packed_capacity`).

Hand case: one 1-GPU replica every hour of 2027 (8,760 h), owned RTX 4090 machines at 95% availability: 5% of the
hours, 438 h, the replica is down and must run in the cloud. Offers: a 1x RTX 4090 at $1.50/h and a 4x RTX 4090 at
$4.00/h. Outages come one hour at a time, so each needs an instance for that hour: 438 h of the 1x, $657.00. The 4x
would serve them at $1,752.00 with three of its GPUs idle (1,314 unused GPU-hours); packed as work that may run at
any hour, four outage hours per instance-hour, it looked cheaper ($438.00) than the 1x.
"""

from __future__ import annotations

from typing import Any

import pytest

from pricing.catalog import bundled_catalog
from solvers.base.profile import Profile
from solvers.plan import make_plan
from tests.conftest import TODAY, cloud_item, owned_item, simple_profile


def _plan(cloud: list[dict[str, Any]]) -> Any:
    body = simple_profile([owned_item(2000, gpu="RTX 4090")], cloud, utilisation=1.0, availability=0.95)
    body["workload"] = "inference_16bit"
    body["demand"]["reference_gpu"] = "RTX 4090"
    body["jobs"] = {"runs": "continuously"}
    return make_plan(Profile.model_validate(body), bundled_catalog(), TODAY)


def test_each_outage_hour_rents_an_instance_for_one_replica() -> None:
    plan = _plan([cloud_item(1.5, gpu="RTX 4090", name="1x"), cloud_item(4.0, gpu="RTX 4090", name="4x", gpu_count=4)])
    assert [(b.gpu, b.count) for b in plan.buy] == [("RTX 4090", 1)]
    assert [(c.name, c.hours) for c in plan.cloud] == [("1x", pytest.approx(438.0, abs=1e-6))]
    assert plan.costs.cloud_usd == pytest.approx(657.0, abs=0.01)
    assert all(p.served_every_hour for p in plan.periods)


def test_a_wide_instance_covering_outages_reports_its_idle_gpus() -> None:
    plan = _plan([cloud_item(4.0, gpu="RTX 4090", name="4x", gpu_count=4)])
    assert [(c.name, c.hours) for c in plan.cloud] == [("4x", pytest.approx(438.0, abs=1e-6))]
    assert plan.costs.cloud_usd == pytest.approx(1_752.0, abs=0.01)
    assert sum(p.unused_rented_gpu_hours for p in plan.periods) == pytest.approx(1_314.0, abs=0.01)
