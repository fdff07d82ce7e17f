"""The identity of a price row across the catalog, the audit, `/v1/prices` and the planner's notices."""

from __future__ import annotations

from typing import Any

# where a row's price was read from an aggregator (a site collecting other sellers' or providers' prices), not from
# the provider or seller itself: the monitor's computeprices.com rows and the listing trackers
AGGREGATOR_MARKS = ("computeprices.com aggregator", "GPU Poet", "SpotWire")


def cloud_key(provider: Any, name: Any, region: Any, pricing: Any, gpu: Any, gpu_count: Any) -> str:
    return f"cloud|{provider}|{name}|{region}|{pricing}|{gpu}|{int(gpu_count)}"


def commitment_key(provider: Any, name: Any, region: Any, pricing: Any, term_months: Any, payment: Any, gpu: Any,
                   gpu_count: Any) -> str:
    return f"commitment|{provider}|{name}|{region}|{pricing}|{int(term_months)}|{payment}|{gpu}|{int(gpu_count)}"


def hardware_key(name: Any, vendor: Any, condition: Any, gpu: Any, gpus_per_unit: Any, as_of: Any) -> str:
    return f"hardware|{condition}|{vendor}|{name}|{gpu}|{int(gpus_per_unit)}|{str(as_of)[:10]}"


def is_aggregator(*texts: Any) -> bool:
    """Whether a row's source or vendor says its price came through an aggregator."""
    return any(mark in str(text) for text in texts for mark in AGGREGATOR_MARKS)
