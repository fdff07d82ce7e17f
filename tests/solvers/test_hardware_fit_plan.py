"""The planner buys hardware only as it is really sold: pricing.hardware_fit.host_accepts per host."""

from __future__ import annotations

import dataclasses
from typing import Any

from pricing.catalog import Catalog, Host, bundled_catalog
from solvers.plan import make_plan
from solvers.profile import Profile
from solvers.result import PlanResult as Plan
from tests.conftest import TODAY, cloud_item, owned_item, simple_profile

SERVER = Host(name="8-GPU test server", slots=8, base_cost_usd=5000.0, psu_watts=8000.0, idle_watts=0.0,
              source="test", as_of="2026-01-01", kind="server", form_factors=frozenset({"pcie"}),
              passive_cooling=True)


def bare(gpu: str, price: float = 100.0, **extra: Any) -> dict[str, Any]:
    """A cheap bare card: the plan buys it whenever any host may take it (cloud costs 10 USD/h)."""
    return owned_item(price, watts=350, gpu=gpu, includes_host=False, **extra)


def plan_for(owned: list[dict[str, Any]], catalog: Catalog, gpus: int = 2) -> Plan:
    profile = simple_profile(owned, [cloud_item(10.0)], utilisation=0.9)
    profile["demand"]["gpus"] = gpus
    profile["min_gpu_memory_gb"] = 0
    return make_plan(Profile.model_validate(profile), catalog, TODAY)


def bought_gpus(plan: Plan, gpu: str) -> int:
    return sum(line.count * line.gpus_per_unit for line in plan.buy if line.gpu == gpu)


def test_passive_pcie_card_never_in_a_desktop() -> None:
    # the bundled hosts with a documented price are desktops and workstations: no H100 PCIe at all
    plan = plan_for([bare("H100 PCIe")], bundled_catalog())
    assert bought_gpus(plan, "H100 PCIe") == 0
    assert plan.cloud


def test_passive_pcie_card_goes_into_a_server() -> None:
    catalog = dataclasses.replace(bundled_catalog(), hosts=[*bundled_catalog().hosts, SERVER])
    plan = plan_for([bare("H100 PCIe"), bare("RTX 3090", 5000.0)], catalog, gpus=10)
    h100 = bought_gpus(plan, "H100 PCIe")
    assert h100 > 0
    server_slots = sum(h.count * h.slots for h in plan.hosts if h.name == SERVER.name)
    assert h100 <= server_slots


def test_consumer_card_still_goes_into_a_desktop() -> None:
    plan = plan_for([bare("RTX 3090")], bundled_catalog())
    assert bought_gpus(plan, "RTX 3090") == 2
    assert plan.hosts and all("server" not in h.name for h in plan.hosts)


def test_module_never_in_a_two_gpu_box() -> None:
    catalog = dataclasses.replace(bundled_catalog(), hosts=[*bundled_catalog().hosts, SERVER])
    two_box = owned_item(200.0, watts=1400, gpu="H100 SXM", gpus_per_unit=2)
    plan = plan_for([bare("H100 SXM"), bare("MI300X"), two_box], catalog)
    assert bought_gpus(plan, "H100 SXM") == 0 and bought_gpus(plan, "MI300X") == 0
    eight_box = owned_item(800.0, watts=5600, gpu="H100 SXM", gpus_per_unit=8)
    assert bought_gpus(plan_for([eight_box], catalog), "H100 SXM") == 8


def test_two_gpu_jobs_on_server_cards_run_in_the_server() -> None:
    catalog = dataclasses.replace(bundled_catalog(), hosts=[*bundled_catalog().hosts, SERVER])
    profile = simple_profile([bare("H100 PCIe")], [cloud_item(10.0)], utilisation=0.9)
    profile["demand"]["gpus"] = 4
    profile["jobs"] = {"gpus_per_job": 2}
    plan = make_plan(Profile.model_validate(profile), catalog, TODAY)
    h100 = bought_gpus(plan, "H100 PCIe")
    assert h100 > 0
    assert h100 <= sum(h.count * h.slots for h in plan.hosts if h.name == SERVER.name)
