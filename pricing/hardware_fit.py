"""Which GPUs a host can take, as hardware is really bought (the rule the planner applies per host).

- SXM, OAM and superchip modules come only inside vendor servers: on 4- or 8-GPU baseboards, except the GH200
  Grace Hopper superchip (one CPU and one GPU on a module), sold in servers of 1, 2 or 4 superchips (NVIDIA's
  GH200 NVL2 platform with one or two GH200s in MLPerf Inference v4.1; 4 per node in CSCS Alps).
- Passively cooled data-centre PCIe cards (H100 PCIe/NVL, A100 PCIe, L40S, L40, L4, A10, A40, T4)
  need a server chassis's forced airflow; a desktop or workstation cannot cool them.
- Desktops and workstations take workstation and consumer cards within their PSU: GPUs' board power
  plus 150 W for CPU and board, with 10% headroom, must not exceed the PSU rating. That reproduces
  the guide's 4x RTX 3090 case (1,400 W of GPUs "wants >= 1,700 W or a power limit", DOMAIN §3) and
  its common 1,600 W desktop ceiling.
Pure: no I/O beyond reading the bundled hosts file in `bundled_host_rows`.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Protocol

from pricing.gpus import GpuSpec

MODULE_FORM_FACTORS = frozenset({"sxm", "oam", "superchip"})
MODULE_SERVER_SLOTS = frozenset({4, 8})  # HGX and OAM baseboards; GB200 NVL4 (2 superchips, 4 GPUs)
# GPUs per server where a module is sold otherwise. GH200: NVIDIA's "GH200 NVL2 Platform" with 1 and with 2 GH200,
# "status": "available" (MLPerf Inference v4.1, mlcommons/inference_results_v4.1@a2f5d66
# closed/NVIDIA/systems/GH200-GraceHopper-Superchip_GH200-144GB_aarch64x1_TRT.json and ..._aarch64x2_TRT.json);
# 4 per node in CSCS Alps (2,688 nodes, 10,752 GH200: eth-cscs/cscs-docs docs/alps/hardware.md).
SERVER_SIZES_BY_GPU = {"GH200": frozenset({1, 2, 4})}
HOST_OVERHEAD_W = 150.0  # CPU, board, drives of a GPU host (DOMAIN §5 uses 100 W for a 1-GPU desktop's CPU)
PSU_HEADROOM = 1.10


@dataclass(frozen=True)
class HostRow:
    """One row of hosts.csv with the columns the fit rule reads."""

    name: str
    slots: int
    psu_watts: float | None
    kind: str  # desktop | workstation | server
    form_factors: frozenset[str]
    passive_cooling: bool


class AcceptingHost(Protocol):
    """What the fit rule reads of a host: a `HostRow` here or a planner `pricing.catalog.Host`."""

    @property
    def name(self) -> str: ...
    @property
    def slots(self) -> int: ...
    @property
    def psu_watts(self) -> float | None: ...
    @property
    def kind(self) -> str: ...
    @property
    def form_factors(self) -> frozenset[str]: ...
    @property
    def passive_cooling(self) -> bool: ...


@dataclass(frozen=True)
class Fit:
    ok: bool
    reason: str


def parse_host_rows(rows: list[dict[str, str]]) -> list[HostRow]:
    out: list[HostRow] = []
    for row in rows:
        psu = row.get("psu_watts", "").strip()
        out.append(HostRow(
            name=row["name"].strip(),
            slots=int(row["slots"]),
            psu_watts=float(psu) if psu else None,
            kind=row.get("kind", "").strip() or "desktop",
            form_factors=frozenset(f.strip() for f in (row.get("form_factors", "") or "pcie").split("|") if f.strip()),
            passive_cooling=row.get("passive_cooling", "").strip().lower() == "true",
        ))
    return out


@lru_cache(maxsize=1)
def bundled_host_rows() -> tuple[HostRow, ...]:
    text = resources.files("pricing").joinpath("data/hosts.csv").read_text(encoding="utf-8")
    return tuple(parse_host_rows(list(csv.DictReader(text.splitlines()))))


def passively_cooled(spec: GpuSpec) -> bool:
    """Data-centre PCIe cards ship with passive heat sinks that rely on server airflow."""
    return spec.segment == "datacenter" and spec.form_factor == "pcie"


def module_unit_sizes(spec: GpuSpec) -> frozenset[int]:
    """GPU counts a module GPU is sold in, as one server: 4 or 8 (baseboards), 1, 2 or 4 for the GH200 superchip
    (`SERVER_SIZES_BY_GPU`). Empty for PCIe cards, which have no such rule."""
    if spec.form_factor not in MODULE_FORM_FACTORS:
        return frozenset()
    return SERVER_SIZES_BY_GPU.get(spec.name, MODULE_SERVER_SLOTS)


def module_sizes_text(spec: GpuSpec) -> str:
    """'4- or 8-GPU' / '1-, 2- or 4-GPU': the sizes of `module_unit_sizes` for messages."""
    sizes = sorted(module_unit_sizes(spec))
    head = ", ".join(f"{n}-" for n in sizes[:-1])
    return f"{head} or {sizes[-1]}-GPU" if head else f"{sizes[-1]}-GPU"


# DOMAIN.md section 3 ("Cooling"): 3-slot cards (RTX 3090/4090) do not fit four to a standard board without risers
# or 2-slot variants. The catalogue holds no card widths, so only the cards the guide names are refused by servers
# built for double-width cards; other consumer cards may be dual-slot (and the server takes active cards).
THREE_SLOT_CARDS = frozenset({"RTX 3090", "RTX 4090"})


def host_accepts(host: AcceptingHost, spec: GpuSpec, count: int = 1) -> Fit:
    """Whether `count` GPUs of `spec` can go into `host`, and why not when they cannot."""
    if count < 1:
        return Fit(False, "count must be at least 1")
    if count > host.slots:
        return Fit(False, f"{host.name} has {host.slots} GPU slots, {count} requested")
    if spec.form_factor in MODULE_FORM_FACTORS:
        sizes = module_sizes_text(spec)
        if host.kind != "server" or spec.form_factor not in host.form_factors:
            return Fit(False, f"{spec.name} is a {spec.form_factor.upper()} module, sold only in {sizes} servers")
        if host.slots not in module_unit_sizes(spec):
            return Fit(False, f"{spec.name} needs a {sizes} server; {host.name} has {host.slots} slots")
        return Fit(True, "module server")
    if "pcie" not in host.form_factors:
        return Fit(False, f"{host.name} takes only {'/'.join(sorted(host.form_factors))} modules, not PCIe cards")
    if passively_cooled(spec) and not (host.kind == "server" and host.passive_cooling):
        return Fit(False, f"{spec.name} is passively cooled and needs a server chassis with forced airflow")
    if spec.name in THREE_SLOT_CARDS and host.kind == "server" and host.passive_cooling:
        return Fit(False, f"{spec.name} is a 3-slot card: it does not fit a server chassis built for double-width "
                          "cards (3-slot cards need risers or 2-slot variants)")
    if host.psu_watts is not None:
        needed = (count * spec.tdp_w + HOST_OVERHEAD_W) * PSU_HEADROOM
        if needed > host.psu_watts:
            return Fit(False, f"{count} x {spec.name} ({count * spec.tdp_w:.0f} W) need a {needed:.0f} W PSU; "
                              f"{host.name} has {host.psu_watts:.0f} W (power-limit the cards or use fewer)")
    return Fit(True, "fits")


def cards_powered(psu_watts: float, card_watts: float) -> int:
    """How many cards of `card_watts` a PSU powers by the rule above (GPUs + host overhead, 10% headroom): the
    planner's per-host capacity, so what it places is exactly what `host_accepts` accepts."""
    if card_watts <= 0:
        return 10**6
    count = max(0, math.floor((psu_watts / PSU_HEADROOM - HOST_OVERHEAD_W) / card_watts) + 1)
    while count > 0 and (count * card_watts + HOST_OVERHEAD_W) * PSU_HEADROOM > psu_watts:  # host_accepts' test
        count -= 1
    return count
