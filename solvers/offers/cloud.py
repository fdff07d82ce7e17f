"""The catalog's and the profile's cloud offers -> rented options: filtered by the profile's rules, priced per
job, copied per job width, linked across machines for wide jobs, and the replicas a service displaces.

In: the catalog, the profile, today and a `ThroughputModel`. Out: the candidate table (solvers.offers.cloud_table)
and, after pruning, `CloudOption`s."""

from __future__ import annotations

import datetime as dt

import numpy as np

from pricing.catalog import Catalog, feed_key
from pricing.gpus import GpuTable
from solvers.base import defaults
from solvers.base.demand_units import load_unit
from solvers.base.evolve import checked
from solvers.base.notices import Notice, notice
from solvers.base.options import CloudOption, JobWidths
from solvers.base.profile import Profile
from solvers.offers.cloud_table import CloudTable, cloud_table
from solvers.offers.ignored import cloud_reasons
from solvers.offers.throughput import ThroughputModel, canonical_gpu, cross_machine_efficiency, serving_slots


def request_cloud_table(profile: Profile, gpus: GpuTable, today: dt.date) -> CloudTable:
    """The profile's own cloud quotes as table columns, built from arrays. The quotes are validated already (a
    positive price, at least one GPU, a known pricing model, stripped and lower-case provider), so only what
    depends on the catalog is looked up, once per distinct value: the GPU's canonical name, the feed key, the date.
    A DataFrame of strings re-read by `normalise_cloud` cost some 250 ms at 10,000 quotes (issue 31); every column
    holds the values it made (tests/solvers/offers/test_request_cloud_table.py)."""
    items = profile.prices.cloud
    names: dict[str, str] = {}
    for i, item in enumerate(items):
        if item.gpu not in names:
            names[item.gpu] = canonical_gpu(gpus, item.gpu, f"prices.cloud[{i}].gpu")
    feeds = {provider: feed_key("request", provider) for provider in {c.provider for c in items}}
    dates: dict[dt.date | None, str] = {}
    for item in items:
        if item.as_of not in dates:
            dates[item.as_of] = (item.as_of or today).isoformat()
    n = len(items)
    provider = np.array([c.provider for c in items], dtype=object)
    feed = np.array([feeds[c.provider] for c in items], dtype=object)
    labels = np.arange(n)
    nan = np.full(n, np.nan)
    return CloudTable(
        label=labels, provider=provider, name=np.array([c.name for c in items], dtype=object),
        gpu=np.array([names[c.gpu] for c in items], dtype=object),
        region=np.array([c.region for c in items], dtype=object),
        pricing=np.array([c.pricing for c in items], dtype=object),
        source=np.array([c.source or "request" for c in items], dtype=object),
        as_of=np.array([dates[c.as_of] for c in items], dtype=object), feed=feed,
        gpu_count=np.array([c.gpu_count for c in items], dtype=np.int64),
        usd_per_hour=np.array([c.usd_per_hour for c in items], dtype=float),
        max_instances=np.array([np.nan if c.max_instances is None else c.max_instances for c in items], dtype=float),
        listing=np.isin(provider, list(defaults.MARKETPLACE_PROVIDERS)),
        verified=np.isin(feed, list(defaults.VERIFIED_HOST_FEEDS)) | np.array([c.verified for c in items], dtype=bool),
        ref_hours_per_hour=nan, usd_per_ref_hour=nan, slots=np.zeros(n, dtype=np.int64), speed=nan,
        usd_per_job_hour=nan, load_per_gpu=np.ones(n), width=np.ones(n, dtype=np.int64), offer=labels,
    )


