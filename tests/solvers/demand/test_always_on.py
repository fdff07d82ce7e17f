"""Always-on load (`jobs.runs = continuously`, issue 13): a service needs capacity present every hour; a faster GPU
may carry more divisible load, never fewer hours. Hand-derived cases and a brute-force oracle."""

from __future__ import annotations

import itertools
import math
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from pricing.catalog import bundled_catalog
from solvers.base.profile import Profile
from solvers.base.result import PlanResult
from solvers.explain.weighing import evaluator_for
from solvers.model.purchases import Purchase, Scenario
from solvers.plan import make_plan, solve_core
from tests.conftest import TODAY, cloud_item, owned_item, simple_profile

HOURS_24_MONTHS = 731 * 24  # 2027-01-01 .. 2029-01-01 (2028 is a leap year): 17,544 h
FAST = 2.0  # RTX 4090 relative to the RTX 3090 reference, set by throughput_overrides so the cases are hand-checkable
RATE = 0.1


def service(owned: list[dict[str, Any]], cloud: list[dict[str, Any]], gpus: int = 2, months: int = 24,
            **jobs: Any) -> dict[str, Any]:
    """`gpus` reference GPUs needed every hour for `months` months on the caller's prices."""
    profile = simple_profile(owned, cloud, utilisation=1.0, months=months)
    profile["demand"]["gpus"] = gpus
    profile["jobs"] = {"runs": "continuously", **jobs}
    profile["throughput_overrides"] = {"RTX 4090": FAST, "RTX 3080": 0.5}
    return profile


def plan_for(profile: dict[str, Any]) -> PlanResult:
    return make_plan(Profile.model_validate(profile), bundled_catalog(), TODAY)


def rented_hours(plan: PlanResult, gpu: str) -> float:
    return sum(c.hours for c in plan.cloud if c.gpu == gpu)


def test_two_gpus_every_hour_rent_two_gpus_every_hour_not_fewer_hours_on_a_faster_gpu() -> None:
    # 3090 at $1.00/h, a 2x-faster 4090 at $1.50/h. Work that runs until done: the 4090 does 2 reference hours
    # per hour at $0.75 each, so 2 x 17,520 reference GPU-hours take 17,520 h x 1.50 = 26,280 (the bug's shape).
    cloud = [cloud_item(1.00, name="3090"), cloud_item(1.50, gpu="RTX 4090", name="4090")]
    until_done = service([], cloud)
    until_done["jobs"] = {}
    training = plan_for(until_done)
    assert training.total_cost_usd == pytest.approx(HOURS_24_MONTHS * 1.50, abs=0.05)
    assert rented_hours(training, "RTX 4090") == pytest.approx(HOURS_24_MONTHS, abs=1e-3)
    # A service: two replicas present in every hour; a 4090 carries one replica as a 3090 does, so the cheaper
    # per hour wins: 2 x 17,520 h x 1.00 = 35,040.
    plan = plan_for(service([], cloud))
    assert plan.total_cost_usd == pytest.approx(2 * HOURS_24_MONTHS * 1.00, abs=0.05)
    assert rented_hours(plan, "RTX 3090") == pytest.approx(2 * HOURS_24_MONTHS, abs=1e-3)
    assert all(p.served_every_hour is True and p.peak_rented_gpus == pytest.approx(2) for p in plan.periods)
    assert all(p.served_every_hour is None for p in training.periods)


def test_divisible_load_on_a_2x_faster_gpu_needs_half_the_gpus_but_all_the_hours() -> None:
    cloud = [cloud_item(1.00, name="3090"), cloud_item(1.50, gpu="RTX 4090", name="4090")]
    plan = plan_for(service([], cloud, load="divisible"))
    # one 4090 carries both reference GPUs of load: 17,520 h x 1.50 = 26,280 < 2 x 17,520 x 1.00
    assert rented_hours(plan, "RTX 4090") == pytest.approx(HOURS_24_MONTHS, abs=1e-3)
    assert plan.total_cost_usd == pytest.approx(HOURS_24_MONTHS * 1.50, abs=0.05)
    assert all(p.peak_rented_gpus == pytest.approx(1.0) and p.served_every_hour for p in plan.periods)
    assert sum(p.unused_rented_gpu_hours for p in plan.periods) == pytest.approx(0.0, abs=1e-6)


