"""Price history: every stored observation of a GPU, as a table (one row per price per refresh).

The bundled snapshot's rows can be included as the first points of each series (dated by their `as_of`),
so a chart starts where the embedded data starts rather than at the first live refresh.
"""

from __future__ import annotations

import datetime as dt

import pandas as pd
from sqlalchemy import Engine, func, select

from pricing.catalog import Catalog
from pricing.storage import PriceObservationRow

HISTORY_COLUMNS = [
    "observed_at", "source", "kind", "provider", "name", "region", "pricing", "gpu", "gpu_count", "usd",
    "usd_per_gpu", "p10_usd", "listings", "snapshot_id",
]


def stored_history(engine: Engine, gpu: str, kind: str | None, provider: str | None = None,
                   pricing: str | None = None, since: dt.datetime | None = None,
                   until: dt.datetime | None = None, limit: int = 100_000) -> pd.DataFrame:
    o = PriceObservationRow.__table__
    query = select(o.c.observed_at, o.c.source, o.c.kind, o.c.provider, o.c.name, o.c.region, o.c.pricing, o.c.gpu,
                   o.c.gpu_count, o.c.usd, o.c.p10_usd, o.c.listings, o.c.snapshot_id).where(o.c.gpu == gpu)
    if kind is not None:
        query = query.where(o.c.kind == kind)
    if provider is not None:
        query = query.where(func.lower(o.c.provider) == provider.lower())
    if pricing is not None:
        query = query.where(o.c.pricing == pricing)
    if since is not None:
        query = query.where(o.c.observed_at >= since)
    if until is not None:
        query = query.where(o.c.observed_at <= until)
    query = query.order_by(o.c.observed_at.desc(), o.c.id.desc()).limit(limit)  # the newest rows within the limit
    with engine.connect() as conn:
        result = conn.execute(query)
        frame = pd.DataFrame(result.fetchall()[::-1], columns=list(result.keys()))
    frame["usd_per_gpu"] = frame["usd"] / frame["gpu_count"] if not frame.empty else pd.Series(dtype=float)
    return frame.reindex(columns=HISTORY_COLUMNS)


def snapshot_history(catalog: Catalog, gpu: str, kind: str | None, provider: str | None = None,
                     pricing: str | None = None) -> pd.DataFrame:
    """The bundled snapshot's rows for a GPU in the history layout (only bundled feeds, `snapshot/...`)."""
    frames = []
    if kind in (None, "cloud"):
        c = catalog.cloud[(catalog.cloud["gpu"] == gpu) & catalog.cloud["feed"].str.startswith("snapshot/")]
        if provider is not None:
            c = c[c["provider"].str.lower() == provider.lower()]
        if pricing is not None:
            c = c[c["pricing"] == pricing]
        frames.append(pd.DataFrame({
            "observed_at": pd.to_datetime(c["as_of"], utc=True), "source": c["feed"], "kind": "cloud",
            "provider": c["provider"], "name": c["name"], "region": c["region"], "pricing": c["pricing"],
            "gpu": c["gpu"], "gpu_count": c["gpu_count"], "usd": c["usd_per_hour"],
        }))
    if kind in (None, "new", "used") and pricing is None:
        h = catalog.hardware[(catalog.hardware["gpu"] == gpu) & catalog.hardware["feed"].str.startswith("snapshot/")]
        if kind is not None:
            h = h[h["condition"] == kind]
        if provider is not None:
            h = h[h["vendor"].str.lower() == provider.lower()]
        frames.append(pd.DataFrame({
            "observed_at": pd.to_datetime(h["as_of"], utc=True), "source": h["feed"], "kind": h["condition"],
            "provider": h["vendor"], "name": h["name"], "region": "", "pricing": "list", "gpu": h["gpu"],
            "gpu_count": h["gpus_per_unit"], "usd": h["unit_price_usd"],
        }))
    frames = [f for f in frames if not f.empty]
    if not frames:
        return pd.DataFrame(columns=HISTORY_COLUMNS)
    frame = pd.concat(frames, ignore_index=True)
    frame["usd_per_gpu"] = frame["usd"] / frame["gpu_count"]
    return frame.reindex(columns=HISTORY_COLUMNS)


def price_history(engine: Engine, catalog: Catalog, gpu: str, kind: str | None = None, provider: str | None = None,
                  pricing: str | None = None, since: dt.datetime | None = None, until: dt.datetime | None = None,
                  limit: int = 100_000, include_snapshot: bool = True) -> pd.DataFrame:
    """Every price of a GPU, oldest first: the bundled snapshot's rows (when asked), then each stored refresh,
    cut to the newest `limit` rows. What the history API returns and the history chart draws."""
    frames = [stored_history(engine, gpu, kind, provider, pricing, since, until, limit)]
    if include_snapshot:
        snap = snapshot_history(catalog, gpu, kind, provider, pricing)
        if since is not None:
            snap = snap[snap["observed_at"] >= since]
        if until is not None:
            snap = snap[snap["observed_at"] <= until]
        frames.insert(0, snap)
    frames = [f for f in frames if not f.empty]
    table = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=HISTORY_COLUMNS)
    return table.sort_values("observed_at", kind="stable").tail(limit)
