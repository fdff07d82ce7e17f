"""Turn a catalog and a profile into the purchase and rental options the planning model chooses from.

Each option carries everything the model needs, already in the profile's terms: its job width and the speed of
one job slot (reference GPU-hours per GPU-hour when every option runs jobs.gpus_per_job), energy cost at the
profile's electricity rate and PUE, resale at the horizon. Filters (memory, used, spot, providers, regions) are
applied here, vectorised over the catalog. The workload form (`JobWidths`) gives each GPU type its own widths:
one option per offer and width.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from pricing.catalog import Catalog, Host, feed_key
from pricing.gpus import GpuSpec, GpuTable
from pricing.hardware_fit import MODULE_FORM_FACTORS, host_accepts, module_unit_sizes
from pricing.sold_new import SoldNew, offered_new_card
from solvers.base import defaults
from solvers.base.demand_units import add_months, load_unit, peak_load, spare_units
from solvers.base.errors import ProfileError
from solvers.base.finance import hourly_part, upfront_fee
from solvers.base.notices import Notice, notice
from solvers.base.options import CloudOption, HostOption, JobWidths, Options, OwnedOption
from solvers.base.performance import throughput_score
from solvers.base.profile import OwnedOpex, OwnedPriceItem, Profile
from solvers.offers.cloud_table import CloudTable, cloud_table
from solvers.offers.ignored import cloud_reasons, commitment_item, owned_item
from solvers.offers.pue import by_place, pue_of, system_kind
from solvers.offers.resale import Bought, resale_usd


def canonical_gpu(gpus: GpuTable, spelling: str, field: str) -> str:
    name = gpus.canonical(spelling)
    if name is None:
        raise ProfileError(field, "known_gpu", f"unknown GPU {spelling!r}; GET /v1/gpus lists the known ones")
    return name


class ThroughputModel:
    """Relative throughput per canonical GPU for one profile (model or the profile's overrides)."""

    def __init__(self, gpus: GpuTable, profile: Profile) -> None:
        self._gpus = gpus
        self._workload = profile.workload_class
        self._reference = gpus[canonical_gpu(gpus, profile.planned_demand.reference_gpu, "demand.reference_gpu")]
        self._overrides = {
            canonical_gpu(gpus, name, f"throughput_overrides.{name}"): value
            for name, value in profile.throughput_overrides.items()
        }
        self._overrides.setdefault(self._reference.name, 1.0)
        self._cache: dict[str, float] = {}
        self._reference_score: float | None = None

    @property
    def reference(self) -> GpuSpec:
        return self._reference

    def __call__(self, gpu: str) -> float:
        if gpu not in self._cache:
            if gpu in self._overrides:
                self._cache[gpu] = self._overrides[gpu]
            else:
                self._cache[gpu] = self._relative(gpu)
        return self._cache[gpu]

    def _relative(self, gpu: str) -> float:
        """`performance.relative_throughput(gpu, reference)`, its two scores divided as it divides them, with the
        reference's score computed once per plan instead of once per GPU type (half the roofline evaluations of
        options building; tests/solvers/base/test_performance.py holds the two equal)."""
        score = throughput_score(self._gpus[gpu], self._workload)
        if self._reference_score is None:
            self._reference_score = throughput_score(self._reference, self._workload)
        return score / self._reference_score


def _request_cloud_table(profile: Profile, gpus: GpuTable, today: dt.date) -> CloudTable:
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
        tables.append(_request_cloud_table(profile, catalog.gpus, today))
    quotes = profile.prices.cloud
    if not opts.allow_cloud and ignored is not None:
        ignored += [notice("ignored_cloud_not_allowed", field=f"prices.cloud[{k}]", item=q.name)
                    for k, q in enumerate(quotes)]
    if not tables or not opts.allow_cloud:
        return cloud_table(catalog.cloud).take(np.zeros(0, dtype=np.int64))
    cloud = CloudTable.concat(tables) if len(tables) > 1 else tables[0]
    memory = {g.name: g.memory_gb for g in catalog.gpus}
    gpus = cloud.gpu.tolist()
    enough = {g: memory.get(g, np.nan) >= profile.min_gpu_memory_gb for g in set(gpus)}  # per GPU type, not row
    filters = [  # in the order they apply, each with the code that says why a profile's quote fails it
        (cloud.pricing != "spot" if not opts.allow_spot else None, "ignored_spot"),
        (np.isin(cloud.provider, list(opts.providers)) if opts.providers is not None else None, "ignored_provider"),
        (np.isin(cloud.region, list(opts.regions)) if opts.regions is not None else None, "ignored_region"),
        (np.array([enough[g] for g in gpus], dtype=bool), "ignored_memory"),
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
        per_gpu = np.array([per_gpu_of.get(g, np.nan) for g in cloud.gpu], dtype=float)
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


def cross_machine_efficiency(profile: Profile, machines: int) -> float:
    """Speed of one job on `machines` linked machines relative to one machine: measured, or MosaicML's figures."""
    if machines <= 1:
        return 1.0
    measured = profile.jobs.cross_machine_efficiency
    if measured is not None:
        return measured
    points = sorted(defaults.CROSS_MACHINE_EFFICIENCY.items())
    return float(np.interp(machines, [k for k, _ in points], [e for _, e in points]))


def serving_slots(gpus: int, throughput: float, width: int, load: str, pooled: bool,
                  most: float = math.inf) -> float:
    """Load units that `gpus` GPUs of relative `throughput` carry every hour, replicas of `width` GPUs each.

    replicas: the unit is a replica of `width` reference GPUs: one per `width` GPUs of a type at least as fast as
    the reference, none on a slower type (a replica sized on the reference would fall behind; a faster GPU does
    not carry 1.56 replicas);
    divisible: `throughput` is the load units one replica carries (periods.load_unit), so a machine or instance
    carries its whole replicas (gpus // width) x throughput, rounded down to whole units; `pooled` cards (bare
    cards sharing the plan's hosts, machines linked for a wider replica) count their share, gpus / width replicas,
    each of at most `most` units (the peak's: a replica never carries more), so a card's share of a replica that
    could carry ten peaks is not a whole replica's worth of the peak (the planner's bound on units to buy reads it).
    """
    if load == "replicas":
        if throughput < 1.0 - 1e-9:
            return 0.0
        return float(gpus // width) if not pooled else gpus / width
    if pooled:
        return gpus * min(throughput, most) / width
    return float(math.floor((gpus // width) * throughput + 1e-9))


def cloud_options(table: CloudTable) -> list[CloudOption]:
    columns = zip(table.label.tolist(), table.provider.tolist(), table.name.tolist(), table.gpu.tolist(),
                  table.gpu_count.tolist(), table.usd_per_hour.tolist(), table.region.tolist(),
                  table.pricing.tolist(), table.ref_hours_per_hour.tolist(), table.max_instances.tolist(),
                  table.source.tolist(), table.as_of.tolist(), table.feed.tolist(), table.slots.tolist(),
                  table.speed.tolist(), table.listing.tolist(), table.load_per_gpu.tolist(), table.width.tolist(),
                  table.offer.tolist(), strict=True)
    return [
        CloudOption(key=f"cloud:{label}", provider=provider, name=name, gpu=gpu, gpu_count=int(gpu_count),
                    usd_per_hour=float(usd), region=region, pricing=pricing, ref_hours_per_hour=float(ref),
                    max_instances=None if quota != quota else float(quota),  # NaN: no quota
                    source=source, as_of=as_of, feed=feed, slots=int(slots), speed=float(speed),
                    listing=bool(listing), load_per_gpu=float(load), width=int(width), offer=f"cloud:{offer}")
        for (label, provider, name, gpu, gpu_count, usd, region, pricing, ref, quota, source, as_of, feed, slots,
             speed, listing, load, width, offer) in columns
    ]


@dataclass(frozen=True)
class _OwnedRow:
    name: str
    gpu: str
    condition: str
    gpus_per_unit: int
    unit_price_usd: float
    includes_host: bool
    watts: float | None
    idle_watts: float | None
    vendor: str
    source: str
    as_of: str
    feed: str
    kind: str | None = None  # a whole machine's kind, when its quote says (solvers.offers.pue.system_kind)


def _catalog_owned_rows(hardware: pd.DataFrame) -> list[_OwnedRow]:
    return [
        _OwnedRow(r.name, r.gpu, r.condition, int(r.gpus_per_unit), float(r.unit_price_usd), bool(r.includes_host),
                  None if pd.isna(r.watts) else float(r.watts), None if pd.isna(r.idle_watts) else float(r.idle_watts),
                  r.vendor, r.source, r.as_of, r.feed)
        for r in current_card_prices(hardware).itertuples(index=False)
    ]


def current_card_prices(hardware: pd.DataFrame) -> pd.DataFrame:
    """The catalog's hardware with only the newest price of each single card (GPU and condition): a card sells at
    its market price today, not at its launch price (a new RTX 5090: USD 1,999 MSRP in January 2025, USD 3,400 at
    the low end of street prices in February 2026). Whole systems (several GPUs, or a host included) are kept
    apart: each is a vendor's own product and price."""
    card = (hardware["gpus_per_unit"] == 1) & ~hardware["includes_host"].astype(bool)
    cards = hardware[card]
    newest = cards["as_of"].astype(str) == cards.groupby(["gpu", "condition"])["as_of"].transform(
        lambda d: d.astype(str).max())
    return pd.concat([cards[newest], hardware[~card]]).sort_index()


@dataclass(frozen=True)
class _HardwareTable:
    frame: pd.DataFrame  # held, so that `is` identifies the catalog table this was computed from
    rows: list[_OwnedRow]
    used_value: dict[str, float]


_last_hardware: _HardwareTable | None = None


def _hardware_table(catalog: Catalog) -> _HardwareTable:
    """The catalog's hardware as rows and its used market values, computed once per catalog: alert evaluation
    re-plans hundreds of saved profiles against one catalog and would otherwise convert the same table each time.
    """
    global _last_hardware
    cached = _last_hardware
    if cached is not None and cached.frame is catalog.hardware:
        return cached
    table = _HardwareTable(catalog.hardware, _catalog_owned_rows(catalog.hardware), used_market_value(catalog))
    _last_hardware = table
    return table


def offered_new(row: _OwnedRow, today: dt.date, sold_new: Mapping[str, SoldNew] | None = None) -> bool:
    """Whether a catalog row is offered today: a new whole system (several GPUs, or a host included) only within
    `defaults.NEW_SYSTEM_OFFER_YEARS` of its price date, so a 2017 DGX-1 or a 2020 DGX A100 launch price is not a
    system a lab can buy new today (the row stays in the catalog and `/v1/prices` as history). Cards follow
    `current_card_prices` (their newest price), and a new card only while it is sold new (`sold_new`, the
    catalog's `pricing/data/sold_new.csv`: an RTX 2080 Ti at its 2018 MSRP is not on offer in 2026)."""
    return offered_new_on(row.condition, row.includes_host, row.gpus_per_unit, row.as_of, today, row.gpu, sold_new)


def offered_new_on(condition: str, includes_host: bool, gpus_per_unit: int, as_of: str, today: dt.date,
                   gpu: str = "", sold_new: Mapping[str, SoldNew] | None = None) -> bool:
    """`offered_new` on a row's fields (a catalog frame's row or an `_OwnedRow`)."""
    if condition != "new":
        return True
    if not (includes_host or gpus_per_unit > 1):
        return offered_new_card(sold_new or {}, gpu, today)
    priced = dt.date.fromisoformat(as_of)
    years = defaults.NEW_SYSTEM_OFFER_YEARS
    last = priced.replace(year=priced.year + years, day=28) if (priced.month, priced.day) == (2, 29) else (
        priced.replace(year=priced.year + years))
    return today <= last


def offered_catalog(catalog: Catalog, today: dt.date) -> Catalog:
    """The catalog with only the purchase rows on offer today (`offered_new`): the workload compiler sizes machines
    and prices GPU types from it, so a type whose only purchase is a retired system is not shown as bought."""
    frame = catalog.hardware
    keep = np.array([offered_new_on(str(r.condition), bool(r.includes_host), int(r.gpus_per_unit), str(r.as_of), today,
                                    str(r.gpu), catalog.sold_new) for r in frame.itertuples(index=False)], dtype=bool)
    return catalog if keep.all() else replace(catalog, hardware=frame[keep].reset_index(drop=True))


def _owned_rows(catalog: Catalog, profile: Profile, today: dt.date) -> list[_OwnedRow]:
    rows = ([r for r in _hardware_table(catalog).rows if offered_new(r, today, catalog.sold_new)]
            if profile.prices.mode == "extend" else [])
    names: dict[str, str] = {}  # each spelling resolved once (200 quotes name a handful of GPU types)
    for i, item in enumerate(profile.prices.owned):
        rows.append(_request_owned_row(catalog.gpus, item, i, today, names))
    return rows


def _request_owned_row(gpus: GpuTable, item: OwnedPriceItem, index: int, today: dt.date,
                       names: dict[str, str] | None = None) -> _OwnedRow:
    gpu = (names or {}).get(item.gpu) or canonical_gpu(gpus, item.gpu, f"prices.owned[{index}].gpu")
    if names is not None:
        names[item.gpu] = gpu
    return _OwnedRow(
        item.name,
        gpu,
        item.condition,
        item.gpus_per_unit,
        item.unit_price_usd,
        item.includes_host,
        item.watts,
        item.idle_watts,
        "request",
        item.source or "request",
        (item.as_of or today).isoformat(),
        "request",
        item.kind,
    )


def used_market_value(catalog: Catalog) -> dict[str, float]:
    """The newest used price per GPU in the catalog (the lowest of that date): what a card of that model sells
    for today. The lowest price of any date was a 2023 eBay average where a 2026 listing now says more."""
    hw = catalog.hardware
    used = hw[(hw["condition"] == "used") & (hw["gpus_per_unit"] == 1) & ~hw["includes_host"].astype(bool)]
    if used.empty:
        return {}
    newest = used[used["as_of"].astype(str) == used.groupby("gpu")["as_of"].transform(lambda d: d.astype(str).max())]
    values: dict[str, float] = newest.groupby("gpu")["unit_price_usd"].min().to_dict()
    return values


def _oldest_per_feed(cloud: CloudTable) -> dict[str, str]:
    """Oldest price date per feed. A loop over the two columns as plain lists: a pandas groupby costs about
    3 ms of fixed overhead for a few hundred rows, more than the rest of building the options."""
    oldest: dict[str, str] = {}
    for feed, as_of in zip(cloud.feed.tolist(), cloud.as_of.tolist(), strict=True):
        feed, as_of = str(feed), str(as_of)
        if feed not in oldest or as_of < oldest[feed]:
            oldest[feed] = as_of
    return oldest


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
    used_value = _hardware_table(catalog).used_value

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
    owned_rows = _owned_rows(catalog, profile, today) if opts.allow_buy else []
    first_quote = len(owned_rows) - len(profile.prices.owned)
    kept_quotes: set[int] = set()

    def leave_out(i: int, row: _OwnedRow, code: str, **params: str | int | float | list[str]) -> None:
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
            option = _owned_option(
                i,
                row,
                spec,
                speed,
                kwh_per_watt_hour,
                opts.host_watts_per_working_gpu,
                _resale(row, spec, used_value, years, start or today, profile),
                idle_share,
                job_width,
                accepting,
            )
            if widths is not None:  # a unit bought runs jobs of one width
                option = replace(option, key=f"{option.key}/w{job_width}", offer=option.key)
            for placed in by_place(option, catalog.hosts, opts.pue, system_kind(spec, row.gpus_per_unit, row.kind)):
                if linked:
                    placed = _linked(placed, profile)
                if jobs.runs == "continuously":
                    placed = _serving(placed, placed.width, jobs.load, pooled=linked or not placed.includes_host,
                                      unit=unit, most=peak_units)
                    if placed.slots_per_unit <= 0:
                        leave_out(i, row, "ignored_too_slow_replica", gpu=spec.name)
                        continue  # slower than the reference: cannot carry a replica
                if row.feed == "request":
                    kept_quotes.add(i - first_quote)
                owned.append(placed)
    left_out = [n for k, n in sorted(ignored.items()) if k not in kept_quotes]
    if _opex_per_gpu_hour(opts.opex, 1.0) > 0:
        owned = [_with_opex(o, opts.opex) for o in owned]
    on_share = on_hours_share(opts.machine_on)
    if on_share < opts.availability:  # a machine on h hours a day works only in those hours
        owned = [replace(o, availability=on_share) for o in owned]
    committed = commitment_options(catalog, profile, throughput, today, horizon_days, start, widths, left_out)
    if jobs.runs == "continuously":  # a reserved instance carries always-on load like a rented one
        committed = [c for c in (_serving(c, c.width, jobs.load, pooled=False, unit=unit) for c in committed)
                     if c.slots_per_unit > 0]
    owned += committed
    if widths is not None:
        owned = useful_widths(owned, catalog.hosts)
    hosts = [HostOption(h, kwh_per_watt_hour * pue_of(h.kind, opts.pue) * h.idle_watts * idle_share)
             for h in catalog.hosts]
    as_of = _oldest_per_feed(cloud_frame)
    for o in owned:
        as_of[o.feed] = min(as_of.get(o.feed, o.as_of), o.as_of)
    if any(not o.includes_host for o in owned) and catalog.hosts:
        as_of["snapshot/hosts"] = min(h.as_of for h in catalog.hosts)
    candidates = len(owned) + len(cloud_frame)
    if cloud_filter is not None:
        cloud_frame = cloud_filter(cloud_frame)
    cloud = cloud_options(cloud_frame)
    return Options(
        owned,
        displaced_replicas(cloud) if jobs.runs == "continuously" or jobs.patience == "none" else cloud,
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


def displaced_replicas(cloud: list[CloudOption]) -> list[CloudOption]:
    """Work that may not wait (and always-on load): an instance rented for the hours an owned slot cannot work
    (maintenance, a slower card's overrun, hours off) carries that one job or replica, whatever else it could hold.
    Outages of owned machines come one at a time (5% of the hours of each, seldom together), and a job that may not
    wait cannot wait for others to fill an instance: packing four jobs' outage hours into one 8-GPU instance-hour, as
    work that may wait is packed, served each hour of them with a quarter of an instance, and bought free slow
    cards for the right to pack their overrun (issue 29: the replay paid whole instances and disagreed). A
    replica's outage on a card that carries more than one load unit takes as many instance-hours (the safe side)."""
    return [replace(c, displaced_slots=min(float(c.slots), 1.0)) for c in cloud]


def useful_widths(owned: list[OwnedOption], hosts: list[Host]) -> list[OwnedOption]:
    """Of one purchase (or commitment) offered at several job widths, the copies no other copy beats on its own
    machine: a plan using a beaten copy can swap each unit for the copy that beats it and never pay more. On an
    8-GPU machine a job that fits one GPU runs at width 1 (8 jobs at once, no scaling loss); a 3-GPU job runs at 3
    or 4 (both 2 jobs at once: 4 is faster, 3 saves energy), never wider (one job at once, less work an hour than
    two jobs of 4 and more energy per job). Rented instances are not filtered here: wider is cheaper for an
    instance rented whole for one job, and pruning rule 1 drops the copies that are not."""
    groups: dict[str, list[OwnedOption]] = {}
    for o in owned:
        groups.setdefault(o.quota_group, []).append(o)
    beaten: set[str] = set()
    for copies in groups.values():
        for i, a in enumerate(copies):
            if any(_beats(b, a, hosts) and (j < i or not _beats(a, b, hosts))
                   for j, b in enumerate(copies) if j != i):
                beaten.add(a.key)
    return [o for o in owned if o.key not in beaten]


def _beats(b: OwnedOption, a: OwnedOption, hosts: list[Host]) -> bool:
    """`b` (a copy of `a`'s unit at another width) does all `a` does for no more money: as many jobs at once, as
    much work per hour, no more energy per job; bare cards also per card and in every host that takes them."""
    if b.unit_price_usd > a.unit_price_usd or b.net_price_usd > a.net_price_usd:
        return False
    if b.usd_per_job_hour(1.0) > a.usd_per_job_hour(1.0):
        return False
    if a.includes_host:
        work = b.slots_per_unit * b.throughput >= a.slots_per_unit * a.throughput
        return b.slots_per_unit >= a.slots_per_unit and work
    if b.width > a.width or b.throughput / b.width < a.throughput / a.width:
        return False
    if not set(a.accepting_hosts) <= set(b.accepting_hosts):  # copies placed apart (solvers.offers.pue.by_place)
        return False
    return all((hosts[k].slots // b.width) * b.throughput >= (hosts[k].slots // a.width) * a.throughput
               for k in a.accepting_hosts)


def idle_hours_share(machine_on: str | float) -> float:
    """Share of the hours an owned machine is on while idle: always 1, when_working 0, h hours a day h / 24.

    With `when_working` a working GPU draws its full power (no idle baseline to subtract): the guide's formula.
    """
    if machine_on == "always":
        return 1.0
    if machine_on == "when_working":
        return 0.0
    return float(machine_on) / 24.0


def on_hours_share(machine_on: str | float) -> float:
    """Share of the hours an owned machine can work: h / 24 when it is on h hours a day, else all of them.

    A machine on h hours a day works only while it is on, so its available hours are capped at h / 24 of every
    period (the availability a purchase carries, the lower of the two: maintenance fits in the hours it is off).
    Without the cap the idle draw was charged for h / 24 of the hours while the work ran in more hours than that,
    and a machine on 2 hours a day at 50% utilisation cost less energy than one on only while working.
    """
    if isinstance(machine_on, str):
        return 1.0
    return float(machine_on) / 24.0


def _owned_option(
    index: int,
    row: _OwnedRow,
    spec: GpuSpec,
    throughput: float,
    kwh_per_watt_hour: float,
    host_watts: float,
    resale: float,
    idle_share: float = 1.0,
    width: int = 1,
    accepting_hosts: tuple[int, ...] = (),
) -> OwnedOption:
    n = row.gpus_per_unit
    if row.watts is not None:
        working_per_gpu = row.watts / n
    else:
        working_per_gpu = spec.tdp_w + (host_watts if row.includes_host else 0.0)
    idle_unit = row.idle_watts if row.idle_watts is not None else defaults.GPU_IDLE_FRACTION_OF_TDP * spec.tdp_w * n
    host_share = 0.0 if row.includes_host else host_watts
    baseline = idle_unit / n if idle_share > 0 else 0.0  # idle draw a working GPU does not add (machine on anyway)
    marginal_w = max(working_per_gpu - baseline, 0.0) + host_share
    return OwnedOption(
        key=f"own:{index}",
        name=row.name,
        gpu=row.gpu,
        condition=row.condition,
        gpus_per_unit=n,
        unit_price_usd=row.unit_price_usd,
        includes_host=row.includes_host,
        throughput=throughput,
        marginal_kwh_per_gpu_hour=kwh_per_watt_hour * marginal_w,
        idle_kwh_per_unit_hour=kwh_per_watt_hour * idle_unit * idle_share,
        card_watts=working_per_gpu,
        resale_usd=resale,
        memory_gb=spec.memory_gb,
        slots_per_unit=(n // width) if row.includes_host else n / width,
        width=width,
        accepting_hosts=accepting_hosts,
        vendor=row.vendor,
        source=row.source,
        as_of=row.as_of,
        feed=row.feed,
    )


def _linked(option: OwnedOption, profile: Profile) -> OwnedOption:
    """A machine smaller than a job, linked to others of its kind: each machine carries gpus / width of a job at
    the cross-machine efficiency, and (InfiniBand) pays its share of the network, `NETWORK_USD_PER_MACHINE`.

    Always-on load keeps the machine's own speed: a replica wider than any machine is linked however it runs, the
    reference replica included, so its load is stated on linked machines and the efficiency does not apply twice
    (on jobs that finish, the efficiency is what a job loses against running on one machine)."""
    jobs = profile.jobs
    machines = math.ceil(option.width / option.gpus_per_unit)
    network = defaults.NETWORK_USD_PER_MACHINE if jobs.interconnect == "infiniband" else 0.0
    efficiency = 1.0 if jobs.runs == "continuously" else cross_machine_efficiency(profile, machines)
    return replace(option, slots_per_unit=option.gpus_per_unit / option.width,
                   throughput=option.throughput * efficiency, unit_price_usd=option.unit_price_usd + network)


def _serving(option: OwnedOption, width: int, load: str, pooled: bool, unit: float = 1.0,
             most: float = math.inf) -> OwnedOption:
    """The option for always-on load: capacity in load units per unit (`serving_slots`), busy every hour it
    holds load (throughput 1: a faster GPU does not finish sooner), energy per unit of load it carries.
    `pooled`: its GPUs join others' (bare cards in the plan's hosts, machines linked for a replica wider than
    one), so a unit carries a fraction of a replica. `unit`: reference replicas per load unit (periods.load_unit);
    `most`: the peak's load units."""
    r = option.throughput / unit if load == "divisible" else option.throughput
    return replace(option, throughput=1.0, load_per_gpu=r if load == "divisible" else 1.0,
                   slots_per_unit=serving_slots(option.gpus_per_unit, r, width, load, pooled=pooled, most=most))


def _resale(row: _OwnedRow, spec: GpuSpec, used_value: dict[str, float], years: float, start: dt.date,
            profile: Profile) -> float:
    """Sale proceeds at the horizon's end: the fitted resale curve at the card's age then (`solvers.offers.resale`)."""
    return resale_usd(Bought(row.gpu, row.condition, row.gpus_per_unit, row.includes_host, row.unit_price_usd), spec,
                      used_value, years, start, profile.options)


HOURS_PER_MONTH = 365.25 * 24 / 12  # 730.5: an average calendar month
HOURS_PER_YEAR = 365.25 * 24


def _opex_per_gpu_hour(opex: OwnedOpex, kw_per_gpu: float) -> float:
    """Per-GPU running costs beyond power, per hour: colocation by kW, maintenance per GPU-year, staff per GPU."""
    return (opex.colocation_usd_per_kw_month * kw_per_gpu / HOURS_PER_MONTH
            + opex.maintenance_usd_per_gpu_year / HOURS_PER_YEAR
            + opex.staff_usd_per_gpu_month / HOURS_PER_MONTH)


def _with_opex(o: OwnedOption, opex: OwnedOpex) -> OwnedOption:
    """A unit's colocation counts its GPUs' working power (with the host share a bare card adds to its host)."""
    kw = o.card_watts / 1000.0
    return replace(o, opex_usd_per_unit_hour=o.gpus_per_unit * _opex_per_gpu_hour(opex, kw))


def _commitments_allowed(profile: Profile) -> bool:
    opts = profile.options
    if not opts.allow_cloud:
        return False
    if opts.allow_commitments is None:
        return bool(profile.prices.commitments)
    return opts.allow_commitments


def _commitment_frame(catalog: Catalog, profile: Profile, today: dt.date) -> pd.DataFrame:
    frames = [] if profile.prices.mode == "replace" else [catalog.commitments]
    items = profile.prices.commitments
    if items:
        for i, item in enumerate(items):
            canonical_gpu(catalog.gpus, item.gpu, f"prices.commitments[{i}].gpu")
        frames.append(pd.DataFrame({
            "provider": [c.provider for c in items], "name": [c.name for c in items],
            "gpu": [catalog.gpus.canonical(c.gpu) for c in items], "gpu_count": [c.gpu_count for c in items],
            "usd_per_hour": [c.usd_per_hour for c in items], "region": [c.region for c in items],
            "pricing": ["committed"] * len(items), "term_months": [c.term_months for c in items],
            "payment": [c.payment for c in items], "upfront_usd": [c.upfront_usd for c in items],
            "source": [c.source or "request" for c in items],
            "as_of": [(c.as_of or today).isoformat() for c in items], "feed": ["request"] * len(items),
            "max_instances": [c.max_instances for c in items],
            "carbon_usd_per_hour": [c.carbon_usd_per_hour for c in items]}))
    frames = [f for f in frames if not f.empty]
    if not frames:
        return pd.DataFrame()
    return pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]


def _paid_hours(start: dt.date, term_months: int, horizon_hours: float) -> tuple[float, int]:
    """Hours of whole calendar terms from `start` (a term of m months ends on the same day m months later) until
    the horizon is covered."""
    end = start + dt.timedelta(hours=horizon_hours)
    terms = 1
    while add_months(start, terms * term_months) < end:
        terms += 1
    return 24.0 * (add_months(start, terms * term_months) - start).days, terms


def commitment_options(catalog: Catalog, profile: Profile, throughput: ThroughputModel, today: dt.date,
                       horizon_days: int, start: dt.date | None = None,
                       widths: JobWidths | None = None, ignored: list[Notice] | None = None) -> list[OwnedOption]:
    """Reserved / committed-use offers the profile allows, as owned options with an hourly price for every hour of
    their terms: held from the plan's start and renewed term after term until the horizon is covered; the last
    term is paid in full even when it ends after the horizon (a commitment is owed whether used or not).
    With `widths`, one option per offer and job width of its GPU type, sharing the offer's quota."""
    quotes = profile.prices.commitments
    notes: list[Notice] = [] if ignored is None else ignored
    if not _commitments_allowed(profile):
        code = "ignored_cloud_not_allowed" if not profile.options.allow_cloud else "ignored_commitments_not_allowed"
        notes += [commitment_item(k, q.name, code) for k, q in enumerate(quotes)]
        return []
    notes += [commitment_item(k, q.name, "commitment_beyond_horizon", term_months=q.term_months,
                              horizon_days=horizon_days)
              for k, q in enumerate(quotes)
              if add_months(start or today, q.term_months) > (start or today) + dt.timedelta(days=horizon_days)]
    frame = _commitment_frame(catalog, profile, today)
    if frame.empty:
        return []
    first_quote = len(frame) - len(quotes)
    reasons: dict[int, Notice] = {}
    kept: set[int] = set()
    opts = profile.options
    memory = {g.name: g.memory_gb for g in catalog.gpus}
    horizon_hours = 24.0 * horizon_days
    first = start or today
    out: list[OwnedOption] = []

    def shapes(gpu: str) -> list[tuple[int, float]]:
        return ([(profile.jobs.gpus_per_job, throughput(gpu))] if widths is None
                else sorted(widths.get(gpu, {}).items()))

    rows = ((i, r, w, v) for i, r in enumerate(frame.itertuples(index=False)) for w, v in shapes(str(r.gpu)))
    for i, r, width, speed in rows:
        quote = i - first_quote  # a profile quote's index, negative for catalog rows
        why: tuple[str, dict[str, str | int | float | list[str]]] | None = None
        if opts.providers is not None and r.provider not in opts.providers:
            why = ("ignored_provider", {"provider": str(r.provider)})
        elif opts.regions is not None and r.region not in opts.regions:
            why = ("ignored_region", {"region": str(r.region)})
        elif memory.get(r.gpu, 0.0) < profile.min_gpu_memory_gb:
            why = ("ignored_memory", {"gpu": str(r.gpu), "memory_gb": memory.get(r.gpu, 0.0),
                                      "min_gb": profile.min_gpu_memory_gb})
        elif int(r.gpu_count) < width:
            why = ("ignored_job_wider", {"gpus": int(r.gpu_count), "width": width})
        if why is not None:
            if quote >= 0 and quote not in reasons:
                reasons[quote] = commitment_item(quote, str(r.name), why[0], **why[1])
            continue
        if quote >= 0:
            kept.add(quote)
        paid, terms = _paid_hours(first, int(r.term_months), horizon_hours)
        quota = getattr(r, "max_instances", None)
        payment = r.payment if isinstance(r.payment, str) else ""
        fee = upfront_fee(float(r.usd_per_hour), int(r.term_months), payment, getattr(r, "upfront_usd", None))
        carbon = getattr(r, "carbon_usd_per_hour", 0.0)
        carbon = 0.0 if carbon is None or pd.isna(carbon) else float(carbon)
        hourly = hourly_part(float(r.usd_per_hour), int(r.term_months), payment, fee) + carbon
        out.append(OwnedOption(
            key=f"commit:{i}" if widths is None else f"commit:{i}/w{width}", name=str(r.name), gpu=str(r.gpu),
            condition="new", gpus_per_unit=int(r.gpu_count),
            unit_price_usd=(float(r.usd_per_hour) + carbon) * paid if not fee else fee * terms + hourly * paid,
            includes_host=True, throughput=speed,
            marginal_kwh_per_gpu_hour=0.0, idle_kwh_per_unit_hour=0.0, card_watts=0.0, resale_usd=0.0,
            memory_gb=memory.get(r.gpu, 0.0), slots_per_unit=float(int(r.gpu_count) // width),
            vendor=str(r.provider), source=str(r.source), as_of=str(r.as_of), feed=str(r.feed),
            kind="commitment", usd_per_hour=float(r.usd_per_hour), term_months=int(r.term_months),
            paid_hours=paid, terms=terms, provider=str(r.provider), region=str(r.region), availability=1.0,
            max_units=None if quota is None or pd.isna(quota) else int(quota), width=width,
            offer="" if widths is None else f"commit:{i}", payment=payment, upfront_usd=fee,
            carbon_usd_per_hour=carbon))
    notes += [n for k, n in sorted(reasons.items()) if k not in kept]
    return out
