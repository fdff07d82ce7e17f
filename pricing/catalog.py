"""The current view the planner reads: GPU facts joined with the prices in force and the host machines.

The bundled snapshot (CSV files inside this package) is the embedded default, so the service plans
out of the box with no network. Live refreshes (later) build the same `Catalog` from stored
snapshots; the planner never knows which one it got.
"""

from __future__ import annotations

import csv
import datetime as dt
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from io import StringIO

import pandas as pd

from pricing.audit.model import Audit
from pricing.fx import ExchangeRates, bundled_rates
from pricing.gpus import GpuTable, bundled_gpus
from pricing.sold_new import SoldNew, bundled_sold_new

CLOUD_COLUMNS = [
    "provider", "name", "gpu", "gpu_count", "usd_per_hour", "region", "pricing",
    "source", "as_of", "feed", "max_instances",
]
# marketplace detail, optional in a cloud file (blank = not a marketplace aggregate): the 10th percentile,
# how many listings the median summarises and their median host reliability (0..1)
MARKET_COLUMNS = ["p10_usd_per_hour", "listings", "reliability"]
# commitment prices (reserved instances, committed use): planned on when a profile allows commitments (issue 16)
COMMITMENT_COLUMNS = [
    "provider", "name", "gpu", "gpu_count", "usd_per_hour", "region", "pricing", "term_months", "payment",
    "source", "as_of", "feed",
]
HARDWARE_COLUMNS = [
    "name", "gpu", "condition", "gpus_per_unit", "unit_price_usd", "includes_host", "watts",
    "idle_watts", "vendor", "source", "as_of", "feed",
]
PRICING_MODELS = ("on_demand", "spot")
# a marketplace aggregate of fewer listings is a thin market, not a price: one host's ask would decide plans
# (issue 15 found four of six plans decided by a single Vast listing), so the planner's view leaves it out
MIN_MARKET_LISTINGS = 3
COMMITMENT_MODELS = ("reserved", "committed")
PAYMENTS = ("no_upfront", "partial_upfront", "all_upfront", "")
CONDITIONS = ("new", "used")


@dataclass(frozen=True)
class Host:
    """A machine that bare GPU cards go into: what it costs without GPUs and what it can power."""

    name: str
    slots: int
    base_cost_usd: float
    psu_watts: float
    idle_watts: float
    source: str
    as_of: str
    # what cards it takes (pricing.hardware_fit.host_accepts reads these): the conservative default is a
    # desktop for PCIe cards without server airflow
    kind: str = "desktop"
    form_factors: frozenset[str] = frozenset({"pcie"})
    passive_cooling: bool = False


@dataclass
class HeldRows:
    """Rows the catalog audit quarantined (pricing/audit): kept and shown, never planned on."""

    cloud: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=CLOUD_COLUMNS + MARKET_COLUMNS))
    hardware: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=HARDWARE_COLUMNS))
    commitments: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=COMMITMENT_COLUMNS))

    def empty(self) -> bool:
        return bool(self.cloud.empty and self.hardware.empty and self.commitments.empty)


@dataclass
class Catalog:
    """GPU facts, cloud offers, hardware prices and hosts, each price row with its source and date.

    `cloud` is the planner's view: on-demand and spot offers only, never a quarantined row, never a marketplace
    aggregate of fewer than `MIN_MARKET_LISTINGS` listings. The same holds for `hardware` and `commitments`:
    rows the catalog audit quarantined are in `held`, with their flags in `audit` (None: not audited, as a
    catalog built by hand in a test).
    `max_instances` is the quota of an offer (instances at once; NaN = not known): for a marketplace
    aggregate it is the number of listings the median summarises, since no more machines of that kind are
    for rent. `commitments` holds reserved and committed-use prices with `term_months` and `payment`;
    the planner reads it as decision variables when a profile allows commitments (solvers.offers.options).
    """

    gpus: GpuTable
    cloud: pd.DataFrame
    hardware: pd.DataFrame
    hosts: list[Host] = field(default_factory=list)
    commitments: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=COMMITMENT_COLUMNS))
    # the ECB reference rates in force: the bundled publication, or the newest good one of the `ecb` source
    fx: ExchangeRates = field(default_factory=bundled_rates)
    # until when each card is sold new (pricing/sold_new.py): a card without a row is offered new
    sold_new: dict[str, SoldNew] = field(default_factory=dict)
    held: HeldRows = field(default_factory=HeldRows)
    audit: Audit | None = None

    def providers(self) -> list[str]:
        return sorted(self.cloud["provider"].unique().tolist())