def test_owned_replicas_need_one_gpu_each_even_on_a_faster_gpu() -> None:
    # An owned 4090 box at $500 (450 W, $0.10/kWh: $0.045 per hour it works) against a 3090 cloud at $1/h.
    owned = [owned_item(500, gpu="RTX 4090")]
    cloud = [cloud_item(1.00, name="3090")]
    replicas = plan_for(service(owned, cloud))
    assert sum(b.count for b in replicas.buy) == 2
    assert replicas.total_cost_usd == pytest.approx(2 * 500 + 2 * HOURS_24_MONTHS * 0.045, abs=0.05)
    divisible = plan_for(service(owned, cloud, load="divisible"))
    # one 4090 carries the 2 reference GPUs of load, working every hour at full power
    assert sum(b.count for b in divisible.buy) == 1
    assert divisible.total_cost_usd == pytest.approx(500 + HOURS_24_MONTHS * 0.045, abs=0.05)
    assert all(p.served_every_hour and p.peak_owned_gpus == pytest.approx(1.0) for p in divisible.periods)


def test_fewer_owned_than_needed_rent_the_rest_every_hour() -> None:
    owned = [owned_item(500)]
    profile = service(owned, [cloud_item(1.00, name="3090")])
    profile["options"]["max_owned_gpus"] = 1
    plan = plan_for(profile)
    assert sum(b.count for b in plan.buy) == 1
    assert rented_hours(plan, "RTX 3090") == pytest.approx(HOURS_24_MONTHS, abs=1e-3)
    assert all(p.served_every_hour and p.peak_owned_gpus + p.peak_rented_gpus == pytest.approx(2)
               for p in plan.periods)


def test_a_slower_gpu_cannot_carry_a_replica_but_carries_its_share_of_divisible_load() -> None:
    # RTX 3080 at half the reference's speed: a 4-GPU instance at $1.00/h and a 3090 at $0.60/h.
    cloud = [cloud_item(0.60, name="3090"), cloud_item(1.00, gpu="RTX 3080", name="slow4x", gpu_count=4)]
    replicas = plan_for(service([], cloud))
    assert rented_hours(replicas, "RTX 3080") == 0.0
    assert replicas.total_cost_usd == pytest.approx(2 * HOURS_24_MONTHS * 0.60, abs=0.05)
    # divisible: 4 x 0.5 = 2 reference GPUs of load per instance at $1.00/h < 2 x 0.60
    divisible = plan_for(service([], cloud, load="divisible"))
    assert rented_hours(divisible, "RTX 3080") == pytest.approx(HOURS_24_MONTHS, abs=1e-3)
    assert divisible.total_cost_usd == pytest.approx(HOURS_24_MONTHS * 1.00, abs=0.05)


