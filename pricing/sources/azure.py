"""Azure GPU VM prices from the public Azure Retail Prices API (no credentials).

API: https://learn.microsoft.com/rest/api/cost-management/retail-prices/azure-retail-prices
GET https://prices.azure.com/api/retail/prices?api-version=2023-01-01-preview&$filter=...; the answer is
`{"BillingCurrency", "Items": [...], "NextPageLink": <absolute URL or null>, "Count": <items on the page>}`
with at most 1,000 items a page; the next page is whatever `NextPageLink` says, until it is null/absent.

Server-side we filter only with fields and `eq` comparisons the documentation lists
(`serviceName eq 'Virtual Machines' and priceType eq 'Consumption'`, plus `armRegionName eq '<region>'`
when regions are configured) and `meterRegion='primary'` (documented for 2021-10-01 and later, drops
duplicate non-primary meters). gpuhunt (`providers/azure.py`) also sends `contains(productName, 'Windows')
eq false` style clauses, but `contains` is not in the API documentation, so Windows, Low Priority,
DevTest, non-USD and non-hourly items are filtered here, client-side.

The answer has no GPU fields: the GPU model and count come from the VM size (`armSkuName`) through the
series table `AZURE_GPU_SERIES` (after gpuhunt's regex table in `providers/azure.py`, with counts from the
Microsoft Learn size pages cited per row).

Spot prices are items whose `skuName`/`meterName` contain " Spot" (documented in the API overview);
"Low Priority" items (the retired batch priority) are skipped.

Fractional-GPU sizes are skipped on purpose and NOT counted as unknown (a price for 1/6 of an A10 cannot
be expressed per whole GPU): Standard_NV6ads_A10_v5 (1/6 A10), Standard_NV12ads_A10_v5 (1/3),
Standard_NV18ads_A10_v5 (1/2). Sizes of GPUs not in pricing/data/gpus.csv (K80, P100, P40, M60, MI25,
V620, V710, MI300X, H100 NVL) and GPU sizes of unknown count are counted in `unknown_skus`.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

import requests

from pricing.gpus import GpuTable
from pricing.http import json_body
from pricing.observation import FetchResult, PriceObservation, SourceError
from pricing.sources.base import Source

API_VERSION = "2023-01-01-preview"
BASE_FILTER = "serviceName eq 'Virtual Machines' and priceType eq 'Consumption'"
MAX_PAGES = 10_000  # ~10 million items: far beyond the VM catalogue, only stops a server that pages forever
LEARN = "https://learn.microsoft.com/azure/virtual-machines/sizes/gpu-accelerated/"

# Any N-series size (NC, ND, NG, NV) is a GPU VM; NP (FPGA) and the rest are not.
GPU_VM = re.compile(r"^Standard_N[CDGV]C?\d")


@dataclass(frozen=True)
class VmSeries:
    """One Azure GPU VM series: which sizes belong to it, their GPU and how many whole GPUs each has."""

    pattern: re.Pattern[str]  # full armSkuName; group 1 is the size number (vCPUs)
    gpu: str  # spelling for GpuTable.canonical; a GPU not in gpus.csv makes every size an unknown SKU
    counts: Mapping[int, int] = field(default_factory=dict)  # size number -> whole GPUs
    fractional: frozenset[int] = frozenset()  # size numbers selling part of one GPU: skipped
    source: str = ""


def _series(pattern: str, gpu: str, counts: Mapping[int, int] | None = None,
            fractional: frozenset[int] = frozenset(), source: str = "") -> VmSeries:
    return VmSeries(re.compile(f"^Standard_{pattern}$"), gpu, counts or {}, fractional, source)


# Order matters where patterns overlap: more specific series first.
AZURE_GPU_SERIES: tuple[VmSeries, ...] = (
    _series(r"NC(\d+)ads_A100_v4", "A100 80GB PCIe", {24: 1, 48: 2, 96: 4}, source=LEARN + "nca100v4-series"),
    _series(r"NC(\d+)as_T4_v3", "T4", {4: 1, 8: 1, 16: 1, 64: 4}, source=LEARN + "ncast4v3-series"),
    _series(r"NC(\d+)r?s_v3", "V100", {6: 1, 12: 2, 24: 4}, source=LEARN + "ncv3-series"),
    _series(r"NC(\d+)adi?s_H100_v5", "H100 NVL", {40: 1, 80: 2}, source=LEARN + "ncadsh100v5-series"),
    _series(r"NCC(\d+)ads_H100_v5", "H100 NVL", {40: 1}, source=LEARN + "nccadsh100v5-series"),
    # NC A10 v4 sells 1/3, 2/3 and whole A10s; no stored source gives the split per size, so unknown
    _series(r"NC(\d+)ads_A10_v4", "A10", source="gpuhunt providers/azure.py (NC A10 v4-series)"),
    _series(r"NC(\d+)r?s_v2", "P100", source=LEARN + "ncv2-series"),
    _series(r"NC(\d+)r?(?:_Promo)?", "K80", source=LEARN + "nc-series"),
    _series(r"ND(\d+)amsr_A100_v4", "A100 80GB", {96: 8}, source=LEARN + "ndma100v4-series"),
    _series(r"ND(\d+)asr_v4", "A100 40GB", {96: 8}, source=LEARN + "ndasra100v4-series"),
    _series(r"ND(\d+)rs_v2", "V100 32GB", {40: 8}, source=LEARN + "ndv2-series"),
    _series(r"ND(\d+)isr_H100_v5", "H100 SXM", {96: 8}, source=LEARN + "ndh100v5-series"),
    _series(r"ND(\d+)isr_H200_v5", "H200", {96: 8}, source=LEARN + "nd-h200-v5-series"),
    _series(r"ND(\d+)isr_MI300X_v5", "MI300X", {96: 8}, source=LEARN + "ndmi300xv5-series"),
    _series(r"ND(\d+)r?s", "P40", source=LEARN + "nd-series"),
    _series(r"NV(\d+)adm?s_A10_v5", "A10", {36: 1, 72: 2}, frozenset({6, 12, 18}), LEARN + "nvadsa10v5-series"),
    _series(r"NV(\d+)adm?s_V710_v5", "V710", source=LEARN + "nvadsv710-v5-series"),
    _series(r"NV(\d+)as_v4", "MI25", source=LEARN + "nvv4-series"),
    _series(r"NV(\d+)s_v3", "M60", source=LEARN + "nvv3-series"),
    _series(r"NV(\d+)(?:s_v2|_Promo)?", "M60", source=LEARN + "nv-series"),
    _series(r"NG(\d+)adm?s_V620_v1", "V620", source=LEARN + "ngadsv620-series"),
)

FRACTIONAL = "fractional"


def size_gpu(arm_sku: str, gpus: GpuTable) -> tuple[str, int] | str | None:
    """(canonical GPU, whole GPUs) for a GPU VM size, FRACTIONAL for a part-GPU size, the armSkuName back
    for a GPU VM we cannot map (an unknown SKU), None for a VM that has no GPU at all."""
    if not GPU_VM.match(arm_sku):
        return None
    for series in AZURE_GPU_SERIES:
        match = series.pattern.match(arm_sku)
        if match is None:
            continue
        size = int(match.group(1))
        if size in series.fractional:
            return FRACTIONAL
        canonical = gpus.canonical(series.gpu)
        count = series.counts.get(size)
        if canonical is None or count is None:
            return arm_sku
        return canonical, count
    return arm_sku


def _text(item: Mapping[str, Any], name: str) -> str:
    value = item.get(name)
    if not isinstance(value, str):
        raise SourceError(f"Azure retail prices: item lacks text field {name!r} ({value!r})")
    return value


def _number(item: Mapping[str, Any], name: str) -> float:
    value = item.get(name)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise SourceError(f"Azure retail prices: item lacks numeric field {name!r} ({value!r})")
    return float(value)


def pricing_of(item: Mapping[str, Any]) -> str | None:
    """"on_demand", "spot", or None for items we do not store (Windows, Low Priority, DevTest, reserved,
    non-USD, not per hour)."""
    if _text(item, "type") != "Consumption" or _text(item, "currencyCode") != "USD":
        return None
    if _text(item, "unitOfMeasure") != "1 Hour" or "Windows" in _text(item, "productName"):
        return None
    names = _text(item, "skuName") + "|" + _text(item, "meterName")
    if "Low Priority" in names:
        return None
    return "spot" if " Spot" in names else "on_demand"


class AzureSource(Source):
    """Linux pay-as-you-go and spot prices of Azure GPU VM sizes, per region."""

    key: ClassVar[str] = "azure"
    kind: ClassVar[Literal["cloud", "hardware"]] = "cloud"
    default_base_url: ClassVar[str] = "https://prices.azure.com/api/retail/prices"
    credentials: ClassVar[tuple[str, ...]] = ()
    description: ClassVar[str] = "Azure Retail Prices API: GPU VM sizes (NC/ND/NV), pay-as-you-go and spot"

    def filters(self) -> list[str]:
        """One `$filter` per page sequence: all regions at once, or one sequence per configured region."""
        if not self.config.regions:
            return [BASE_FILTER]
        return [f"{BASE_FILTER} and armRegionName eq '{region}'" for region in self.config.regions]

    def fetch(self, http: requests.Session, gpus: GpuTable, now: dt.datetime) -> FetchResult:
        result = FetchResult()
        seen: set[str] = set()
        wanted = set(self.config.regions or ())
        for odata_filter in self.filters():
            for item in self._items(http, odata_filter, result):
                if wanted and item.get("armRegionName") not in wanted:
                    continue  # the server filters by region already; this guards a filter it ignored
                observation = self._observation(item, gpus, now, result)
                if observation is None:
                    continue
                if observation.key() not in seen:  # the same meter listed twice: keep the first
                    seen.add(observation.key())
                    result.observations.append(observation)
        if result.rows_seen == 0:
            raise SourceError("Azure retail prices: the answer holds no items")
        if not result.observations:
            raise SourceError(f"Azure retail prices: no GPU VM price among {result.rows_seen} items")
        return result

    def _items(self, http: requests.Session, odata_filter: str, result: FetchResult) -> Iterator[dict[str, Any]]:
        """Every item of one page sequence; a page that fails or is malformed fails the whole fetch."""
        params: dict[str, str] | None = {
            "api-version": API_VERSION, "meterRegion": "'primary'", "$filter": odata_filter,
        }
        url: str | None = self.base_url
        visited: set[str] = set()
        page = 0
        while url:
            page += 1
            if page > MAX_PAGES or (params is None and url in visited):
                raise SourceError(f"Azure retail prices: page sequence does not end (page {page}: {url})")
            visited.add(url)
            body = json_body(http.get(url, params=params), f"Azure retail prices page {page}")
            items, url = self._page(body, page)
            params = None  # NextPageLink already carries the query
            result.rows_seen += len(items)
            yield from items

    @staticmethod
    def _page(body: Any, page: int) -> tuple[list[dict[str, Any]], str | None]:
        what = f"Azure retail prices page {page}"
        if not isinstance(body, dict) or not isinstance(body.get("Items"), list):
            raise SourceError(f"{what}: no 'Items' list")
        items: list[Any] = body["Items"]
        if not all(isinstance(item, dict) for item in items):
            raise SourceError(f"{what}: an item is not an object")
        count = body.get("Count")
        if isinstance(count, int) and not isinstance(count, bool) and count != len(items):
            raise SourceError(f"{what}: Count says {count} but the page holds {len(items)} items")
        link = body.get("NextPageLink")
        if link is not None and not isinstance(link, str):
            raise SourceError(f"{what}: NextPageLink is not a URL ({link!r})")
        return items, link or None

    def _observation(self, item: dict[str, Any], gpus: GpuTable, now: dt.datetime,
                     result: FetchResult) -> PriceObservation | None:
        arm_sku = _text(item, "armSkuName")
        mapped = size_gpu(arm_sku, gpus)
        if mapped is None or mapped == FRACTIONAL:
            return None
        pricing = pricing_of(item)
        if pricing is None:
            return None
        if isinstance(mapped, str):
            result.unknown_skus[mapped] += 1
            return None
        gpu, count = mapped
        meter = item.get("meterId")
        reference = f"{self.base_url}?$filter=meterId eq '{meter}'" if isinstance(meter, str) else self.base_url
        return PriceObservation(
            source=self.key, kind="cloud", gpu=gpu, gpu_count=count, name=arm_sku,
            usd=_number(item, "retailPrice"), observed_at=now, provider="azure",
            region=_text(item, "armRegionName"), pricing=pricing,
            reference=reference,
        )
