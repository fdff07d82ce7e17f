"""Which GPUs a host can take, as hardware is really bought (the rule the planner applies per host).

- SXM, OAM and superchip modules come only on 4- or 8-GPU baseboards inside vendor servers.
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
MODULE_SERVER_SLOTS = frozenset({4, 8})
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


def host_accepts(host: AcceptingHost, spec: GpuSpec, count: int = 1) -> Fit:
    """Whether `count` GPUs of `spec` can go into `host`, and why not when they cannot."""
    if count < 1:
        return Fit(False, "count must be at least 1")
    if count > host.slots:
        return Fit(False, f"{host.name} has {host.slots} GPU slots, {count} requested")
    if spec.form_factor in MODULE_FORM_FACTORS:
        if host.kind != "server" or spec.form_factor not in host.form_factors:
            return Fit(False, f"{spec.name} is a {spec.form_factor.upper()} module, sold only in 4- or 8-GPU servers")
        if host.slots not in MODULE_SERVER_SLOTS:
            return Fit(False, f"{spec.name} needs a 4- or 8-GPU baseboard; {host.name} has {host.slots} slots")
        return Fit(True, "module server")
    if "pcie" not in host.form_factors:
        return Fit(False, f"{host.name} takes only {'/'.join(sorted(host.form_factors))} modules, not PCIe cards")
    if passively_cooled(spec) and not (host.kind == "server" and host.passive_cooling):
        return Fit(False, f"{spec.name} is passively cooled and needs a server chassis with forced airflow")
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