def test_divisible_load_is_rounded_to_whole_replicas_of_the_type_that_serves_it() -> None:
    # 1.3 reference GPUs of load every hour (jobs of 1 GPU)
    def only(gpu: str, price: float, **extra: Any) -> PlanResult:
        return plan_for(service([], [cloud_item(price, gpu=gpu, name=gpu, **extra)], gpus=1.3, load="divisible"))

    # the reference (RTX 3090): 2 replicas every hour, 2 x 17,544 h x $1.00
    reference = only("RTX 3090", 1.00)
    assert rented_hours(reference, "RTX 3090") == pytest.approx(2 * HOURS_24_MONTHS, abs=1e-3)
    assert reference.total_cost_usd == pytest.approx(2 * HOURS_24_MONTHS * 1.00, abs=0.05)
    # a 2x faster RTX 4090 carries 2 >= 1.3 with one replica: 17,544 h x $1.50
    fast = only("RTX 4090", 1.50)
    assert rented_hours(fast, "RTX 4090") == pytest.approx(HOURS_24_MONTHS, abs=1e-3)
    assert fast.total_cost_usd == pytest.approx(HOURS_24_MONTHS * 1.50, abs=0.05)
    # an RTX 3080 at half the speed needs ceil(1.3 / 0.5) = 3 one-GPU replicas (before, a one-GPU 3080 carried
    # floor(0.5) = 0 reference replicas and could not serve at all): 3 x 17,544 h x $0.30
    slow = only("RTX 3080", 0.30)
    assert rented_hours(slow, "RTX 3080") == pytest.approx(3 * HOURS_24_MONTHS, abs=1e-3)
    assert slow.total_cost_usd == pytest.approx(3 * HOURS_24_MONTHS * 0.30, abs=0.05)
    # on one 4-GPU 3080 machine (4 x 0.5 = 2 reference GPUs) one instance: 17,544 h x $1.00
    box = only("RTX 3080", 1.00, gpu_count=4)
    assert box.total_cost_usd == pytest.approx(HOURS_24_MONTHS * 1.00, abs=0.05)
    # each plan delivers the 1.3 reference GPUs of load every hour, not the replicas' capacity
    for plan in (reference, fast, slow, box):
        assert all(p.served_every_hour for p in plan.periods)
        assert sum(p.delivered_reference_gpu_hours for p in plan.periods) == pytest.approx(1.3 * HOURS_24_MONTHS,
                                                                                           rel=1e-6)


def test_a_small_divisible_load_needs_one_replica_on_any_type() -> None:
    # 0.05 reference GPUs every hour: one replica of the cheapest type, even one at half the reference's speed
    cloud = [cloud_item(1.00, name="3090"), cloud_item(0.40, gpu="RTX 3080", name="3080")]
    plan = plan_for(service([], cloud, gpus=0.05, load="divisible"))
    assert rented_hours(plan, "RTX 3080") == pytest.approx(HOURS_24_MONTHS, abs=1e-3)
    assert plan.total_cost_usd == pytest.approx(HOURS_24_MONTHS * 0.40, abs=0.05)
    # owned: one 3080 box at $300 (450 W, $0.10/kWh; busy 0.05 / 0.5 of every hour: 17,544 x 0.1 x 0.045 = $78.95)
    owned = plan_for(service([owned_item(300, gpu="RTX 3080")], cloud, gpus=0.05, load="divisible"))
    assert [b.count for b in owned.buy] == [1] and owned.cloud == []
    assert owned.total_cost_usd == pytest.approx(300 + HOURS_24_MONTHS * 0.1 * 0.045, abs=0.05)


def test_the_thresholds_evaluator_counts_the_load_a_bare_card_replica_carries() -> None:
    # one replica of 2 reference GPUs every hour on bare RTX 4090 cards (2x faster) in a bought host: a pair carries
    # the whole load (a load unit is 0.5 replica here, a pair carries 4 of the 2). The break-even thresholds re-price
    # the plan's purchase with solvers/model/evaluate.py, which counted the pair as one unit and rented the other.
    profile = service([owned_item(800, gpu="RTX 4090", includes_host=False)], [cloud_item(1.00, gpu_count=2)],
                      load="divisible", gpus_per_job=2)
    core = solve_core(Profile.model_validate(profile), bundled_catalog(), TODAY)
    purchase = Purchase(core.main.units, core.main.hosts)
    assert sum(core.main.units.values()) == 2 and not core.plan.cloud
    evaluator = evaluator_for(core.profile, core.owned, core.options, core.blocks, core.limits)
    assert evaluator.cost(purchase, Scenario(usd_per_kwh=RATE)) == pytest.approx(core.plan.costs.total_usd, abs=0.01)


