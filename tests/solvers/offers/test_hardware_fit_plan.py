"""The planner buys hardware only as it is really sold: pricing.hardware_fit.host_accepts per host."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from pricing.catalog import Catalog, Host, bundled_catalog
from solvers.base.profile import Profile
from solvers.base.result import PlanResult as Plan
from solvers.explain.weighing import fitting_host
from solvers.offers.options import build_options
from solvers.plan import make_plan
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
    # without the bundled server the priced hosts are desktops and workstations: no H100 PCIe at all
    catalog = bundled_catalog()
    catalog = dataclasses.replace(catalog, hosts=[h for h in catalog.hosts if h.kind != "server"])
    plan = plan_for([bare("H100 PCIe")], catalog)
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


def test_the_closed_form_says_which_host_bare_cards_go_in_in_parts() -> None:
    profile = simple_profile([bare("RTX 4090")], [cloud_item(10.0)], utilisation=0.9)
    simple = make_plan(Profile.model_validate(profile), bundled_catalog(), TODAY).break_even.simple
    assert simple is not None and simple.hosts >= 1 and simple.host_name is not None
    # the parts a page composes the owned side from in its language, and the English sentence made of them
    assert simple.owned == f"{simple.units} x {simple.owned_name} in {simple.hosts} x {simple.host_name}"


def lab_profile(**options: Any) -> dict[str, Any]:
    """A lab serving 16-bit models on 48 GB cards around the clock, owned hardware only, on the bundled prices."""
    return {"workload": "inference_16bit", "min_gpu_memory_gb": 48,
            "demand": {"gpus": 8, "utilisation": 0.9, "reference_gpu": "RTX 3090"},
            "horizon_months": 36, "electricity_usd_per_kwh": 0.12,
            "options": {"allow_cloud": False, "resale": False, **options}}


def bundled_server() -> Host:
    servers = [h for h in bundled_catalog().hosts
               if h.kind == "server" and h.passive_cooling and "pcie" in h.form_factors]
    assert len(servers) == 1
    return servers[0]


@pytest.mark.parametrize("gpu", ["L40S", "H100 PCIe"])
def test_bundled_server_makes_passive_cards_candidates_with_its_cost(gpu: str) -> None:
    # the bundled prices now hold a priced server chassis: a bare L40S / H100 PCIe can be bought, into it only
    profile = Profile.model_validate(lab_profile())
    options = build_options(bundled_catalog(), profile, TODAY, 1095, None)
    bare_cards = [o for o in options.owned if o.gpu == gpu and not o.includes_host]
    assert bare_cards
    server = bundled_server()
    for option in bare_cards:
        assert [options.hosts[k].host.name for k in option.accepting_hosts] == [server.name]
        host = fitting_host(option, options.hosts)
        assert host is not None and host.host.base_cost_usd == server.base_cost_usd > 0


def test_a_lab_quote_for_l40s_buys_cards_and_the_server() -> None:
    # a lab's negotiated L40S price (2,000 USD) beats the bundled workstation cards; 8 cards need one 8-slot server,
    # whose bundled price must be in the capital cost: capex = 8 x 2,000 + the server's base cost. The demand is
    # stated in L40S (8 GPUs at 0.9: 7.2 L40S loads, so 8 cards) so the count does not hang on the model's ratios.
    profile = lab_profile()
    profile["demand"]["reference_gpu"] = "L40S"
    profile["prices"] = {"mode": "extend", "owned": [{"name": "L40S lab quote", "gpu": "L40S", "unit_price_usd": 2000}]}
    plan = make_plan(Profile.model_validate(profile), bundled_catalog(), TODAY)
    assert bought_gpus(plan, "L40S") == 8
    server = bundled_server()
    assert [(h.name, h.count) for h in plan.hosts] == [(server.name, 1)]
    assert plan.costs.capex_usd == pytest.approx(8 * 2000 + server.base_cost_usd)


def module_profile(owned: list[dict[str, Any]], gpu: str) -> dict[str, Any]:
    """16 busy GPUs of `gpu` (the reference), owned only: the plan must buy them or say it cannot."""
    profile = simple_profile(owned, [cloud_item(10.0)], utilisation=0.9)
    profile["demand"] = {"gpus": 16, "utilisation": 0.9, "reference_gpu": gpu}
    profile["min_gpu_memory_gb"] = 0
    profile["options"]["allow_cloud"] = False
    return profile


@pytest.mark.parametrize("gpu", ["H100 SXM", "B200"])
def test_sxm_modules_are_bought_only_inside_their_4_or_8_gpu_servers(gpu: str) -> None:
    # A bare module at 100 USD beats every server; the bundled hosts (desktops, workstations, the PCIe server) and a
    # test PCIe server must still not take it, so the plan buys the whole 4- and 8-GPU systems instead:
    # 16 GPUs = 2 x 8 (USD 160,000) or 4 x 4 (USD 180,000) or 1 x 8 + 2 x 4 (USD 170,000): the 8-GPU units win.
    catalog = dataclasses.replace(bundled_catalog(), hosts=[*bundled_catalog().hosts, SERVER])
    four = owned_item(45_000.0, watts=4 * 700, gpu=gpu, gpus_per_unit=4, name=f"4x {gpu} server")
    eight = owned_item(80_000.0, watts=8 * 700, gpu=gpu, gpus_per_unit=8, name=f"8x {gpu} server")
    plan = make_plan(Profile.model_validate(module_profile([bare(gpu), four, eight], gpu)), catalog, TODAY)
    lines = [line for line in plan.buy if line.gpu == gpu]
    assert lines and all(line.includes_host and line.gpus_per_unit in (4, 8) for line in lines)
    assert [(line.gpus_per_unit, line.count) for line in lines] == [(8, 2)]
    assert not any(h.name == SERVER.name for h in plan.hosts)


def test_a_4_gpu_module_server_is_bought_when_it_is_the_cheaper_fit() -> None:
    # 4 busy GPUs: one 4-GPU H100 SXM system (45,000) rather than an 8-GPU one (80,000) half idle
    four = owned_item(45_000.0, watts=4 * 700, gpu="H100 SXM", gpus_per_unit=4, name="4x H100 SXM server")
    eight = owned_item(80_000.0, watts=8 * 700, gpu="H100 SXM", gpus_per_unit=8, name="8x H100 SXM server")
    profile = module_profile([bare("H100 SXM"), four, eight], "H100 SXM")
    profile["demand"]["gpus"] = 4
    plan = make_plan(Profile.model_validate(profile), bundled_catalog(), TODAY)
    assert [(line.gpus_per_unit, line.count, line.includes_host) for line in plan.buy] == [(4, 1, True)]


@pytest.mark.parametrize("gpu", ["L40S", "H100 PCIe", "A100 40GB PCIe", "A100 80GB PCIe"])
def test_passive_cards_are_bought_only_with_a_server_on_the_bundled_hosts(gpu: str) -> None:
    # the bundled hosts: desktops, workstations and the 8-slot server; a cheap bare passive card is placed in the
    # server (its base cost counted), never in a desktop or workstation
    plan = plan_for([bare(gpu)], bundled_catalog(), gpus=2)
    assert bought_gpus(plan, gpu) == 2
    assert [h.name for h in plan.hosts] == [bundled_server().name]


def test_a_card_is_bought_at_its_newest_price_not_its_launch_price() -> None:
    # the bundled RTX 5090 (new): NVIDIA's launch MSRP USD 1,999 (2025-01-30), the February 2026 street price
    # USD 3,400 and new on Amazon in September 2026 USD 5,258 (issue 30); a plan bought now pays the newest. Whole
    # systems of several vendors all stay.
    from solvers.offers.owned_rows import current_card_prices

    hardware = bundled_catalog().hardware
    kept = current_card_prices(hardware)
    new_5090 = kept[(kept["gpu"] == "RTX 5090") & (kept["condition"] == "new") & (kept["gpus_per_unit"] == 1)]
    assert new_5090["unit_price_usd"].tolist() == [5258.0]
    cards = hardware[(hardware["gpus_per_unit"] == 1) & ~hardware["includes_host"].astype(bool)]
    assert len(kept) == len(hardware) - (len(cards) - len(cards.groupby(["gpu", "condition"])))
    systems = hardware[(hardware["gpus_per_unit"] > 1) | hardware["includes_host"].astype(bool)]
    assert systems.index.isin(kept.index).all()