def cloud_candidates(catalog: Catalog, profile: Profile, throughput: ThroughputModel, today: dt.date,
                     widths: JobWidths | None = None, ignored: list[Notice] | None = None) -> CloudTable:
    """All cloud offers the profile allows, priced: `ref_hours_per_hour`, `usd_per_ref_hour`, `slots`, `speed`,
    `usd_per_job_hour` (numpy columns of the catalog's offers, converted once per catalog: solvers.offers.cloud_table).
    With `widths`, one row per offer and job width its GPU type may run at (`width` column)."""
    opts = profile.options
    tables = [] if profile.prices.mode == "replace" else [cloud_table(catalog.cloud)]
    if profile.prices.cloud:
        tables.append(request_cloud_table(profile, catalog.gpus, today))
    quotes = profile.prices.cloud
    if not opts.allow_cloud and ignored is not None:
        ignored += [notice("ignored_cloud_not_allowed", field=f"prices.cloud[{k}]", item=q.name)
                    for k, q in enumerate(quotes)]
    if not tables or not opts.allow_cloud:
        return cloud_table(catalog.cloud).take(np.zeros(0, dtype=np.int64))
    cloud = CloudTable.concat(tables) if len(tables) > 1 else tables[0]
    memory = {g.name: g.memory_gb for g in catalog.gpus}
    types, type_of = _gpu_types(cloud)
    enough = {g: memory.get(g, np.nan) >= profile.min_gpu_memory_gb for g in types}  # per GPU type, not row
    filters = [  # in the order they apply, each with the code that says why a profile's quote fails it
        (cloud.pricing != "spot" if not opts.allow_spot else None, "ignored_spot"),
        (np.isin(cloud.provider, list(opts.providers)) if opts.providers is not None else None, "ignored_provider"),
        (np.isin(cloud.region, list(opts.regions)) if opts.regions is not None else None, "ignored_region"),
        (np.array([enough[g] for g in types], dtype=bool)[type_of], "ignored_memory"),
        (~cloud.listing if not opts.allow_marketplace else None, "ignored_marketplace"),
        (~cloud.listing | cloud.verified if not opts.allow_unverified_hosts else None, "ignored_unverified")]
    mask = np.ones(len(cloud), dtype=bool)
    for passed, _ in filters:
        if passed is not None:
            mask &= passed
    first_quote = len(cloud) - len(quotes)
    if ignored is not None and quotes:
        ignored += cloud_reasons(len(quotes), first_quote, [(f, code) for f, code in filters if f is not None],
                                 [q.name for q in quotes],
                                 [{"provider": q.provider, "region": q.region, "gpu": str(cloud.gpu[first_quote + k]),
                                   "memory_gb": memory.get(str(cloud.gpu[first_quote + k]), 0.0),
                                   "min_gb": profile.min_gpu_memory_gb} for k, q in enumerate(quotes)])
    jobs = profile.jobs
    if widths is None:
        per_gpu_of = {g: float(throughput(g)) for g in dict.fromkeys(cloud.gpu[mask].tolist())}
        per_gpu = np.array([per_gpu_of.get(g, np.nan) for g in types], dtype=float)[type_of]
        width = np.full(len(cloud), jobs.gpus_per_job, dtype=np.int64)
    else:
        cloud, mask, width, per_gpu = _width_copies(cloud, mask, widths)
    nodes = linked_instances(cloud, profile, width)
    if (nodes > 1).any():  # a job wider than one instance: `nodes` linked instances of the offer rented together
        if jobs.runs != "continuously":  # always-on: `serving_efficiency` (the reference replica is linked too)
            per_gpu = per_gpu * np.array([cross_machine_efficiency(profile, int(k)) for k in nodes])
        cloud = cloud.priced(
            gpu_count=cloud.gpu_count * nodes,
            usd_per_hour=cloud.usd_per_hour * nodes,
            max_instances=np.floor(cloud.max_instances / nodes),
            name=np.array([f"{n} x{k} linked" if k > 1 else n for n, k in zip(cloud.name, nodes, strict=True)],
                          dtype=object))
    counts = cloud.gpu_count
    unit = load_unit(profile)
    if jobs.runs == "continuously":  # load units one instance carries in every hour it is rented
        per_gpu = per_gpu / unit if jobs.load == "divisible" else per_gpu
        slots = np.array([serving_slots(int(n), r, int(w), jobs.load, pooled=False) if m else 0.0
                          for n, r, w, m in zip(counts, per_gpu, width, mask, strict=True)]).astype(np.int64)
    else:
        slots = counts // width
    if ignored is not None and widths is None and quotes:  # a quote that passed the filters but runs no job
        at = np.arange(first_quote, len(cloud))
        ignored += [notice("ignored_job_wider", field=f"prices.cloud[{i - first_quote}]",
                           item=quotes[i - first_quote].name, gpus=int(cloud.gpu_count[i]), width=int(width[i]))
                    for i in at[mask[at] & (slots[at] <= 0)].tolist()]
    mask &= slots > 0  # a job needs all its GPUs on one instance (or on linked instances of one offer)
    cloud = cloud.take(mask)
    slots, per_gpu, width = slots[mask], per_gpu[mask], width[mask]
    max_instances = cloud.max_instances
    if cloud.listing.any():  # a marketplace listing is one machine: at most one instance of it at a time
        max_instances = np.where(cloud.listing & np.isnan(max_instances), 1.0, max_instances)
    spot_factor = np.where(cloud.pricing == "spot", 1.0 - opts.spot_interruption_overhead, 1.0)
    if jobs.runs == "continuously":
        # rented every hour the load is there whatever the GPU's speed: a faster GPU never needs fewer hours
        # (spot loses its share of hours to pre-emption, rented again); its capacity is in `slots`
        speed = spot_factor.astype(float)
        ref = slots * jobs.gpus_per_job * speed * unit
        load_per_gpu = per_gpu if jobs.load == "divisible" else np.ones(len(cloud))
    else:
        speed = per_gpu * spot_factor
        # a job slot at its own width delivers `speed` reference jobs: jobs.gpus_per_job reference GPUs each
        ref = cloud.gpu_count * speed if widths is None else cloud.gpu_count * speed * jobs.gpus_per_job / width
        load_per_gpu = np.ones(len(cloud))
    price = cloud.usd_per_hour
    return cloud.priced(max_instances=max_instances, ref_hours_per_hour=ref, usd_per_ref_hour=price / ref,
                        slots=slots, speed=speed, usd_per_job_hour=price / speed, load_per_gpu=load_per_gpu,
                        width=width)


