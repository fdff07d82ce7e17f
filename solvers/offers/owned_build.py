"""Owned rows -> owned options: which rows a profile can use (memory, condition, machine size, module and host
fit), and each kept row at every job width and place, made once.

Why its own module and this shape (issue 31): a profile may bring 200 quotes that name a handful of GPU types, and
the per-row work was the offers stage's largest part. What depends on the GPU type alone (its spec, the hosts that
take it, the places those hosts stand in, its resale curve) is found once per type and plan (`_TypeFacts`,
`solvers.offers.resale.Resale`), and each option is made once with its place's PUE, running costs and availability
(`solvers.offers.owned.OwnedUnit`), where it was made and then copied per place, per width, for opex and for
availability. The options, their order and every figure are those of the step-by-step construction.

In: the rows (`solvers.offers.owned_rows`), the catalog and the profile. Out: the owned options, and per profile
quote why it is left out.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from pricing.catalog import Catalog, Host
from pricing.gpus import GpuSpec
from pricing.hardware_fit import MODULE_FORM_FACTORS, host_accepts, module_unit_sizes
from solvers.base.notices import Notice
from solvers.base.options import OwnedOption
from solvers.base.profile import Profile
from solvers.offers.ignored import owned_item
from solvers.offers.owned import OwnedUnit, linked_machines, opex_per_gpu_hour, serving_replicas
from solvers.offers.owned_rows import OwnedRow
from solvers.offers.pue import places, system_kind
from solvers.offers.resale import Resale

Place = tuple[float, str, tuple[int, ...] | None]  # (PUE, key suffix, hosts; None: the option's own), pue.places


@dataclass(frozen=True)
class Energy:
    """The plan's energy terms an owned option is priced with (`solvers.offers.owned.OwnedUnit`)."""

    kwh_per_watt_hour: float
    host_watts: float  # per working GPU in a host (options.host_watts_per_working_gpu)
    idle_share: float  # share of the hours a machine is on while idle
    availability: float | None  # a machine on h hours a day: h / 24 (below the profile's), else None


_last_fits: tuple[Sequence[Host], dict[str, tuple[GpuSpec, tuple[int, ...]]]] | None = None


def accepting_hosts(hosts: Sequence[Host], spec: GpuSpec) -> tuple[int, ...]:
    """The hosts (indices into `hosts`) that take a bare card of `spec`: the hardware-fit rule per GPU type, kept for
    the last hosts list (plans reuse one catalog's, so each plan does not test every type in every host again; a
    catalog with other hosts, or other figures under a GPU's name, is tested anew). Hosts are frozen, and a
    catalog's list is replaced, never changed in place."""
    global _last_fits
    fits = _last_fits
    if fits is None or fits[0] is not hosts:
        fits = _last_fits = (hosts, {})
    found = fits[1].get(spec.name)
    if found is None or found[0] is not spec:
        found = fits[1][spec.name] = (spec, tuple(k for k, h in enumerate(hosts) if host_accepts(h, spec).ok))
    return found[1]


# a `_Kind`'s key, made once by `_Kinds.of` (GPU type, whole machine, GPUs per unit, machine kind)
_KindKey = tuple[str, bool, int, str | None]


class _Kind(NamedTuple):
    """What every row of one GPU type, shape and kind shares within a plan: its widths and speeds, whether it
    passes the memory floor and the module rule, the hosts that take it (bare cards) and the places it stands in."""

    spec: GpuSpec
    widths: list[tuple[int, float]]
    memory_ok: bool
    module_ok: bool  # a whole machine of a module GPU comes in its baseboard's sizes only
    accepting: tuple[int, ...]  # bare cards: the hosts that take them (the hardware-fit rule per type)
    places: list[Place]


class _Kinds:
    """`_Kind` per GPU type and shape, found once per plan: a bare card's by its type alone (its hosts and places
    are its type's), a whole machine's by its type, GPUs per unit and the quote's machine kind."""

    def __init__(self, catalog: Catalog, profile: Profile, widths_of: Callable[[str], list[tuple[int, float]]]) -> None:
        self._gpus = catalog.gpus
        self._hosts: Sequence[Host] = catalog.hosts
        self._pue = profile.options.pue
        self._min_memory = profile.min_gpu_memory_gb
        self._widths_of = widths_of
        self._kinds: dict[_KindKey, _Kind] = {}

    def of(self, row: OwnedRow) -> _Kind:
        key = (row.gpu, True, row.gpus_per_unit, row.kind) if row.includes_host else (row.gpu, False, 0, None)
        found = self._kinds.get(key)
        if found is None:
            found = self._kinds[key] = self._made(row, key)
        return found

    def _made(self, row: OwnedRow, key: _KindKey) -> _Kind:
        spec = self._gpus[row.gpu]
        widths = self._widths_of(row.gpu)
        return _Kind(spec, widths, *_facts(self._hosts, self._pue, self._min_memory, spec, row, key))


_Facts = tuple[bool, bool, tuple[int, ...], list[Place]]  # memory_ok, module_ok, accepting, places (as in _Kind)
# the facts of each `_Kinds` key for the last hosts list, PUE and memory floor: (hosts, pue, min_gb, key -> spec, facts)
_last_facts: tuple[Sequence[Host], float | None, float,
                   dict[_KindKey, tuple[GpuSpec, _Facts]]] | None = None


