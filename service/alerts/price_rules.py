"""Price subscriptions matched against the changed prices: a price crossing a threshold (`price_threshold`) and a
price moving more than a percentage from the last alert's price (`price_move`).

Set-based: the subscriptions a change can touch are selected by GPU in one query per kind and matched with a
join, never one query per subscription. Separate from the plan-change rule (`plan_rules.py`), which re-plans
profiles instead of comparing prices.
"""

from __future__ import annotations

import datetime as dt
import fnmatch
from typing import Any

import numpy as np
import pandas as pd
from sqlalchemy import select
from sqlalchemy.engine import Connection

from service.alerts.event_records import Writes, by_subscription, event, place, prices_data, unit, where
from service.alerts.tables import PriceBaseline, Subscription


def _subscriptions(conn: Connection, kind: str, gpus: list[str]) -> pd.DataFrame:
    t = Subscription.__table__
    rows = conn.execute(select(t.c.id, t.c.name, t.c.condition, t.c.gpu, t.c.price_kind)
                        .where(t.c.status == "active", t.c.kind == kind, t.c.gpu.in_(gpus))).mappings().all()
    subs = pd.DataFrame(rows, columns=["id", "name", "condition", "gpu", "price_kind"])
    return subs.rename(columns={"id": "subscription_id", "name": "subscription_name", "price_kind": "want_kind"})


def _condition_column(subs: pd.DataFrame, name: str) -> list[Any]:
    return [c.get(name) for c in subs["condition"]]


def _matches_filters(rows: pd.DataFrame) -> pd.Series:
    """Kind, pricing, providers and region patterns of each row's subscription (rows are already few)."""
    keep = rows["want_kind"].isna() | (rows["want_kind"] == rows["kind"])
    want_pricing = pd.Series(_condition_column(rows, "pricing"), index=rows.index)
    keep &= want_pricing.isna() | (want_pricing == rows["pricing"])
    providers = _condition_column(rows, "providers")
    regions = _condition_column(rows, "regions")
    extra = [
        (p is None or provider.lower() in {x.lower() for x in p})
        and (r is None or any(fnmatch.fnmatch(region.lower(), pattern.lower()) for pattern in r))
        for p, r, provider, region in zip(providers, regions, rows["provider"], rows["region"], strict=True)
    ]
    return keep & pd.Series(extra, index=rows.index, dtype=bool)


def _joined(conn: Connection, kind: str, changes: pd.DataFrame, numbers: tuple[str, ...]) -> pd.DataFrame:
    """The changed prices joined with the active subscriptions of `kind` on GPU; `numbers` are condition
    fields made columns (NaN where a subscription has none)."""
    subs = _subscriptions(conn, kind, sorted(changes["gpu"].unique()))
    for name in numbers:
        values = pd.Series(_condition_column(subs, name), index=subs.index, dtype=object)
        subs[name] = pd.to_numeric(values, errors="coerce")
    return changes.merge(subs, on="gpu")


def threshold_events(conn: Connection, changes: pd.DataFrame, dedupe_key: str, now: dt.datetime,
                     writes: Writes) -> int:
    """Events for the `price_threshold` subscriptions a changed price crossed (from at or above `below_usd` to
    under it, or from at or under `above_usd` to over it; a new price counts as crossing); how many matched."""
    rows = _joined(conn, "price_threshold", changes, ("below_usd", "above_usd"))
    rows = rows.rename(columns={"below_usd": "below", "above_usd": "above"})
    new, prev = rows["usd_per_gpu"], rows["previous_usd_per_gpu"]
    crossed = ((rows["below"].notna() & (new < rows["below"]) & (prev.isna() | (prev >= rows["below"])))
               | (rows["above"].notna() & (new > rows["above"]) & (prev.isna() | (prev <= rows["above"]))))
    rows = rows[crossed]
    rows = rows[_matches_filters(rows)]
    # cheapest first under a line, dearest first over one
    groups = by_subscription(rows, lambda r: r["usd_per_gpu"] if pd.notna(r["below"]) else -r["usd_per_gpu"])
    for sub_id, group in groups.items():
        best = group[0]
        line, word = (best["below"], "under") if pd.notna(best["below"]) else (best["above"], "over")
        per = unit(best["kind"])
        if len(group) == 1:
            summary = f"{where(best)} is now {best['usd_per_gpu']:,.2f} {per}, {word} {line:,.2f}"
        else:
            summary = (f"{len(group)} {best['gpu']} prices are now {word} {line:,.2f} {per}; "
                       f"{'cheapest' if word == 'under' else 'highest'}: {where(best)} at {best['usd_per_gpu']:,.2f}")
        writes.events.append(event(sub_id, best["subscription_name"], "price.threshold", summary,
                                   prices_data(group), dedupe_key, now))
    return len(groups)


def _baselines(conn: Connection, subscription_ids: list[str]) -> pd.DataFrame:
    b, s = PriceBaseline.__table__, Subscription.__table__
    query = (select(b.c.subscription_id, b.c.price_key, b.c.usd_per_gpu.label("baseline"))
             .join(s, s.c.id == b.c.subscription_id)
             .where(s.c.kind == "price_move", s.c.status == "active", b.c.subscription_id.in_(subscription_ids)))
    return pd.DataFrame(conn.execute(query).mappings().all(), columns=["subscription_id", "price_key", "baseline"])


def move_events(conn: Connection, changes: pd.DataFrame, dedupe_key: str, now: dt.datetime,
                writes: Writes) -> int:
    """Events for the `price_move` subscriptions whose price moved more than `move_pct` from its baseline (the
    price of the last alert, else the previous price), and the baselines they move; how many matched."""
    rows = _joined(conn, "price_move", changes, ("move_pct",))
    rows = rows[_matches_filters(rows)]
    if rows.empty:
        return 0
    rows = rows.merge(_baselines(conn, sorted(rows["subscription_id"].unique())),
                      on=["subscription_id", "price_key"], how="left")
    base = rows["baseline"].fillna(rows["previous_usd_per_gpu"])
    moved = 100.0 * (rows["usd_per_gpu"] - base) / base
    fire = base.notna() & (moved.abs() > rows["move_pct"])
    # the baseline is the price of the last alert; a price seen for the first time starts one
    starts = rows[fire | rows["baseline"].isna()]
    start_usd = np.where(fire[starts.index] | base[starts.index].isna(), starts["usd_per_gpu"], base[starts.index])
    writes.baselines.update(zip(zip(starts["subscription_id"].astype(str), starts["price_key"].astype(str),
                                    strict=True), start_usd.astype(float).tolist(), strict=True))
    fired = rows[fire].assign(previous_usd_per_gpu=base[fire], change_pct=moved[fire].round(2))
    groups = by_subscription(fired, lambda r: -abs(r["change_pct"]))
    for sub_id, group in groups.items():
        top = group[0]
        per = unit(top["kind"])
        if len(group) == 1:
            summary = f"{where(top)} moved {top['change_pct']:+.1f}% to {top['usd_per_gpu']:,.2f} {per}"
        else:
            summary = (f"{len(group)} {top['gpu']} prices moved more than {top['move_pct']:g}%; largest: "
                       f"{top['change_pct']:+.1f}% at {place(top)}, now {top['usd_per_gpu']:,.2f} "
                       f"{per}")
        writes.events.append(event(sub_id, top["subscription_name"], "price.move", summary, prices_data(group),
                                   dedupe_key, now))
    return len(groups)
