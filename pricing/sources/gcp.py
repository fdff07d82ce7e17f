"""Google Cloud: Cloud Billing Catalog SKUs of Compute Engine, assembled into GPU VM prices.

GCP does not price a GPU VM as one item: a VM is billed as vCPUs x the family's core SKU + GiB x the
family's RAM SKU + GPUs x the GPU SKU, each SKU priced per region (`serviceRegions`) and per usage type
(`OnDemand`, or `Preemptible` = Spot VMs). So this source reads every SKU of the Compute Engine service
(`GET /services/6F81-5844-456A/skus`, paged by `nextPageToken`, up to 5000 per page), keeps three
tables keyed by (family or GPU, region, pricing), and prices the machine types in `MACHINE_TYPES` in
each configured region (`SourceConfig.regions`, default the bundled snapshot's GCP regions). A machine
type with any of its three SKUs missing in a region is not priced there (GCP does not sell it there).

SKU descriptions read (gpuhunt `providers/gcp.py` parses the same ones; examples from real SKUs):
- GPU (`category.resourceGroup` "GPU"): "Nvidia Tesla T4 GPU running in Americas", "Nvidia A100 80GB GPU
  running in Netherlands", spot: "Spot Preemptible Nvidia L4 GPU running in Americas" or "Nvidia H100
  80GB GPU attached to Spot Preemptible VMs running in Americas". The model ("Nvidia Tesla T4") is
  canonicalised as "<model> GPU", then as the model, then without the "Nvidia"/"Tesla" words. GPU SKUs
  whose model maps to no known GPU (K80, P100, P4) are counted in `unknown_skus`. "Virtual Workstation"
  SKUs are NVIDIA GRID licence surcharges, not GPUs, and are skipped.
- Cores and RAM: "A2 Instance Core running in Americas", "Spot Preemptible G2 Instance Ram running in
  Americas", "N1 Predefined Instance Core running in Americas" (Custom, Sole Tenancy and commitment SKUs
  have other descriptions and are not read).
Price = `units + nanos / 1e9` of the LAST tiered rate of the latest pricing info, per `usageUnit` "h"
(GPU, core) or "GiBy.h" (RAM); GCP's machine-type memory figures are GiB. Only USD prices are read.
Local SSD that comes bundled with a2-ultragpu and a3-highgpu is not included (under 1% of their price).

Authentication: an API key, sent in the `X-Goog-Api-Key` header, which every Google API accepts in place
of `?key=`; in the header it cannot leak into the error messages and logs that quote request URLs.

API reference: https://cloud.google.com/billing/docs/reference/rest/v1/services.skus/list and
https://cloud.google.com/billing/v1/how-tos/catalog-api (SKU fields, pricing expression).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

import requests

from pricing.gpus import GpuTable
from pricing.http import json_body
from pricing.observation import FetchResult, PriceObservation, SourceError
from pricing.sources.base import Source

PROVIDER = "gcp"
COMPUTE_SERVICE = "services/6F81-5844-456A"
PAGE_SIZE = 5000
MAX_PAGES = 200  # the Compute Engine catalogue is a few pages; a provider looping on tokens must not hang us
DEFAULT_REGIONS = ("us-central1", "europe-west4")  # the GCP regions of pricing/data/cloud_offers.csv
USAGE_PRICING = {"OnDemand": "on_demand", "Preemptible": "spot"}
SKIP_WORDS = ("Virtual Workstation", "Commitment", "Reserved", "Sole Tenancy", "Custom", "Premium", "DWS")

GPU_SKU = re.compile(
    r"^(?:Spot Preemptible |Preemptible )?(?P<model>.+?) GPU(?: attached to Spot Preemptible VMs)? running in ",
)
HOST_SKU = re.compile(
    r"^(?:Spot Preemptible |Preemptible )?(?P<family>A2|A3|G2|N1 Predefined) Instance (?P<resource>Core|Ram) "
    r"running in ",
)
UNITS = {"gpu": "h", "core": "h", "ram": "GiBy.h"}


@dataclass(frozen=True)
class MachineType:
    """A GCP machine shape with GPUs: its vCPUs and memory are billed at `family`'s core and RAM SKUs."""

    name: str
    family: str  # the SKU family in the description: "A2", "A3", "G2", "N1 Predefined"
    vcpus: int
    ram_gib: float
    gpu: str  # canonical GPU name (the GPU SKU is found through the same canonical name)
    gpu_count: int


def _a2(name: str, vcpus: int, ram: float, gpu: str, count: int) -> MachineType:
    return MachineType(name, "A2", vcpus, ram, gpu, count)


def _g2(size: int, count: int) -> MachineType:
    return MachineType(f"g2-standard-{size}", "G2", size, 4.0 * size, "L4", count)


