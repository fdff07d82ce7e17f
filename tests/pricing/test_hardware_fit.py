"""Hardware as bought: module GPUs only in servers, passive cards only with server airflow, PSU limits."""

from __future__ import annotations

import pytest

from pricing.gpus import bundled_gpus
from pricing.hardware_fit import HostRow, bundled_host_rows, cards_powered, host_accepts


def host(name: str) -> HostRow:
    return next(h for h in bundled_host_rows() if h.name.startswith(name))


MODULE_HOSTS = frozenset({"sxm", "oam", "superchip"})


def module_server(slots: int) -> HostRow:
    return HostRow(f"{slots}-slot module server", slots, None, "server", MODULE_HOSTS, True)


@pytest.mark.parametrize("gpu", ["H100 SXM", "B200", "MI300X", "GB200"])
def test_module_gpus_only_in_4_or_8_gpu_servers(gpu: str) -> None:
    spec = bundled_gpus()[gpu]
    assert not host_accepts(host("2-GPU workstation"), spec).ok
    assert not host_accepts(host("4-GPU rack workstation"), spec).ok
    assert host_accepts(host("8-GPU HGX/OAM server"), spec, 8).ok
    odd = HostRow("2-slot server", 2, 3000.0, "server", frozenset({"sxm", "oam", "superchip"}), True)
    assert "4- or 8-GPU" in host_accepts(odd, spec).reason


def test_gh200_comes_in_1_2_or_4_superchip_servers() -> None:
    # NVIDIA's GH200 NVL2 platform with one and with two GH200 (MLPerf Inference v4.1 system descriptions, status
    # "available"), four per node in CSCS Alps; never in a desktop, never on an 8-GPU baseboard or a 3-slot box
    gh200 = bundled_gpus()["GH200"]
    for slots in (1, 2, 4):
        assert host_accepts(module_server(slots), gh200, slots).ok
    three = host_accepts(module_server(3), gh200)
    assert not three.ok and "1-, 2- or 4-GPU" in three.reason
    assert not host_accepts(host("8-GPU HGX/OAM server"), gh200, 8).ok
    assert not host_accepts(host("1-GPU desktop"), gh200).ok
    assert not host_accepts(module_server(2), bundled_gpus()["H100 SXM"], 2).ok  # SXM keeps its 4/8 baseboards


@pytest.mark.parametrize("gpu", ["H100 PCIe", "L40S", "A100 80GB PCIe", "H100 NVL"])
def test_passive_data_centre_cards_only_in_server_chassis(gpu: str) -> None:
    spec = bundled_gpus()[gpu]
    verdict = host_accepts(host("4-GPU workstation"), spec)
    assert not verdict.ok and "passively cooled" in verdict.reason
    assert host_accepts(host("8-GPU server (Supermicro"), spec, 4).ok


def test_desktop_psu_limits_follow_the_guide() -> None:
    # the guide's 1,600 W desktop (DOMAIN §3): 3 x 350 W + 150 W, +10% = 1,320 W fits; 4 x RTX 3090 need
    # (1,400 + 150) x 1.1 = 1,705 W, "wants >= 1,700 W or a power limit"
    gpus = bundled_gpus()
    desktop = HostRow("guide's 1,600 W desktop", 4, 1600.0, "desktop", frozenset({"pcie"}), False)
    assert host_accepts(desktop, gpus["RTX 3090"], 3).ok
    four = host_accepts(desktop, gpus["RTX 3090"], 4)
    assert not four.ok and "PSU" in four.reason
    assert not host_accepts(desktop, gpus["RTX 5090"], 3).ok  # (3 x 575 + 150) x 1.1 = 2,062.5 W


