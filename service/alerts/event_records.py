"""How an evaluation writes down what it decided: the event rows of the outbox (their payload is what the senders
deliver), a changed price as alerts show it, and the writes an evaluation collects before its one transaction.

Separate from the rules that decide (`price_rules.py`, `plan_rules.py`): every kind of subscription words its
prices and builds its events the same way, and the payload's shape is the public contract of the webhooks.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

MAX_PRICES_PER_EVENT = 50


@dataclass
class Writes:
    """What an evaluation will write in its one transaction: events, price-move baselines, plan baselines."""

    events: list[dict[str, Any]] = field(default_factory=list)
    baselines: dict[tuple[str, str], float] = field(default_factory=dict)
    plan_baselines: dict[str, dict[str, Any]] = field(default_factory=dict)


def unit(kind: str) -> str:
    return "USD per GPU-hour" if kind == "cloud" else "USD per GPU"


def place(row: dict[str, Any]) -> str:
    """Where a price is offered: `aws p5.48xlarge (us-east-1)` for cloud, the seller for hardware."""
    if row["kind"] != "cloud":
        return str(row["provider"])
    return f"{row['provider']} {row['name']}" + (f" ({row['region']})" if row["region"] else "")


def where(row: dict[str, Any]) -> str:
    if row["kind"] == "cloud":
        return f"{row['gpu']} {row['pricing'].replace('_', '-')} at {place(row)}"
    return f"{row['kind']} {row['gpu']} from {place(row)}"


def _iso(moment: Any) -> str:
    return str(pd.Timestamp(moment).tz_convert("UTC").strftime("%Y-%m-%dT%H:%M:%SZ"))


def _none(value: Any) -> Any:
    """Missing values (None, NaN, NaT) as None, which JSON can carry."""
    return None if value is None or (pd.api.types.is_scalar(value) and pd.isna(value)) else value


def price_line(row: dict[str, Any]) -> dict[str, Any]:
    """A price as alerts show it; a price that disappeared (`removed`) has no current value."""
    prev, usd, per_gpu = _none(row["previous_usd_per_gpu"]), _none(row["usd"]), _none(row["usd_per_gpu"])
    return {
        "gpu": row["gpu"], "kind": row["kind"], "pricing": row["pricing"], "provider": row["provider"],
        "name": row["name"], "region": row["region"], "gpu_count": int(row["gpu_count"]),
        "usd": None if usd is None else round(float(usd), 6),
        "usd_per_gpu": None if per_gpu is None else round(float(per_gpu), 6),
        "previous_usd_per_gpu": None if prev is None else round(float(prev), 6),
        "change_pct": _none(row["change_pct"]), "currency": "USD", "unit": unit(row["kind"]), "source": row["source"],
        "observed_at": None if _none(row["observed_at"]) is None else _iso(row["observed_at"]),
        "removed": bool(row.get("removed", False)),
    }


def event(subscription_id: str, name: str, type_: str, summary: str, data: dict[str, Any], dedupe_key: str,
          now: dt.datetime) -> dict[str, Any]:
    """An outbox row, pending from `now`, whose payload is what the senders deliver."""
    event_id = str(uuid.uuid4())
    payload = {"id": event_id, "type": type_, "created_at": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
               "subscription": {"id": subscription_id, "name": name}, "summary": summary, "data": data}
    return {"id": event_id, "subscription_id": subscription_id, "dedupe_key": dedupe_key, "type": type_,
            "payload": payload, "created_at": now, "status": "pending", "attempts": 0, "next_attempt_at": now}


def by_subscription(rows: pd.DataFrame, order: Callable[[dict[str, Any]], float]) -> dict[str, list[dict[str, Any]]]:
    """Matched rows grouped per subscription, each group sorted by `order` (records once: no per-group frames)."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for record in rows.to_dict(orient="records"):
        groups.setdefault(str(record["subscription_id"]), []).append(record)
    for group in groups.values():
        group.sort(key=order)
    return groups


def prices_data(group: list[dict[str, Any]]) -> dict[str, Any]:
    """An event's `data`: its first prices, and how many more there were."""
    data: dict[str, Any] = {"prices": [price_line(r) for r in group[:MAX_PRICES_PER_EVENT]]}
    if len(group) > MAX_PRICES_PER_EVENT:
        data["more_prices"] = len(group) - MAX_PRICES_PER_EVENT
    return data
