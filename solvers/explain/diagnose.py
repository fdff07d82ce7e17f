"""Say why a profile has no plan: which constraint cannot be met and the nearest value that works."""

from __future__ import annotations

import math
from dataclasses import replace

from pricing.catalog import Catalog
from solvers.base.errors import InfeasibleProfile
from solvers.base.options import CloudOption, HostOption, OwnedOption
from solvers.base.profile import Profile
from solvers.demand.blocks import Block
from solvers.demand.periods import Period
from solvers.model.arrays import Limits
from solvers.model.solve import solve
from solvers.offers.hosting import card_capacity


def no_options(profile: Profile, catalog: Catalog) -> InfeasibleProfile:
    """Nothing survived the filters: memory is the usual reason, else the filters themselves."""
    need = profile.min_gpu_memory_gb
    usable = set(catalog.cloud["gpu"]) | set(catalog.hardware["gpu"])
    spellings = [i.gpu for i in profile.prices.owned] + [i.gpu for i in profile.prices.cloud]
    usable |= {catalog.gpus.canonical(s) or "" for s in spellings}
    largest = max((catalog.gpus[g] for g in usable if g in catalog.gpus), key=lambda s: s.memory_gb, default=None)
    if largest is not None and need > largest.memory_gb:
        return InfeasibleProfile(
            "min_gpu_memory_gb",
            f"no GPU offers {need:g} GB of memory; the largest available is {largest.memory_gb:g} GB "
            f"({largest.name})",
            nearest_feasible=largest.memory_gb,
        )
    return InfeasibleProfile(
        "options",
        "no purchase or cloud offer is left after the profile's filters "
        "(min_gpu_memory_gb, allow_used, allow_spot, allow_buy, allow_cloud, allow_marketplace, "
        "allow_unverified_hosts, providers, regions"
        + (f"; jobs.gpus_per_job {profile.jobs.gpus_per_job}: a job needs that many GPUs on one machine"
           + ("" if profile.jobs.interconnect == "same_machine" else
              f", or on linked machines of one GPU type over {profile.jobs.interconnect} (cloud offers with a "
              "known RDMA fabric only)")
           if profile.jobs.gpus_per_job > 1 else "") + ")",
    )


def explain(owned: list[OwnedOption], cloud: list[CloudOption], hosts: list[HostOption], blocks: list[Block],
            periods: list[Period], limits: Limits, cloud_allowed: bool = True) -> InfeasibleProfile:
    """The model was infeasible: find the limit that binds and the least value that would work. `cloud_allowed`:
    the profile lets the plan rent (no cloud offer left is then the filters' doing, or the job width's)."""
    peak = max(blocks, key=lambda b: b.rate)
    month = next(periods[i].label for i in peak.periods)
    no_cloud = ("the cloud offers' quotas do not cover it" if cloud
                else "cloud is excluded" if not cloud_allowed
                else f"no cloud offer runs a job of {limits.width} GPUs" if limits.width > 1
                else "no cloud offer is left after the profile's filters")
    if not owned:
        return InfeasibleProfile(
            "demand",
            f"the demand of {peak.demand / len(peak.periods):,.0f} reference GPU-hours in {month} cannot be met: "
            f"no GPU can be bought under this profile and {no_cloud}",
        )
    free = replace(limits, max_capex_usd=None, max_owned_gpus=None)
    if solve(owned, cloud, hosts, blocks, free, objective="capex").status.has_solution is False:
        unhosted = _unhosted(owned, hosts)
        if limits.width > 1 and _too_wide(owned, hosts):  # cards fit, not a job's worth: the width is the constraint
            linked = (", or jobs.interconnect infiniband or ethernet (with jobs.cross_machine_efficiency) to run one "
                      "on linked cloud machines of one GPU type (offers with a known RDMA fabric)"
                      if cloud_allowed else "")
            return InfeasibleProfile(
                "jobs.gpus_per_job",
                f"a job of {limits.width} GPUs needs them on one machine, and {no_cloud}{unhosted}; narrower jobs "
                f"would do{linked}")
        return InfeasibleProfile(
            "demand",
            f"the demand in {month} cannot be met by any purchase that fits the available hosts and {no_cloud}"
            + unhosted,
        )
    if limits.max_capex_usd is not None:
        least = solve(owned, cloud, hosts, blocks, replace(limits, max_capex_usd=None), objective="capex")
        if least.status.has_solution and least.objective > limits.max_capex_usd + 1e-6:
            return InfeasibleProfile(
                "options.max_capex_usd",
                f"max_capex_usd {limits.max_capex_usd:,.2f} is below the cheapest purchase that meets the demand "
                f"while {no_cloud}: {least.objective:,.2f} USD",
                nearest_feasible=math.ceil(least.objective * 100) / 100,
            )
    if limits.max_owned_gpus is not None:
        least = solve(owned, cloud, hosts, blocks, replace(limits, max_owned_gpus=None), objective="gpus")
        if least.status.has_solution and least.objective > limits.max_owned_gpus + 1e-6:
            return InfeasibleProfile(
                "options.max_owned_gpus",
                f"max_owned_gpus {limits.max_owned_gpus} is below the fewest GPUs that meet the demand while "
                f"{no_cloud}: {round(least.objective)}",
                nearest_feasible=round(least.objective),
            )
    return InfeasibleProfile(
        "options.max_capex_usd",
        "max_capex_usd and max_owned_gpus together allow no purchase that meets the demand while " + no_cloud,
    )


def _too_wide(owned: list[OwnedOption], hosts: list[HostOption]) -> bool:
    """Whether some bare card fits a host, one at least, and none holds a whole job of them: narrower jobs would
    then find hosts (not when no host takes the card at all)."""
    bare = [o for o in owned if not o.includes_host and not o.is_commitment]
    most = [_largest_host(o, hosts)[1] for o in bare]
    return any(n >= 1 for n in most) and all(n < o.width for n, o in zip(most, bare, strict=True))


def _largest_host(option: OwnedOption, hosts: list[HostOption]) -> tuple[HostOption | None, int]:
    """The host that takes the most cards of the option, and how many (None, 0 when none takes it)."""
    best = max((h for k, h in enumerate(hosts) if k in option.accepting_hosts),
               key=lambda h: card_capacity(h, option), default=None)
    return best, 0 if best is None else card_capacity(best, option)


def _unhosted(owned: list[OwnedOption], hosts: list[HostOption]) -> str:
    """Why bare cards find no host for a whole job: the host that takes the most of them and what it lacks."""
    notes = []
    for o in owned:
        if o.includes_host or o.is_commitment:
            continue
        best, most = _largest_host(o, hosts)
        if best is None:
            notes.append(f"no host takes a {o.gpu} card")
        elif most < o.width:
            notes.append(f"a job of {o.width} x {o.gpu} ({o.card_watts:g} W each) needs one host for all of them; "
                         f"the largest that takes them, {best.host.name} ({best.host.slots} slots, "
                         f"{best.host.psu_watts:g} W PSU: cards + 150 W of host with 10% headroom), holds "
                         f"{most}")
    unique = list(dict.fromkeys(notes))
    shown = unique[:_MOST_NOTES]  # one card type after another says the same of the same host
    more = f"; and so for {len(unique) - len(shown)} more card types" if len(unique) > len(shown) else ""
    return ("; " + "; ".join(shown) + more) if unique else ""


_MOST_NOTES = 3
