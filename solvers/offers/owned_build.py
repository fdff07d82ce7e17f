"""Owned rows -> owned options: which rows a profile can use (memory, condition, machine size, module and host
fit), and each kept row at every job width and place, made once.

Why its own module and this shape (issue 31): a profile may bring 200 quotes that name a handful of GPU types, and
the per-row work was the offers stage's largest part. What depends on the GPU type alone (its spec, the hosts that
take it, the places those hosts stand in, its resale curve) is found once per type and plan (`_TypeFacts`,
`solvers.offers.resale.Resale`), and each option is made once with its place's PUE, running costs and availability
(`solvers.offers.owned.owned_option`), where it was made and then copied per place, per width, for opex and for
availability. The options, their order and every figure are those of the step-by-step construction.

In: the rows (`solvers.offers.owned_rows`), the catalog and the profile. Out: the owned options, and per profile
quote why it is left out.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pricing.catalog import Catalog, Host
from pricing.gpus import GpuSpec
from pricing.hardware_fit import MODULE_FORM_FACTORS, host_accepts, module_unit_sizes
from solvers.base.notices import Notice
from solvers.base.options import OwnedOption
from solvers.base.profile import Profile
from solvers.offers.ignored import owned_item
from solvers.offers.owned import linked_machines, opex_per_gpu_hour, owned_option, serving_replicas
from solvers.offers.owned_rows import OwnedRow
from solvers.offers.pue import places, system_kind
from solvers.offers.resale import Resale

Place = tuple[float, str, tuple[int, ...] | None]  # (PUE, key suffix, hosts; None: the option's own), pue.places


@dataclass(frozen=True)
class Energy:
    """The plan's energy terms an owned option is priced with (`solvers.offers.owned.owned_option`)."""

    kwh_per_watt_hour: float
    host_watts: float  # per working GPU in a host (options.host_watts_per_working_gpu)
    idle_share: float  # share of the hours a machine is on while idle
    availability: float | None  # a machine on h hours a day: h / 24 (below the profile's), else None


class _TypeFacts:
    """What a GPU type's rows share within one plan: the hosts that take its bare cards and where they stand."""

    def __init__(self, catalog: Catalog, explicit_pue: float | None) -> None:
        self._gpus = catalog.gpus
        self._hosts: Sequence[Host] = catalog.hosts
        self._pue = explicit_pue
        self._accepting: dict[str, tuple[int, ...]] = {}
        self._places: dict[tuple[str, str, tuple[int, ...]], list[Place]] = {}

    def accepting(self, spec: GpuSpec) -> tuple[int, ...]:
        """The hosts that take a bare card of this type (the hardware-fit rule per type, not per row of it)."""
        found = self._accepting.get(spec.name)
        if found is None:
            found = self._accepting[spec.name] = tuple(
                k for k, h in enumerate(self._hosts) if host_accepts(h, spec).ok)
        return found

    def places(self, spec: GpuSpec, kind: str, accepting: tuple[int, ...]) -> list[Place]:
        key = (spec.name, kind, accepting)
        found = self._places.get(key)
        if found is None:
            found = self._places[key] = places(accepting, self._hosts, self._pue, kind)
        return found


def owned_options(catalog: Catalog, profile: Profile, rows: list[OwnedRow], first_quote: int,
                  widths_of: Callable[[str], list[tuple[int, float]]], resale: Resale, energy: Energy,
                  unit: float, peak_units: float, ignored: dict[int, Notice], several_widths: bool) -> \
        tuple[list[OwnedOption], set[int]]:
    """Every row at every width its GPU type runs at (`widths_of`) and every place it stands in, in that order;
    the rows from `first_quote` on are the profile's quotes, whose first reason to be left out goes to `ignored`.
    `several_widths` (the workload form): keys name the width and share the offer. Returns the options and the
    quotes kept."""
    opts = profile.options
    jobs = profile.jobs
    serving = jobs.runs == "continuously"
    same_machine = jobs.interconnect == "same_machine"
    opex = opts.opex if opex_per_gpu_hour(opts.opex, 1.0) > 0 else None
    facts = _TypeFacts(catalog, opts.pue)
    owned: list[OwnedOption] = []
    kept_quotes: set[int] = set()

    def leave_out(i: int, row: OwnedRow, code: str, **params: str | int | float | list[str]) -> None:
        if row.feed == "request" and i - first_quote not in ignored:
            ignored[i - first_quote] = owned_item(i - first_quote, row.name, code, **params)

    for i, row in enumerate(rows):
        spec = catalog.gpus[row.gpu]
        n = row.gpus_per_unit
        row_resale: float | None = None
        for job_width, speed in widths_of(row.gpu):
            if spec.memory_gb < profile.min_gpu_memory_gb:
                leave_out(i, row, "ignored_memory", gpu=spec.name, memory_gb=spec.memory_gb,
                          min_gb=profile.min_gpu_memory_gb)
                continue
            if row.condition == "used" and not opts.allow_used:
                leave_out(i, row, "ignored_used")
                continue
            linked = row.includes_host and n < job_width
            if linked and same_machine:
                leave_out(i, row, "ignored_machine_smaller_than_job", gpus=n, width=job_width)
                continue  # a job runs on one machine
            accepting: tuple[int, ...] = ()
            if row.includes_host:
                if spec.form_factor in MODULE_FORM_FACTORS and n not in module_unit_sizes(spec):
                    leave_out(i, row, "ignored_module_unit", gpu=spec.name, form_factor=spec.form_factor,
                              gpus=n, sizes=[str(k) for k in sorted(module_unit_sizes(spec))])
                    continue  # modules on 4- or 8-GPU baseboards; GH200 in 1-, 2- or 4-superchip servers
            else:
                accepting = facts.accepting(spec)
                if not accepting:
                    leave_out(i, row, "ignored_no_host", gpu=spec.name)
                    continue  # no host on offer can take this card (module, passive cooling or power)
            if row_resale is None:
                row_resale = resale.of(spec, row.condition, n, row.includes_host, row.unit_price_usd)
            offer = f"own:{i}"
            key = f"{offer}/w{job_width}" if several_widths else offer
            for pue, suffix, hosts in facts.places(spec, system_kind(spec, n, row.kind), accepting):
                placed = owned_option(key + suffix, row, spec, speed, energy.kwh_per_watt_hour, energy.host_watts,
                                      row_resale, energy.idle_share, job_width,
                                      accepting if hosts is None else hosts, pue=pue,
                                      offer=offer if several_widths else "", opex=opex,
                                      availability=energy.availability)
                if linked:
                    placed = linked_machines(placed, profile)
                if serving:
                    placed = serving_replicas(placed, placed.width, jobs.load,
                                              pooled=linked or not placed.includes_host, unit=unit, most=peak_units)
                    if placed.slots_per_unit <= 0:
                        leave_out(i, row, "ignored_too_slow_replica", gpu=spec.name)
                        continue  # slower than the reference: cannot carry a replica
                if row.feed == "request":
                    kept_quotes.add(i - first_quote)
                owned.append(placed)
    return owned, kept_quotes


__all__ = ["Energy", "owned_options"]