def test_patience_cannot_move_always_on_load() -> None:
    profile = service([], [cloud_item(1.00)], patience="week")
    with pytest.raises(ValidationError, match="cannot wait"):
        Profile.model_validate(profile)


def test_hourly_load_is_served_whole_hours_rounded_up() -> None:
    # 1.5 reference GPUs in an hour of a service: two replicas that whole hour (work until done would pay 1.5 h)
    profile = simple_profile([], [cloud_item(1.00)])
    profile["demand"] = {"start": "2027-01-04T00:00:00Z", "busy_gpus": [1.5, 0.0, 0.2],
                         "reference_gpu": "RTX 3090"}
    del profile["horizon_months"]
    assert plan_for(profile).total_cost_usd == pytest.approx(1.7, abs=1e-3)
    profile["jobs"] = {"runs": "continuously"}
    plan = plan_for(profile)
    assert plan.total_cost_usd == pytest.approx(3.0, abs=1e-3)
    assert plan.periods[0].served_every_hour is True


# --- brute force over small random hourly services ---------------------------------------------------------------

SPEED = {"RTX 3090": 1.0, "RTX 4090": 1.5, "RTX 3080": 0.5}


def load_unit(busy: list[float], load: str) -> float:
    """Reference replicas per load unit, straight from the documented rule: 1 for replicas; divisible: the peak
    over the least common multiple of the replicas each type of known speed needs alone at the peak."""
    if load == "replicas":
        return 1.0
    peak = max(busy)
    return peak / math.lcm(*(max(1, math.ceil(peak / r - 1e-9)) for r in SPEED.values()))


def units_per_machine(gpus: int, gpu: str, width: int, load: str, unit: float = 1.0) -> int:
    """Load units one machine carries, straight from the documented rule: replicas of `width` reference GPUs, or
    (divisible) its whole replicas x the load units each carries, rounded down."""
    r = SPEED[gpu]
    if load == "replicas":
        return gpus // width if r >= 1 else 0
    return math.floor((gpus // width) * r / unit + 1e-9)


def brute_force(busy: list[float], owned: dict[str, Any] | None, cloud: list[dict[str, Any]], width: int,
                load: str) -> float:
    """Every owned count, and in every hour every split between owned units and whole instances for the hour."""
    unit = load_unit(busy, load)
    units = [math.ceil(b / unit - 1e-9) for b in busy]  # whole load units (replicas) each hour
    cap = [units_per_machine(c["gpu_count"], c["gpu"], width, load, unit) for c in cloud]
    peak = max(units)

    def cover(n: int) -> float:
        if n <= 0:
            return 0.0
        ranges = [range(0, (min(c.get("max_instances") or 99, math.ceil(n / k)) if k else 0) + 1)
                  for c, k in zip(cloud, cap, strict=True)]
        return min((sum(x * c["usd_per_hour"] for x, c in zip(xs, cloud, strict=True))
                    for xs in itertools.product(*ranges) if sum(x * k for x, k in zip(xs, cap, strict=True)) >= n),
                   default=math.inf)

    covers = {n: cover(n) for n in range(peak + 1)}
    per_unit = units_per_machine(owned["gpus_per_unit"], owned["gpu"], width, load, unit) if owned else 0
    best = math.inf
    for bought in range(0, (math.ceil(peak / per_unit) if per_unit else 0) + 1):
        assert owned is not None or bought == 0
        slots = bought * per_unit
        # energy of one unit-hour: `width` GPUs of load (divisible: x the unit), on GPUs that carry r of it each
        # (divisible) or one each
        r = SPEED[owned["gpu"]] / unit if owned and load == "divisible" else 1.0
        energy = RATE * owned["watts"] / owned["gpus_per_unit"] / 1000 * width / r if owned else 0.0
        running = sum(min(k * energy + covers[n - k] for k in range(min(n, slots) + 1)) for n in units)
        best = min(best, bought * (owned["unit_price_usd"] if owned else 0.0) + running)
    return best


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), width=st.sampled_from([1, 2]), load=st.sampled_from(["replicas", "divisible"]),
       busy=st.lists(st.sampled_from([0.0, 0.4, 1.0, 2.0, 2.5, 3.0]), min_size=6, max_size=30).filter(any))
