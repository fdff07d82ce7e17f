"""RunPod: the GraphQL `gpuTypes` query, one price per GPU-hour for each cloud tier and market.

RunPod sells each GPU type in two tiers, Secure Cloud (its data-centre partners) and Community Cloud
(vetted individual hosts), each on demand and as spot (interruptible). `gpuTypes` answers with the
current list price of each, per GPU-hour, the same for every data centre of the tier. So each GPU type
gives up to four observations, all for `gpu_count` 1:

    name "<id> (secure)"    pricing on_demand <- securePrice       spot <- secureSpotPrice
    name "<id> (community)" pricing on_demand <- communityPrice    spot <- communitySpotPrice

The tier is part of the name, not the region: region stays "" because these prices are not tied to a
place (RunPod prices a GPU type the same in all its data centres), and the planner reads region as a
location. A null price means "not sold that way" and is skipped; so is a whole tier whose flag
(`secureCloud` / `communityCloud`) is false, because RunPod reports 0 rather than null for tiers it does
not offer and a 0 there is not a price. Any other number, 0 or negative included, is passed through:
judging plausibility is the refresh layer's job.

GPU names: mapped by `id` ("NVIDIA A100 80GB PCIe", "NVIDIA H100 80GB HBM3"), never by `displayName`,
because RunPod's displayName "A100 80GB" is the PCIe card while the canonical "A100 80GB" is the SXM
part (see the note on that row of pricing/data/gpus.csv). A priced id that maps to no known GPU is
counted in `unknown_skus`; ids with no price at all (RunPod lists an "unknown" placeholder type) are not.

Authentication: gpuhunt (`providers/runpod.py`) reads these prices without a key, so none is required;
when an API key is configured it is sent as `Authorization: Bearer <key>` (RunPod's documented scheme),
never in the URL where it would end up in logs.

API reference: https://github.com/runpod/docs graphql-api/get-gpu-types.md (the `gpuTypes` query),
the schema at https://graphql-spec.runpod.io (type GpuType), and gpuhunt
https://github.com/dstackai/gpuhunt/blob/main/src/gpuhunt/providers/runpod.py (same fields, no key).
"""

from __future__ import annotations

import datetime as dt
from typing import Any, ClassVar, Literal

import requests

from pricing.gpus import GpuTable
from pricing.http import json_body
from pricing.observation import FetchResult, PriceObservation, SourceError
from pricing.sources.base import Source

PROVIDER = "runpod"
GPU_TYPES_QUERY = """
query GpuTypes {
  gpuTypes {
    id
    displayName
    memoryInGb
    secureCloud
    communityCloud
    securePrice
    communityPrice
    secureSpotPrice
    communitySpotPrice
  }
}
""".strip()
# tier -> (flag saying the tier is offered, on-demand price field, spot price field)
TIERS: dict[str, tuple[str, str, str]] = {
    "secure": ("secureCloud", "securePrice", "secureSpotPrice"),
    "community": ("communityCloud", "communityPrice", "communitySpotPrice"),
}
PRICE_FIELDS = tuple(field for _, on_demand, spot in TIERS.values() for field in (on_demand, spot))


def _gpu_types(body: Any) -> list[dict[str, Any]]:
    """The `gpuTypes` list of a GraphQL answer; GraphQL reports failures in `errors` with HTTP 200."""
    if not isinstance(body, dict):
        raise SourceError("RunPod answer is not a GraphQL envelope")
    errors = body.get("errors")
    if errors:
        first = errors[0] if isinstance(errors, list) else errors
        message = first.get("message", first) if isinstance(first, dict) else first
        raise SourceError(f"RunPod GraphQL error: {message}")
    data = body.get("data")
    types = data.get("gpuTypes") if isinstance(data, dict) else None
    if not isinstance(types, list):
        raise SourceError("RunPod answer has no data.gpuTypes list")
    if not types:
        raise SourceError("RunPod answer lists no GPU types")
    for gpu_type in types:
        if not isinstance(gpu_type, dict) or not isinstance(gpu_type.get("id"), str):
            raise SourceError("RunPod answer: a GPU type has no id")
    return types


def _price(gpu_type: dict[str, Any], field: str) -> float | None:
    value = gpu_type.get(field)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise SourceError(f"RunPod GPU type {gpu_type['id']!r}: {field} is not a number ({value!r})")
    return float(value)


def _offered(gpu_type: dict[str, Any], flag: str) -> bool:
    """A tier is offered unless its flag is explicitly false (an answer without the flag is taken at its prices)."""
    return gpu_type.get(flag) is not False


def _memory_gb(gpu_type: dict[str, Any]) -> float | None:
    value = gpu_type.get("memoryInGb")
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


class RunPodSource(Source):
    key: ClassVar[str] = "runpod"
    kind: ClassVar[Literal["cloud", "hardware"]] = "cloud"
    default_base_url: ClassVar[str] = "https://api.runpod.io"
    description: ClassVar[str] = "RunPod GraphQL gpuTypes: secure and community cloud, on-demand and spot per GPU-hour"

    @property
    def url(self) -> str:
        return f"{self.base_url}/graphql"

    def _headers(self) -> dict[str, str]:
        key = self.config.api_key
        return {"Authorization": f"Bearer {key.get_secret_value()}"} if key is not None else {}

    def fetch(self, http: requests.Session, gpus: GpuTable, now: dt.datetime) -> FetchResult:
        response = http.post(self.url, json={"query": GPU_TYPES_QUERY}, headers=self._headers())
        types = _gpu_types(json_body(response, "RunPod gpuTypes"))
        result = FetchResult(rows_seen=len(types))
        for gpu_type in types:
            result.observations.extend(self._observations(gpu_type, gpus, now, result))
        if not result.observations:
            raise SourceError(f"RunPod answer: none of {len(types)} GPU types has a price for a known GPU")
        return result

    def _observations(self, gpu_type: dict[str, Any], gpus: GpuTable, now: dt.datetime,
                      result: FetchResult) -> list[PriceObservation]:
        type_id: str = gpu_type["id"]
        priced = [
            (tier, pricing, usd)
            for tier, (flag, on_demand, spot) in TIERS.items() if _offered(gpu_type, flag)
            for pricing, field in (("on_demand", on_demand), ("spot", spot))
            if (usd := _price(gpu_type, field)) is not None
        ]
        if not priced:
            return []
        gpu = gpus.canonical(type_id)
        if gpu is None:
            result.unknown_skus[type_id] += 1
            return []
        return [
            PriceObservation(
                source=self.key, kind="cloud", gpu=gpu, gpu_count=1, name=f"{type_id} ({tier})", usd=usd,
                observed_at=now, provider=PROVIDER, region="", pricing=pricing, memory_gb=_memory_gb(gpu_type),
                reference=f"{self.url} gpuTypes id={type_id!r} {field_name(tier, pricing)}",
            )
            for tier, pricing, usd in priced
        ]


def field_name(tier: str, pricing: str) -> str:
    """The gpuTypes field a (tier, pricing) observation was read from, for its `reference`."""
    _, on_demand, spot = TIERS[tier]
    return on_demand if pricing == "on_demand" else spot
