"""Jobs across machines (`jobs.interconnect`, issue 13): a 16-GPU job on 8-GPU machines only over a stated fabric,
at the cross-machine efficiency, never on a mix of GPU types. Hand-derived cases."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from pricing.catalog import bundled_catalog
from solvers.base import defaults
from solvers.base.errors import InfeasibleProfile
from solvers.base.profile import Profile
from solvers.base.result import PlanResult
from solvers.offers.throughput import cross_machine_efficiency
from solvers.plan import make_plan
from tests.conftest import TODAY, cloud_item, owned_item, simple_profile

BUSY = 0.5 * 365 * 24  # one 16-GPU job half of 2027: 4,380 h
TWO = 1 - 0.025 / 3    # two machines: between 1 machine (1.0) and 4 (0.975), linear: 0.99167
SERVER_PUE = defaults.PUE_BY_HOST_KIND["server"]  # 1.54


def wide_job(owned: list[dict[str, Any]], cloud: list[dict[str, Any]], **jobs: Any) -> dict[str, Any]:
    profile = simple_profile(owned, cloud, utilisation=0.5)
    profile["demand"]["gpus"] = 16
    profile["jobs"] = {"gpus_per_job": 16, "scaling_efficiency": 1.0, **jobs}
    return profile


def plan_for(profile: dict[str, Any]) -> PlanResult:
    return make_plan(Profile.model_validate(profile), bundled_catalog(), TODAY)


def eight(price: float, gpu: str = "RTX 3090", name: str = "8x", **extra: Any) -> dict[str, Any]:
    return cloud_item(price, gpu=gpu, name=name, gpu_count=8, **extra)


def test_the_default_efficiency_comes_from_the_sourced_points() -> None:
    profile = Profile.model_validate(wide_job([], [], interconnect="infiniband"))
    assert cross_machine_efficiency(profile, 1) == 1.0
    assert cross_machine_efficiency(profile, 2) == pytest.approx(TWO)
    assert cross_machine_efficiency(profile, 4) == pytest.approx(3.9 / 4)   # MosaicML: 3.9x on 4 nodes
    assert cross_machine_efficiency(profile, 16) == pytest.approx(14.4 / 16)  # 14.4x on 16
    assert defaults.CROSS_MACHINE_EFFICIENCY[16] == pytest.approx(14.4 / 16)


def test_a_16_gpu_job_cannot_run_on_8_gpu_instances_without_an_interconnect() -> None:
    with pytest.raises(InfeasibleProfile, match="one machine"):
        plan_for(wide_job([], [eight(4.0, multi_node=True)]))


def test_an_offer_without_a_known_fabric_cannot_link_instances() -> None:
    with pytest.raises(InfeasibleProfile, match="RDMA fabric"):
        plan_for(wide_job([], [eight(4.0)], interconnect="infiniband"))


def test_with_infiniband_two_linked_instances_run_the_job_at_the_stated_efficiency() -> None:
    plan = plan_for(wide_job([], [eight(4.0, multi_node=True)], interconnect="infiniband"))
    # the pair runs 4,380 h / 0.99167 = 4,416.8 h at 2 x $4/h
    assert plan.cloud[0].name == "8x x2 linked" and plan.cloud[0].gpu_count == 16
    assert plan.cloud[0].hours == pytest.approx(BUSY / TWO, abs=1e-2)
    assert plan.total_cost_usd == pytest.approx(8.0 * BUSY / TWO, abs=0.05)
    measured = plan_for(wide_job([], [eight(4.0, multi_node=True)], interconnect="infiniband",
                                 cross_machine_efficiency=0.8))
    assert measured.total_cost_usd == pytest.approx(8.0 * BUSY / 0.8, abs=0.05)  # 5,475 h x $8


def test_a_16_gpu_instance_needs_no_link() -> None:
    sixteen = cloud_item(8.0, name="16x", gpu_count=16)
    plan = plan_for(wide_job([], [sixteen, eight(4.0, multi_node=True)], interconnect="infiniband"))
    assert plan.cloud[0].name == "16x"  # same price per GPU-hour, no cross-machine loss
    assert plan.total_cost_usd == pytest.approx(8.0 * BUSY, abs=0.05)


def test_owned_machines_linked_by_infiniband_pay_the_network_per_machine() -> None:
    box = owned_item(1000, watts=8 * 450, gpus_per_unit=8)
    plan = plan_for(wide_job([box], [], interconnect="infiniband"))
    assert sum(b.count for b in plan.buy) == 2
    # 2 x (1,000 + 250 network) + 16 GPUs x 450 W x $0.10/kWh for 4,380 h / 0.99167, at a server room's PUE 1.54
    # (an 8-GPU machine is a server: solvers/offers/pue.py)
    energy = 16 * 0.045 * BUSY / TWO * SERVER_PUE
    assert plan.total_cost_usd == pytest.approx(2 * 1250 + energy, abs=0.05)
    with pytest.raises(InfeasibleProfile):
        plan_for(wide_job([box], []))  # one machine only: an 8-GPU box cannot run a 16-GPU job


def test_a_job_never_mixes_gpu_types() -> None:
    # one 8x RTX 3090 and one 8x RTX 4090 instance at most: 16 GPUs exist, but not 16 of one type
    cloud = [eight(4.0, multi_node=True, max_instances=1),
             eight(5.0, gpu="RTX 4090", name="4090", multi_node=True, max_instances=1)]
    with pytest.raises(InfeasibleProfile):
        plan_for(wide_job([], cloud, interconnect="infiniband"))


def test_ethernet_needs_a_measured_efficiency() -> None:
    with pytest.raises(ValidationError, match="cross_machine_efficiency"):
        Profile.model_validate(wide_job([], [], interconnect="ethernet"))
    box = owned_item(1000, watts=8 * 450, gpus_per_unit=8)
    plan = plan_for(wide_job([box], [], interconnect="ethernet", cross_machine_efficiency=0.5))
    # no network priced on ethernet; the job runs 4,380 / 0.5 h on 16 GPUs, at PUE 1.54
    assert plan.total_cost_usd == pytest.approx(2 * 1000 + 16 * 0.045 * BUSY / 0.5 * SERVER_PUE, abs=0.05)


def always_on(owned: list[dict[str, Any]], cloud: list[dict[str, Any]], load: str = "replicas") -> dict[str, Any]:
    """A 24/7 service whose replica needs 16 GPUs (a model sharded over two 8-GPU machines), all of 2027."""
    profile = wide_job(owned, cloud, interconnect="infiniband", runs="continuously", load=load)
    profile["demand"]["utilisation"] = 1.0
    return profile


@pytest.mark.parametrize("load", ["replicas", "divisible"])
def test_an_always_on_replica_wider_than_a_machine_runs_on_linked_instances_every_hour(load: str) -> None:
    # two linked 8-GPU instances at $4/h each, every hour of 2027: 8,760 h x $8 = $70,080. The reference replica
    # spans two machines as well, so the cross-machine efficiency does not make the pair "slower than a replica".
    plan = plan_for(always_on([], [eight(4.0, multi_node=True)], load))
    assert plan.cloud[0].name == "8x x2 linked" and plan.cloud[0].hours == pytest.approx(8760.0)
    assert plan.total_cost_usd == pytest.approx(8.0 * 8760, abs=0.05)
    assert all(p.served_every_hour for p in plan.periods)


def test_an_always_on_replica_runs_on_two_owned_machines_linked_by_infiniband() -> None:
    # 2 x ($1,000 + $250 network) + 16 GPUs x 450 W x 8,760 h x $0.10/kWh x PUE 1.54 (two 8-GPU servers)
    # = 2,500 + 9,713.09 = $12,213.09
    box = owned_item(1000, watts=8 * 450, gpus_per_unit=8)
    plan = plan_for(always_on([box], []))
    assert sum(b.count for b in plan.buy) == 2
    assert plan.total_cost_usd == pytest.approx(2 * 1250 + 16 * 0.45 * 8760 * 0.10 * SERVER_PUE, abs=0.05)
    assert all(p.served_every_hour for p in plan.periods)


def test_a_job_wider_than_any_machine_names_its_width_not_the_cloud() -> None:
    """A 16-GPU job on the bundled catalog, cloud allowed: no instance and no host holds 16 GPUs. The width is the
    constraint, and the message says so (it said "cloud is excluded" and listed every card type's host)."""
    profile = {"workload": "transformer_training", "horizon_months": 12, "jobs": {"gpus_per_job": 16},
               "demand": {"gpus": 16, "utilisation": 0.5, "reference_gpu": "RTX 3090"}}
    with pytest.raises(InfeasibleProfile) as info:
        plan_for(profile)
    assert info.value.constraint == "jobs.gpus_per_job"
    message = info.value.message
    assert "no cloud offer runs a job of 16 GPUs" in message and "cloud is excluded" not in message
    assert "jobs.interconnect" in message and "more card types" in message and len(message) < 1200
    profile["options"] = {"allow_cloud": False}
    with pytest.raises(InfeasibleProfile, match="cloud is excluded"):
        plan_for(profile)


def test_a_card_no_host_takes_is_not_a_job_width_problem() -> None:
    """A 3,000 W card fits no host at any width: narrower jobs would not do, so the demand is the constraint (not
    the job width), and with cloud excluded no linked cloud machines are suggested."""
    for width in (1, 2):
        profile = simple_profile([owned_item(1000, watts=3000, includes_host=False)], [], allow_cloud=False)
        profile["demand"]["gpus"] = width
        profile["jobs"] = {"gpus_per_job": width}
        with pytest.raises(InfeasibleProfile) as info:
            plan_for(profile)
        assert info.value.constraint == "demand"
        assert "holds 0" in info.value.message and "interconnect" not in info.value.message