def planner_offers(cloud: pd.DataFrame) -> pd.DataFrame:
    """Cloud rows the planner may use: all but marketplace aggregates of fewer than `MIN_MARKET_LISTINGS`."""
    thin = cloud["listings"].notna() & (cloud["listings"] < MIN_MARKET_LISTINGS)
    return cloud[~thin].reset_index(drop=True) if thin.any() else cloud


def feed_key(prefix: str, name: str) -> str:
    """Short source key used in `prices_as_of`, e.g. `snapshot/aws`, `snapshot/ebay`."""
    return f"{prefix}/{name.strip().lower().replace(' ', '-')}"


def _read_package_csv(name: str) -> pd.DataFrame:
    text = resources.files("pricing").joinpath(f"data/{name}").read_text(encoding="utf-8")
    return pd.read_csv(StringIO(text), dtype=str, keep_default_na=False)


def _canonical_or_fail(gpus: GpuTable, frame: pd.DataFrame, file: str) -> pd.Series:
    names = frame["gpu"].map(lambda s: gpus.canonical(s) or "")
    unknown = sorted(set(frame.loc[names == "", "gpu"]))
    if unknown:
        raise ValueError(f"{file}: GPU names not in the GPU table: {unknown}")
    return names


def normalise_cloud(frame: pd.DataFrame, gpus: GpuTable, feed_prefix: str, file: str) -> pd.DataFrame:
    """Type and validate cloud rows; every row must name a known GPU, a positive price and a date."""
    out = pd.DataFrame(index=frame.index)
    out["provider"] = frame["provider"].str.strip().str.lower()
    out["name"] = frame["name"].str.strip()
    out["gpu"] = _canonical_or_fail(gpus, frame, file)
    out["gpu_count"] = pd.to_numeric(frame["gpu_count"]).astype(int)
    out["usd_per_hour"] = pd.to_numeric(frame["usd_per_hour"]).astype(float)
    out["region"] = frame["region"].str.strip()
    out["pricing"] = frame["pricing"].str.strip()
    out["source"] = frame["source"].str.strip()
    out["as_of"] = frame["as_of"].str.strip()
    out["feed"] = [feed_key(feed_prefix, p) for p in out["provider"]]
    out["max_instances"] = _optional_number(frame, "max_instances")
    for column in MARKET_COLUMNS:
        out[column] = _optional_number(frame, column)
    bad = out[(out["usd_per_hour"] <= 0) | (out["gpu_count"] < 1) | ~out["pricing"].isin(PRICING_MODELS)]
    if not bad.empty:
        raise ValueError(f"{file}: invalid rows (price <= 0, gpu_count < 1 or bad pricing): {bad.index.tolist()}")
    _check_dates(out, file)
    return out[CLOUD_COLUMNS + MARKET_COLUMNS].reset_index(drop=True)


def _optional_number(frame: pd.DataFrame, column: str) -> pd.Series:
    cells = frame[column] if column in frame else pd.Series("", index=frame.index)
    return pd.to_numeric(cells.replace("", None), errors="raise").astype(float)


def normalise_commitments(frame: pd.DataFrame, gpus: GpuTable, feed_prefix: str, file: str) -> pd.DataFrame:
    """Type and validate commitment rows: a reserved/committed pricing model, a term in months, a payment option."""
    out = pd.DataFrame(index=frame.index)
    for column in ("provider", "name", "region", "pricing", "source", "as_of", "payment"):
        out[column] = frame[column].str.strip()
    out["provider"] = out["provider"].str.lower()
    out["gpu"] = _canonical_or_fail(gpus, frame, file)
    out["gpu_count"] = pd.to_numeric(frame["gpu_count"]).astype(int)
    out["usd_per_hour"] = pd.to_numeric(frame["usd_per_hour"]).astype(float)
    out["term_months"] = pd.to_numeric(frame["term_months"]).astype(int)
    out["feed"] = [feed_key(feed_prefix, p) for p in out["provider"]]
    bad = out[(out["usd_per_hour"] <= 0) | (out["gpu_count"] < 1) | (out["term_months"] < 1)
              | ~out["pricing"].isin(COMMITMENT_MODELS) | ~out["payment"].isin(PAYMENTS)]
    if not bad.empty:
        raise ValueError(f"{file}: invalid rows (price <= 0, gpu_count < 1, term < 1 month, pricing not "
                         f"reserved/committed or unknown payment): {bad.index.tolist()}")
    _check_dates(out, file)
    return out[COMMITMENT_COLUMNS].reset_index(drop=True)


