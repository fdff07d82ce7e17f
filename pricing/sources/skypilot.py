"""SkyPilot's public catalog: one `vms.csv` per cloud, refreshed by SkyPilot's CI from each provider's price API.

The files live in the public repository skypilot-org/skypilot-catalog (`catalogs/v8/<cloud>/vms.csv`) and are
read over HTTPS from raw.githubusercontent.com, no key needed. Each cloud is its own source here
(`skypilot_lambda`, `skypilot_nebius`, ...), with its own snapshot and status: a cloud whose file is missing,
cut short or implausible stays on its last good snapshot while the others refresh.

Format (header of every v8 file; column order differs per cloud, so columns are read by name):
`InstanceType, AcceleratorName, AcceleratorCount, vCPUs, MemoryGiB, Price, SpotPrice, Region, GpuInfo`
(+ `AvailabilityZone` for some). `Price` and `SpotPrice` are USD per instance-hour; an empty or zero
`SpotPrice` means no spot market. Rows without an accelerator are CPU machines and are skipped; a
fractional `AcceleratorCount` is a GPU slice and is skipped too (the planner prices whole GPUs).

GCP is not offered: its catalog prices the VM and the accelerator in separate rows that must be added up
(see pricing/data/cloud_offers.SOURCES.md); the `gcp` source reads GCP's own billing catalog instead.

Marketplaces (Vast): the file lists one row per offer and region; rows are summarised per GPU and size as
the median, the 10th percentile and the number of rows, never one offer standing in for the market.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import math
import statistics
from collections import defaultdict
from typing import ClassVar, Literal

import numpy as np
import requests

from pricing.gpus import GpuTable
from pricing.observation import FetchResult, PriceObservation, SourceError
from pricing.sources.base import Source

REQUIRED_COLUMNS = ("InstanceType", "AcceleratorName", "AcceleratorCount", "Price", "Region")
# SkyPilot's accelerator names (sky/catalog/common accelerator naming) -> spellings the GPU table knows;
# names already in the table's aliases need no entry
SKYPILOT_NAMES = {
    "A100": "A100 40GB", "A100-80GB": "A100 80GB", "A6000": "RTX A6000", "A5000": "RTX A5000",
    "RTXA6000": "RTX A6000", "RTXA5000": "RTX A5000", "RTX6000-Ada": "RTX 6000 Ada", "RTX6000Ada": "RTX 6000 Ada",
    "RTX6000": "Quadro RTX 6000", "V100-32GB": "V100 32GB", "RTX-PRO-6000": "RTX PRO 6000",
    "RTXPRO6000": "RTX PRO 6000", "RTXPRO6000S": "RTX PRO 6000", "RTX5090": "RTX 5090", "RTX4090": "RTX 4090",
    "RTX3090": "RTX 3090", "H100-MEGA": "H100 SXM",
}
PCIE_VARIANTS = {"A100 40GB": "A100 40GB PCIe", "A100 80GB": "A100 80GB PCIe", "H100 SXM": "H100 PCIe"}


def pcie_variant(gpu: str | None, instance: str, gpus: GpuTable) -> str | None:
    """An instance named as PCIe ("gpu_1x_h100_pcie", "A100_PCIE") holds the PCIe part of a GPU catalogs
    name without its form factor ("H100", "A100")."""
    if gpu is not None and "pcie" in instance.lower() and gpu in PCIE_VARIANTS:
        return gpus.canonical(PCIE_VARIANTS[gpu])
    return gpu


def gpu_of(accelerator: str, instance: str, gpus: GpuTable) -> str | None:
    """Canonical GPU of a row: SkyPilot's accelerator name, through the GPU table, PCIe where the instance says."""
    return pcie_variant(gpus.canonical(SKYPILOT_NAMES.get(accelerator, accelerator)), instance, gpus)


def _price(row: dict[str, str | None], column: str, number: int) -> float | None:
    cell = (row.get(column) or "").strip()
    if not cell:
        return None
    try:
        value = float(cell)
    except ValueError as exc:
        raise SourceError(f"row {number}: {column} {cell!r} is not a number") from exc
    if not math.isfinite(value):
        raise SourceError(f"row {number}: {column} {cell!r} is not a finite number")
    return value


def read_rows(text: str, what: str) -> list[dict[str, str | None]]:
    """The rows of a catalog CSV; a missing column or a row cut short is a SourceError naming it."""
    try:
        reader = csv.DictReader(io.StringIO(text), strict=True)
        header = reader.fieldnames or []
        missing = [c for c in REQUIRED_COLUMNS if c not in header]
        if missing:
            raise SourceError(f"{what}: not a SkyPilot catalog (columns {', '.join(missing)} missing)")
        rows = list(reader)
    except csv.Error as exc:
        raise SourceError(f"{what}: malformed CSV ({exc})") from exc
    for number, row in enumerate(rows, start=2):
        if None in row.values() or None in row:
            raise SourceError(f"{what}: row {number} has {len(row)} cells, not {len(header)} (file cut short?)")
    return rows


