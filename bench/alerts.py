"""Alert evaluation after a refresh: 10,000 subscriptions (mixed kinds, 500 saved profiles) against a
refresh that changes 5% of ~2,500 prices.

Prints the evaluation time (target: under 10 s on a 2-core machine), the share spent re-planning the
saved profiles, and two baselines measured in the same run: the floor (reading the two snapshots and
computing the price changes, which every evaluation must do) and the full plan analysis of one profile
(`make_plan`), to show what re-planning only the mix (`solve_core`) saves.

Run: python bench/alerts.py [--subscriptions 10000] [--profiles 500] [--database-url URL]
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import logging
import statistics
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import numpy as np
from sqlalchemy import insert

from pricing.catalog import bundled_catalog
from pricing.live import LiveCatalog
from pricing.observation import FetchResult, PriceObservation
from pricing.refresh import ingest
from service.alerts.evaluate import evaluate_pending, pending_snapshots
from service.alerts.plan_watch import plan_summary
from service.alerts.price_changes import price_changes
from service.alerts.tables import Subscription
from service.core.db import make_engine, migrate
from service.profiles.tables import SavedProfile
from solvers.base.fields import WORKLOADS
from solvers.base.profile import Profile
from solvers.plan import make_plan

NOW = dt.datetime(2026, 11, 21, 12, 0, tzinfo=dt.UTC)
SOURCE = "quotes:bench"


def price_universe(rng: np.random.Generator, copies: int) -> list[PriceObservation]:
    """The bundled cloud offers in `copies` regions each, and the bundled hardware prices."""
    base = bundled_catalog()
    rows = []
    for r in base.cloud.itertuples(index=False):
        for copy in range(copies):
            rows.append(PriceObservation(
                source=SOURCE, kind="cloud", gpu=r.gpu, gpu_count=int(r.gpu_count), name=r.name,
                usd=round(float(r.usd_per_hour) * rng.uniform(0.9, 1.3), 4), observed_at=NOW, provider=r.provider,
                region=r.region if copy == 0 else f"{r.region}-{copy}", pricing=r.pricing, reference="bench"))
    for h in base.hardware.itertuples(index=False):
        rows.append(PriceObservation(
            source=SOURCE, kind=h.condition, gpu=h.gpu, gpu_count=int(h.gpus_per_unit), name=h.name,
            usd=float(h.unit_price_usd), observed_at=NOW, provider=h.vendor, pricing="list",
            includes_host=bool(h.includes_host), reference="bench"))
    return rows


def changed(rows: list[PriceObservation], share: float, rng: np.random.Generator) -> list[PriceObservation]:
    picked = set(rng.choice(len(rows), int(share * len(rows)), replace=False).tolist())
    return [dataclasses.replace(r, usd=round(r.usd * rng.uniform(0.75, 1.2), 4),
                                observed_at=NOW + dt.timedelta(hours=1)) if i in picked else r
            for i, r in enumerate(rows)]


def profiles(n: int, rng: np.random.Generator) -> list[dict[str, Any]]:
    out = []
    for i in range(n):
        out.append({
            "workload": WORKLOADS[i % len(WORKLOADS)],
            "min_gpu_memory_gb": int(rng.choice([0, 16, 24, 40, 80])),
            "demand": {"gpus": int(rng.choice([1, 2, 4, 8])), "utilisation": round(float(rng.uniform(0.05, 0.9)), 3),
                       "reference_gpu": "RTX 3090", "start": "2027-01-01"},
            "horizon_months": int(rng.choice([12, 24, 36])),
            "electricity_usd_per_kwh": round(float(rng.uniform(0.08, 0.35)), 3),
            "options": {"allow_spot": bool(rng.random() < 0.3), "allow_used": bool(rng.random() < 0.7)},
        })
    return out


def subscriptions(n: int, profile_ids: list[str], baselines: dict[str, dict[str, Any]],
                  rows: list[PriceObservation], rng: np.random.Generator) -> list[dict[str, Any]]:
    per_gpu: dict[tuple[str, str], list[float]] = {}
    for r in rows:
        per_gpu.setdefault((r.gpu, r.kind), []).append(r.usd / r.gpu_count)
    keys = sorted(per_gpu)
    subs = []
    for i in range(n):
        sub_id, target = str(uuid.uuid4()), "https://lab.example/hook"
        common = {"id": sub_id, "name": f"bench {i}", "channel": "webhook", "target": target, "secret": "s",
                  "status": "active", "status_reason": None, "failed_events": 0, "created_at": NOW, "updated_at": NOW}
        if i < len(profile_ids):
            pid = profile_ids[i]
            subs.append({**common, "kind": "plan_change", "gpu": None, "price_kind": None, "profile_id": pid,
                         "condition": {"type": "plan_change", "profile_id": pid,
                                       "cost_move_pct": float(rng.choice([1, 2, 5, 10]))},
                         "baseline": baselines[pid]})
            continue
        gpu, kind = keys[int(rng.integers(len(keys)))]
        if i % 2:
            line = float(np.median(per_gpu[(gpu, kind)])) * float(rng.uniform(0.7, 1.1))
            condition = {"type": "price_threshold", "gpu": gpu, "kind": kind, "below_usd": round(line, 4)}
        else:
            condition = {"type": "price_move", "gpu": gpu, "kind": kind, "move_pct": float(rng.choice([2, 5, 10, 20]))}
        subs.append({**common, "kind": condition["type"], "gpu": gpu, "price_kind": kind, "profile_id": None,
                     "condition": condition, "baseline": None})
    return subs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--subscriptions", type=int, default=10_000)
    parser.add_argument("--profiles", type=int, default=500)
    parser.add_argument("--copies", type=int, default=8, help="regions per bundled cloud offer")
    parser.add_argument("--database-url", default=None)
    args = parser.parse_args()
    logging.disable(logging.INFO)
    rng = np.random.default_rng(11)
    with tempfile.TemporaryDirectory() as tmp:
        url = args.database_url or f"sqlite:///{Path(tmp) / 'bench.db'}"
        migrate(url)
        engine = make_engine(url)
        rows = price_universe(rng, args.copies)
        ingest(engine, SOURCE, FetchResult(rows, rows_seen=len(rows)), NOW, "bench", None, time.monotonic())
        catalog = LiveCatalog(engine, bundled_catalog())
        evaluate_pending(engine, catalog, NOW)  # the first snapshot is not news

        started = time.perf_counter()
        bodies = profiles(args.profiles, rng)
        ids = [str(uuid.uuid4()) for _ in bodies]
        baselines = {pid: plan_summary(Profile.model_validate(body), catalog(), NOW.date())
                     for pid, body in zip(ids, bodies, strict=True)}
        with engine.begin() as conn:
            conn.execute(insert(SavedProfile), [{"id": pid, "name": f"p{i}", "version": 1, "profile": body,
                                                 "created_at": NOW, "updated_at": NOW}
                                                for i, (pid, body) in enumerate(zip(ids, bodies, strict=True))])
            conn.execute(insert(Subscription), subscriptions(args.subscriptions, ids, baselines, rows, rng))
        setup_s = time.perf_counter() - started

        ingest(engine, SOURCE, FetchResult(changed(rows, 0.05, rng), rows_seen=len(rows)), NOW + dt.timedelta(hours=1),
               "bench", None, time.monotonic())
        floor = []
        for _ in range(3):
            t0 = time.perf_counter()
            with engine.connect() as conn:
                diff = price_changes(conn, pending_snapshots(conn))
            floor.append(time.perf_counter() - t0)
        report = evaluate_pending(engine, catalog, NOW + dt.timedelta(hours=1))

        sample = Profile.model_validate(bodies[0])
        full = []
        for _ in range(5):
            t0 = time.perf_counter()
            make_plan(sample, catalog(), NOW.date())
            full.append(time.perf_counter() - t0)

    per_profile_ms = 1000 * report.replan_s / max(report.profiles_replanned, 1)
    print(f"prices: {len(rows)} ({len(diff)} changed, 5%); subscriptions: {args.subscriptions} "
          f"({args.profiles} plan-change on {args.profiles} saved profiles, the rest half price-threshold, "
          f"half price-move); setup {setup_s:.1f} s")
    print(f"evaluation after the refresh: {report.total_s:.2f} s (target < 10 s): {report.events} events, "
          f"{report.subscriptions_matched} subscriptions matched")
    print(f"re-planning {report.profiles_replanned} profiles: {report.replan_s:.2f} s "
          f"({100 * report.replan_s / report.total_s:.0f}% of the evaluation; {per_profile_ms:.1f} ms per profile)")
    floor_s = statistics.median(floor)
    price_part = report.total_s - report.replan_s
    print(f"baseline (read both snapshots, compute changes): {1000 * floor_s:.0f} ms; price subscriptions + writes "
          f"took {price_part:.2f} s = {price_part / floor_s:.1f}x that floor")
    print(f"baseline (full make_plan of one profile, with break-even analysis): {1000 * statistics.median(full):.1f} ms"
          f" = {statistics.median(full) * 1000 / per_profile_ms:.1f}x the mix-only re-plan")
    print(f"under 10 s: {'yes' if report.total_s < 10 else 'NO'}")


if __name__ == "__main__":
    main()