def normalise_hardware(frame: pd.DataFrame, gpus: GpuTable, feed_prefix: str, file: str) -> pd.DataFrame:
    """Type and validate hardware price rows (new and used cards, whole machines)."""
    out = pd.DataFrame(index=frame.index)
    out["name"] = frame["name"].str.strip()
    out["gpu"] = _canonical_or_fail(gpus, frame, file)
    out["condition"] = frame["condition"].str.strip().str.lower()
    out["gpus_per_unit"] = pd.to_numeric(frame["gpus_per_unit"].replace("", "1")).astype(int)
    out["unit_price_usd"] = pd.to_numeric(frame["unit_price_usd"]).astype(float)
    out["includes_host"] = frame["includes_host"].str.strip().str.lower().isin(["true", "yes", "1"])
    out["watts"] = pd.to_numeric(frame["watts"].replace("", None)).astype(float)
    out["idle_watts"] = pd.to_numeric(frame["idle_watts"].replace("", None)).astype(float)
    out["vendor"] = frame["vendor"].str.strip()
    out["source"] = frame["source"].str.strip()
    out["as_of"] = frame["as_of"].str.strip()
    out["feed"] = [feed_key(feed_prefix, v) for v in out["vendor"]]
    bad = out[(out["unit_price_usd"] <= 0) | (out["gpus_per_unit"] < 1) | ~out["condition"].isin(CONDITIONS)]
    if not bad.empty:
        raise ValueError(f"{file}: invalid rows (price <= 0, gpus_per_unit < 1 or bad condition): "
                         f"{bad.index.tolist()}")
    _check_dates(out, file)
    return out[HARDWARE_COLUMNS].reset_index(drop=True)


def _check_dates(frame: pd.DataFrame, file: str) -> None:
    parsed = pd.to_datetime(frame["as_of"], format="%Y-%m-%d", errors="coerce")
    if parsed.isna().any():
        raise ValueError(f"{file}: rows without an ISO as_of date: {frame.index[parsed.isna()].tolist()}")
    if (frame["source"] == "").any():
        raise ValueError(f"{file}: rows without a source: {frame.index[frame['source'] == ''].tolist()}")


def parse_hosts(text: str) -> list[Host]:
    """Hosts with a documented base cost; a row whose cost is blank is unknown, never free, so it is left out."""
    hosts = [
        Host(
            name=row["name"].strip(),
            slots=int(row["slots"]),
            base_cost_usd=float(row["base_cost_usd"]),
            psu_watts=float(row["psu_watts"]),
            idle_watts=float(row["idle_watts"]),
            source=row["source"].strip(),
            as_of=row["as_of"].strip(),
            kind=(row.get("kind") or "").strip() or "desktop",
            form_factors=frozenset(f.strip() for f in (row.get("form_factors") or "pcie").split("|") if f.strip()),
            passive_cooling=(row.get("passive_cooling") or "").strip().lower() == "true",
        )
        for row in csv.DictReader(StringIO(text))
        if row["base_cost_usd"].strip()
    ]
    return sorted(hosts, key=lambda h: h.slots)


@lru_cache(maxsize=1)
def bundled_catalog() -> Catalog:
    """The snapshot shipped with the package, audited (read once per process; treat it as read-only): rows the
    audit quarantines are held back from plans (`Catalog.held`). The audit's day is the day of the first call;
    only its age flags depend on it, never what is quarantined."""
    from pricing.audit.run import audited  # the audit reads this module's types

    return audited(raw_bundled_catalog(), dt.date.today())


@lru_cache(maxsize=1)
def raw_bundled_catalog() -> Catalog:
    """The bundled snapshot as its files hold it, before the audit."""
    gpus = bundled_gpus()
    cloud = planner_offers(normalise_cloud(_read_package_csv("cloud_offers.csv"), gpus, "snapshot",
                                           "cloud_offers.csv"))
    hardware = normalise_hardware(
        _read_package_csv("hardware_prices.csv"), gpus, "snapshot", "hardware_prices.csv"
    )
    commitments = normalise_commitments(_read_package_csv("commitments.csv"), gpus, "snapshot", "commitments.csv")
    hosts_text = resources.files("pricing").joinpath("data/hosts.csv").read_text(encoding="utf-8")
    return Catalog(gpus=gpus, cloud=cloud, hardware=hardware, hosts=parse_hosts(hosts_text), commitments=commitments,
                   sold_new=bundled_sold_new())