class SkyPilotCatalogSource(Source):
    """One cloud's `vms.csv`. Subclasses set `key`, `catalog_cloud`, `provider` and `description`."""

    kind: ClassVar[Literal["cloud", "hardware"]] = "cloud"
    default_base_url: ClassVar[str] = "https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master"
    default_interval_hours: ClassVar[float] = 12.0  # SkyPilot's CI refreshes the files a few times a day
    catalog_version: ClassVar[str] = "v8"
    catalog_cloud: ClassVar[str]
    provider: ClassVar[str]
    marketplace: ClassVar[bool] = False
    default_enabled: ClassVar[bool] = False

    @property
    def enabled(self) -> bool:
        if self.config.enabled is None:
            return self.default_enabled
        return self.config.enabled

    @property
    def url(self) -> str:
        return f"{self.base_url}/catalogs/{self.catalog_version}/{self.catalog_cloud}/vms.csv"

    def fetch(self, http: requests.Session, gpus: GpuTable, now: dt.datetime) -> FetchResult:
        response = http.get(self.url)
        response.raise_for_status()
        rows = read_rows(response.text, f"SkyPilot {self.catalog_cloud} catalog")
        result = FetchResult(rows_seen=len(rows))
        market: dict[tuple[str, int], list[float]] = defaultdict(list)
        for number, row in enumerate(rows, start=2):
            accelerator = (row["AcceleratorName"] or "").strip()
            count = _price(row, "AcceleratorCount", number)
            if not accelerator or count is None or count < 1 or count != int(count):
                continue  # a CPU machine or a GPU slice
            instance = (row["InstanceType"] or "").strip()
            gpu = gpu_of(accelerator, instance, gpus)
            if gpu is None:
                result.unknown_skus[accelerator] += 1
                continue
            price = _price(row, "Price", number)
            if price is None:
                continue  # listed without an on-demand price (e.g. sold only as capacity blocks)
            if self.marketplace:
                market[(gpu, int(count))].append(price)
                continue
            region = (row["Region"] or "").strip()
            spot = _price(row, "SpotPrice", number)
            # an empty or zero SpotPrice: no spot market; any other price, even 0 or negative, flows through
            # for the refresh's plausibility checks to judge
            for pricing, usd in (("on_demand", price), ("spot", spot)):
                if usd is not None and (pricing == "on_demand" or usd != 0):
                    result.observations.append(PriceObservation(
                        source=self.key, kind="cloud", gpu=gpu, gpu_count=int(count), name=instance, usd=usd,
                        observed_at=now, provider=self.provider, region=region, pricing=pricing, reference=self.url,
                    ))
        for (gpu, count), prices in sorted(market.items()):
            result.observations.append(PriceObservation(
                source=self.key, kind="cloud", gpu=gpu, gpu_count=count, name=gpu if count == 1 else f"{count}x {gpu}",
                usd=statistics.median(prices), observed_at=now, provider=self.provider, region="global",
                p10_usd=float(np.quantile(prices, 0.10)), listings=len(prices), reference=self.url,
            ))
        if not result.observations:
            raise SourceError(f"SkyPilot {self.catalog_cloud} catalog: no priced GPU rows among {len(rows)} rows")
        return result


def _cloud(key: str, cloud: str, provider: str, label: str, *, on: bool = False, market: bool = False,
           kept: float = 0.85) -> type[SkyPilotCatalogSource]:
    attrs = {"key": key, "catalog_cloud": cloud, "provider": provider, "default_enabled": on, "marketplace": market,
             "min_kept_ratio": kept,
             "description": f"{label} prices from SkyPilot's public catalog (catalogs/v8/{cloud}/vms.csv), keyless"}
    return type(f"SkyPilot_{cloud}", (SkyPilotCatalogSource,), attrs)


# on by default: clouds no other keyless source here covers (the gpuhunt catalog has lambda, nebius, oci,
# runpod, verda; aws, azure and vast have their own keyless sources)
SkyPilotCudo = _cloud("skypilot_cudo", "cudo", "cudo", "Cudo Compute", on=True)
SkyPilotHyperbolic = _cloud("skypilot_hyperbolic", "hyperbolic", "hyperbolic", "Hyperbolic", on=True)
SkyPilotHyperstack = _cloud("skypilot_hyperstack", "hyperstack", "hyperstack", "Hyperstack", on=True)
SkyPilotJarvisLabs = _cloud("skypilot_jarvislabs", "jarvislabs", "jarvislabs", "JarvisLabs", on=True)
SkyPilotSeeweb = _cloud("skypilot_seeweb", "seeweb", "seeweb", "Seeweb", on=True)
SkyPilotLambda = _cloud("skypilot_lambda", "lambda", "lambda", "Lambda Cloud", kept=0.0)
SkyPilotNebius = _cloud("skypilot_nebius", "nebius", "nebius", "Nebius")
SkyPilotOci = _cloud("skypilot_oci", "oci", "oci", "Oracle Cloud (OCI)")
SkyPilotRunPod = _cloud("skypilot_runpod", "runpod", "runpod", "RunPod")
SkyPilotVerda = _cloud("skypilot_verda", "verda", "verda", "Verda (DataCrunch)")
SkyPilotVast = _cloud("skypilot_vast", "vast", "vast", "Vast.ai marketplace (per GPU and size: median, p10, count)",
                      market=True, kept=0.5)
