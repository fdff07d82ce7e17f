"""The plan is the cheapest purchase by the replay's own reckoning (issue 29): random small profiles of every demand
form, every purchase enumerated, each run hour by hour by `solvers.replay.hourly` (written apart from the model); the
model's plan must cost what the replay says it costs, and no enumerated purchase may cost less."""

from __future__ import annotations

import datetime as dt
import itertools
import math
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pricing.catalog import bundled_catalog
from solvers.base.profile import Profile
from solvers.plan import solve_core
from solvers.replay.hourly import replay
from solvers.replay.serving import Fleet
from tests.conftest import TODAY

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
RATE = 0.10
OWNED_GPUS = ["RTX 4090", "A100 80GB PCIe", "L40S"]
CLOUD_GPUS = ["RTX A6000", "H100 PCIe", "RTX 5090"]


@st.composite
def demands(draw: Any, width: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """A demand of one of the four forms, and its horizon."""
    form = draw(st.sampled_from(["utilisation", "hourly", "daily", "monthly"]))
    if form == "utilisation":
        jobs = draw(st.integers(1, 3))
        demand = {"gpus": jobs * width, "utilisation": draw(st.sampled_from([0.1, 0.35, 0.6, 0.9])),
                  "reading": draw(st.sampled_from(["independent", "at_once", "average"])),
                  "start": "2027-01-04"}
        return demand, {"horizon_days": draw(st.integers(3, 14))}
    if form == "hourly":
        hours = draw(st.integers(24, 24 * 10))
        busy = [float(draw(st.integers(1 if i == 0 else 0, 3)) * width) for i in range(8)]
        return {"start": "2027-01-04T00:00:00Z", "busy_gpus": [busy[h // 8 % 8] for h in range(hours)]}, {}
    if form == "daily":
        days = draw(st.integers(2, 10))
        series = [{"start": (dt.date(2027, 1, 4) + dt.timedelta(days=d)).isoformat(),
                   "reference_gpu_hours": draw(st.integers(1 if d == 0 else 0, 3 * 24 * width))} for d in range(days)]
        return {"series": series, "resolution": "day"}, {}
    return {"series": [{"month": "2027-02", "reference_gpu_hours": draw(st.integers(50, 1500))}]}, {}


@st.composite
def profiles(draw: Any) -> dict[str, Any]:
    width = draw(st.sampled_from([1, 1, 2, 4, 8]))
    demand, horizon = draw(demands(width))
    speeds: dict[str, float] = {}
    owned = []
    for i in range(draw(st.integers(1, 2))):
        gpu = OWNED_GPUS[i]
        speeds[gpu] = draw(st.sampled_from([0.5, 0.9, 1.0, 1.5, 3.0, 3.5]))
        gpus = draw(st.sampled_from([g for g in (1, 2, 4, 8) if g >= width]))
        owned.append({"name": f"box{i}", "gpu": gpu, "gpus_per_unit": gpus,
                      "unit_price_usd": draw(st.floats(5, 120)) * gpus, "watts": 300.0 * gpus, "idle_watts": 0,
                      "includes_host": True})
    cloud = []
    for i in range(draw(st.integers(1, 2))):
        gpu = CLOUD_GPUS[i]
        speeds[gpu] = draw(st.sampled_from([0.5, 1.0, 1.5, 2.5, 3.5]))
        count = draw(st.sampled_from([g for g in (1, 2, 4, 8) if g >= width]))
        quota = draw(st.sampled_from([None, None, 1, 2]))
        cloud.append({"provider": "p", "name": f"vm{i}", "gpu": gpu, "gpu_count": count,
                      "usd_per_hour": draw(st.floats(0.3, 2.0)) * count, "region": "r",
                      **({} if quota is None else {"max_instances": quota})})
    cloud.append({"provider": "p", "name": "fallback", "gpu": "RTX 3090", "gpu_count": width,
                  "usd_per_hour": draw(st.floats(1.0, 3.0)) * width, "region": "r"})
    return {
        "workload": "transformer_training",
        "demand": {**demand, "reference_gpu": "RTX 3090"},
        **horizon,
        "electricity_usd_per_kwh": RATE,
        "jobs": {"gpus_per_job": width, "scaling_efficiency": 1.0,
                 "patience": draw(st.sampled_from(["none", "none", "day", "week", "month"]))},
        "options": {"resale": False, "availability": draw(st.sampled_from([1.0, 1.0, 0.9])), "pue": 1.0},
        "throughput_overrides": speeds,
        "prices": {"mode": "replace", "owned": owned, "cloud": cloud},
    }


@SETTINGS
@given(data=profiles())
def test_the_plan_is_the_cheapest_purchase_by_the_replay(data: dict[str, Any]) -> None:
    profile = Profile.model_validate(data)
    core = solve_core(profile, bundled_catalog(), TODAY, prune=False)
    options = core.options
    rate = core.limits.usd_per_kwh
    plan_cost = core.plan.costs.total_usd
    owned = [o for o in options.owned if o.slots_per_unit > 0]
    most = [min(4, math.ceil(8 / max(o.slots_per_unit, 1)) + 1) for o in owned]
    best = math.inf
    bound = 0.0
    for counts in itertools.product(*(range(n + 1) for n in most)):
        fleet = Fleet([(o, n) for o, n in zip(owned, counts, strict=True) if n], [], options.cloud)
        played = replay(core.profile, fleet, TODAY, rate)
        if played.total_usd < best:
            best = played.total_usd
        bound = max(bound, sum(played.approximations.values()))
    chosen = Fleet([(o, n) for o in options.owned if (n := core.main.units.get(o.key, 0))], [], options.cloud)
    mine = replay(core.profile, chosen, TODAY, rate)
    tolerance = 0.02 + 1e-6 * plan_cost + bound + sum(mine.approximations.values())
    assert plan_cost == pytest.approx(mine.total_usd, abs=tolerance)  # the model costs its plan as the replay does
    assert plan_cost <= best + tolerance  # and no purchase the replay can run costs less
