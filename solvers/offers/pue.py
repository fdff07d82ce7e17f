"""Cooling overhead of owned machines by where they stand (issue 30): a PUE per host kind.

Why: a desktop or workstation in an office adds no cooling the lab pays per kWh it draws (the office's air
conditioning is the building's); a server in a rack or a server room pays its room's cooling and power distribution,
the power usage effectiveness public data-centre surveys report (`defaults.PUE_BY_HOST_KIND`). A bare card takes its
host's figure, so a card that fits both an office machine and a server is offered once for each (`places`, read
once per GPU type by `solvers.offers.owned_build` and applied by `solvers.offers.owned.OwnedUnit.at`); a whole
machine (a DGX, a vendor's 8-GPU server, a quoted workstation) takes its own kind's. `options.pue`, when given, is
every machine's figure, as before issue 30.
"""

from __future__ import annotations

from collections.abc import Sequence

from pricing.catalog import Host
from pricing.gpus import GpuSpec
from pricing.hardware_fit import MODULE_FORM_FACTORS
from solvers.base import defaults

# a whole machine with more GPUs than this is a server (the catalogue's desktops and workstations hold 1-4 cards,
# its servers 8: pricing/data/hosts.csv)
MOST_WORKSTATION_GPUS = 4


def pue_of(kind: str, explicit: float | None) -> float:
    """The PUE an owned machine of this kind is priced at."""
    if explicit is not None:
        return explicit
    return defaults.PUE_BY_HOST_KIND.get(kind, defaults.PUE_BY_HOST_KIND["server"])


def system_kind(spec: GpuSpec, gpus_per_unit: int, given: str | None = None) -> str:
    """A whole machine's kind: the quote's own, else a server if it holds SXM/OAM modules or more than 4 GPUs
    (every whole system in the catalogue: DGX and HGX 8-GPU servers), else a workstation."""
    if given:
        return given
    if spec.form_factor in MODULE_FORM_FACTORS or gpus_per_unit > MOST_WORKSTATION_GPUS:
        return "server"
    return "workstation"


def pue_by_kind(explicit: float | None) -> dict[str, float]:
    """What the plan reports: the PUE it used for each host kind."""
    return {kind: pue_of(kind, explicit) for kind in defaults.PUE_BY_HOST_KIND}


def places(accepting_hosts: Sequence[int], hosts: Sequence[Host], explicit: float | None,
           kind: str) -> list[tuple[float, str, tuple[int, ...] | None]]:
    """Where a unit of a bare card (`accepting_hosts`, none for a whole machine of `kind`) stands, as (PUE, key
    suffix, hosts): one entry per PUE its hosts give, each taking only the hosts of its PUE; a single place keeps
    the option's key and hosts (None). The same for every row of a GPU type: `solvers.offers.owned_build` asks once
    per type."""
    groups: dict[float, list[int]] = {}
    for k in accepting_hosts:
        groups.setdefault(pue_of(hosts[k].kind, explicit), []).append(k)
    if len(groups) <= 1:
        return [(next(iter(groups), pue_of(kind, explicit)), "", None)]
    return [(pue, f"@pue{pue:g}", tuple(ks)) for pue, ks in sorted(groups.items())]