def test_always_on_cost_equals_enumeration(data: Any, width: int, load: str, busy: list[float]) -> None:
    gpus = list(SPEED)
    owned = None
    if data.draw(st.booleans()):
        owned = {"name": "box", "gpu": data.draw(st.sampled_from(gpus)), "gpus_per_unit": data.draw(
            st.sampled_from([2, 4])), "unit_price_usd": data.draw(st.floats(1, 40)),
            "watts": data.draw(st.floats(100, 1500)), "idle_watts": 0, "includes_host": True}
    cloud = [{"provider": "p", "name": f"vm{i}", "gpu": data.draw(st.sampled_from(gpus)),
              "gpu_count": data.draw(st.sampled_from([1, 2, 4])), "usd_per_hour": data.draw(st.floats(0.1, 5)),
              "region": "r", "max_instances": data.draw(st.one_of(st.none(), st.integers(1, 2)))}
             for i in range(data.draw(st.integers(0, 2)))]
    cloud.append({"provider": "p", "name": "fallback", "gpu": "RTX 3090", "gpu_count": width,
                  "usd_per_hour": data.draw(st.floats(0.5, 5)), "region": "r", "max_instances": None})
    profile = Profile.model_validate({
        "workload": "transformer_training",
        "demand": {"start": "2027-01-01T00:00:00Z", "busy_gpus": [b * width for b in busy],
                   "reference_gpu": "RTX 3090"},
        "electricity_usd_per_kwh": RATE,
        "jobs": {"gpus_per_job": width, "runs": "continuously", "load": load},
        "options": {"resale": False, "availability": 1.0},
        "throughput_overrides": SPEED,
        "prices": {"mode": "replace", "owned": [owned] if owned else [],
                   "cloud": [{k: v for k, v in c.items() if v is not None} for c in cloud]},
    })
    plan = make_plan(profile, bundled_catalog(), TODAY)
    assert plan.total_cost_usd == pytest.approx(brute_force(busy, owned, cloud, width, load), rel=1e-6, abs=0.02)
    assert all(p.served_every_hour for p in plan.periods)


def _inference(utilisation: float, **jobs: Any) -> PlanResult:
    profile = simple_profile([], [cloud_item(1.00, name="3090"), cloud_item(1.50, gpu="RTX 4090", name="4090")],
                             utilisation=utilisation, months=12)
    profile["workload"] = "inference_16bit"
    profile["throughput_overrides"] = {"RTX 4090": FAST}
    profile["jobs"] = jobs
    return plan_for(profile)


def test_an_inference_class_planned_until_done_says_a_service_needs_runs_continuously() -> None:
    # the default (until_done) is kept: a 2x-faster 4090 does the year's 8,760 reference hours in 4,380 h at $1.50
    service_like = _inference(1.0)
    assert service_like.total_cost_usd == pytest.approx(365 * 24 / 2 * 1.50, abs=0.05)
    codes = [n.code for n in service_like.notices]
    assert codes.count("inference_service_until_done") == 1 and "inference_until_done" not in codes
    strong = next(n for n in service_like.notices if n.code == "inference_service_until_done")
    assert "fewer hours" in strong.text and 'jobs.runs = "continuously"' in strong.text
    assert strong.text in service_like.warnings
    batch = _inference(0.3)
    assert [n.code for n in batch.notices if n.code.startswith("inference")] == ["inference_until_done"]
    assert 'jobs.runs = "continuously"' in batch.notices[-1].text
    # a service planned as one, and training, say nothing
    assert not [n for n in _inference(1.0, runs="continuously").notices if n.code.startswith("inference")]
    training = plan_for(simple_profile([], [cloud_item(1.00)], utilisation=1.0))
    assert not [n for n in training.notices if n.code.startswith("inference")]
