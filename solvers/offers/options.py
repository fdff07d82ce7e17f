"""Turn a catalog and a profile into the purchase and rental options the planning model chooses from.

Each option carries everything the model needs, already in the profile's terms: its job width and the speed of
one job slot (reference GPU-hours per GPU-hour when every option runs jobs.gpus_per_job), energy cost at the
profile's electricity rate and PUE, resale at the horizon. Filters (memory, used, spot, providers, regions) are
applied vectorised over the catalog. The workload form (`JobWidths`) gives each GPU type its own widths: one
option per offer and width. This module assembles them: cloud offers (solvers.offers.cloud), owned rows and their
options (owned_rows, owned), commitments (commitments), each at the speed solvers.offers.throughput gives.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable
from dataclasses import replace

from pricing.catalog import Catalog
from pricing.hardware_fit import MODULE_FORM_FACTORS, host_accepts, module_unit_sizes
from solvers.base import defaults
from solvers.base.demand_units import load_unit, peak_load, spare_units
from solvers.base.notices import Notice
from solvers.base.options import HostOption, JobWidths, Options, OwnedOption
from solvers.base.profile import Profile
from solvers.offers.cloud import cloud_candidates, cloud_options, oldest_per_feed
from solvers.offers.cloud_table import CloudTable
from solvers.offers.commitments import commitment_options
from solvers.offers.ignored import owned_item
from solvers.offers.owned import (
    idle_hours_share,
    linked_machines,
    on_hours_share,
    opex_per_gpu_hour,
    owned_option,
    resale_of,
    serving_replicas,
    useful_widths,
    with_opex,
)
from solvers.offers.owned_rows import OwnedRow, hardware_table, rows_to_own
from solvers.offers.pue import by_place, pue_of, system_kind
from solvers.offers.throughput import ThroughputModel


def build_options(
    catalog: Catalog,
    profile: Profile,
    today: dt.date,
    horizon_days: int,
    cloud_filter: Callable[[CloudTable], CloudTable] | None = None,
    start: dt.date | None = None,
    widths: JobWidths | None = None,
) -> Options:
    """Candidate options for this profile; `cloud_filter` may prune the cloud offers before they
    become objects (10,000 offers stay a vectorised table until then). `widths` (the workload form): every GPU
    type runs jobs at its own widths, one option per offer and width; None: every option runs jobs.gpus_per_job."""
    warnings: list[str] = []
    rate = profile.electricity_usd_per_kwh
    if rate is None:
        rate = defaults.ELECTRICITY_USD_PER_KWH
        warnings.append(f"electricity_usd_per_kwh not given: used {rate} USD/kWh (the guide's 2023 figure)")
    opts = profile.options
    throughput = ThroughputModel(catalog.gpus, profile)
    kwh_per_watt_hour = 1.0 / 1000.0  # energy of drawing 1 W for one hour; the PUE of where it stands: by_place
    idle_share = idle_hours_share(opts.machine_on)
    jobs = profile.jobs
    width = jobs.gpus_per_job
    unit = load_unit(profile)  # reference replicas per load unit of always-on divisible load
    peak_units = (max(1, math.ceil(peak_load(profile) / unit - 1e-9)) + spare_units(profile)
                  if jobs.runs == "continuously" else math.inf)
    years = horizon_days / 365.25
    used_value = hardware_table(catalog).used_value

    cloud_left_out: list[Notice] = []
    cloud_frame = cloud_candidates(catalog, profile, throughput, today, widths, cloud_left_out)

    def widths_of(gpu: str) -> list[tuple[int, float]]:
        """(job width, job-slot speed) pairs the GPU type runs at: one option per offer and width."""
        if widths is None:
            return [(width, throughput(gpu))]
        return sorted(widths.get(gpu, {}).items())

    owned: list[OwnedOption] = []
    accepting_of: dict[str, tuple[int, ...]] = {}
    ignored: dict[int, Notice] = {}  # per profile quote, why it is left out (the first reason, offers.ignored)
    owned_rows = rows_to_own(catalog, profile, today) if opts.allow_buy else []
    first_quote = len(owned_rows) - len(profile.prices.owned)
    kept_quotes: set[int] = set()

    def leave_out(i: int, row: OwnedRow, code: str, **params: str | int | float | list[str]) -> None:
        if row.feed == "request" and i - first_quote not in ignored:
            ignored[i - first_quote] = owned_item(i - first_quote, row.name, code, **params)

    if not opts.allow_buy:
        for k, item in enumerate(profile.prices.owned):
            ignored[k] = owned_item(k, item.name, "ignored_buy_not_allowed")
    if opts.allow_buy:
        shapes = ((i, r, w, v) for i, r in enumerate(owned_rows) for w, v in widths_of(r.gpu))
        for i, row, job_width, speed in shapes:
            spec = catalog.gpus[row.gpu]
            if spec.memory_gb < profile.min_gpu_memory_gb:
                leave_out(i, row, "ignored_memory", gpu=spec.name, memory_gb=spec.memory_gb,
                          min_gb=profile.min_gpu_memory_gb)
                continue
            if row.condition == "used" and not opts.allow_used:
                leave_out(i, row, "ignored_used")
                continue
            linked = row.includes_host and row.gpus_per_unit < job_width
            if linked and jobs.interconnect == "same_machine":
                leave_out(i, row, "ignored_machine_smaller_than_job", gpus=row.gpus_per_unit, width=job_width)
                continue  # a job runs on one machine
            accepting: tuple[int, ...] = ()
            if row.includes_host:
                if spec.form_factor in MODULE_FORM_FACTORS and row.gpus_per_unit not in module_unit_sizes(spec):
                    leave_out(i, row, "ignored_module_unit", gpu=spec.name, form_factor=spec.form_factor,
                              gpus=row.gpus_per_unit, sizes=[str(n) for n in sorted(module_unit_sizes(spec))])
                    continue  # modules on 4- or 8-GPU baseboards; GH200 in 1-, 2- or 4-superchip servers
            else:
                if spec.name not in accepting_of:  # the hardware-fit rule per GPU type, not per row of it
                    accepting_of[spec.name] = tuple(k for k, h in enumerate(catalog.hosts) if host_accepts(h, spec).ok)
                accepting = accepting_of[spec.name]
                if not accepting:
                    leave_out(i, row, "ignored_no_host", gpu=spec.name)
                    continue  # no host on offer can take this card (module, passive cooling or power)
            option = owned_option(
                i,
                row,
                spec,
                speed,
                kwh_per_watt_hour,
                opts.host_watts_per_working_gpu,
                resale_of(row, spec, used_value, years, start or today, profile),
                idle_share,
                job_width,
                accepting,
            )
            if widths is not None:  # a unit bought runs jobs of one width
                option = replace(option, key=f"{option.key}/w{job_width}", offer=option.key)
            for placed in by_place(option, catalog.hosts, opts.pue, system_kind(spec, row.gpus_per_unit, row.kind)):
                if linked:
                    placed = linked_machines(placed, profile)
                if jobs.runs == "continuously":
                    placed = serving_replicas(placed, placed.width, jobs.load,
                                              pooled=linked or not placed.includes_host, unit=unit, most=peak_units)
                    if placed.slots_per_unit <= 0:
                        leave_out(i, row, "ignored_too_slow_replica", gpu=spec.name)
                        continue  # slower than the reference: cannot carry a replica
                if row.feed == "request":
                    kept_quotes.add(i - first_quote)
                owned.append(placed)
    left_out = [n for k, n in sorted(ignored.items()) if k not in kept_quotes]
    if opex_per_gpu_hour(opts.opex, 1.0) > 0:
        owned = [with_opex(o, opts.opex) for o in owned]
    on_share = on_hours_share(opts.machine_on)
    if on_share < opts.availability:  # a machine on h hours a day works only in those hours
        owned = [replace(o, availability=on_share) for o in owned]
    committed = commitment_options(catalog, profile, throughput, today, horizon_days, start, widths, left_out)
    if jobs.runs == "continuously":  # a reserved instance carries always-on load like a rented one
        committed = [c for c in (serving_replicas(c, c.width, jobs.load, pooled=False, unit=unit) for c in committed)
                     if c.slots_per_unit > 0]
    owned += committed
    if widths is not None:
        owned = useful_widths(owned, catalog.hosts)
    hosts = [HostOption(h, kwh_per_watt_hour * pue_of(h.kind, opts.pue) * h.idle_watts * idle_share)
             for h in catalog.hosts]
    as_of = oldest_per_feed(cloud_frame)
    for o in owned:
        as_of[o.feed] = min(as_of.get(o.feed, o.as_of), o.as_of)
    if any(not o.includes_host for o in owned) and catalog.hosts:
        as_of["snapshot/hosts"] = min(h.as_of for h in catalog.hosts)
    candidates = len(owned) + len(cloud_frame)
    if cloud_filter is not None:
        cloud_frame = cloud_filter(cloud_frame)
    cloud = cloud_options(cloud_frame, displaced_replicas=jobs.runs == "continuously" or jobs.patience == "none")
    return Options(
        owned,
        cloud,
        hosts,
        rate,
        opts.availability,
        opts.host_watts_per_working_gpu,
        warnings,
        dict(sorted(as_of.items())),
        candidates,
        width,
        left_out + cloud_left_out,
    )