_last_types: tuple[CloudTable, list[str], np.ndarray] | None = None


def _gpu_types(cloud: CloudTable) -> tuple[list[str], np.ndarray]:
    """The table's distinct GPU types (in order of first row) and each row's index into them: a per-type figure
    (memory floor, throughput) is found once per type and spread to the rows by one take, not looked up per row
    (some 20 us a plan on the bundled catalog, 0.5 ms on 10,000 offers). Kept for the last table (the catalog's
    own, `cloud_table`, when the profile brings no cloud quotes)."""
    global _last_types
    cached = _last_types
    if cached is not None and cached[0] is cloud:
        return cached[1], cached[2]
    index: dict[str, int] = {}
    type_of = np.array([index.setdefault(g, len(index)) for g in cloud.gpu.tolist()], dtype=np.intp)
    _last_types = (cloud, list(index), type_of)
    return list(index), type_of


def _width_copies(cloud: CloudTable, mask: np.ndarray,
                  widths: JobWidths) -> tuple[CloudTable, np.ndarray, np.ndarray, np.ndarray]:
    """One row per allowed offer and job width of its GPU type (labels `<offer>/w<width>`; `offer` keeps the
    offer's own label, so the copies share its quota), with each row's width and job-slot speed."""
    rows: list[int] = []
    width: list[int] = []
    speed: list[float] = []
    for i in np.flatnonzero(mask).tolist():
        for w, s in sorted(widths.get(str(cloud.gpu[i]), {}).items()):
            rows.append(i)
            width.append(w)
            speed.append(s)
    copies = cloud.take(np.array(rows, dtype=np.int64))
    width_of = np.array(width, dtype=np.int64)
    labels = np.array([f"{label}/w{w}" for label, w in zip(copies.label.tolist(), width, strict=True)], dtype=object)
    return (copies.priced(label=labels), np.ones(len(rows), dtype=bool), width_of,
            np.array(speed, dtype=float))