def test_bundled_2025_2026_hosts_power_the_cards_they_are_built_for() -> None:
    gpus = bundled_gpus()
    # 1-GPU desktop, 1,500 W: one RTX 5090 (575 + 150) x 1.1 = 797.5 W; its one slot holds no second card
    assert host_accepts(host("1-GPU desktop"), gpus["RTX 5090"]).ok
    assert not host_accepts(host("1-GPU desktop"), gpus["RTX 4090"], 2).ok
    # 2-GPU workstation, 2,000 W: two RTX 5090s (1,150 + 150) x 1.1 = 1,430 W; two RTX PRO 6000s 1,485 W
    assert host_accepts(host("2-GPU workstation"), gpus["RTX 5090"], 2).ok
    assert host_accepts(host("2-GPU workstation"), gpus["RTX PRO 6000"], 2).ok
    # 4-GPU workstation, dual PSU 2,600 W: four RTX 4090s (1,800 + 150) x 1.1 = 2,145 W fit; four RTX 5090s
    # (2,300 + 150) x 1.1 = 2,695 W do not (power-limit them)
    dual = host("4-GPU workstation (Threadripper PRO")
    assert host_accepts(dual, gpus["RTX 4090"], 4).ok
    assert not host_accepts(dual, gpus["RTX 5090"], 4).ok
    # 4-GPU rack workstation, one 2,000 W PSU: two RTX 5090s (1,430 W) fit, four RTX 4090s (2,145 W) do not
    assert host_accepts(host("4-GPU rack workstation"), gpus["RTX 5090"], 2).ok
    assert not host_accepts(host("4-GPU rack workstation"), gpus["RTX 4090"], 4).ok


def test_slot_count_is_respected() -> None:
    assert not host_accepts(host("2-GPU workstation"), bundled_gpus()["RTX 3090"], 3).ok


def test_priced_pcie_server_takes_eight_passive_cards_but_no_modules() -> None:
    gpus = bundled_gpus()
    server = host("8-GPU 4U server for passive PCIe cards")
    for gpu in ("L40S", "H100 PCIe", "A100 80GB PCIe"):
        # 8 x 350 W + 150 W host, +10%: 3,245 W within the 5,400 W counted
        assert host_accepts(server, gpus[gpu], 8).ok
    assert not host_accepts(server, gpus["L40S"], 9).ok
    assert not host_accepts(server, gpus["H100 SXM"], 8).ok  # SXM modules come only in HGX servers
    for desktop in ("1-GPU desktop", "2-GPU workstation", "4-GPU workstation", "4-GPU rack workstation"):
        assert not host_accepts(host(desktop), gpus["L40S"]).ok


@pytest.mark.parametrize("gpu", ["RTX 3090", "RTX 4090"])
def test_three_slot_cards_do_not_go_into_the_double_width_card_server(gpu: str) -> None:
    # DOMAIN.md section 3: 3-slot cards (RTX 3090/4090) do not fit four to a standard board without risers or 2-slot
    # variants; the 8-GPU server is built for double-width cards
    fit = host_accepts(host("8-GPU 4U server for passive PCIe cards"), bundled_gpus()[gpu], 1)
    assert not fit.ok and "3-slot card" in fit.reason
    assert host_accepts(host("2-GPU workstation"), bundled_gpus()[gpu], 1).ok
    assert host_accepts(host("8-GPU 4U server for passive PCIe cards"), bundled_gpus()["RTX 6000 Ada"], 8).ok
    assert host_accepts(host("8-GPU 4U server for passive PCIe cards"), bundled_gpus()["RTX 2080 Ti"], 1).ok


@pytest.mark.parametrize("psu", [1600.0, 1700.0, 1705.0, 1706.0, 2062.5, 2600.0, 5200.0])
@pytest.mark.parametrize("gpu", ["RTX 3090", "RTX 4090", "RTX 5090", "RTX A6000"])
def test_cards_powered_is_exactly_what_host_accepts_takes(psu: float, gpu: str) -> None:
    # the planner's per-host capacity must agree with the fit rule at the boundary: (4 x 350 + 150) x 1.1 is
    # 1,705.0000000000002 in floating point, so a 1,705 W PSU powers three RTX 3090s, not four
    spec = bundled_gpus()[gpu]
    box = HostRow("test box", 16, psu, "workstation", frozenset({"pcie"}), False)
    count = cards_powered(psu, spec.tdp_w)
    assert count == 0 or host_accepts(box, spec, count).ok
    assert not host_accepts(box, spec, count + 1).ok


def test_cards_powered_at_the_floating_point_boundary() -> None:
    assert cards_powered(1705.0, 350.0) == 3
    assert cards_powered(1706.0, 350.0) == 4
