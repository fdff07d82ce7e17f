"""Evaluate subscriptions against what a refresh changed, and write the resulting events to the outbox.

Set-based: the changes of every snapshot not yet evaluated are one table; the subscriptions they can
touch are selected by GPU in one query per kind and matched with a join, never one query per
subscription. Saved profiles are re-planned once each, whatever number of subscriptions watch them.

Exactly once per change: evaluations run one at a time (a lock, across processes), and the events,
the baselines they move and the "evaluated" mark of each snapshot are written in one transaction,
guarded by the mark's primary key. A process killed before that commit leaves the snapshots pending
and they are evaluated again; killed after it, the events are in the outbox and are delivered later.
"""

from __future__ import annotations

import datetime as dt
import fnmatch
import logging
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from sqlalchemy import Engine, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from pricing.catalog import Catalog
from pricing.locks import try_lock
from pricing.storage import PriceObservationRow, PriceSnapshot
from service.alerts.plan_watch import (
    Replan,
    affected,
    cost_change_pct,
    plan_changes,
    plan_summary,
    public_summary,
)
from service.alerts.tables import AlertEvent, Evaluation, PriceBaseline, Subscription
from service.profiles.tables import SavedProfile
from solvers.base.profile import Profile

log = logging.getLogger(__name__)

KEY_COLUMNS = ["kind", "provider", "name", "region", "pricing", "gpu", "gpu_count"]
MAX_PRICES_PER_EVENT = 50
MAX_CAUSES_PER_PLAN_EVENT = 20


@dataclass
class EvaluationReport:
    snapshots: list[int] = field(default_factory=list)
    price_changes: int = 0
    events: int = 0
    subscriptions_matched: int = 0
    profiles_replanned: int = 0
    profiles_unaffected: int = 0  # no changed price could enter their plans: not re-planned
    replan_s: float = 0.0
    total_s: float = 0.0
    skipped: str | None = None


@dataclass
class _Writes:
    events: list[dict[str, Any]] = field(default_factory=list)
    baselines: dict[tuple[str, str], float] = field(default_factory=dict)
    plan_baselines: dict[str, dict[str, Any]] = field(default_factory=dict)


def pending_snapshots(conn: Connection) -> list[tuple[int, str]]:
    """Snapshots (id, source) whose changes no evaluation has looked at yet, oldest first."""
    s, e = PriceSnapshot.__table__, Evaluation.__table__
    query = (select(s.c.id, s.c.source).outerjoin(e, e.c.snapshot_id == s.c.id)
             .where(e.c.snapshot_id.is_(None)).order_by(s.c.id))
    return [(int(r.id), str(r.source)) for r in conn.execute(query)]


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


def _unit(kind: str) -> str:
    return "USD per GPU-hour" if kind == "cloud" else "USD per GPU"


def _place(row: dict[str, Any]) -> str:
    """Where a price is offered: `aws p5.48xlarge (us-east-1)` for cloud, the seller for hardware."""
    if row["kind"] != "cloud":
        return str(row["provider"])
    return f"{row['provider']} {row['name']}" + (f" ({row['region']})" if row["region"] else "")


def _where(row: dict[str, Any]) -> str:
    if row["kind"] == "cloud":
        return f"{row['gpu']} {row['pricing'].replace('_', '-')} at {_place(row)}"
    return f"{row['kind']} {row['gpu']} from {_place(row)}"


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
        "change_pct": _none(row["change_pct"]), "currency": "USD", "unit": _unit(row["kind"]), "source": row["source"],
        "observed_at": None if _none(row["observed_at"]) is None else _iso(row["observed_at"]),
        "removed": bool(row.get("removed", False)),
    }


def _event(subscription_id: str, name: str, type_: str, summary: str, data: dict[str, Any], dedupe_key: str,
           now: dt.datetime) -> dict[str, Any]:
    event_id = str(uuid.uuid4())
    payload = {"id": event_id, "type": type_, "created_at": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
               "subscription": {"id": subscription_id, "name": name}, "summary": summary, "data": data}
    return {"id": event_id, "subscription_id": subscription_id, "dedupe_key": dedupe_key, "type": type_,
            "payload": payload, "created_at": now, "status": "pending", "attempts": 0, "next_attempt_at": now}


