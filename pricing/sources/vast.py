"""Vast.ai marketplace: the bundles search (`POST /bundles/`), summarised per GPU model.

Vast.ai is a marketplace of host-set asks, not a price list: one host can list an RTX 4090 at a tenth of
the going rate for an hour, another at five times it. Storing every ask would make one outlier a "price"
and make the row count swing with the market, so this source stores, per canonical GPU, a robust
statistic of the per-GPU-hour price: the median (`usd`), the 10th percentile (`p10_usd`, what a patient
buyer pays) and how many offers it summarises (`listings`), always for `gpu_count` 1.

Request: the same default query the official CLI sends for `vastai search offers` (vast-ai/vast-cli,
`search__offers`: verified, not external, rentable, not rented, `type` "on-demand", `allocated_storage`
5 GB, ordered by score) plus a `limit` large enough to read the whole market (gpuhunt
`providers/vastai.py` uses 3000 when it fetches everything). No API key is needed for the search.

Prices:
- on_demand: `dph_total / num_gpus`. `dph_total` is what Vast bills per hour for the instance as
  searched: the GPU rent (`dph_base`) plus the host's storage charge for `allocated_storage`. It is the
  figure the console and CLI show as $/hr; `dph_base` alone would understate hosts that put their margin
  into storage (`storage_cost` is host-set too), so it would not be a price anyone can rent at.
- spot: `min_bid / num_gpus`, the floor of Vast's interruptible (bid) market for that machine. Offers
  without a `min_bid` (absent or null) are left out of the spot statistic only. A zero or negative
  number is never filtered here: it flows into the statistic, and the refresh layer judges plausibility.

Region: "global". The statistic spans hosts in every country, so it is not a region's price; "global"
says so explicitly, where "" would read as "unknown".

GPU names: Vast's `gpu_name` ("RTX 4090", "H100 SXM", "A100 SXM4", "Tesla V100") goes through
`GpuTable.canonical`, first qualified by the offer's memory (`gpu_ram` is MiB per GPU, rounded to whole
GiB: "A100 SXM4 80GB", "Tesla V100 32GB") because Vast uses one name for 40/80 GB A100s and 16/32 GB
V100s; when the qualified spelling is not a known alias, the bare name is tried. A name that maps to
no known GPU is counted in `unknown_skus` under Vast's spelling, never guessed.

API reference: https://vast.ai/developers/api (`/api/v0/bundles/`, search offers),
https://docs.vast.ai/sdk/python/reference/search-offers (default filters, `type`, `storage`) and the CLI
source https://github.com/vast-ai/vast-cli (vast.py `search__offers`, which POSTs the query as JSON).
"""

from __future__ import annotations

import datetime as dt
import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

import numpy as np
import requests

from pricing.gpus import GpuTable
from pricing.http import json_body
from pricing.observation import FetchResult, PriceObservation, SourceError
from pricing.sources.base import Source

PROVIDER = "vast"
REGION = "global"
# the CLI's default `search offers` query (vast-cli search__offers), read as one page
SEARCH_QUERY: dict[str, Any] = {
    "verified": {"eq": True},
    "external": {"eq": False},
    "rentable": {"eq": True},
    "rented": {"eq": False},
    "order": [["score", "desc"]],
    "type": "on-demand",
    "allocated_storage": 5.0,
    "limit": 3000,
}
REQUIRED_FIELDS = ("gpu_name", "num_gpus", "dph_total")


@dataclass
class _Prices:
    """Per-GPU-hour prices of one canonical GPU, collected from all its offers."""

    on_demand: list[float] = field(default_factory=list)
    spot: list[float] = field(default_factory=list)


def _number(offer: dict[str, Any], name: str) -> float:
    value = offer.get(name)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise SourceError(f"Vast offer {offer.get('id', '?')}: field {name!r} is not a number ({value!r})")
    return float(value)


def gpu_of(offer: dict[str, Any], gpus: GpuTable) -> str | None:
    """Canonical GPU of an offer: memory-qualified spelling first (A100/V100 come in two sizes), then bare."""
    name = str(offer["gpu_name"]).strip()
    ram_mib = offer.get("gpu_ram")
    if isinstance(ram_mib, int | float) and not isinstance(ram_mib, bool) and ram_mib > 0:
        qualified = gpus.canonical(f"{name} {round(ram_mib / 1024)}GB")
        if qualified is not None:
            return qualified
    return gpus.canonical(name)


def _offers(body: Any) -> list[dict[str, Any]]:
    if not isinstance(body, dict) or not isinstance(body.get("offers"), list):
        raise SourceError("Vast bundles answer has no 'offers' list")
    offers: list[dict[str, Any]] = body["offers"]
    if not offers:
        raise SourceError("Vast bundles answer holds no offers")
    for offer in offers:
        if not isinstance(offer, dict):
            raise SourceError("Vast bundles answer: an offer is not an object")
        missing = [name for name in REQUIRED_FIELDS if offer.get(name) is None]
        if missing:
            raise SourceError(f"Vast offer {offer.get('id', '?')} lacks {', '.join(missing)}")
    return offers


class VastSource(Source):
    key: ClassVar[str] = "vast"
    kind: ClassVar[Literal["cloud", "hardware"]] = "cloud"
    default_base_url: ClassVar[str] = "https://console.vast.ai/api/v0"
    description: ClassVar[str] = "Vast.ai marketplace (bundles search): median and 10th percentile per GPU-hour"
    min_kept_ratio: ClassVar[float] = 0.5  # thin GPU models come and go with the hosts renting them out

    @property
    def url(self) -> str:
        return f"{self.base_url}/bundles/"

    def fetch(self, http: requests.Session, gpus: GpuTable, now: dt.datetime) -> FetchResult:
        response = http.post(self.url, json=SEARCH_QUERY)
        offers = _offers(json_body(response, "Vast bundles search"))
        result = FetchResult(rows_seen=len(offers))
        by_gpu: dict[str, _Prices] = defaultdict(_Prices)
        for offer in offers:
            count = _number(offer, "num_gpus")
            if count < 1:
                continue  # not a GPU rental (CPU-only or fractional listing): nothing to price per GPU
            gpu = gpu_of(offer, gpus)
            if gpu is None:
                result.unknown_skus[str(offer["gpu_name"])] += 1
                continue
            prices = by_gpu[gpu]
            prices.on_demand.append(_number(offer, "dph_total") / count)
            if offer.get("min_bid") is not None:
                prices.spot.append(_number(offer, "min_bid") / count)
        for gpu in sorted(by_gpu):
            result.observations.extend(self._observations(gpu, by_gpu[gpu], now))
        if not result.observations:
            raise SourceError(f"Vast bundles answer: none of {len(offers)} offers is a known GPU")
        return result

    def _observations(self, gpu: str, prices: _Prices, now: dt.datetime) -> list[PriceObservation]:
        found = []
        for pricing, values in (("on_demand", prices.on_demand), ("spot", prices.spot)):
            if not values:
                continue
            found.append(PriceObservation(
                source=self.key, kind="cloud", gpu=gpu, gpu_count=1, name=gpu, usd=statistics.median(values),
                observed_at=now, provider=PROVIDER, region=REGION, pricing=pricing,
                p10_usd=float(np.quantile(values, 0.10)), listings=len(values), reference=self.url,
            ))
        return found