def _facts(hosts: Sequence[Host], pue: float | None, min_memory: float, spec: GpuSpec, row: OwnedRow,
           key: _KindKey) -> _Facts:
    """What a `_Kind` holds beyond its widths, kept across plans for the last hosts list, PUE option and memory
    floor (as `accepting_hosts` keeps the hardware fit): plans on one catalog ask the same of the same few dozen GPU
    types and shapes, and finding them anew (the module rule, the hosts' places) was some 0.1 ms a plan. A spec
    other than the one kept under its name (another catalog's figures) is found anew; each is what `_made` found
    per plan, from the same spec, hosts and options."""
    global _last_facts
    cache = _last_facts
    if cache is None or cache[0] is not hosts or cache[1] != pue or cache[2] != min_memory:
        cache = _last_facts = (hosts, pue, min_memory, {})
    found = cache[3].get(key)
    if found is not None and found[0] is spec:
        return found[1]
    facts: _Facts
    if spec.memory_gb < min_memory:  # left out at every width: nothing else is asked of it
        facts = (False, True, (), [])
    else:
        module_ok = (not row.includes_host or spec.form_factor not in MODULE_FORM_FACTORS
                     or row.gpus_per_unit in module_unit_sizes(spec))
        accepting = () if row.includes_host else accepting_hosts(hosts, spec)
        # a bare card stands where its hosts do (the kind only names a whole machine's place)
        facts = (True, module_ok, accepting, places(accepting, hosts, pue, system_kind(spec, row.gpus_per_unit,
                                                                                       row.kind)))
    cache[3][key] = (spec, facts)
    return facts


def owned_options(catalog: Catalog, profile: Profile, rows: list[OwnedRow], first_quote: int,
                  widths_of: Callable[[str], list[tuple[int, float]]], resale: Resale, energy: Energy,
                  unit: float, peak_units: float, ignored: dict[int, Notice], several_widths: bool) -> \
        tuple[list[OwnedOption], set[int]]:
    """Every row at every width its GPU type runs at (`widths_of`) and every place it stands in, in that order;
    the rows from `first_quote` on are the profile's quotes, whose first reason to be left out goes to `ignored`
    (the reasons in the order they were always tested, width by width). `several_widths` (the workload form): keys
    name the width and share the offer. Returns the options and the quotes kept."""
    opts = profile.options
    jobs = profile.jobs
    serving = jobs.runs == "continuously"
    same_machine = jobs.interconnect == "same_machine"
    allow_used = opts.allow_used
    opex = opts.opex if opex_per_gpu_hour(opts.opex, 1.0) > 0 else None
    kwh, host_watts, idle_share, availability = (energy.kwh_per_watt_hour, energy.host_watts, energy.idle_share,
                                                 energy.availability)
    kinds = _Kinds(catalog, profile, widths_of)
    owned: list[OwnedOption] = []
    kept_quotes: set[int] = set()

    def leave_out(i: int, row: OwnedRow, code: str, **params: str | int | float | list[str]) -> None:
        if row.feed == "request" and i - first_quote not in ignored:
            ignored[i - first_quote] = owned_item(i - first_quote, row.name, code, **params)

    for i, row in enumerate(rows):
        kind = kinds.of(row)
        spec = kind.spec
        n = row.gpus_per_unit
        unit_of: OwnedUnit | None = None  # made once the row passes the checks, for every width and place
        for job_width, speed in kind.widths:
            if not kind.memory_ok:
                leave_out(i, row, "ignored_memory", gpu=spec.name, memory_gb=spec.memory_gb,
                          min_gb=profile.min_gpu_memory_gb)
                continue
            if row.condition == "used" and not allow_used:
                leave_out(i, row, "ignored_used")
                continue
            linked = row.includes_host and n < job_width
            if linked and same_machine:
                leave_out(i, row, "ignored_machine_smaller_than_job", gpus=n, width=job_width)
                continue  # a job runs on one machine
            if row.includes_host:
                if not kind.module_ok:
                    leave_out(i, row, "ignored_module_unit", gpu=spec.name, form_factor=spec.form_factor,
                              gpus=n, sizes=[str(k) for k in sorted(module_unit_sizes(spec))])
                    continue  # modules on 4- or 8-GPU baseboards; GH200 in 1-, 2- or 4-superchip servers
            elif not kind.accepting:
                leave_out(i, row, "ignored_no_host", gpu=spec.name)
                continue  # no host on offer can take this card (module, passive cooling or power)
            if unit_of is None:
                unit_of = OwnedUnit(row, spec, kwh, host_watts,
                                    resale.of(spec, row.condition, n, row.includes_host, row.unit_price_usd),
                                    idle_share, opex, availability)
            offer = f"own:{i}"
            key = f"{offer}/w{job_width}" if several_widths else offer
            for pue, suffix, hosts in kind.places:
                placed = unit_of.at(key + suffix, speed, job_width, kind.accepting if hosts is None else hosts, pue,
                                    offer if several_widths else "")
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


__all__ = ["Energy", "accepting_hosts", "owned_options"]