def _by_subscription(rows: pd.DataFrame, order: Callable[[dict[str, Any]], float]) -> dict[str, list[dict[str, Any]]]:
    """Matched rows grouped per subscription, each group sorted by `order` (records once: no per-group frames)."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for record in rows.to_dict(orient="records"):
        groups.setdefault(str(record["subscription_id"]), []).append(record)
    for group in groups.values():
        group.sort(key=order)
    return groups


def _prices_data(group: list[dict[str, Any]]) -> dict[str, Any]:
    data: dict[str, Any] = {"prices": [price_line(r) for r in group[:MAX_PRICES_PER_EVENT]]}
    if len(group) > MAX_PRICES_PER_EVENT:
        data["more_prices"] = len(group) - MAX_PRICES_PER_EVENT
    return data


def _joined(conn: Connection, kind: str, changes: pd.DataFrame, numbers: tuple[str, ...]) -> pd.DataFrame:
    """The changed prices joined with the active subscriptions of `kind` on GPU; `numbers` are condition
    fields made columns (NaN where a subscription has none)."""
    subs = _subscriptions(conn, kind, sorted(changes["gpu"].unique()))
    for name in numbers:
        values = pd.Series(_condition_column(subs, name), index=subs.index, dtype=object)
        subs[name] = pd.to_numeric(values, errors="coerce")
    return changes.merge(subs, on="gpu")


def _threshold_events(conn: Connection, changes: pd.DataFrame, dedupe_key: str, now: dt.datetime,
                      writes: _Writes) -> int:
    rows = _joined(conn, "price_threshold", changes, ("below_usd", "above_usd"))
    rows = rows.rename(columns={"below_usd": "below", "above_usd": "above"})
    new, prev = rows["usd_per_gpu"], rows["previous_usd_per_gpu"]
    crossed = ((rows["below"].notna() & (new < rows["below"]) & (prev.isna() | (prev >= rows["below"])))
               | (rows["above"].notna() & (new > rows["above"]) & (prev.isna() | (prev <= rows["above"]))))
    rows = rows[crossed]
    rows = rows[_matches_filters(rows)]
    # cheapest first under a line, dearest first over one
    groups = _by_subscription(rows, lambda r: r["usd_per_gpu"] if pd.notna(r["below"]) else -r["usd_per_gpu"])
    for sub_id, group in groups.items():
        best = group[0]
        line, word = (best["below"], "under") if pd.notna(best["below"]) else (best["above"], "over")
        unit = _unit(best["kind"])
        if len(group) == 1:
            summary = f"{_where(best)} is now {best['usd_per_gpu']:,.2f} {unit}, {word} {line:,.2f}"
        else:
            summary = (f"{len(group)} {best['gpu']} prices are now {word} {line:,.2f} {unit}; "
                       f"{'cheapest' if word == 'under' else 'highest'}: {_where(best)} at {best['usd_per_gpu']:,.2f}")
        writes.events.append(_event(sub_id, best["subscription_name"], "price.threshold", summary,
                                    _prices_data(group), dedupe_key, now))
    return len(groups)


def _baselines(conn: Connection, subscription_ids: list[str]) -> pd.DataFrame:
    b, s = PriceBaseline.__table__, Subscription.__table__
    query = (select(b.c.subscription_id, b.c.price_key, b.c.usd_per_gpu.label("baseline"))
             .join(s, s.c.id == b.c.subscription_id)
             .where(s.c.kind == "price_move", s.c.status == "active", b.c.subscription_id.in_(subscription_ids)))
    return pd.DataFrame(conn.execute(query).mappings().all(), columns=["subscription_id", "price_key", "baseline"])


def _move_events(conn: Connection, changes: pd.DataFrame, dedupe_key: str, now: dt.datetime,
                 writes: _Writes) -> int:
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
    groups = _by_subscription(fired, lambda r: -abs(r["change_pct"]))
    for sub_id, group in groups.items():
        top = group[0]
        unit = _unit(top["kind"])
        if len(group) == 1:
            summary = f"{_where(top)} moved {top['change_pct']:+.1f}% to {top['usd_per_gpu']:,.2f} {unit}"
        else:
            summary = (f"{len(group)} {top['gpu']} prices moved more than {top['move_pct']:g}%; largest: "
                       f"{top['change_pct']:+.1f}% at {_place(top)}, now {top['usd_per_gpu']:,.2f} "
                       f"{unit}")
        writes.events.append(_event(sub_id, top["subscription_name"], "price.move", summary, _prices_data(group),
                                    dedupe_key, now))
    return len(groups)


def _plan_events(conn: Connection, changes: pd.DataFrame, catalog: Callable[[], Catalog], dedupe_key: str,
                 now: dt.datetime, writes: _Writes, report: EvaluationReport, replan: Replan) -> None:
    s, p = Subscription.__table__, SavedProfile.__table__
    subs = conn.execute(
        select(s.c.id, s.c.name, s.c.condition, s.c.baseline, s.c.profile_id, p.c.name.label("profile_name"),
               p.c.profile).join(p, p.c.id == s.c.profile_id)
        .where(s.c.status == "active", s.c.kind == "plan_change")).mappings().all()
    if not subs:
        return
    started = time.perf_counter()
    current = catalog()
    summaries = {}
    for profile_id, body in {r["profile_id"]: r["profile"] for r in subs}.items():
        profile = Profile.model_validate(body)
        if affected(profile, changes, current.gpus):
            replanned = replan(profile, current, now.date())
            if replanned is not None:  # None: not solved this time (the pool's budget); no news, baseline kept
                summaries[profile_id] = replanned
        else:
            report.profiles_unaffected += 1
    report.profiles_replanned = len(summaries)
    report.replan_s = time.perf_counter() - started
    for sub in subs:
        if sub["profile_id"] not in summaries:
            continue
        old, new = sub["baseline"] or {}, summaries[sub["profile_id"]]
        reasons = plan_changes(old, new, sub["condition"].get("cost_move_pct")) if old else []
        if not reasons:
            continue
        gpus = set(old.get("gpus", [])) | set(new.get("gpus", []))
        causes = changes[changes["gpu"].isin(gpus)]
        causes = causes.reindex(causes["change_pct"].abs().sort_values(ascending=False, na_position="first").index)
        moved = cost_change_pct(old, new)
        summary = f"The best plan for profile {sub['profile_name']!r} changed: {'; '.join(reasons)}"
        if moved is not None:
            summary += f"; total {old['total_cost_usd']:,.0f} -> {new['total_cost_usd']:,.0f} USD"
        data = {"profile": {"id": sub["profile_id"], "name": sub["profile_name"]}, "old": public_summary(old),
                "new": public_summary(new), "cost_change_pct": moved, "reasons": reasons,
                "prices": [price_line(r) for r in causes.head(MAX_CAUSES_PER_PLAN_EVENT).to_dict(orient="records")]}
        writes.events.append(_event(sub["id"], sub["name"], "plan.change", summary, data, dedupe_key, now))
        writes.plan_baselines[sub["id"]] = new
        report.subscriptions_matched += 1


def _upsert_baselines(conn: Connection, values: list[dict[str, Any]]) -> None:
    if not values:
        return
    dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
    stmt = dialect.insert(PriceBaseline)
    conn.execute(stmt.on_conflict_do_update(index_elements=["subscription_id", "price_key"],
                                            set_={"usd_per_gpu": stmt.excluded.usd_per_gpu}), values)


def _write(engine: Engine, pending: list[tuple[int, str]], writes: _Writes, now: dt.datetime) -> bool:
    """Everything the evaluation decided, in one transaction; False when another evaluation got there first."""
    s = Subscription.__table__
    wanted = ({e["subscription_id"] for e in writes.events} | {k[0] for k in writes.baselines}
              | set(writes.plan_baselines))
    try:
        with engine.begin() as conn:
            alive = {r[0] for r in conn.execute(select(s.c.id).where(s.c.id.in_(sorted(wanted))))} if wanted else set()
            events = [e for e in writes.events if e["subscription_id"] in alive]
            conn.execute(insert(Evaluation), [{"snapshot_id": sid, "evaluated_at": now, "events": len(events)}
                                              for sid, _ in pending])
            if events:
                conn.execute(insert(AlertEvent), events)
            _upsert_baselines(conn, [{"subscription_id": k[0], "price_key": k[1], "usd_per_gpu": v}
                                     for k, v in writes.baselines.items() if k[0] in alive])
            for sub_id, baseline in writes.plan_baselines.items():
                if sub_id in alive:
                    conn.execute(update(Subscription).where(s.c.id == sub_id).values(baseline=baseline))
    except IntegrityError:
        log.info("alert evaluation of snapshots %s already done by another process", [p for p, _ in pending])
        return False
    return True


def evaluate_pending(engine: Engine, catalog: Callable[[], Catalog], now: dt.datetime,
                     replan: Replan = plan_summary) -> EvaluationReport:
    """Evaluate every snapshot not yet evaluated; the events land in the outbox for the delivery worker.
    `replan` gives a watched profile's plan summary (in the API process: through the plan pool)."""
    started = time.perf_counter()
    report = EvaluationReport()
    with try_lock(engine, "alerts:evaluate") as got:
        if not got:
            report.skipped = "another evaluation is running"
            return report
        with engine.connect() as conn:
            pending = pending_snapshots(conn)
            if not pending:
                return report
            changes = price_changes(conn, pending)
            writes = _Writes()
            dedupe_key = f"snapshots:{pending[0][0]}-{pending[-1][0]}"
            offered = changes[~changes["removed"].astype(bool)]
            if not offered.empty:
                report.subscriptions_matched += _threshold_events(conn, offered, dedupe_key, now, writes)
                report.subscriptions_matched += _move_events(conn, offered, dedupe_key, now, writes)
            if not changes.empty:
                _plan_events(conn, changes, catalog, dedupe_key, now, writes, report, replan)
        report.snapshots = [sid for sid, _ in pending]
        report.price_changes = len(changes)
        if _write(engine, pending, writes, now):
            report.events = len(writes.events)
    report.total_s = time.perf_counter() - started
    return report
