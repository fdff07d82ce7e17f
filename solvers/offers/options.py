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

from pricing.catalog import Catalog
from solvers.base import defaults
from solvers.base.demand_units import load_unit, peak_load, spare_units
from solvers.base.notices import Notice
from solvers.base.options import HostOption, JobWidths, Options, OwnedOption
from solvers.base.profile import Profile
from solvers.offers.cloud import cloud_candidates, cloud_options, oldest_per_feed
from solvers.offers.cloud_table import CloudTable
from solvers.offers.commitments import commitment_options
from solvers.offers.ignored import owned_item
from solvers.offers.owned import idle_hours_share, on_hours_share, serving_replicas, useful_widths
from solvers.offers.owned_build import Energy, owned_options
from solvers.offers.owned_rows import hardware_table, rows_to_own
from solvers.offers.pue import pue_of
from solvers.offers.resale import Resale
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
    kwh_per_watt_hour = 1.0 / 1000.0  # energy of drawing 1 W for one hour; the PUE of where it stands: pue.places
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

    ignored: dict[int, Notice] = {}  # per profile quote, why it is left out (the first reason, offers.ignored)
    owned: list[OwnedOption] = []
    kept_quotes: set[int] = set()
    if not opts.allow_buy:
        for k, item in enumerate(profile.prices.owned):
            ignored[k] = owned_item(k, item.name, "ignored_buy_not_allowed")
    else:
        owned_rows = rows_to_own(catalog, profile, today)
        on_share = on_hours_share(opts.machine_on)  # a machine on h hours a day works only in those hours
        energy = Energy(kwh_per_watt_hour, opts.host_watts_per_working_gpu, idle_share,
                        on_share if on_share < opts.availability else None)
        owned, kept_quotes = owned_options(
            catalog, profile, owned_rows, len(owned_rows) - len(profile.prices.owned), widths_of,
            Resale(used_value, years, start or today, opts), energy, unit, peak_units, ignored, widths is not None)
    left_out = [n for k, n in sorted(ignored.items()) if k not in kept_quotes]
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