# GPU machine types and their shapes, from https://cloud.google.com/compute/docs/gpus (A2 Standard,
# A2 Ultra, A3 High, G2 tables; N1 with attached T4/V100) and
# https://cloud.google.com/compute/docs/general-purpose-machines#n1_machine_types (n1-standard-8 = 8 vCPU
# 30 GB, n1-standard-64 = 64 vCPU 240 GB); the same shapes are in SkyPilot's GCP catalogue (vms.csv).
# a3-highgpu-1g/2g/4g are left out: they are sold only as Spot or flex-start, not on demand.
MACHINE_TYPES: tuple[MachineType, ...] = (
    _a2("a2-highgpu-1g", 12, 85, "A100 40GB", 1),
    _a2("a2-highgpu-2g", 24, 170, "A100 40GB", 2),
    _a2("a2-highgpu-4g", 48, 340, "A100 40GB", 4),
    _a2("a2-highgpu-8g", 96, 680, "A100 40GB", 8),
    _a2("a2-megagpu-16g", 96, 1360, "A100 40GB", 16),
    _a2("a2-ultragpu-1g", 12, 170, "A100 80GB", 1),
    _a2("a2-ultragpu-2g", 24, 340, "A100 80GB", 2),
    _a2("a2-ultragpu-4g", 48, 680, "A100 80GB", 4),
    _a2("a2-ultragpu-8g", 96, 1360, "A100 80GB", 8),
    MachineType("a3-highgpu-8g", "A3", 208, 1872, "H100 SXM", 8),
    _g2(4, 1), _g2(8, 1), _g2(12, 1), _g2(16, 1), _g2(24, 2), _g2(32, 1), _g2(48, 4), _g2(96, 8),
    MachineType("n1-standard-8 + 1x nvidia-tesla-t4", "N1 Predefined", 8, 30, "T4", 1),
    MachineType("n1-standard-8 + 1x nvidia-tesla-v100", "N1 Predefined", 8, 30, "V100", 1),
    MachineType("n1-standard-64 + 8x nvidia-tesla-v100", "N1 Predefined", 64, 240, "V100", 8),
)


@dataclass(frozen=True)
class SkuPrice:
    usd: float
    sku_id: str


# (what, region, pricing) -> price; "what" is ("gpu", canonical) or ("core"|"ram", family)
PriceKey = tuple[str, str, str, str]


@dataclass
class PriceTables:
    """Unit prices read from SKUs; the first SKU seen for a key wins (GCP has one SKU per key)."""

    prices: dict[PriceKey, SkuPrice] = field(default_factory=dict)

    def add(self, resource: str, what: str, regions: list[str], pricing: str, price: SkuPrice) -> None:
        for region in regions:
            self.prices.setdefault((resource, what, region, pricing), price)

    def get(self, resource: str, what: str, region: str, pricing: str) -> SkuPrice | None:
        return self.prices.get((resource, what, region, pricing))


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise SourceError(f"GCP SKU {where} is missing or not text")
    return value


def gpu_model(model: str, gpus: GpuTable) -> str | None:
    """Canonical GPU of a GPU SKU model ("Nvidia Tesla A100 80GB"): full spelling first, then vendor words dropped."""
    bare = re.sub(r"^(?:nvidia\s+)?(?:tesla\s+)?", "", model, flags=re.IGNORECASE)
    for spelling in (f"{model} GPU", model, bare):
        found = gpus.canonical(spelling)
        if found is not None:
            return found
    return None


def unit_price(sku: dict[str, Any], sku_id: str, expected_unit: str) -> SkuPrice | None:
    """USD per usage unit from the last tier of the latest pricing info; None for a non-USD price."""
    try:
        expression = sku["pricingInfo"][-1]["pricingExpression"]
        unit = expression["usageUnit"]
        rate = expression["tieredRates"][-1]["unitPrice"]
        currency = rate["currencyCode"]
        units, nanos = int(rate.get("units", 0) or 0), int(rate.get("nanos", 0) or 0)
    except (KeyError, IndexError, TypeError, ValueError) as exc:
        raise SourceError(f"GCP SKU {sku_id}: pricing information missing or malformed ({exc!r})") from None
    if currency != "USD":
        return None
    if unit != expected_unit:
        raise SourceError(f"GCP SKU {sku_id}: priced per {unit!r}, expected {expected_unit!r}")
    return SkuPrice(units + nanos / 1e9, sku_id)


