"""What the pending snapshots changed: each price that is new, different or gone, against the previous snapshot of
its source, as one table.

Separate from the matching (`price_rules.py`, `plan_rules.py`) because it only reads stored prices: it knows
nothing of subscriptions, and the benchmark (bench/alerts.py) times it alone.
"""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd
from sqlalchemy import select
from sqlalchemy.engine import Connection

from pricing.storage import PriceObservationRow, PriceSnapshot

KEY_COLUMNS = ["kind", "provider", "name", "region", "pricing", "gpu", "gpu_count"]


def _previous_snapshot(conn: Connection, source: str, before: int) -> int | None:
    s = PriceSnapshot.__table__
    found = conn.execute(select(s.c.id).where(s.c.source == source, s.c.id < before)
                         .order_by(s.c.id.desc()).limit(1)).scalar()
    return None if found is None else int(found)


def _prices(conn: Connection, snapshot_ids: Iterable[int]) -> pd.DataFrame:
    t = PriceObservationRow.__table__
    query = select(t.c.snapshot_id, t.c.source, *(t.c[c] for c in KEY_COLUMNS), t.c.usd, t.c.observed_at) \
        .where(t.c.snapshot_id.in_(list(snapshot_ids)))
    return pd.DataFrame(conn.execute(query).mappings().all(),
                        columns=["snapshot_id", "source", *KEY_COLUMNS, "usd", "observed_at"])


def price_changes(conn: Connection, pending: list[tuple[int, str]]) -> pd.DataFrame:
    """One row per price that is new, different or gone in the pending snapshots, with its previous per-GPU price.

    A price that changed in two pending snapshots of a source counts once: from before the first to after
    the last. A price that disappeared has `removed` set (it is no price news, but it can change a plan).
    """
    previous = {sid: (source, _previous_snapshot(conn, source, sid)) for sid, source in pending}
    frame = _prices(conn, {*previous, *(p for _, p in previous.values() if p is not None)})
    frame["usd_per_gpu"] = frame["usd"] / frame["gpu_count"].clip(lower=1)
    parts = []
    for sid, (source, before) in previous.items():
        new = frame[frame["snapshot_id"] == sid]
        old = frame[frame["snapshot_id"] == before][[*KEY_COLUMNS, "usd_per_gpu"]]
        merged = new.merge(old.rename(columns={"usd_per_gpu": "previous_usd_per_gpu"}), on=KEY_COLUMNS, how="outer",
                           indicator=True)
        merged["removed"] = merged.pop("_merge") == "right_only"
        merged.loc[merged["removed"], ["snapshot_id", "source"]] = [sid, source]
        parts.append(merged[merged["previous_usd_per_gpu"].isna() | merged["removed"]
                            | (merged["previous_usd_per_gpu"] != merged["usd_per_gpu"])])
    columns = [*frame.columns, "previous_usd_per_gpu", "removed"]
    changed = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=columns)
    if changed.empty:
        return pd.DataFrame(columns=[*columns, "price_key", "change_pct"])
    changed = changed.sort_values("snapshot_id", kind="stable")
    # the price before the first change, NaN ("new") included: groupby().first() would skip a NaN
    firsts = changed.drop_duplicates(["source", *KEY_COLUMNS], keep="first") \
        .set_index(["source", *KEY_COLUMNS])["previous_usd_per_gpu"]
    changed = changed.drop_duplicates(["source", *KEY_COLUMNS], keep="last").set_index(["source", *KEY_COLUMNS])
    changed["previous_usd_per_gpu"] = firsts
    changed = changed.reset_index()
    prev = changed["previous_usd_per_gpu"]
    changed = changed[prev.isna() | (prev != changed["usd_per_gpu"])]  # back where it was: no change
    changed["price_key"] = changed[KEY_COLUMNS].astype(str).agg("|".join, axis=1)
    prev = changed["previous_usd_per_gpu"]
    changed["change_pct"] = (100.0 * (changed["usd_per_gpu"] - prev) / prev).round(2)
    return changed.reset_index(drop=True)
