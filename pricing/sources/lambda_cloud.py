"""Lambda Cloud: `GET /instance-types`, the on-demand price of every instance type Lambda lists.

Answer shape (Lambda Cloud API v1, `InstanceTypeGetListResponse`):
`data{<type name>:{instance_type{name,description,price_cents_per_hour,specs{gpus,...}},
regions_with_capacity_available[{name,description}]}}`. Lambda has no spot market, so every price is
`on_demand`, per instance-hour for the type's GPUs.

GPU model and count come from `description`, "<N>x <GPU> (<memory> <form factor>)", e.g.
"8x H100 (80 GB SXM5)" or "1x A100 (40 GB PCIe)": N is the count and the rest is looked up with
`GpuTable.canonical`, whose aliases carry Lambda's spellings ("H100 (80 GB SXM5)", "A100 (40 GB SXM4)",
"RTX 6000 (24 GB)"). The form factor in the parentheses is what tells the SXM and PCIe parts apart,
which the type name alone does not always do ("gpu_1x_a100" is a PCIe card). As gpuhunt
(`providers/lambdalabs.py`) does, a leading "Tesla " is dropped when the full spelling is unknown
("8x Tesla V100 (16 GB)"). A GPU type whose model maps to no known GPU ("1x GH200 (96 GB)") is counted in
`unknown_skus` under its type name; a type with no GPUs (`specs.gpus` 0, e.g. CPU-only types) is skipped.
`price_cents_per_hour` is an integer per the schema, a string in the spec's own example: both are read.

Regions: one observation per region listed in `regions_with_capacity_available`. When no region has
capacity right now, the type is still priced, with region "": Lambda's price is a list price that
does not depend on the region (the same in all regions) and capacity comes and goes by the hour, so
dropping the type would make it vanish from plans at every capacity dip and reappear as a "new" row.

Authentication: `Authorization: Bearer <api_key>` (required; a 401 propagates as an HTTP error).

API reference: https://cloud.lambdalabs.com/api/v1/docs (Lambda Cloud API, "List available instance
types"); field shapes as in its OpenAPI spec v1.5.3 (mirrored in konfig-sdks/openapi-examples
lambda/openapi.yaml, schema InstanceTypeGetListResponse).
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any, ClassVar, Literal

import requests

from pricing.gpus import GpuTable
from pricing.http import json_body
from pricing.observation import FetchResult, PriceObservation, SourceError
from pricing.sources.base import Source

PROVIDER = "lambda"
DESCRIPTION = re.compile(r"^\s*(\d+)\s*x\s+(.+?)\s*$")


def parse_description(description: str) -> tuple[int, str] | None:
    """(GPU count, GPU spelling) from a description like "8x H100 (80 GB SXM5)"; None when not of that form."""
    match = DESCRIPTION.match(description)
    return (int(match.group(1)), match.group(2)) if match else None


def canonical_gpu(spelling: str, gpus: GpuTable) -> str | None:
    found = gpus.canonical(spelling)
    if found is None and spelling.startswith("Tesla "):
        found = gpus.canonical(spelling.removeprefix("Tesla "))
    return found


def price_usd(cents: Any, type_name: str) -> float:
    """USD per hour from `price_cents_per_hour`, which the API sends as an integer or a numeric string."""
    if isinstance(cents, bool):
        raise SourceError(f"Lambda type {type_name}: price_cents_per_hour is not a number ({cents!r})")
    if isinstance(cents, int | float):
        return float(cents) / 100
    if isinstance(cents, str):
        try:
            return float(cents.strip()) / 100
        except ValueError:
            pass
    raise SourceError(f"Lambda type {type_name}: price_cents_per_hour is not a number ({cents!r})")


def _entries(body: Any) -> dict[str, Any]:
    data = body.get("data") if isinstance(body, dict) else None
    if not isinstance(data, dict):
        raise SourceError("Lambda instance-types answer has no 'data' object")
    if not data:
        raise SourceError("Lambda instance-types answer lists no instance types")
    return data


def _instance_type(key: str, entry: Any) -> dict[str, Any]:
    instance = entry.get("instance_type") if isinstance(entry, dict) else None
    if not isinstance(instance, dict):
        raise SourceError(f"Lambda entry {key!r} has no 'instance_type' object")
    for name in ("name", "description", "price_cents_per_hour"):
        if instance.get(name) is None:
            raise SourceError(f"Lambda instance type {key!r} lacks {name!r}")
    return instance


def _regions(key: str, entry: dict[str, Any]) -> list[str]:
    regions = entry.get("regions_with_capacity_available", [])
    if not isinstance(regions, list) or not all(isinstance(r, dict) and isinstance(r.get("name"), str)
                                                for r in regions):
        raise SourceError(f"Lambda entry {key!r}: regions_with_capacity_available is not a list of regions")
    return [r["name"] for r in regions]


def _gpu_count_from_specs(instance: dict[str, Any]) -> int | None:
    specs = instance.get("specs")
    gpus = specs.get("gpus") if isinstance(specs, dict) else None
    return gpus if isinstance(gpus, int) and not isinstance(gpus, bool) else None


class LambdaSource(Source):
    key: ClassVar[str] = "lambda"
    kind: ClassVar[Literal["cloud", "hardware"]] = "cloud"
    default_base_url: ClassVar[str] = "https://cloud.lambdalabs.com/api/v1"
    credentials: ClassVar[tuple[str, ...]] = ("api_key",)
    description: ClassVar[str] = "Lambda Cloud instance types (API key): on-demand price per instance-hour"
    min_kept_ratio: ClassVar[float] = 0.0  # one row per region with capacity: rows come and go with demand

    @property
    def url(self) -> str:
        return f"{self.base_url}/instance-types"

    def fetch(self, http: requests.Session, gpus: GpuTable, now: dt.datetime) -> FetchResult:
        if self.config.api_key is None:
            raise SourceError("Lambda Cloud needs an API key (api_key)")
        headers = {"Authorization": f"Bearer {self.config.api_key.get_secret_value()}"}
        entries = _entries(json_body(http.get(self.url, headers=headers), "Lambda instance-types"))
        result = FetchResult(rows_seen=len(entries))
        for key, entry in entries.items():
            result.observations.extend(self._observations(key, entry, gpus, now, result))
        if not result.observations:
            raise SourceError(f"Lambda answer: none of {len(entries)} instance types is a known GPU type")
        return result

    def _observations(self, key: str, entry: Any, gpus: GpuTable, now: dt.datetime,
                      result: FetchResult) -> list[PriceObservation]:
        instance = _instance_type(key, entry)
        name = str(instance["name"])
        usd = price_usd(instance["price_cents_per_hour"], name)
        regions = _regions(key, entry)
        if _gpu_count_from_specs(instance) == 0:
            return []  # a CPU-only type: not a GPU offer
        parsed = parse_description(str(instance["description"]))
        gpu = canonical_gpu(parsed[1], gpus) if parsed else None
        if parsed is None or gpu is None or parsed[0] < 1:
            result.unknown_skus[name] += 1
            return []
        return [
            PriceObservation(
                source=self.key, kind="cloud", gpu=gpu, gpu_count=parsed[0], name=name, usd=usd, observed_at=now,
                provider=PROVIDER, region=region, pricing="on_demand", reference=f"{self.url}#{name}",
            )
            for region in regions or [""]
        ]