class GcpSource(Source):
    key: ClassVar[str] = "gcp"
    kind: ClassVar[Literal["cloud", "hardware"]] = "cloud"
    default_base_url: ClassVar[str] = "https://cloudbilling.googleapis.com/v1"
    credentials: ClassVar[tuple[str, ...]] = ("api_key",)
    description: ClassVar[str] = "GCP Cloud Billing Catalog (API key): GPU VM prices assembled from GPU, core, RAM SKUs"

    @property
    def url(self) -> str:
        return f"{self.base_url}/{COMPUTE_SERVICE}/skus"

    @property
    def regions(self) -> tuple[str, ...]:
        return tuple(self.config.regions) if self.config.regions else DEFAULT_REGIONS

    def fetch(self, http: requests.Session, gpus: GpuTable, now: dt.datetime) -> FetchResult:
        result = FetchResult()
        tables = PriceTables()
        for sku in self._skus(http):
            result.rows_seen += 1
            self._read_sku(sku, gpus, tables, result)
        result.observations = self._machine_prices(tables, now)
        if not result.observations:
            raise SourceError(f"GCP catalogue: no GPU machine type could be priced in {', '.join(self.regions)} "
                              f"({result.rows_seen} SKUs read)")
        return result

    def _skus(self, http: requests.Session) -> Iterator[dict[str, Any]]:
        """Every SKU of every page; a page that fails raises, so a cut-short sequence never looks complete."""
        if self.config.api_key is None:
            raise SourceError("GCP Cloud Billing Catalog needs an API key (api_key)")
        headers = {"X-Goog-Api-Key": self.config.api_key.get_secret_value()}
        token: str | None = None
        seen_tokens: set[str] = set()
        for _ in range(MAX_PAGES):
            params: dict[str, str | int] = {"pageSize": PAGE_SIZE}
            if token:
                params["pageToken"] = token
            page = json_body(http.get(self.url, params=params, headers=headers), "GCP SKU list")
            if not isinstance(page, dict) or not isinstance(page.get("skus", []), list):
                raise SourceError("GCP SKU list page has no 'skus' list")
            for sku in page.get("skus", []):
                if not isinstance(sku, dict):
                    raise SourceError("GCP SKU list: an SKU is not an object")
                yield sku
            token = page.get("nextPageToken") or None
            if token is None:
                return
            if token in seen_tokens:
                raise SourceError("GCP SKU list repeats a page token")
            seen_tokens.add(token)
        raise SourceError(f"GCP SKU list did not end within {MAX_PAGES} pages")

    def _read_sku(self, sku: dict[str, Any], gpus: GpuTable, tables: PriceTables, result: FetchResult) -> None:
        sku_id = _text(sku.get("skuId"), "skuId")
        description = _text(sku.get("description"), f"{sku_id} description")
        category = sku.get("category")
        if not isinstance(category, dict):
            raise SourceError(f"GCP SKU {sku_id} has no category")
        pricing = USAGE_PRICING.get(str(category.get("usageType")))
        if pricing is None or any(word in description for word in SKIP_WORDS):
            return
        gpu_match = GPU_SKU.match(description) if category.get("resourceGroup") == "GPU" else None
        host_match = HOST_SKU.match(description)
        if gpu_match is None and host_match is None:
            return
        regions = sku.get("serviceRegions")
        if not isinstance(regions, list) or not all(isinstance(r, str) for r in regions):
            raise SourceError(f"GCP SKU {sku_id} has no serviceRegions list")
        if gpu_match is not None:
            price = unit_price(sku, sku_id, UNITS["gpu"])
            if price is None:
                return
            model = gpu_match["model"]
            gpu = gpu_model(model, gpus)
            if gpu is None:
                result.unknown_skus[model] += 1
                return
            tables.add("gpu", gpu, regions, pricing, price)
        elif host_match is not None:
            resource = host_match["resource"].lower()
            price = unit_price(sku, sku_id, UNITS[resource])
            if price is not None:
                tables.add(resource, host_match["family"], regions, pricing, price)

    def _machine_prices(self, tables: PriceTables, now: dt.datetime) -> list[PriceObservation]:
        found = []
        for region in self.regions:
            for machine in MACHINE_TYPES:
                for pricing in USAGE_PRICING.values():
                    core = tables.get("core", machine.family, region, pricing)
                    ram = tables.get("ram", machine.family, region, pricing)
                    gpu = tables.get("gpu", machine.gpu, region, pricing)
                    if core is None or ram is None or gpu is None:
                        continue
                    usd = machine.vcpus * core.usd + machine.ram_gib * ram.usd + machine.gpu_count * gpu.usd
                    found.append(PriceObservation(
                        source=self.key, kind="cloud", gpu=machine.gpu, gpu_count=machine.gpu_count,
                        name=machine.name, usd=usd, observed_at=now, provider=PROVIDER, region=region,
                        pricing=pricing,
                        reference=(f"{self.url} {core.sku_id} x{machine.vcpus} + {ram.sku_id} x{machine.ram_gib:g} "
                                   f"+ {gpu.sku_id} x{machine.gpu_count}"),
                    ))
        return found