def linked_instances(cloud: CloudTable, profile: Profile, width: np.ndarray | int | None = None) -> np.ndarray:
    """Instances of each offer one job needs: 1, or ceil(width / GPUs) when the job (of `width` GPUs per offer,
    default jobs.gpus_per_job) is wider than an instance, the profile allows jobs across machines and the offer has
    an RDMA fabric (defaults.MULTI_NODE_OFFERS or a request item marked `multi_node`); an offer without one keeps 1
    (and cannot run the job)."""
    jobs = profile.jobs
    width = jobs.gpus_per_job if width is None else width
    counts = cloud.gpu_count.astype(float)
    if jobs.interconnect == "same_machine" or cloud.empty:
        return np.ones(len(cloud), dtype=np.int64)
    marked = {(c.provider, c.name) for c in profile.prices.cloud if c.multi_node}
    fabric = np.array([(p, n) in defaults.MULTI_NODE_OFFERS or (p, n) in marked
                       for p, n in zip(cloud.provider.tolist(), cloud.name.tolist(), strict=True)], dtype=bool)
    wide = (counts < width) & fabric
    return np.where(wide, np.ceil(width / np.maximum(counts, 1)), 1).astype(np.int64)


def cloud_options(table: CloudTable, displaced_replicas: bool = False) -> list[CloudOption]:
    """The table's offers as options. `displaced_replicas` (work that may not wait, and always-on load): an
    instance rented for the hours an owned slot cannot work carries one job or replica (`displaced_slots`, below).

    Why one job or replica: outages of owned machines (maintenance, a slower card's overrun, hours off) come one
    at a time (5% of the hours of each, seldom together), and a job that may not wait cannot wait for others to
    fill an instance: packing four jobs' outage hours into one 8-GPU instance-hour, as work that may wait is
    packed, served each hour of them with a quarter of an instance, and bought free slow cards for the right to
    pack their overrun (issue 29: the replay paid whole instances and disagreed). A replica's outage on a card
    that carries more than one load unit takes as many instance-hours (the safe side)."""
    columns = zip(table.label.tolist(), table.provider.tolist(), table.name.tolist(), table.gpu.tolist(),
                  table.gpu_count.tolist(), table.usd_per_hour.tolist(), table.region.tolist(),
                  table.pricing.tolist(), table.ref_hours_per_hour.tolist(), table.max_instances.tolist(),
                  table.source.tolist(), table.as_of.tolist(), table.feed.tolist(), table.slots.tolist(),
                  table.speed.tolist(), table.listing.tolist(), table.load_per_gpu.tolist(), table.width.tolist(),
                  table.offer.tolist(), strict=True)
    # each option filled without the frozen dataclass's `__init__` (20 `object.__setattr__` calls, some 3 us of an
    # option's 4): its dict made whole in the fields' order, with the values `__init__` was given. Not through
    # `solvers.base.evolve.filled` (a call per option: 5% of this function); the first option of each call is
    # checked to hold exactly `CloudOption`'s fields instead (1 us)
    made = object.__new__
    fill = object.__setattr__
    options: list[CloudOption] = []
    for (label, provider, name, gpu, gpu_count, usd, region, pricing, ref, quota, source, as_of, feed, slots,
         speed, listing, load, width, offer) in columns:
        option = made(CloudOption)
        fill(option, "__dict__", {
            "key": f"cloud:{label}", "provider": provider, "name": name, "gpu": gpu, "gpu_count": int(gpu_count),
            "usd_per_hour": float(usd), "region": region, "pricing": pricing, "ref_hours_per_hour": float(ref),
            "max_instances": None if quota != quota else float(quota),  # NaN: no quota
            "source": source, "as_of": as_of, "feed": feed, "slots": int(slots), "speed": float(speed),
            "listing": bool(listing), "load_per_gpu": float(load), "width": int(width), "offer": f"cloud:{offer}",
            "displaced_slots": min(float(slots), 1.0) if displaced_replicas else None})
        options.append(option)
    if options:
        checked(options[0])
    return options


def oldest_per_feed(cloud: CloudTable) -> dict[str, str]:
    """Oldest price date per feed. A loop over the two columns as plain lists: a pandas groupby costs about
    3 ms of fixed overhead for a few hundred rows, more than the rest of building the options. The loop walks the
    distinct (feed, date) pairs only, in the order they first come (a few dozen of some hundreds of rows): the same
    minimum per feed, the feeds in the same order."""
    oldest: dict[str, str] = {}
    for feed, as_of in dict.fromkeys(zip(cloud.feed.tolist(), cloud.as_of.tolist(), strict=True)):
        feed, as_of = str(feed), str(as_of)
        if feed not in oldest or as_of < oldest[feed]:
            oldest[feed] = as_of
    return oldest
